import fc from 'fast-check';
import { filenameBase, randomSuffix, storedFilename } from './image-filename.js';

/** Stored filenames: `<base>-<6 random chars>.<ext>`, only [A-Za-z0-9._-] (docs/rules.md#images). */

describe('filenameBase', () => {
  it.each<[string | undefined, string]>([
    [undefined, 'image'],
    ['', 'image'],
    ['photo.jpg', 'photo'],
    ['photo', 'photo'],
    ['my photo (1).PNG', 'myphoto1'],
    ['archive.tar.gz', 'archive.tar'],
    ['C:\\Users\\me\\shoe.gif', 'shoe'],
    ['../../etc/passwd', 'passwd'],
    ['.hidden', 'hidden'],
    ['..png', 'image'],
    ['...', 'image'],
    ['é€ü.png', 'image'],
    ['snake_case-name.v2.jpeg', 'snake_case-name.v2'],
    ['a'.repeat(300), 'a'.repeat(100)],
  ])('%s → %s', (requested, expected) => {
    expect(filenameBase(requested)).toBe(expected);
  });
});

describe('storedFilename', () => {
  it('appends the suffix and the extension of the image type', () => {
    expect(storedFilename('shoe.png', 'image/jpeg', 'AbC123')).toBe('shoe-AbC123.jpg');
    expect(storedFilename(undefined, 'image/png', 'zzzzzz')).toBe('image-zzzzzz.png');
    expect(storedFilename('x.gif', 'image/gif', '000000')).toBe('x-000000.gif');
  });

  it('random suffixes are six characters of [A-Za-z0-9] and differ', () => {
    const suffixes = new Set(Array.from({ length: 50 }, () => randomSuffix()));
    for (const suffix of suffixes) expect(suffix).toMatch(/^[A-Za-z0-9]{6}$/);
    expect(suffixes.size).toBeGreaterThan(45);
  });

  it('property: any requested name gives <base>-<6>.<ext> with only [A-Za-z0-9._-], no leading dot', () => {
    fc.assert(
      fc.property(fc.option(fc.string({ maxLength: 400 }), { nil: undefined }), fc.constantFrom('image/jpeg', 'image/png', 'image/gif' as const), (requested, type) => {
        const name = storedFilename(requested, type);
        return /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}-[A-Za-z0-9]{6}\.(jpg|png|gif)$/.test(name);
      }),
    );
  });
});

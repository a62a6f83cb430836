import fc from 'fast-check';
import { gif, jpeg, png } from '../../test/support/image-bytes.js';
import { detectImageType, hasSignature, IMAGE_TYPES, type ImageType, parseImageType, readDimensions } from './image-format.js';

/** Content-Type parsing, signature checks and dimensions of the three formats. */

describe('parseImageType', () => {
  it.each<[string | undefined, ImageType | undefined]>([
    ['image/png', 'image/png'],
    ['image/jpeg', 'image/jpeg'],
    ['image/gif', 'image/gif'],
    ['IMAGE/PNG', 'image/png'],
    ['image/png; charset=binary', 'image/png'],
    [' image/gif ;x=y', 'image/gif'],
    ['image/jpg', undefined],
    ['image/webp', undefined],
    ['image/svg+xml', undefined],
    ['text/plain', undefined],
    ['application/octet-stream', undefined],
    ['multipart/form-data; boundary=x', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%s → %s', (header, expected) => {
    expect(parseImageType(header)).toBe(expected);
  });
});

describe('hasSignature / detectImageType', () => {
  const files: [ImageType, Buffer][] = [
    ['image/png', png()],
    ['image/jpeg', jpeg()],
    ['image/gif', gif()],
    ['image/gif', Buffer.concat([Buffer.from('GIF87a', 'latin1'), gif().subarray(6)])],
  ];

  it.each(files)('a real %s file has its own signature and no other', (type, bytes) => {
    expect(detectImageType(bytes)).toBe(type);
    for (const other of IMAGE_TYPES) expect(hasSignature(other, bytes)).toBe(other === type);
  });

  it.each<[string, Buffer]>([
    ['empty', Buffer.alloc(0)],
    ['text', Buffer.from('hello, this is not an image\n')],
    ['a PNG cut inside its signature', png().subarray(0, 7)],
    ['a JPEG start without the marker byte', Buffer.from([0xff, 0xd8, 0x00])],
    ['GIF90a', Buffer.from('GIF90a', 'latin1')],
    ['a BMP', Buffer.from('BM\x00\x00\x00\x00', 'latin1')],
  ])('%s matches no format', (_name, bytes) => {
    expect(detectImageType(bytes)).toBeUndefined();
  });

  it('property: bytes that do not start with a signature never match', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const type = detectImageType(bytes);
        if (type === undefined) return IMAGE_TYPES.every((t) => !hasSignature(t, bytes));
        return hasSignature(type, bytes) && IMAGE_TYPES.filter((t) => hasSignature(t, bytes)).length === 1;
      }),
    );
  });

  it('property: a signature followed by anything matches its format', () => {
    const starts: [ImageType, Buffer][] = [
      ['image/png', png().subarray(0, 8)],
      ['image/jpeg', Buffer.from([0xff, 0xd8, 0xff])],
      ['image/gif', Buffer.from('GIF89a', 'latin1')],
    ];
    fc.assert(
      fc.property(fc.constantFrom(...starts), fc.uint8Array({ maxLength: 64 }), ([type, start], rest) => {
        return detectImageType(Buffer.concat([start, rest])) === type;
      }),
    );
  });
});

describe('readDimensions', () => {
  it.each<[ImageType, (w: number, h: number) => Buffer]>([
    ['image/png', png],
    ['image/jpeg', jpeg],
    ['image/gif', gif],
  ])('%s: the dimensions the file states', (type, make) => {
    for (const [w, h] of [[1, 1], [3, 2], [17, 9], [300, 200]]) {
      expect(readDimensions(type, make(w, h))).toEqual({ width: w, height: h });
    }
  });

  it('undefined for a file that is not of the declared type', () => {
    expect(readDimensions('image/png', gif())).toBeUndefined();
    expect(readDimensions('image/gif', jpeg())).toBeUndefined();
  });

  it('undefined for a truncated or corrupt file with the right signature', () => {
    expect(readDimensions('image/png', png().subarray(0, 12))).toBeUndefined();
    expect(readDimensions('image/jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00]))).toBeUndefined();
    expect(readDimensions('image/gif', Buffer.from('GIF89a', 'latin1'))).toBeUndefined();
  });

  it('a truncated file never reads what follows it in memory', () => {
    for (const [type, file] of [['image/png', png(40, 30)], ['image/gif', gif(40, 30)], ['image/jpeg', jpeg(40, 30)]] as const) {
      // The file's first bytes as a view into a buffer that holds the whole file: only the view counts.
      for (let cut = 1; cut < Math.min(file.length, 200); cut++) {
        const view = file.subarray(0, cut);
        expect(readDimensions(type, view)).toEqual(readDimensions(type, new Uint8Array(view)));
      }
    }
    const header = png(40, 30).subarray(0, 20);
    const memory = Buffer.concat([header, png(40, 30).subarray(20)]);
    expect(readDimensions('image/png', memory.subarray(0, 20))).toBeUndefined();
  });

  it('property: never throws, whatever follows a signature', () => {
    fc.assert(
      fc.property(fc.constantFrom(...IMAGE_TYPES), fc.uint8Array({ maxLength: 200 }), (type, rest) => {
        const head = { 'image/png': png().subarray(0, 8), 'image/jpeg': Buffer.from([0xff, 0xd8, 0xff]), 'image/gif': Buffer.from('GIF89a', 'latin1') }[type];
        const dims = readDimensions(type, Buffer.concat([head, rest]));
        return dims === undefined || (dims.width >= 1 && dims.height >= 1);
      }),
    );
  });
});

import fc from 'fast-check';
import { declaring, gif, jpeg, png } from '../../test/support/image-bytes.js';
import { detectImageType, dimensionsProblem, hasSignature, IMAGE_TYPES, type ImageType, parseImageType, readDimensions } from './image-format.js';

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
        return dims === undefined || (Number.isInteger(dims.width) && Number.isInteger(dims.height) && dims.width >= 0 && dims.height >= 0);
      }),
    );
  });
});

describe('dimensionsProblem (a header declaring more than the limits)', () => {
  const limits = { maxDimension: 20_000, maxPixels: 100_000_000 };

  it.each<[ImageType, number, number]>([
    ['image/png', 4_294_967_295, 4_294_967_295],
    ['image/png', 20_000, 20_000],
    ['image/png', 20_001, 1],
    ['image/png', 0, 1],
    ['image/png', 20_000, 5_000],
    ['image/jpeg', 65_535, 65_535],
    ['image/jpeg', 1, 20_001],
    ['image/jpeg', 20_000, 5_000],
    ['image/gif', 65_535, 1],
    ['image/gif', 1, 0],
    ['image/gif', 12_000, 12_000],
    ['image/gif', 10_000, 10_000],
  ])('%s declaring %d×%d: read from the header as declared', (type, width, height) => {
    expect(readDimensions(type, declaring(type, width, height))).toEqual({ width, height });
  });

  it.each([
    [0, 1, 'The image declares 0×1 pixels: its width and height must be at least 1.'],
    [1, 0, 'The image declares 1×0 pixels: its width and height must be at least 1.'],
    [4_294_967_295, 4_294_967_295, 'The image declares 4294967295×4294967295 pixels: its width and height may be at most 20000 (IMAGES_MAX_DIMENSION).'],
    [20_001, 1, 'The image declares 20001×1 pixels: its width and height may be at most 20000 (IMAGES_MAX_DIMENSION).'],
    [1, 20_001, 'The image declares 1×20001 pixels: its width and height may be at most 20000 (IMAGES_MAX_DIMENSION).'],
    [20_000, 20_000, 'The image declares 20000×20000 pixels: at most 100000000 pixels are accepted (IMAGES_MAX_PIXELS).'],
    [10_001, 10_000, 'The image declares 10001×10000 pixels: at most 100000000 pixels are accepted (IMAGES_MAX_PIXELS).'],
  ])('%d×%d refused', (width, height, message) => {
    expect(dimensionsProblem({ width, height }, limits)).toBe(message);
  });

  it.each([
    [1, 1],
    [20_000, 5_000],
    [5_000, 20_000],
    [10_000, 10_000],
    [20_000, 1],
  ])('%d×%d accepted (at the limits)', (width, height) => {
    expect(dimensionsProblem({ width, height }, limits)).toBeUndefined();
  });

  const side = fc.oneof(fc.nat({ max: 70_000 }), fc.nat({ max: 2 ** 32 - 1 }));
  it('property: accepted exactly when both sides are from 1 to maxDimension and the product at most maxPixels', () => {
    fc.assert(
      fc.property(side, side, fc.integer({ min: 1, max: 70_000 }), fc.integer({ min: 1, max: 2 ** 40 }), (width, height, maxDimension, maxPixels) => {
        const expected = width >= 1 && height >= 1 && width <= maxDimension && height <= maxDimension && BigInt(width) * BigInt(height) <= BigInt(maxPixels);
        expect(dimensionsProblem({ width, height }, { maxDimension, maxPixels }) === undefined).toBe(expected);
      }),
    );
  });
});

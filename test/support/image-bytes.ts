import { deflateSync } from 'node:zlib';

/**
 * Tiny, valid image files built in code (no fixtures on disk): a PNG, a baseline JPEG and a GIF of any
 * size, each decodable by an ordinary decoder. `padTo` grows a PNG to a given byte size with a standard
 * `tEXt` chunk, for size tests and benchmarks.
 */

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** An 8-bit grayscale PNG of `width` × `height` (a gradient), optionally padded to `padTo` bytes. */
export function png(width = 3, height = 2, options: { padTo?: number } = {}): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // grayscale
  const raw = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width + 1)] = 0; // filter: none
    for (let x = 0; x < width; x++) raw[y * (width + 1) + 1 + x] = (x * 37 + y * 11) & 0xff;
  }
  const head = Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr), pngChunk('IDAT', deflateSync(raw))]);
  const end = pngChunk('IEND', Buffer.alloc(0));
  const chunks: Buffer[] = [head];
  if (options.padTo !== undefined) {
    const keyword = Buffer.from('Comment\0', 'latin1');
    const fill = options.padTo - head.length - end.length - 12 - keyword.length;
    if (fill < 0) throw new Error(`cannot pad a PNG to ${options.padTo} bytes`);
    chunks.push(pngChunk('tEXt', Buffer.concat([keyword, Buffer.alloc(fill, 'x')])));
  }
  chunks.push(end);
  return Buffer.concat(chunks);
}

/**
 * A baseline grayscale JPEG of `width` × `height`, every pixel mid-gray: each 8×8 block is a DC
 * difference of 0 and an end-of-block, coded with one-symbol Huffman tables (one bit each).
 */
export function jpeg(width = 5, height = 4): Buffer {
  const segment = (marker: number, data: Buffer) => {
    const head = Buffer.from([0xff, marker, 0, 0]);
    head.writeUInt16BE(data.length + 2, 2);
    return Buffer.concat([head, data]);
  };
  const app0 = segment(0xe0, Buffer.from([0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0]));
  const dqt = segment(0xdb, Buffer.concat([Buffer.from([0x00]), Buffer.alloc(64, 1)]));
  const sof = Buffer.from([8, 0, 0, 0, 0, 1, 1, 0x11, 0]);
  sof.writeUInt16BE(height, 1);
  sof.writeUInt16BE(width, 3);
  const counts = (n: number) => Buffer.from([n, ...new Array(15).fill(0)]);
  const dhtDc = segment(0xc4, Buffer.concat([Buffer.from([0x00]), counts(1), Buffer.from([0x00])]));
  const dhtAc = segment(0xc4, Buffer.concat([Buffer.from([0x10]), counts(1), Buffer.from([0x00])]));
  const sos = segment(0xda, Buffer.from([1, 1, 0x00, 0, 63, 0]));
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  // Two zero bits per block (DC category 0, EOB), padded with one bits: 0x00 bytes and a final pad.
  const bits = blocks * 2;
  const data = Buffer.alloc(Math.ceil(bits / 8), 0);
  if (bits % 8 !== 0) data[data.length - 1] = 0xff >> (bits % 8);
  const stuffed = data[data.length - 1] === 0xff ? Buffer.concat([data, Buffer.from([0x00])]) : data;
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    app0,
    dqt,
    segment(0xc0, sof),
    dhtDc,
    dhtAc,
    sos,
    stuffed,
    Buffer.from([0xff, 0xd9]),
  ]);
}

/**
 * A GIF89a of `width` × `height`, every pixel color 0 of a two-color table. The LZW stream stays at
 * 3-bit codes by sending a clear code before the code table would grow past 8 entries.
 */
export function gif(width = 4, height = 3): Buffer {
  const header = Buffer.from('GIF89a', 'latin1');
  const screen = Buffer.from([0, 0, 0, 0, 0x80, 0, 0]); // global color table of 2 entries
  screen.writeUInt16LE(width, 0);
  screen.writeUInt16LE(height, 2);
  const colors = Buffer.from([0, 0, 0, 255, 255, 255]);
  const descriptor = Buffer.from([0x2c, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  descriptor.writeUInt16LE(width, 5);
  descriptor.writeUInt16LE(height, 7);
  const CLEAR = 4;
  const END = 5;
  const codes: number[] = [];
  for (let i = 0; i < width * height; i++) {
    if (i % 2 === 0) codes.push(CLEAR);
    codes.push(0);
  }
  codes.push(END);
  const packed: number[] = [];
  let buffer = 0;
  let count = 0;
  for (const code of codes) {
    buffer |= code << count;
    count += 3;
    while (count >= 8) {
      packed.push(buffer & 0xff);
      buffer >>= 8;
      count -= 8;
    }
  }
  if (count > 0) packed.push(buffer & 0xff);
  const blocks: number[] = [];
  for (let i = 0; i < packed.length; i += 255) {
    const block = packed.slice(i, i + 255);
    blocks.push(block.length, ...block);
  }
  return Buffer.concat([header, screen, colors, descriptor, Buffer.from([2, ...blocks, 0, 0x3b])]);
}

/**
 * A small file whose header declares `width` × `height` (any size its format can state, 0 included) over
 * the pixels of a 1×1 image: what a decompression bomb looks like to a server that reads headers. PNG
 * states up to 2^32 - 1 a side, JPEG and GIF up to 65,535.
 */
export function declaring(type: 'image/png' | 'image/jpeg' | 'image/gif', width: number, height: number): Buffer {
  switch (type) {
    case 'image/png': {
      const file = png(1, 1);
      // IHDR's data starts at 16 (signature, length, type); its CRC covers the type and the data.
      file.writeUInt32BE(width, 16);
      file.writeUInt32BE(height, 20);
      file.writeUInt32BE(crc32(file.subarray(12, 29)), 29);
      return file;
    }
    case 'image/jpeg': {
      const file = jpeg(1, 1);
      const sof = file.indexOf(Buffer.from([0xff, 0xc0]));
      file.writeUInt16BE(height, sof + 5);
      file.writeUInt16BE(width, sof + 7);
      return file;
    }
    case 'image/gif': {
      const file = gif(1, 1);
      // The logical screen (after "GIF89a") and the image descriptor (after the two-color table).
      file.writeUInt16LE(width, 6);
      file.writeUInt16LE(height, 8);
      file.writeUInt16LE(width, 24);
      file.writeUInt16LE(height, 26);
      return file;
    }
  }
}

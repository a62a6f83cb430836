import { imageSize } from 'image-size';

/**
 * The three accepted image formats (docs/rules.md#images): their media type, the signature their
 * bytes start with, and the extension of the stored filename. Pure functions, unit-tested beside.
 */
export const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif'] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

interface ImageFormat {
  /** Every signature is one of these byte sequences at offset 0. */
  signatures: number[][];
  extension: string;
  /** The name `image-size` gives the format. */
  sizeType: string;
}

const FORMATS: Record<ImageType, ImageFormat> = {
  // SOI marker followed by the first marker's 0xFF.
  'image/jpeg': { signatures: [[0xff, 0xd8, 0xff]], extension: 'jpg', sizeType: 'jpg' },
  'image/png': { signatures: [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]], extension: 'png', sizeType: 'png' },
  // "GIF87a" or "GIF89a".
  'image/gif': {
    signatures: [
      [0x47, 0x49, 0x46, 0x38, 0x37, 0x61],
      [0x47, 0x49, 0x46, 0x38, 0x39, 0x61],
    ],
    extension: 'gif',
    sizeType: 'gif',
  },
};

/**
 * The image type a `Content-Type` header names, or undefined when it names none of the three.
 * Parameters (`; charset=…`) are ignored and the comparison is case-insensitive, as media types are.
 */
export function parseImageType(header: string | undefined): ImageType | undefined {
  if (header === undefined) return undefined;
  const essence = header.split(';', 1)[0].trim().toLowerCase();
  return (IMAGE_TYPES as readonly string[]).includes(essence) ? (essence as ImageType) : undefined;
}

export function extensionOf(type: ImageType): string {
  return FORMATS[type].extension;
}

/** Whether `bytes` start with the signature of `type`. */
export function hasSignature(type: ImageType, bytes: Uint8Array): boolean {
  return FORMATS[type].signatures.some(
    (signature) => bytes.length >= signature.length && signature.every((byte, i) => bytes[i] === byte),
  );
}

/** The format whose signature `bytes` start with, if any. */
export function detectImageType(bytes: Uint8Array): ImageType | undefined {
  return IMAGE_TYPES.find((type) => hasSignature(type, bytes));
}

interface Dimensions {
  width: number;
  height: number;
}

/**
 * Width and height as the file itself states them (0 included: see `dimensionsProblem`), or undefined
 * when the file of that type cannot be read (truncated or corrupt).
 */
export function readDimensions(type: ImageType, bytes: Uint8Array): Dimensions | undefined {
  try {
    // image-size reads through DataViews of `bytes.buffer` that are not bounded by the view's length:
    // a truncated file that is a view into a larger buffer (Node's shared pool) would be completed
    // with whatever follows it in memory. On a buffer of its own, reading past the end throws.
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
    const size = imageSize(own);
    if (size.type !== FORMATS[type].sizeType) return undefined;
    const { width, height } = size;
    if (!Number.isInteger(width) || !Number.isInteger(height) || width < 0 || height < 0) return undefined;
    return { width, height };
  } catch {
    return undefined;
  }
}

/** The largest image accepted, in the file's own header (IMAGES_MAX_DIMENSION, IMAGES_MAX_PIXELS). */
interface DimensionLimits {
  maxDimension: number;
  maxPixels: number;
}

/**
 * Why an image declaring `dimensions` is refused, or undefined when it is accepted: a side of 0, a side
 * above `maxDimension`, or more than `maxPixels` in all. The header is all that is read, so a small file
 * that would decompress to a huge image is refused as what it declares.
 */
export function dimensionsProblem({ width, height }: Dimensions, limits: DimensionLimits): string | undefined {
  const declared = `The image declares ${width}×${height} pixels`;
  if (width < 1 || height < 1) return `${declared}: its width and height must be at least 1.`;
  if (width > limits.maxDimension || height > limits.maxDimension) {
    return `${declared}: its width and height may be at most ${limits.maxDimension} (IMAGES_MAX_DIMENSION).`;
  }
  // Each side is at most 2^31 here, so the product is exact enough to compare (a rounding error cannot cross maxPixels).
  if (width * height > limits.maxPixels) return `${declared}: at most ${limits.maxPixels} pixels are accepted (IMAGES_MAX_PIXELS).`;
  return undefined;
}

import { configSection } from '../config/env-reader.js';

/** Image upload and serving (docs/rules.md#images). */
export interface ImagesConfig {
  /** Largest accepted image: 10 MB = 10,485,760 bytes, a fixed limit (docs/rules.md#limits). */
  maxBytes: number;
  /** Uploads whose bodies are read and stored at the same time; the rest wait (bounds memory). */
  uploadConcurrency: number;
  /** How often each server's worker looks for images accepted with 202 and not yet attached. */
  workerIntervalMs: number;
  /** An upload whose body sends nothing for this long is refused (it would hold an upload slot). */
  readIdleTimeoutMs: number;
  /**
   * Bytes no image uses are deleted once they have been unused this long (the images worker checks
   * each round); the delay covers an upload between storing its bytes and recording its image.
   */
  blobReclaimDelayMs: number;
  /** Least average rate of an upload's body once its first 5 s have passed (0: no minimum). */
  minBytesPerSecond: number;
  /** Largest width, and largest height, an image may declare in its header. */
  maxDimension: number;
  /** Most pixels (width × height) an image may declare: a file of a few bytes can declare an image of gigabytes. */
  maxPixels: number;
}

export const IMAGES_MAX_BYTES = 10_485_760;

export const imagesConfig = configSection('images', (read): ImagesConfig => ({
  maxBytes: IMAGES_MAX_BYTES,
  uploadConcurrency: read.int('IMAGES_UPLOAD_CONCURRENCY', 4, 1, 64),
  workerIntervalMs: read.int('IMAGES_WORKER_INTERVAL_MS', 500, 10, 86_400_000),
  readIdleTimeoutMs: read.int('IMAGES_READ_IDLE_TIMEOUT_MS', 30_000, 100, 600_000),
  blobReclaimDelayMs: read.int('IMAGES_BLOB_RECLAIM_DELAY_MS', 600_000, 1000, 86_400_000),
  minBytesPerSecond: read.int('IMAGES_MIN_BYTES_PER_SECOND', 16_384, 0, 1_073_741_824),
  // PNG allows up to 2^31 - 1 pixels a side; JPEG and GIF up to 65,535.
  maxDimension: read.int('IMAGES_MAX_DIMENSION', 20_000, 1, 2_147_483_647),
  maxPixels: read.int('IMAGES_MAX_PIXELS', 100_000_000, 1, Number.MAX_SAFE_INTEGER),
}));

import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { Busboy, type BusboyHeaders, type BusboyInstance } from '@fastify/busboy';
import { DomainError } from '../common/domain-error.js';
import { parseImageType, type ImageType } from './image-format.js';
import { ImageErrors } from './images.errors.js';

/** Room for a multipart body's boundaries and part headers on top of the file itself. */
const MULTIPART_OVERHEAD_BYTES = 65_536;

/** An upload's bytes, read within the limit. */
export interface ReceivedImage {
  /** The declared type: the request's Content-Type, or the file part's for multipart. */
  type: ImageType;
  bytes: Buffer;
  sha256: string;
  /** The file part's filename (multipart only). */
  filename?: string;
}

/** The first seconds of an upload, not held to the minimum rate (connection set-up, a slow start). */
export const RATE_GRACE_MS = 5_000;

/**
 * The body of POST /{projectKey}/resource/images, not read yet: the body parser hands this route the
 * request stream whatever its type (src/common/body-parsers.ts). It is the raw image, or a
 * multipart/form-data body with one file part, parsed here with busboy (what @fastify/multipart runs
 * on; the plugin itself would add hooks to every route of the server). The service checks the
 * declared type and length first and reads the bytes last (docs/rules.md#images); reading stops as soon as
 * the limit is passed.
 */
export class ImageUpload {
  constructor(private readonly request: FastifyRequest) {}

  /** The Content-Type header as sent (undefined when absent). */
  get contentType(): string | undefined {
    const type = this.request.headers['content-type'];
    return type === undefined || type.trim() === '' ? undefined : type;
  }

  get isMultipart(): boolean {
    return /^multipart\/form-data\b/i.test(this.contentType ?? '');
  }

  /** The image type of a raw upload; undefined when the header names none of the three. */
  get rawType(): ImageType | undefined {
    return parseImageType(this.contentType);
  }

  /** 413 when `Content-Length` already says the body is too large; nothing is read. */
  checkDeclaredLength(maxBytes: number): void {
    const header = this.request.headers['content-length'];
    if (header === undefined) return;
    const length = Number(header);
    const allowed = this.isMultipart ? maxBytes + MULTIPART_OVERHEAD_BYTES : maxBytes;
    if (Number.isFinite(length) && length > allowed) throw ImageErrors.tooLarge(maxBytes);
  }

  /** Reads the image: at most `maxBytes` (413 as soon as the body passes it). */
  async read(limits: ReadLimits): Promise<ReceivedImage> {
    if (this.isMultipart) return this.readMultipart(limits);
    const type = this.rawType;
    if (!type) throw ImageErrors.unsupportedType(this.contentType);
    const stream = this.bodyStream();
    const { bytes, sha256 } = stream ? await readLimited(stream, limits) : emptyBody();
    return { type, bytes, sha256 };
  }

  /** The request body as the body parser passed it on; undefined when the request has no body. */
  private bodyStream(): Readable | undefined {
    const body = this.request.body;
    return isReadable(body) ? body : undefined;
  }

  /** The first file part of a multipart/form-data body; other fields and parts are skipped. */
  private readMultipart(limits: ReadLimits): Promise<ReceivedImage> {
    const stream = this.bodyStream();
    if (!stream) return Promise.reject(ImageErrors.noFilePart());
    return new Promise((resolve, reject) => {
      let parser: BusboyInstance;
      try {
        parser = Busboy({
          headers: this.request.headers as BusboyHeaders,
          limits: { files: 1, fileSize: limits.maxBytes + 1, fields: 16, fieldSize: 4_096, parts: 17, headerPairs: 64 },
        });
      } catch {
        return reject(ImageErrors.malformedMultipart('no boundary'));
      }
      let file: 'none' | 'reading' | 'done' = 'none';
      // Until the file part starts, a stalled body is caught here; then readLimited watches it.
      let idle: NodeJS.Timeout | undefined;
      const armIdleTimer = () => {
        clearTimeout(idle);
        if (file === 'none') idle = setTimeout(() => fail(ImageErrors.stalled(limits.idleTimeoutMs)), limits.idleTimeoutMs);
      };
      const fail = (error: DomainError) => {
        clearTimeout(idle);
        stream.off('data', armIdleTimer);
        stream.unpipe(parser);
        stream.pause();
        reject(error);
      };
      parser.on('file', (_field, part, filename, _encoding, mimeType) => {
        if (file !== 'none') return part.resume();
        file = 'reading';
        clearTimeout(idle);
        stream.off('data', armIdleTimer);
        const type = parseImageType(mimeType);
        if (!type) {
          part.resume();
          return fail(ImageErrors.unsupportedType(mimeType));
        }
        readLimited(part, limits).then(
          ({ bytes, sha256 }) => {
            file = 'done';
            resolve({ type, bytes, sha256, filename: filename || undefined });
          },
          fail,
        );
      });
      parser.on('finish', () => {
        if (file === 'none') fail(ImageErrors.noFilePart());
      });
      parser.on('error', () => {
        if (file !== 'done') fail(ImageErrors.malformedMultipart());
      });
      // A client that goes away mid-body: busboy would wait for the rest for ever.
      stream.once('close', () => {
        if (!stream.readableEnded) fail(ImageErrors.interrupted());
      });
      stream.on('data', armIdleTimer);
      armIdleTimer();
      stream.pipe(parser);
    });
  }
}

function isReadable(value: unknown): value is Readable {
  return typeof value === 'object' && value !== null && typeof (value as Readable).on === 'function' && typeof (value as Readable).read === 'function';
}

function emptyBody(): { bytes: Buffer; sha256: string } {
  return { bytes: Buffer.alloc(0), sha256: createHash('sha256').digest('hex') };
}

interface ReadLimits {
  maxBytes: number;
  /** Longest pause between two pieces of the body. */
  idleTimeoutMs: number;
  /** Least average rate once RATE_GRACE_MS have passed (0: none). */
  minBytesPerSecond: number;
}

/**
 * Reads a stream into one buffer while hashing it; rejects with 413 as soon as more than `maxBytes`
 * arrived (the rest is not read: the connection closes after the answer), with 400 when nothing
 * arrives for `idleTimeoutMs`, and with 400 when, RATE_GRACE_MS after reading began, the body has come
 * slower than `minBytesPerSecond` on average (checked every second): a client trickling bytes would
 * otherwise hold an upload slot for as long as the request timeout allows. The buffer grows with what
 * arrives; a declared `Content-Length` reserves nothing.
 */
export function readLimited(stream: Readable, { maxBytes, idleTimeoutMs, minBytesPerSecond }: ReadLimits): Promise<{ bytes: Buffer; sha256: string }> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    const chunks: Buffer[] = [];
    const started = Date.now();
    let size = 0;
    let settled = false;
    let idle: NodeJS.Timeout | undefined;
    const rate =
      minBytesPerSecond > 0
        ? setInterval(() => {
            const elapsedMs = Date.now() - started;
            if (elapsedMs >= RATE_GRACE_MS && size < (minBytesPerSecond * elapsedMs) / 1000) finish(ImageErrors.tooSlow(minBytesPerSecond));
          }, 1_000)
        : undefined;
    rate?.unref();
    const finish = (error?: DomainError) => {
      if (settled) return;
      settled = true;
      clearTimeout(idle);
      clearInterval(rate);
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('close', onClose);
      if (error) {
        stream.pause();
        reject(error);
        return;
      }
      const bytes = Buffer.concat(chunks, size);
      resolve({ bytes, sha256: hash.digest('hex') });
    };
    const armIdleTimer = () => {
      clearTimeout(idle);
      idle = setTimeout(() => finish(ImageErrors.stalled(idleTimeoutMs)), idleTimeoutMs);
    };
    const onData = (chunk: Buffer) => {
      armIdleTimer();
      size += chunk.length;
      if (size > maxBytes) return finish(ImageErrors.tooLarge(maxBytes));
      hash.update(chunk);
      chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onError = () => finish(ImageErrors.unreadable());
    const onClose = () => finish(ImageErrors.interrupted());
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('close', onClose);
    // busboy marks a file part cut at its size limit as truncated and ends it early.
    stream.once('limit', () => finish(ImageErrors.tooLarge(maxBytes)));
    armIdleTimer();
  });
}

/** The upload body of the route, as an `ImageUpload` (no bytes are read here). */
export const UploadedImage = createParamDecorator(
  (_data: unknown, context: ExecutionContext): ImageUpload => new ImageUpload(context.switchToHttp().getRequest<FastifyRequest>()),
);

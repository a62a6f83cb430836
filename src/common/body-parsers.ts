import type { NextFunction, Request, Response } from 'express';
import { DomainError } from './domain-error.js';
import { ErrorCode } from './error-code.js';
import { describeJsonError, parseJson } from './lossless-json.js';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded\b/i;

/** Image bodies are read as a raw stream by the upload route (spec 4.5); everywhere else they are a 415. */
const RAW_TYPE = /^image\//i;
const RAW_PATH = /^\/[^/]+\/resource\/images\/?$/;

export interface BodyParserOptions {
  limitBytes: number;
}

/** A request whose body could not be read; `@RequestBody()` raises the error. */
export type RequestWithBody = Request & { bodyError?: DomainError };

/**
 * Reads request bodies: JSON losslessly (64-bit integers stay exact), form bodies as flat key/value
 * maps (the OAuth endpoints), raw image types not at all. Any other non-empty body is a 415.
 * A body error (malformed JSON → 400 InvalidJsonInput, 413, 415) is not raised here but recorded, and
 * raised by `@RequestBody()` when the handler's parameters resolve: after the access guard, so that
 * authentication and scope are checked first (CONTRACT.md §10).
 */
export function bodyParser({ limitBytes }: BodyParserOptions) {
  return (req: RequestWithBody, _res: Response, proceed: NextFunction): void => {
    const next = (error?: unknown): void => {
      if (error instanceof DomainError) req.bodyError = error;
      proceed(error instanceof DomainError ? undefined : error);
    };
    const type = req.headers['content-type'] ?? '';
    const length = req.headers['content-length'];
    const hasBody = (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
    if (!hasBody || (RAW_TYPE.test(type) && RAW_PATH.test(req.path))) {
      next();
      return;
    }
    const isJson = JSON_TYPE.test(type) || type === '';
    const isForm = FORM_TYPE.test(type);
    if (!isJson && !isForm) {
      next(DomainError.of(ErrorCode.UnsupportedMediaType, `Content-Type '${type}' is not supported; send application/json.`));
      return;
    }
    if (length !== undefined && Number(length) > limitBytes) {
      next(tooLarge(limitBytes));
      return;
    }
    readText(req, limitBytes).then(
      (text) => {
        if (text === undefined) return next(tooLarge(limitBytes));
        if (text.trim() === '') return next();
        try {
          req.body = isJson ? parseJson(text) : Object.fromEntries(new URLSearchParams(text));
          next();
        } catch (error) {
          next(
            DomainError.of(ErrorCode.InvalidJsonInput, 'Request body does not contain valid JSON.', {
              detailedErrorMessage: describeJsonError(text, error),
            }),
          );
        }
      },
      (error: unknown) => next(error),
    );
  };
}

function tooLarge(limitBytes: number): DomainError {
  return DomainError.of(ErrorCode.PayloadTooLarge, `The request body exceeds ${limitBytes} bytes.`);
}

/** The body as UTF-8 text, or `undefined` once it exceeds the limit (the rest is drained). */
function readText(req: Request, limitBytes: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) over = true;
      if (!over) chunks.push(chunk);
    });
    req.on('end', () => resolve(over ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

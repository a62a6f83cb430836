import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { DomainError } from './domain-error.js';
import { ErrorCode } from './error-code.js';
import { describeJsonError, parseJson } from './lossless-json.js';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded\b/i;
/** A GraphQL document sent as the body (GraphQL over HTTP); read as `{query: <the text>}`. */
const GRAPHQL_TYPE = /^application\/graphql\b/i;

/**
 * The routes that read their own body as a stream, whatever its type: the image upload (spec 4.5: a raw
 * image, a multipart form, or something it answers 415 to; src/images/image-upload.ts) and the bulk
 * import (NDJSON, read line by line; src/resource/bulk/). Everywhere else such bodies are a 415.
 */
const RAW_PATH = /^\/[^/?]+\/resource\/(?:images|import)\/?(?:\?|$)/;

interface BodyParserOptions {
  limitBytes: number;
  /** How much of the body of a request answered unauthenticated is read before the connection closes. */
  unauthenticatedLimitBytes: number;
}

/** A request whose body could not be read; `@RequestBody()` raises the error. */
export type RequestWithBody = FastifyRequest & { bodyError?: DomainError };

/**
 * Reads request bodies: JSON losslessly (64-bit integers stay exact), form bodies as key/value maps
 * (the OAuth endpoints; `parseForm`), image bodies of the upload path as a raw stream. Any other
 * non-empty body is a 415. A body error (malformed JSON → 400 InvalidJsonInput, 413, 415) is not
 * raised here but recorded, and raised by `@RequestBody()` when the handler's parameters resolve:
 * after the access guard, so that authentication and scope are checked first.
 */
export function registerBodyParsers(fastify: FastifyInstance, { limitBytes, unauthenticatedLimitBytes }: BodyParserOptions): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (request: FastifyRequest, payload: Readable, done: (error: Error | null, body?: unknown) => void) => {
    if (RAW_PATH.test(request.url)) return done(null, payload);
    const type = request.headers['content-type'] ?? '';
    const defer = (error: DomainError): void => {
      (request as RequestWithBody).bodyError = error;
      payload.resume();
      done(null, undefined);
    };
    const isJson = JSON_TYPE.test(type) || type === '';
    const isGraphql = GRAPHQL_TYPE.test(type);
    if (!isJson && !isGraphql && !FORM_TYPE.test(type)) {
      return defer(DomainError.of(ErrorCode.UnsupportedMediaType, `Content-Type '${type}' is not supported; send application/json.`));
    }
    const length = request.headers['content-length'];
    if (length !== undefined && Number(length) > limitBytes) return defer(tooLarge(limitBytes));
    readText(payload, limitBytes).then(
      (text) => {
        if (text === undefined) return defer(tooLarge(limitBytes));
        if (text.trim() === '') return done(null, undefined);
        try {
          done(null, isJson ? parseJson(text) : isGraphql ? { query: text } : parseForm(text));
        } catch (error) {
          defer(
            DomainError.of(ErrorCode.InvalidJsonInput, 'Request body does not contain valid JSON.', {
              detailedErrorMessage: describeJsonError(text, error),
            }),
          );
        }
      },
      // The client went away (or was cut by the request timeout) before its body ended: nothing to log.
      () => done(DomainError.invalidInput('The request body was interrupted.')),
    );
  });
  // A request answered before its body was read to the end (an upload's early 413, 415 or 404; any
  // request refused before its body, such as a 401) closes the connection after the answer instead of
  // reading the rest of the body, with a lingering close. A request that did not authenticate has the
  // rest of its body read only when it declared at most `unauthenticatedLimitBytes` (the connection
  // then stays open for the next request); of a larger one nothing more is read.
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (!request.raw.complete) {
      const stranger = !(request as { user?: unknown }).user;
      const length = Number(request.headers['content-length']);
      if (!(stranger && length <= unauthenticatedLimitBytes)) {
        reply.header('Connection', 'close');
        lingerOnClose(request.raw.socket);
      }
    }
    done(null, payload);
  });
}

/** How long a connection answered early goes on discarding what its client still sends. */
const LINGER_MS = 2_000;

/**
 * A lingering close, as nginx's: once the answer is sent, Node would close the socket while the client
 * is still writing its body, and the client's next write would meet a reset (EPIPE or ECONNRESET),
 * often before it has read the answer. Instead the server half-closes (the answer, then end of stream),
 * discards what still arrives, unparsed, and closes when the client ends its side or after `LINGER_MS`. Node's
 * HTTP server ends a `Connection: close` exchange through `socket.destroySoon()`.
 */
function lingerOnClose(socket: Socket): void {
  socket.destroySoon = function lingering(this: Socket) {
    this.end();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    this.once('close', () => clearTimeout(timer));
    this.once('end', () => this.destroy());
    this.resume();
  };
}

/**
 * A form body as a map of its parameters. A name given more than once keeps every value, as an array,
 * rather than the last one only: the OAuth endpoints refuse a repeated parameter (RFC 6749, section 3.2).
 */
export function parseForm(text: string): Record<string, string | string[]> {
  const form = new Map<string, string | string[]>();
  for (const [name, value] of new URLSearchParams(text)) {
    const seen = form.get(name);
    form.set(name, seen === undefined ? value : [seen, value].flat());
  }
  return Object.fromEntries(form);
}

function tooLarge(limitBytes: number): DomainError {
  return DomainError.of(ErrorCode.PayloadTooLarge, `The request body exceeds ${limitBytes} bytes.`);
}

/** The body as UTF-8 text, or `undefined` once it exceeds the limit (the rest is drained). */
function readText(stream: Readable, limitBytes: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limitBytes) chunks.push(chunk);
    });
    stream.on('end', () => resolve(size > limitBytes ? undefined : Buffer.concat(chunks).toString('utf8')));
    stream.on('error', reject);
  });
}

import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from './domain-error.js';
import { ErrorCode } from './error-code.js';

/**
 * The HTTP server's own limits against slow and oversized requests (docs/rules.md#limits): options of the
 * Node server Fastify creates, and the answers to what the server refuses before any route runs.
 */

/** The limits the server is given (HTTP_* in the configuration's http section). */
interface HttpLimits {
  maxUrlBytes: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

/** Room for the request line's method and version and for the headers, beyond the longest URL. */
export const HEADER_ROOM_BYTES = 16 * 1024;

/** How often the server looks for requests past their headers or request timeout. */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/**
 * Options of the Fastify instance: headers and whole-request timeouts (a slowloris client, or a body
 * trickling in, is cut with 408), the keep-alive timeout, and the size of the request line and headers
 * (431 past it). Timeouts count until the request is received, not while it is answered, so a slow
 * namespace-action backend is unaffected.
 */
export function httpServerOptions(http: HttpLimits) {
  return {
    requestTimeout: http.requestTimeoutMs,
    keepAliveTimeout: http.keepAliveTimeoutMs,
    http: {
      headersTimeout: http.headersTimeoutMs,
      requestTimeout: http.requestTimeoutMs,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
      // A request without Host is refused by `requestTargetLimit`, in the API's envelope.
      requireHostHeader: false,
      maxHeaderSize: http.maxUrlBytes + HEADER_ROOM_BYTES,
    },
    clientErrorHandler: answerClientError,
  };
}

/** Sockets whose request in progress HTTP_REQUEST_TIMEOUT_MS does not end (see `exemptFromRequestTimeout`). */
const untimedRequests = new WeakSet<Duplex>();

/**
 * Exempts the request being received on `socket` from HTTP_REQUEST_TIMEOUT_MS: a streamed import, which
 * reads its body for as long as it takes and bounds it by its own idle timeout instead. The connection
 * closes after that answer (body-parsers.ts), so the exemption never reaches a later request.
 */
export function exemptFromRequestTimeout(socket: Duplex): void {
  untimedRequests.add(socket);
}

/**
 * What the Node server refuses before a request reaches Fastify (a timeout, headers too large, bytes
 * that are not HTTP) answers the error envelope too, then the connection closes. Nothing is
 * written when the connection is gone or an answer to this request has begun.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // Node reports a request's timeout once; an exempt request goes on being received and answered.
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && untimedRequests.has(socket)) return;
  const refusal =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? DomainError.of(ErrorCode.RequestTimeout, 'The request was not received in time.')
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? DomainError.of(ErrorCode.RequestHeaderFieldsTooLarge, 'The request line and headers are too large.')
        : DomainError.invalidInput('The request is not valid HTTP.');
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const body = JSON.stringify({ statusCode: refusal.status, message: refusal.message, errors: refusal.errors });
    socket.write(
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/**
 * A connection that has sent nothing yet holds the server's close until HTTP_HEADERS_TIMEOUT_MS: Node counts
 * it as a request being received, not as idle, and a client's pool may open one it then does not use. When
 * the server closes, such connections are closed (nothing was asked on them), and so is every connection
 * that arrives while it closes.
 */
export function closeSilentConnectionsOnClose(fastify: FastifyInstance): void {
  const sockets = new Set<Socket>();
  let closing = false;
  fastify.server.on('connection', (socket: Socket) => {
    if (closing) return void socket.destroy();
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  fastify.addHook('preClose', async () => {
    closing = true;
    for (const socket of sockets) if (socket.bytesRead === 0) socket.destroy();
  });
}

/** `..` or an encoded dot (`%2e`) anywhere in a path: never a path of this API, often a traversal attempt. */
const DOT_SEGMENTS = /\.\.|%2e/i;

/**
 * An `onRequest` hook on what every request must be, before anything else runs: a request target (path
 * and query, as sent) no longer than `maxUrlBytes` (414); a `Host` header (400: HTTP/1.1 requires it, and
 * the Node server's own refusal would answer without the envelope; health checks are exempt); and no
 * `..` or encoded dot in the path (404, as for any unknown path, whichever route it would have matched).
 */
export function requestTargetLimit(maxUrlBytes: number) {
  return async (req: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const target = req.raw.url ?? '';
    if (target.length > maxUrlBytes) {
      throw DomainError.of(ErrorCode.UriTooLong, `The request URL has ${target.length} bytes; at most ${maxUrlBytes} are accepted.`);
    }
    const query = target.indexOf('?');
    const path = query === -1 ? target : target.slice(0, query);
    if (!req.headers.host && !path.startsWith('/health/')) throw DomainError.invalidInput('The request has no Host header.');
    if (DOT_SEGMENTS.test(path)) throw DomainError.notFound(`No route matches ${req.method} ${path}.`);
  };
}

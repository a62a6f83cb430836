import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';

const REQUEST_ID_HEADER = 'x-request-id';

/**
 * A client's `X-Request-Id` is kept when it is 1 to 128 characters of letters, digits and `-._:`
 * (a UUID, a ULID, a trace id…). Anything else, a repeated header included (Node joins repeats
 * with ", "), gets a fresh id, so nothing the client sent beyond that alphabet reaches a response
 * header or a log line.
 */
const WELL_FORMED = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Fastify's request id (`genReqId`): the client's well-formed `X-Request-Id`, else a random UUID.
 * Fastify's own `requestIdHeader` is off: it would take the header unchecked.
 */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && WELL_FORMED.test(given) ? given : randomUUID();
}

/** Echoes the request id on the answer; the first `onRequest` hook, so every answer after it carries it. */
export function echoRequestId(request: FastifyRequest, reply: FastifyReply): void {
  reply.header(REQUEST_ID_HEADER, request.id);
}

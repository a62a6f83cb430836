import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { pathOf } from '../common/error-envelope.filter.js';

/** Route label of answers no route matched (an unknown path): never the raw URL, whose values are unbounded. */
export const UNMATCHED_ROUTE = '(unmatched)';

/** The route pattern a request matched (`/:projectKey/resource/:id`), or `UNMATCHED_ROUTE`. */
export function routeOf(request: FastifyRequest): string {
  return request.routeOptions.url ?? UNMATCHED_ROUTE;
}

/**
 * Fastify's request log lines: one per request, once its answer is sent (no "incoming request"
 * line). Nothing else of the request is logged by Fastify: no header, no body.
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    logRequestCompleted(request, reply, error);
  }
}

/**
 * The line of one request: `reqId` (bound by Fastify), `method`, `route` pattern, `url` (the path,
 * without the query), `statusCode` and `responseTime` (ms). At `info`; an answer that failed while
 * being written at `error` with `err`.
 */
export function logRequestCompleted(request: FastifyRequest, reply: FastifyReply, error?: Error | null): void {
  const line = {
    method: request.method,
    route: routeOf(request),
    url: pathOf(request.url),
    statusCode: reply.statusCode,
    responseTime: Math.round(reply.elapsedTime * 100) / 100,
  };
  if (error) reply.log.error({ ...line, err: error }, 'request errored');
  else reply.log.info(line, 'request completed');
}

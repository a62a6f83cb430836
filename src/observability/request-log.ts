import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { pathOf, routePattern } from '../common/error-envelope.filter.js';

export { UNMATCHED_ROUTE } from '../common/error-envelope.filter.js';

/** The route pattern a request matched (`/:projectKey/resource/:id`), or `UNMATCHED_ROUTE`. */
export const routeOf: (request: FastifyRequest) => string = routePattern;

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

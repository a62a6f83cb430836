import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { Logger } from 'pino';
import type { HttpConfig } from '../config/http.config.js';
import type { MetricsConfig } from './observability.config.js';
import { echoRequestId, requestIdOf } from './request-id.js';
import { logRequestCompleted, RequestLogController, routeOf } from './request-log.js';
import { prepareSecurityHeaders } from './security-headers.js';
import { MetricsService } from './metrics.service.js';

/**
 * Fastify's options for request ids and logs: the id from `requestIdOf` (logged as `reqId`), the
 * service's pino logger when given (tests run without one), one line per request.
 */
export function observabilityServerOptions(logger?: Logger): FastifyServerOptions {
  return { genReqId: requestIdOf, requestIdHeader: false, loggerInstance: logger, logController: new RequestLogController() };
}

/**
 * Fastify's `frameworkErrors` (a malformed URL, answered before routing and outside the request
 * lifecycle): `send` answers, with the request id, and the request gets its log line.
 */
export function answerBeforeRouting(send: (reply: FastifyReply) => void) {
  return (_error: Error, request: FastifyRequest, reply: FastifyReply): void => {
    echoRequestId(request, reply);
    send(reply);
    logRequestCompleted(request, reply);
  };
}

/**
 * Per request: `X-Request-Id` on the answer (the first hook, so the errors of later hooks carry it
 * too), security headers, and with METRICS_TOKEN the request metrics once the answer is sent.
 */
export function configureObservability(app: NestFastifyApplication, config: { http: HttpConfig; metrics: MetricsConfig }): void {
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  const securityHeaders = prepareSecurityHeaders(fastify, config.http);
  fastify.addHook('onRequest', (request, reply, done) => {
    echoRequestId(request, reply);
    reply.headers(securityHeaders(request));
    done();
  });
  if (config.metrics.token) {
    const metrics = app.get(MetricsService);
    fastify.addHook('onResponse', (request, reply, done) => {
      metrics.observe(request.method, routeOf(request), reply.statusCode, reply.elapsedTime);
      done();
    });
  }
}

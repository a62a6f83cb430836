import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from './app-config.js';
import { registerBodyParsers } from './common/body-parsers.js';
import { sendErrorEnvelope } from './common/error-envelope.filter.js';
import { DomainError } from './common/domain-error.js';
import { ErrorCode } from './common/error-code.js';
import { closeSilentConnectionsOnClose, httpServerOptions, requestTargetLimit } from './common/http-limits.js';
import { answerBeforeRouting, configureObservability, observabilityServerOptions } from './observability/observability.js';
import { setupOpenApi } from './openapi/openapi-setup.js';
import { OAuthService } from './auth/oauth.service.js';
import { RequestAuthenticator } from './auth/request-authenticator.js';
import { addLiveStreamConstraint } from './live/live-stream-constraint.js';
import type { Logger } from 'pino';

/**
 * The HTTP server: Nest on Fastify (README, section "Stack", row `@nestjs/platform-express`: on these
 * machines Nest on Express served about 6,300 req/s on a constant route, Nest on Fastify about 41,000). Route paths
 * up to 1 KiB per parameter (keys are up to 256 characters); HEAD routes only where declared; the
 * server's limits against slow and oversized requests (common/http-limits.ts).
 * `logger`: the service's pino logger (main.ts); without it (tests) Fastify logs nothing.
 */
export function createHttpAdapter(config: AppConfig, logger?: Logger): FastifyAdapter {
  return new FastifyAdapter({
    ...observabilityServerOptions(logger),
    routerOptions: { maxParamLength: 1024 },
    exposeHeadRoutes: false,
    return503OnClosing: true,
    // Errors Fastify raises before routing (a malformed URL) answer the error envelope too.
    frameworkErrors: answerBeforeRouting((reply) => sendErrorEnvelope(reply, DomainError.invalidInput('The request URL is malformed.'))),
    ...httpServerOptions(config.http),
    // `request.ip`: the client as the trusted proxies name it (the token endpoints limit by it).
    // (proxy-addr's reading of a hop count: hop 0 is the peer; the adapter's type lacks the number form.)
    trustProxy: (_address: string, hop: number) => hop < config.http.trustProxyHops,
  });
}

/**
 * Everything global about the HTTP app; shared by `main.ts` and the tests so both run the same stack.
 * The OpenAPI document and its page are built in `openapi/`.
 */
export function configureApp(app: NestFastifyApplication, config: AppConfig): void {
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  // Before the routes are registered (app.init): GET /{projectKey}/messages streams or pages by Accept.
  addLiveStreamConstraint(fastify);
  configureObservability(app, config);
  closeSilentConnectionsOnClose(fastify);
  // After the request id's hook, so a 414 carries X-Request-Id like every other answer.
  fastify.addHook('onRequest', requestTargetLimit(config.http.maxUrlBytes));
  // The token endpoints' per-address limit, before their bodies are read.
  fastify.addHook('onRequest', app.get(OAuthService).addressLimit());
  if (config.http.corsOrigins.length > 0) {
    app.enableCors({
      origin: config.http.corsOrigins.includes('*') ? true : config.http.corsOrigins,
      // Every method the API serves (the default list lacks PUT, PATCH and DELETE: browsers would refuse them).
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      exposedHeaders: ['Location', 'X-Total-Count', 'Retry-After', 'WWW-Authenticate', 'ETag'],
    });
  }
  const hostCheck = hostChecker(config);
  if (hostCheck) fastify.addHook('onRequest', hostCheck);
  // Who is calling, before any body is read: a stranger's body is never parsed.
  fastify.addHook('onRequest', app.get(RequestAuthenticator).hook());
  registerBodyParsers(fastify, { limitBytes: config.http.bodyLimitBytes, unauthenticatedLimitBytes: config.http.unauthenticatedMaxBodyBytes });
  setupOpenApi(app, config);
}

/**
 * With API_DOMAIN, API_REGIONS and API_CLOUD_PROVIDERS set, only `api.<region>.<provider>.<domain>`
 * with allowed values is served (421 otherwise); health checks answer on any host.
 */
function hostChecker({ http }: AppConfig) {
  if (!http.apiDomain) return undefined;
  const domain = http.apiDomain.toLowerCase();
  const regions = new Set(http.apiRegions.map((r) => r.toLowerCase()));
  const providers = new Set(http.apiCloudProviders.map((p) => p.toLowerCase()));
  return async (req: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    if (req.url.startsWith('/health/')) return;
    const host = (req.headers.host ?? '').toLowerCase().replace(/:\d+$/, '');
    const match = /^api\.([^.]+)\.([^.]+)\.(.+)$/.exec(host);
    if (match && regions.has(match[1]) && providers.has(match[2]) && match[3] === domain) return;
    throw DomainError.of(ErrorCode.MisdirectedRequest, `This server does not answer for host '${host}'; use api.<region>.<cloudProvider>.${domain}.`);
  };
}

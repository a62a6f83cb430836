import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from './config/app-config.js';
import { registerBodyParsers } from './common/body-parsers.js';
import { sendErrorEnvelope } from './common/error-envelope.filter.js';
import { DomainError } from './common/domain-error.js';
import { ErrorCode } from './common/error-code.js';
import { SCOPE_NAMES } from './auth/scopes.js';

/**
 * The HTTP server: Nest on Fastify (see the note on the performance issue: on these machines Nest on
 * Express served about 6,300 req/s on a constant route, Nest on Fastify about 41,000). Route paths
 * up to 1 KiB per parameter (keys are up to 256 characters); HEAD routes only where declared.
 */
export function createHttpAdapter(): FastifyAdapter {
  return new FastifyAdapter({
    routerOptions: { maxParamLength: 1024 },
    exposeHeadRoutes: false,
    return503OnClosing: true,
    // Errors Fastify raises before routing (a malformed URL) answer the contract's envelope too.
    frameworkErrors: (_error: Error, _request: FastifyRequest, reply: FastifyReply) =>
      sendErrorEnvelope(reply, DomainError.invalidInput('The request URL is malformed.')),
  });
}

/** Everything global about the HTTP app; shared by `main.ts` and the tests so both run the same stack. */
export function configureApp(app: NestFastifyApplication, config: AppConfig): void {
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
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
  registerBodyParsers(fastify, { limitBytes: config.http.bodyLimitBytes });
  setupOpenApi(app, config);
  app.enableShutdownHooks();
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

export function buildOpenApiDocument(app: INestApplication, config: AppConfig) {
  const builder = new DocumentBuilder()
    .setTitle('Generic Project-Scoped Resource API')
    .setDescription(
      'Reference server of the Generic Project-Scoped Resource API. Every error answers the envelope ' +
        '`{statusCode, message, errors: [{code, message, …}]}`. 64-bit integers are exact in every body.',
    )
    .setVersion('1.0')
    .addServer('https://api.{region}.{cloudProvider}.{domain}', 'The public address', {
      region: { default: config.http.apiRegions[0] ?? 'europe-west1', ...(config.http.apiRegions.length ? { enum: config.http.apiRegions } : {}) },
      cloudProvider: { default: config.http.apiCloudProviders[0] ?? 'gcp', ...(config.http.apiCloudProviders.length ? { enum: config.http.apiCloudProviders } : {}) },
      domain: { default: config.http.apiDomain ?? 'example.com' },
    })
    .addServer(config.http.publicBaseUrl ?? '/', 'This server')
    .addOAuth2(
      {
        type: 'oauth2',
        description: 'Client credentials; scopes are `<name>:<projectKey>` (and `customer_id_test:<id>` for customer-bound clients).',
        flows: {
          clientCredentials: {
            tokenUrl: `${config.http.publicBaseUrl ?? ''}/oauth/token`,
            scopes: Object.fromEntries([
              ...SCOPE_NAMES.map((name) => [`${name}:{projectKey}`, `${name} of the project`]),
              ['customer_id_test:{id}', 'Binds the token to a customer'],
            ]),
          },
        },
      },
      'oauth2',
    )
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'bearer')
    .addBasicAuth({ type: 'http', scheme: 'basic', description: 'Client credentials at the token and introspection endpoints.' }, 'basic');
  return SwaggerModule.createDocument(app, builder.build(), {
    operationIdFactory: (_controller, method) => method,
  });
}

function setupOpenApi(app: INestApplication, config: AppConfig): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app, config), {
    jsonDocumentUrl: 'openapi.json',
    raw: ['json'],
  });
}

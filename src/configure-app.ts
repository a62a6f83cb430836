import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from './app-config.js';
import { registerBodyParsers } from './common/body-parsers.js';
import { sendErrorEnvelope } from './common/error-envelope.filter.js';
import { DomainError } from './common/domain-error.js';
import { ErrorCode } from './common/error-code.js';
import { SCOPE_NAMES } from './auth/scopes.js';
import { ACTION_CLASSES } from './resource/resource.dto.js';
import { httpServerOptions, requestTargetLimit } from './common/http-limits.js';
import { answerBeforeRouting, configureObservability, observabilityServerOptions } from './observability/observability.js';
import type { Logger } from 'pino';

/**
 * The HTTP server: Nest on Fastify (see the note on the performance issue: on these machines Nest on
 * Express served about 6,300 req/s on a constant route, Nest on Fastify about 41,000). Route paths
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
    // Errors Fastify raises before routing (a malformed URL) answer the contract's envelope too.
    frameworkErrors: answerBeforeRouting((reply) => sendErrorEnvelope(reply, DomainError.invalidInput('The request URL is malformed.'))),
    ...httpServerOptions(config.http),
  });
}

/** Everything global about the HTTP app; shared by `main.ts` and the tests so both run the same stack. */
export function configureApp(app: NestFastifyApplication, config: AppConfig): void {
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  configureObservability(app, config);
  // After the request id's hook, so a 414 carries X-Request-Id like every other answer.
  fastify.addHook('onRequest', requestTargetLimit(config.http.maxUrlBytes));
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

/** Operation groups in the spec's order (resource, search, complex path, images, namespace actions), then the service's own. */
const OPENAPI_TAGS: Array<[name: string, description: string]> = [
  ['resource', 'Resources of a project: create, read, query (`where`, `sort`, `expand`), update with actions, delete (spec §4.1, §4.2, §4.3 sorted query).'],
  ['search', 'Full-text search with a search expression, filters and facets (spec §4.3).'],
  ['complex-path', 'The complex path with out-of-order body properties (spec §4.4).'],
  ['images', 'Image upload of a resource (spec §4.5): 202 while attaching in the background, 200 once attached.'],
  ['namespace-actions', 'Namespace-action endpoints (spec §4.6).'],
  ['oauth', 'OAuth 2 client credentials: token and introspection (spec §5).'],
  ['api-clients', 'API clients of a project (id, secret shown once, scopes).'],
  ['health', 'Liveness and readiness, without a token.'],
];

/**
 * The OpenAPI document. `servers[0]` is this server (PUBLIC_BASE_URL, else `/`, which Swagger UI and
 * generated clients resolve against the address the document was loaded from; `/openapi.json` and
 * `/docs` also replace it per request with the request's own origin, see `documentForRequest`), then
 * the templated public address with its variables.
 */
export function buildOpenApiDocument(app: INestApplication, config: AppConfig) {
  const publicBaseUrl = config.http.publicBaseUrl?.replace(/\/+$/, '');
  const builder = new DocumentBuilder()
    .setTitle('Generic Project-Scoped Resource API')
    .setDescription(
      [
        'Reference server of the Generic Project-Scoped Resource API: project-scoped resources (`/{projectKey}/resource…`) ' +
          'with create, read, query, search, update actions, image upload and namespace actions.',
        '',
        '**Try it out:** click **Authorize**, enter the id and secret of an API client in the `oauth2` (client credentials) ' +
          'form, tick the scopes you need (`manage_test:{projectKey}`, `view_test:{projectKey}`, … with your project key ' +
          'written in place of `{projectKey}`, or none to get all of the client\'s scopes), then use **Try it out** on any operation. ' +
          'A token from `POST /oauth/token` can also be pasted into the `bearer` form.',
        '',
        'Every error answers the envelope `{statusCode, message, errors: [{code, message, …}]}`. ' +
          '64-bit integers are exact in every body. The scopes each operation needs are named in its description.',
      ].join('\n'),
    )
    .setVersion('1.0')
    .addServer(publicBaseUrl ?? '/', 'This server')
    .addServer('https://api.{region}.{cloudProvider}.{domain}', 'The public address', {
      region: { default: config.http.apiRegions[0] ?? 'europe-west1', ...(config.http.apiRegions.length ? { enum: config.http.apiRegions } : {}) },
      cloudProvider: { default: config.http.apiCloudProviders[0] ?? 'gcp', ...(config.http.apiCloudProviders.length ? { enum: config.http.apiCloudProviders } : {}) },
      domain: { default: config.http.apiDomain ?? 'example.com' },
    })
    .addOAuth2(
      {
        type: 'oauth2',
        description: 'Client credentials; scopes are `<name>:<projectKey>` (and `customer_id_test:<id>` for customer-bound clients).',
        flows: {
          clientCredentials: {
            tokenUrl: `${publicBaseUrl ?? ''}/oauth/token`,
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
  for (const [name, description] of OPENAPI_TAGS) builder.addTag(name, description);
  const document = SwaggerModule.createDocument(app, builder.build(), {
    operationIdFactory: (_controller, method) => method,
  });
  // Tags a module uses that the list above does not name keep their place after the listed ones.
  const order = new Map(OPENAPI_TAGS.map(([name], index) => [name, index]));
  document.tags = [...(document.tags ?? [])].sort((a, b) => (order.get(a.name) ?? order.size) - (order.get(b.name) ?? order.size));
  completeOperations(document);
  narrowUpdateActions(document);
  return document;
}

/**
 * Each update action's schema names its own `action` value (the classes inherit the list of all
 * names), so `actions` is a discriminated union for generated clients: `{action: 'changeSomeProperty'}`
 * without `someProperty` does not type-check.
 */
function narrowUpdateActions(document: OpenAPIObject): void {
  for (const [name, actionClass] of Object.entries(ACTION_CLASSES)) {
    const schema = document.components?.schemas?.[actionClass.name] as { properties?: Record<string, unknown> } | undefined;
    if (schema?.properties?.action) schema.properties.action = { type: 'string', enum: [name] };
  }
}

/** A valid ObjectTestTypeDraft (spec part 2): what "Try it out" sends to POST, PUT and PATCH /resource. */
const DRAFT_EXAMPLE = {
  key: 'example-1',
  objectTypeProperty: {
    arrayOfIntExample: [1, 2, 2],
    arrayOfUniqueIntExample: [1, 2, 3],
    arrayOfTwonumbersExample: [1.5, 2.5],
    arrayOfFloatExample: [0.5, 10],
    arrayOfNumberNoDefaultsExample: [1500],
    arrayOfStringExample: ['test', 'alpha'],
    arrayOfObjectType: [{ integerExample: 1, integerExampleInt32: 2 }],
  },
};

/** Request examples taken from valid payloads, by operationId (the method name). */
const REQUEST_EXAMPLES: Record<string, Record<string, { summary: string; value: unknown }>> = {
  createResource: {
    draft: { summary: 'A valid ObjectTestTypeDraft (key optional; publish defaults to true)', value: DRAFT_EXAMPLE },
    minimal: { summary: 'Without optional members', value: { objectTypeProperty: DRAFT_EXAMPLE.objectTypeProperty } },
  },
  createOrOverwriteResource: { draft: { summary: 'A valid ObjectTestTypeDraft with its key', value: DRAFT_EXAMPLE } },
  overwriteResource: { draft: { summary: 'A valid ObjectTestTypeDraft with its key', value: { ...DRAFT_EXAMPLE, version: 1 } } },
  updateResource: {
    specActions: {
      summary: 'Both actions of the spec',
      value: { version: 1, actions: [{ action: 'doSomeThing' }, { action: 'changeSomeProperty', someProperty: 'new value' }] },
    },
  },
  writeComplexPathRecord: {
    record: {
      summary: 'A valid OutOfOrderPropertiesTestType',
      value: {
        id: 'record-1',
        version: 'v1',
        key: 'key-1',
        createdAt: '2026-01-31T12:00:00.000Z',
        lastModifiedAt: '2026-02-01T08:30:00+02:00',
        createdBy: { firstName: 'Ada', lastName: 'Lovelace' },
        lastModifiedBy: { firstName: 'Grace', lastName: 'Hopper' },
        custom: 'custom value',
        eigthProperty: 'p8',
        ninthProperty: 'p9',
        tenthProperty: 'p10',
        eleventhPropery: 'p11',
        twelthProperty: 'p12',
        thirteenthProperty: 'p13',
        fourteenthProperty: 'p14',
        fifteenthProperty: 'p15',
      },
    },
  },
  issueToken: { clientCredentials: { summary: 'Client credentials in the body (or use HTTP Basic)', value: { grant_type: 'client_credentials', client_id: 'my-client', client_secret: 'its-secret' } } },
};

/**
 * Completes every operation for the page and for generated clients: request examples from valid
 * payloads, a description (the summary when a controller gives none) that names the scopes the
 * operation needs, and an image-upload example naming the file to choose.
 */
function completeOperations(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths)) {
    for (const method of ['get', 'head', 'post', 'put', 'patch', 'delete'] as const) {
      const operation = item[method];
      if (!operation) continue;
      const examples = REQUEST_EXAMPLES[operation.operationId ?? ''];
      const body = operation.requestBody as { content?: Record<string, { examples?: unknown }> } | undefined;
      if (examples && body?.content) {
        for (const [mediaType, content] of Object.entries(body.content)) {
          if (mediaType.includes('json') || mediaType === 'application/x-www-form-urlencoded') content.examples = examples;
        }
      }
      const oauth2 = (operation.security ?? []).find((requirement) => 'oauth2' in requirement)?.oauth2;
      const customerBound = oauth2?.includes('customer_id_test:{id}');
      const scopes = (oauth2 ?? []).filter((s) => s !== 'customer_id_test:{id}').map((s) => `\`${s}\``);
      if (customerBound && scopes.length > 0) scopes.push(`${scopes.pop()} together with \`customer_id_test:{id}\` (then only the customer's own resources)`);
      const access = oauth2
        ? `**Scopes:** ${scopes.join(' or ')}; \`manage_test\` also grants \`view_test\`.`
        : (operation.security ?? []).some((requirement) => 'basic' in requirement)
          ? '**Authentication:** the client\'s id and secret (HTTP Basic, or `client_id`/`client_secret` in the body).'
          : '**Access:** public, no token.';
      const text = operation.description ?? (operation.summary ? `${operation.summary}.` : '');
      operation.description = text.includes('**Scopes:**') ? text : `${text}\n\n${access}`.trim();
    }
  }
}

/**
 * The document as served to one request: without PUBLIC_BASE_URL, its first server and the token URL
 * are the request's own origin, so "Try it out" and Authorize on a local `npm start` reach this server.
 */
function documentForRequest(document: OpenAPIObject, config: AppConfig, req: FastifyRequest): OpenAPIObject {
  if (config.http.publicBaseUrl) return document;
  const host = req.headers.host;
  if (!host || !/^[A-Za-z0-9.:[\]-]+$/.test(host)) return document;
  const origin = `${req.protocol === 'https' ? 'https' : 'http'}://${host}`;
  const [, ...others] = document.servers ?? [];
  const schemes = { ...document.components?.securitySchemes };
  const oauth2 = schemes.oauth2 as { flows?: { clientCredentials?: { tokenUrl: string } } } | undefined;
  if (oauth2?.flows?.clientCredentials) {
    schemes.oauth2 = {
      ...oauth2,
      flows: { ...oauth2.flows, clientCredentials: { ...oauth2.flows.clientCredentials, tokenUrl: `${origin}/oauth/token` } },
    } as (typeof schemes)[string];
  }
  return { ...document, servers: [{ url: origin, description: 'This server' }, ...others], components: { ...document.components, securitySchemes: schemes } };
}

function setupOpenApi(app: INestApplication, config: AppConfig): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app, config), {
    jsonDocumentUrl: 'openapi.json',
    raw: ['json'],
    customSiteTitle: 'Generic Project-Scoped Resource API — Swagger',
    patchDocumentOnRequest: (req, _res, document) => documentForRequest(document, config, req as FastifyRequest),
    swaggerOptions: {
      persistAuthorization: true,
      displayRequestDuration: true,
      tryItOutEnabled: false,
      filter: true,
      docExpansion: 'list',
      defaultModelsExpandDepth: 0,
      // No tagsSorter: the tags keep the document's (spec) order.
      // Swagger UI would otherwise send the document to validator.swagger.io: nothing leaves the machine.
      validatorUrl: null,
    },
  });
}

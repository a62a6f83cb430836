import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import type { AppConfig } from '../app-config.js';
import { SCOPE_NAMES } from '../auth/scopes.js';
import { ACTION_CLASSES } from '../resource/resource.dto.js';

/*
 * The OpenAPI document, built from the controllers' and DTOs' decorators (request examples included),
 * then given what decorators cannot say: the servers, the security schemes, the tags in the API description's
 * order, each operation's access in its description, and the update actions as a discriminated union.
 */

/** Operation groups in the API description's order (resource, search, complex path, images, namespace actions), then the service's own. */
const OPENAPI_TAGS: Array<[name: string, description: string]> = [
  ['resource', 'Resources of a project: create, read, query (`where`, `sort`, `expand`), update with actions, delete. Examples: docs/api-guide.md#create; the query language: docs/rules.md#query-language.'],
  ['search', 'Full-text search with a search expression, filters and facets. Examples: docs/api-guide.md#search; the rules: docs/rules.md#search.'],
  ['complex-path', 'The complex path with out-of-order body properties (docs/api-guide.md#complex-path).'],
  ['images', 'Image upload of a resource: 202 while attaching in the background, 200 once attached. The checks and limits: docs/rules.md#images.'],
  ['namespace-actions', 'Namespace-action endpoints, answered by the action the operator declares (docs/rules.md#namespace-actions).'],
  ['change-log', 'Messages of every change and the version history of resources (beyond the original API description, which shows no events; docs/change-log-and-subscriptions.md#change-log).'],
  ['oauth', 'OAuth 2 client credentials: token and introspection (docs/authentication.md#getting-a-token; the rules: docs/security.md#token-endpoint-and-introspection).'],
  ['api-clients', 'API clients of a project (id, secret shown once, scopes). Who may create which: docs/security.md#who-may-do-what-api-clients.'],
  ['health', 'Liveness and readiness, without a token (docs/operations.md#health).'],
];

/**
 * The OpenAPI document. `servers[0]` is this server (PUBLIC_BASE_URL, else `/`, which Swagger UI and
 * generated clients resolve against the address the document was loaded from; `/openapi.json` and
 * `/docs` also replace it per request with the request's own origin, see `documentForRequest` in
 * openapi-setup.ts), then the templated public address with its variables.
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
        'Every error answers the envelope `{statusCode, message, errors: [{code, message, …}]}` (docs/rules.md#errors). ' +
          '64-bit integers are exact in every body. The scopes each operation needs are named in its description, and the ' +
          'page of the server\'s documentation that states its rules. The limits: docs/rules.md#limits.',
        '',
        '**Trust** (docs/security.md): a request without a valid token to an operation that needs one is answered 401 before ' +
          'its body is read or parsed, and a body larger than `HTTP_UNAUTHENTICATED_MAX_BODY_BYTES` (16 KiB) closes the connection; ' +
          'such requests are limited per remote address (`RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE`, 1,200; then 429 with `Retry-After`). ' +
          'A request without `Host` is 400; a path with `..` or an encoded dot is 404. Member names every object inherits ' +
          '(`__proto__`, `constructor`, `toString`, …) are unknown members (400 `InvalidField`) in every body.',
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
  describeAccess(document);
  narrowUpdateActions(document);
  return document;
}

/**
 * Each update action's schema names its own `action` value (the classes inherit the list of all
 * names), so `actions` is a discriminated union for generated clients: an action without the members its
 * name requires does not type-check.
 */
function narrowUpdateActions(document: OpenAPIObject): void {
  for (const [name, actionClass] of Object.entries(ACTION_CLASSES)) {
    const schema = document.components?.schemas?.[actionClass.name] as { properties?: Record<string, unknown> } | undefined;
    if (schema?.properties?.action) schema.properties.action = { type: 'string', enum: [name] };
  }
}

/** The page (and anchor) of the server's documentation that states the rules of an operation, by its path. */
const RULES_PAGES: Array<[path: RegExp, page: string]> = [
  [/\/sorted-query-parameters$/, 'docs/rules.md#query-language'],
  [/\/searchApiPattern$/, 'docs/rules.md#search'],
  [/\/resource\/images/, 'docs/rules.md#images'],
  [/\/resource\/(export|import)$/, 'docs/rules.md#bulk'],
  [/\/messages|\/versions/, 'docs/rules.md#change-log'],
  [/\/subscriptions/, 'docs/rules.md#subscriptions'],
  [/\/extensions/, 'docs/extensions.md#managing-extensions'],
  [/\/graphql$/, 'docs/graphql.md#schema'],
  [/\/api-clients/, 'docs/security.md#who-may-do-what-api-clients'],
  [/^\/oauth\//, 'docs/security.md#token-endpoint-and-introspection'],
  [/^\/\.well-known\/jwks\.json$/, 'docs/authentication.md#getting-a-token'],
  [/\/artificially-complex\//, 'docs/api-guide.md#complex-path'],
  [/\/resource\/(namespace-action|json-serializable)/, 'docs/rules.md#namespace-actions'],
  [/^\/health\//, 'docs/operations.md#health'],
  [/^\/\{projectKey\}\/resource/, 'docs/rules.md#addressing-and-input'],
];

/**
 * Gives every operation a description (the summary when a controller gives none) that names the
 * access it needs: its scopes, the client's credentials, or none; then the documentation page of its
 * rules. The request examples are the controllers' own (`@ApiBody({ examples })`).
 */
function describeAccess(document: OpenAPIObject): void {
  for (const [path, item] of Object.entries(document.paths)) {
    const rules = RULES_PAGES.find(([pattern]) => pattern.test(path))?.[1];
    for (const method of ['get', 'head', 'post', 'put', 'patch', 'delete'] as const) {
      const operation = item[method];
      if (!operation) continue;
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
      const described = text.includes('**Scopes:**') ? text : `${text}\n\n${access}`.trim();
      operation.description = rules && !described.includes(rules) ? `${described}\n\n**Rules:** ${rules} in the server's documentation.` : described;
    }
  }
}

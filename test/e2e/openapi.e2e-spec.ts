import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { anchorsOf } from '../support/markdown.js';
import { ROOT } from '../support/server-process.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { KEY_PATTERN } from '../../src/common/object-key.js';
import { MESSAGE_CATALOGUE, MESSAGE_TYPES } from '../../src/query-language/message.catalogue.js';
import { RESOURCE_CATALOGUE } from '../../src/query-language/resource.catalogue.js';

/*
 * The OpenAPI document (docs/api-guide.md#api-documentation-and-health): served at /openapi.json without a token,
 * valid OpenAPI 3, templated public address, every implemented route documented with the status codes
 * the API description and docs/rules.md give it.
 */

type Operation = { operationId?: string; responses?: Record<string, unknown>; parameters?: Array<Record<string, unknown>> };
type OpenApiDoc = {
  openapi: string;
  servers?: Array<{ url: string; variables?: Record<string, { default?: string; enum?: string[] }> }>;
  paths: Record<string, Record<string, Operation>>;
};

/*
 * swagger-parser 13 is CommonJS that requires an ESM-only dependency (json-schema-ref-parser). Node
 * loads that natively (require(esm)), but Jest's module loader cannot on Node < 24.9 ("Must use import
 * to load ES Module"), and it intercepts createRequire too. So the parser runs in a child Node process.
 */
function swaggerParser(operation: 'validate' | 'dereference', document: unknown): Promise<unknown> {
  const script = `
    const SwaggerParser = require('@apidevtools/swagger-parser');
    let input = '';
    process.stdin.on('data', (c) => (input += c)).on('end', () =>
      SwaggerParser.${operation}(JSON.parse(input)).then(
        (api) => process.stdout.write(JSON.stringify({ ok: true, api })),
        (error) => process.stdout.write(JSON.stringify({ ok: false, message: String(error && error.message) })),
      ));`;
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, ['-e', script], { cwd: process.cwd(), env: { PATH: process.env.PATH ?? '' }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => {
      if (error) return reject(error);
      const result = JSON.parse(stdout) as { ok: boolean; api?: unknown; message?: string };
      if (!result.ok) return reject(new Error(`swagger-parser ${operation}: ${result.message}`));
      resolve(result.api);
    });
    child.stdin!.end(JSON.stringify(document));
  });
}

const HTTP_METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'];

/** Every route the HTTP server registered, as `{method, path}` with `:param` written `{param}`. */
function registeredRoutes(t: TestApp): Array<{ method: string; path: string }> {
  return t.routes.map((r) => ({ method: r.method.toLowerCase(), path: r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}') }));
}

describe('GET /openapi.json', () => {
  let t: TestApp;
  let doc: OpenApiDoc;

  beforeAll(async () => {
    t = await createTestApp();
    const res = await t.http.get('/openapi.json');
    doc = res.body as OpenApiDoc;
  });
  afterAll(() => t.close());

  it('answers 200 JSON without a token', async () => {
    const res = await t.http.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(typeof res.body).toBe('object');
    expect(res.body.paths).toBeDefined();
  });

  it('is a valid OpenAPI 3 document', async () => {
    expect(doc.openapi).toMatch(/^3\./);
    const api = await swaggerParser('validate', doc);
    expect((api as { openapi?: string }).openapi).toMatch(/^3\./);
  });

  it('lists first the server the document was loaded from, then the templated public address with its variables', async () => {
    // "Try it out" must reach this server with no configuration.
    const res = await t.http.get('/openapi.json').set('Host', 'localhost:8123');
    const servers = (res.body as OpenApiDoc).servers!;
    expect(servers[0].url).toBe('http://localhost:8123');
    const tokenUrl = (res.body as { components: { securitySchemes: Record<string, { flows?: { clientCredentials?: { tokenUrl: string } } }> } })
      .components.securitySchemes.oauth2.flows!.clientCredentials!.tokenUrl;
    expect(tokenUrl).toBe('http://localhost:8123/oauth/token');
    const server = servers[1];
    expect(server.url).toBe('https://api.{region}.{cloudProvider}.{domain}');
    expect(server.variables).toBeDefined();
    expect(Object.keys(server.variables!)).toEqual(expect.arrayContaining(['region', 'cloudProvider']));
    expect(typeof server.variables!.region.default).toBe('string');
    expect(typeof server.variables!.cloudProvider.default).toBe('string');
    // The page gets the same document (its init script embeds it).
    const init = await t.http.get('/docs/swagger-ui-init.js').set('Host', 'localhost:8123');
    expect(init.text).toContain('"url": "http://localhost:8123"');
  });

  it('groups the operations in the API description order, then the change log, OAuth, API clients and health', () => {
    const tags = ((doc as unknown as { tags: Array<{ name: string; description?: string }> }).tags ?? []);
    expect(tags.map((tag) => tag.name)).toEqual(['resource', 'search', 'complex-path', 'images', 'namespace-actions', 'change-log', 'oauth', 'api-clients', 'health']);
    for (const tag of tags) expect(tag.description).toEqual(expect.any(String));
  });

  it('links every operation to the page of the documentation stating its rules, and every such link names a heading of the repository\'s docs', () => {
    const text = JSON.stringify(doc);
    const links = [...new Set([...text.matchAll(/\bdocs\/[\w-]+\.md#[\w-]+/g)].map((m) => m[0]))];
    expect(links).toEqual(expect.arrayContaining(['docs/rules.md#errors', 'docs/rules.md#limits', 'docs/rules.md#query-language', 'docs/rules.md#search']));
    const broken = links.filter((link) => {
      const [file, anchor] = link.split('#');
      return !existsSync(join(ROOT, file)) || !anchorsOf(readFileSync(join(ROOT, file), 'utf8')).has(anchor);
    });
    expect(broken).toEqual([]);
    const unlinked: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item) as Array<[string, { description?: string }]>) {
        if (HTTP_METHODS.includes(method) && !/\*\*Rules:\*\* docs\/[\w-]+\.md#[\w-]+/.test(operation.description ?? '')) unlinked.push(`${method} ${path}`);
      }
    }
    expect(unlinked).toEqual([]);
    const rules = (path: string, method = 'get') => (doc.paths[path][method] as { description?: string }).description;
    expect(rules('/{projectKey}/resource/sorted-query-parameters')).toContain('**Rules:** docs/rules.md#query-language');
    expect(rules('/{projectKey}/resource/images', 'post')).toContain('**Rules:** docs/rules.md#images');
  });

  it('gives every operation a summary and a description naming its access, and a media type on every response with a body', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item) as Array<[string, Operation & { summary?: string; description?: string }]>) {
        if (!HTTP_METHODS.includes(method)) continue;
        expect({ path, method, summary: typeof operation.summary }).toEqual({ path, method, summary: 'string' });
        expect({ path, method, description: operation.description }).toEqual({ path, method, description: expect.stringMatching(/\*\*(Scopes|Access|Authentication):\*\*/) });
        for (const [status, response] of Object.entries(operation.responses ?? {}) as Array<[string, { content?: Record<string, { schema?: unknown }> }]>) {
          if (method === 'head' || ['204', '304'].includes(status) || !response.content) continue;
          for (const [mediaType, content] of Object.entries(response.content)) expect({ path, method, status, mediaType, schema: content.schema !== undefined }).toMatchObject({ schema: true });
        }
      }
    }
  });

  it('gives the page request examples from valid payloads', () => {
    const body = (path: string, method: string) =>
      (doc.paths[path][method] as unknown as { requestBody: { content: Record<string, { examples?: Record<string, { value: Record<string, unknown> }> }> } }).requestBody.content['application/json'].examples!;
    expect(Object.values(body('/{projectKey}/resource', 'post'))[0].value).toMatchObject({ objectTypeProperty: { arrayOfTwonumbersExample: [1.5, 2.5] } });
    const update = Object.values(body('/{projectKey}/resource/{id}', 'post'))[0].value as { actions: Array<{ action: string }> };
    expect(update.actions.map((a) => a.action)).toEqual(['doSomeThing', 'changeSomeProperty']);
    const complexPath = Object.keys(doc.paths).find((path) => path.includes('artificially-complex'))!;
    expect(Object.values(body(complexPath, 'post'))[0].value).toMatchObject({ id: 'record-1', createdBy: { firstName: 'Ada' } });
  });

  it('keeps every optional request member optional for generated clients (no default in a request body schema)', async () => {
    const deref = (await swaggerParser('dereference', doc)) as OpenApiDoc;
    const withDefault: string[] = [];
    const visit = (schema: unknown, where: string, depth = 0): void => {
      if (!schema || typeof schema !== 'object' || depth > 12) return;
      const s = schema as { default?: unknown; properties?: Record<string, unknown>; items?: unknown; oneOf?: unknown[]; anyOf?: unknown[]; allOf?: unknown[] };
      if (s.default !== undefined) withDefault.push(where);
      for (const [name, member] of Object.entries(s.properties ?? {})) visit(member, `${where}.${name}`, depth + 1);
      for (const part of [s.items, ...(s.oneOf ?? []), ...(s.anyOf ?? []), ...(s.allOf ?? [])]) visit(part, where, depth + 1);
    };
    for (const [path, item] of Object.entries(deref.paths)) {
      for (const [method, operation] of Object.entries(item) as Array<[string, { requestBody?: { content?: Record<string, { schema?: unknown }> } }]>) {
        for (const [mediaType, content] of Object.entries(operation.requestBody?.content ?? {})) visit(content.schema, `${method} ${path} ${mediaType}`);
      }
    }
    expect(withDefault).toEqual([]);
  });

  // Status codes the original API description and docs/rules.md give each implemented operation.
  const DOCUMENTED: Array<[method: string, path: string, statuses: string[]]> = [
    ['head', '/{projectKey}/resource', ['200', '400', '404']],
    ['get', '/{projectKey}/resource', ['200', '400']],
    ['post', '/{projectKey}/resource', ['201', '400', '409']],
    ['put', '/{projectKey}/resource', ['201', '400', '409']],
    ['patch', '/{projectKey}/resource', ['201', '400', '404', '409']],
    ['get', '/{projectKey}/resource/key={key}', ['200', '400', '404']],
    ['get', '/{projectKey}/resource/{id}', ['200', '400', '404']],
    ['post', '/{projectKey}/resource/{id}', ['200', '400', '404', '409']],
    ['delete', '/{projectKey}/resource/{id}', ['200', '400', '404', '409']],
    ['get', '/{projectKey}/messages', ['200', '400', '401', '403']],
    ['get', '/{projectKey}/messages/{id}', ['200', '401', '403', '404']],
    ['get', '/{projectKey}/resource/{id}/versions', ['200', '400', '401', '403', '404']],
    ['get', '/{projectKey}/resource/{id}/versions/{version}', ['200', '401', '403', '404']],
    ['get', '/health/live', ['200']],
    ['get', '/health/ready', ['200', '503']],
  ];

  it.each(DOCUMENTED)('documents %s %s with its status codes', (method, path, statuses) => {
    const operation = doc.paths[path]?.[method];
    expect(operation).toBeDefined();
    expect(Object.keys(operation!.responses ?? {})).toEqual(expect.arrayContaining(statuses));
  });

  it('documents 201 (not 200) as the success of POST, PUT and PATCH /{projectKey}/resource', () => {
    for (const method of ['post', 'put', 'patch']) {
      const responses = doc.paths['/{projectKey}/resource'][method].responses ?? {};
      expect(Object.keys(responses)).toContain('201');
      expect(Object.keys(responses)).not.toContain('200');
    }
  });

  it('documents 409 for POST /{projectKey}/resource/{id}', () => {
    expect(Object.keys(doc.paths['/{projectKey}/resource/{id}'].post.responses ?? {})).toContain('409');
  });

  it('documents the path parameters of every /{projectKey} operation', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const [method, operation] of Object.entries(item)) {
        if (!HTTP_METHODS.includes(method)) continue;
        const declared = (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
        expect({ method, path, params: declared.sort() }).toEqual({ method, path, params: [...names].sort() });
      }
    }
  });

  it('gives every operation a unique operationId', () => {
    const ids: string[] = [];
    for (const item of Object.values(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!HTTP_METHODS.includes(method)) continue;
        expect(typeof operation.operationId).toBe('string');
        ids.push(operation.operationId!);
      }
    }
    expect(ids.length).toBeGreaterThanOrEqual(DOCUMENTED.length);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('declares the 64-bit integer fields as integer/int64', async () => {
    const deref = (await swaggerParser('dereference', doc)) as OpenApiDoc;
    const ok = deref.paths['/{projectKey}/resource'].get.responses!['200'] as {
      content: Record<string, { schema: { properties: Record<string, { items: { type?: string; format?: string; properties?: Record<string, { type?: string; format?: string }> } }> } }>;
    };
    const arrays = ok.content['application/json'].schema.properties;
    expect(arrays.arrayOfIntExample.items).toMatchObject({ type: 'integer', format: 'int64' });
    expect(arrays.arrayOfUniqueIntExample.items).toMatchObject({ type: 'integer', format: 'int64' });
    expect(arrays.arrayOfObjectType.items.properties!.integerExample).toMatchObject({ type: 'integer', format: 'int64' });
    expect(arrays.arrayOfObjectType.items.properties!.integerExampleInt32).toMatchObject({ type: 'integer', format: 'int32' });

    // The same schema is the draft's objectTypeProperty (request body of POST /resource).
    const body = deref.paths['/{projectKey}/resource'].post as unknown as {
      requestBody: { content: Record<string, { schema: { properties: Record<string, { properties: Record<string, { items: unknown }> }> } }> };
    };
    const draftArrays = body.requestBody.content['application/json'].schema.properties.objectTypeProperty.properties;
    expect(draftArrays.arrayOfIntExample.items).toMatchObject({ type: 'integer', format: 'int64' });

    // integerParameter (GET and HEAD /resource) is a 64-bit integer too.
    for (const method of ['get', 'head']) {
      const param = (deref.paths['/{projectKey}/resource'][method].parameters ?? []).find((p) => p.name === 'integerParameter') as
        | { schema?: { type?: string; format?: string } }
        | undefined;
      expect(param?.schema).toMatchObject({ type: 'integer', format: 'int64' });
    }
  });

  it('serves the Swagger UI at /docs as HTML without a token', async () => {
    const res = await t.http.get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toMatch(/swagger/i);
  });

  it('serves the page from local assets only, with the online validator off', async () => {
    const html = (await t.http.get('/docs')).text;
    const references = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(references.length).toBeGreaterThan(0);
    expect(references.filter((ref) => /^(https?:)?\/\//.test(ref))).toEqual([]);
    const init = (await t.http.get('/docs/swagger-ui-init.js')).text;
    expect(init).toMatch(/"validatorUrl":\s*null/);
    expect(init).toMatch(/"persistAuthorization":\s*true/);
  });

  it('describes the change log: the message with its members, the versions page, and the scopes of each operation', async () => {
    const deref = (await swaggerParser('dereference', doc)) as OpenApiDoc;
    type Schema = { properties: Record<string, { type?: string; enum?: unknown[]; properties?: Record<string, unknown>; items?: Schema }>; required?: string[] };
    const schemaOf = (path: string) =>
      (deref.paths[path].get.responses!['200'] as { content: Record<string, { schema: Schema }> }).content['application/json'].schema;
    const message = schemaOf('/{projectKey}/messages/{id}');
    expect(Object.keys(message.properties)).toEqual(expect.arrayContaining([
      'id', 'version', 'sequenceNumber', 'resource', 'resourceVersion', 'resourceUserProvidedIdentifiers', 'type', 'createdAt', 'lastModifiedAt',
      'createdBy', 'lastModifiedBy', 'representation', 'objectTypeProperty', 'someProperty', 'oldSomeProperty', 'key', 'oldKey', 'image',
    ]));
    expect(message.required).toEqual(expect.arrayContaining(['id', 'version', 'sequenceNumber', 'resource', 'resourceVersion', 'type', 'createdAt', 'createdBy']));
    expect(message.properties.type.enum).toEqual(expect.arrayContaining(['ResourceCreated', 'KeySet', 'ImageAdded', 'ResourceDeleted']));
    expect(Object.keys(message.properties.resource.properties!)).toEqual(['typeId', 'id']);
    const list = schemaOf('/{projectKey}/messages');
    expect(Object.keys(list.properties)).toEqual(['limit', 'offset', 'count', 'total', 'results']);
    const versions = schemaOf('/{projectKey}/resource/{id}/versions');
    expect(Object.keys(versions.properties.results.items!.properties)).toEqual(['version', 'modifiedAt', 'modifiedBy', 'types']);
    const queryParameters = (deref.paths['/{projectKey}/messages'].get.parameters ?? []).map((p) => p.name);
    expect(queryParameters).toEqual(expect.arrayContaining(['where', 'var.<name>', 'sort', 'limit', 'offset', 'withTotal']));
    expect(queryParameters).not.toContain('expand');
    const description = (path: string) => (doc.paths[path].get as { description?: string }).description;
    expect(description('/{projectKey}/messages')).toContain('`view_messages:{projectKey}` or `manage_test:{projectKey}`');
    expect(description('/{projectKey}/resource/{id}/versions/{version}')).toContain('`view_audit_log:{projectKey}` or `view_test:{projectKey}`');
  });

  it('states each vocabulary as the server applies it: one key pattern, one list of message types, the catalogues\' fields', async () => {
    type Property = { pattern?: string; enum?: string[]; items?: { enum?: string[] } };
    const schemas = (doc as unknown as { components: { schemas: Record<string, { properties: Record<string, Property> }> } }).components.schemas;
    const keyed = ['ObjectTestTypeDto', 'ObjectTestTypeDraftDto', 'KeyedObjectTestTypeDraftDto', 'SetKeyAction', 'SubscriptionDraftDto', 'SetSubscriptionKeyAction'];
    for (const name of keyed) expect([name, schemas[name].properties.key.pattern]).toEqual([name, KEY_PATTERN.source]);
    expect(schemas.MessageDto.properties.type.enum).toEqual([...MESSAGE_TYPES]);
    expect(schemas.ResourceVersionDto.properties.types.items!.enum).toEqual([...MESSAGE_TYPES]);
    expect(schemas.MessageSubscriptionDto.properties.types.items!.enum).toEqual([...MESSAGE_TYPES]);

    const parameter = (path: string, name: string) => doc.paths[path].get.parameters!.find((p) => p.name === name) as { description: string };
    expect(parameter('/{projectKey}/resource/sorted-query-parameters', 'where').description).toContain(`Fields: ${RESOURCE_CATALOGUE.where.leaves.join(', ')}, and`);
    expect(parameter('/{projectKey}/messages', 'where').description).toContain(`Fields: ${MESSAGE_CATALOGUE.where.leaves.join(', ')}, `);
    expect(parameter('/{projectKey}/resource/searchApiPattern', 'sort').description).toContain(`score (relevance), ${[...RESOURCE_CATALOGUE.sortFields.keys()].join(', ')}.`);

    // The documented 400 is the server's own answer to the same mistake.
    const documented = (doc.paths['/{projectKey}/resource/sorted-query-parameters'].get.responses!['400'] as { content: Record<string, { example: { message: string } }> })
      .content['application/json'].example.message;
    const res = await t.http.get(`/${t.projectKey}/resource/sorted-query-parameters`).query({ where: 'colour = "red"' }).set(await t.auth('view_test'));
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(documented);
  });

  it('names each update action in its own schema (a discriminated union for generated clients)', () => {
    const schemas = (doc as unknown as { components: { schemas: Record<string, { properties: { action: { enum: string[] } } }> } }).components.schemas;
    expect(schemas.DoSomeThingAction.properties.action.enum).toEqual(['doSomeThing']);
    expect(schemas.ChangeSomePropertyAction.properties.action.enum).toEqual(['changeSomeProperty']);
  });

  it('documents every route registered in the HTTP server', () => {
    // The two consoles are pages for people, not operations of the API.
    const routes = registeredRoutes(t).filter(({ path }) => !path.startsWith('/docs') && path !== '/graphiql' && path !== '/openapi.json');
    expect(routes.length).toBeGreaterThanOrEqual(DOCUMENTED.length);
    const missing = routes.filter(({ method, path }) => doc.paths[path]?.[method] === undefined);
    expect(missing).toEqual([]);
  });

  it('documents no operation that the HTTP server does not serve', () => {
    const served = new Set(registeredRoutes(t).map(({ method, path }) => `${method} ${path}`));
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).filter((m) => HTTP_METHODS.includes(m)).map((method) => `${method} ${path}`),
    );
    expect(documented.filter((op) => !served.has(op))).toEqual([]);
  });
});

describe('GET /openapi.json with PUBLIC_BASE_URL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ PUBLIC_BASE_URL: 'https://api.eu.gcp.example.com' });
  });
  afterAll(() => t.close());

  it('lists PUBLIC_BASE_URL first whatever the request host, with its token URL', async () => {
    const res = await t.http.get('/openapi.json').set('Host', 'localhost:8123');
    expect(res.status).toBe(200);
    const body = res.body as OpenApiDoc & { components: { securitySchemes: Record<string, { flows?: { clientCredentials?: { tokenUrl: string } } }> } };
    expect(body.servers!.map((s) => s.url)).toEqual(['https://api.eu.gcp.example.com', 'https://api.{region}.{cloudProvider}.{domain}']);
    expect(body.components.securitySchemes.oauth2.flows!.clientCredentials!.tokenUrl).toBe('https://api.eu.gcp.example.com/oauth/token');
  });
});

describe('GET /openapi.json with the host check configured', () => {
  let t: TestApp;
  const host = 'api.eu.gcp.example.com';
  beforeAll(async () => {
    t = await createTestApp({ API_DOMAIN: 'example.com', API_REGIONS: 'eu,us', API_CLOUD_PROVIDERS: 'gcp,aws' });
  });
  afterAll(() => t.close());

  it('lists the configured regions and providers as the server variables', async () => {
    const res = await t.http.get('/openapi.json').set('Host', host);
    expect(res.status).toBe(200);
    const servers = (res.body as OpenApiDoc).servers!;
    expect(servers[0].url).toBe(`http://${host}`);
    const server = servers[1];
    expect(server.url).toBe('https://api.{region}.{cloudProvider}.{domain}');
    expect(server.variables!.region).toMatchObject({ default: 'eu', enum: ['eu', 'us'] });
    expect(server.variables!.cloudProvider).toMatchObject({ default: 'gcp', enum: ['gcp', 'aws'] });
    expect(server.variables!.domain).toMatchObject({ default: 'example.com' });
    await expect(swaggerParser('validate', res.body)).resolves.toBeDefined();
  });
});

import { execFile } from 'node:child_process';
import { createTestApp, TestApp } from '../support/test-app.js';

/*
 * The OpenAPI document (CONTRACT.md §0, §10 "Addressing"): served at /openapi.json without a token,
 * valid OpenAPI 3, templated public address, every implemented route documented with the status codes
 * the spec and the contract give it.
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

  it("has the templated public address as its first server, with region and cloudProvider variables", () => {
    expect(doc.servers?.length).toBeGreaterThanOrEqual(1);
    const server = doc.servers![0];
    expect(server.url).toBe('https://api.{region}.{cloudProvider}.{domain}');
    expect(server.variables).toBeDefined();
    expect(Object.keys(server.variables!)).toEqual(expect.arrayContaining(['region', 'cloudProvider']));
    expect(typeof server.variables!.region.default).toBe('string');
    expect(typeof server.variables!.cloudProvider.default).toBe('string');
  });

  // Status codes the spec (part 4) and the contract (§2–§4, §10) give each implemented operation.
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

  it('documents every route registered in the HTTP server', () => {
    const routes = registeredRoutes(t).filter(({ path }) => !path.startsWith('/docs') && path !== '/openapi.json');
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
    const server = (res.body as OpenApiDoc).servers![0];
    expect(server.url).toBe('https://api.{region}.{cloudProvider}.{domain}');
    expect(server.variables!.region).toMatchObject({ default: 'eu', enum: ['eu', 'us'] });
    expect(server.variables!.cloudProvider).toMatchObject({ default: 'gcp', enum: ['gcp', 'aws'] });
    expect(server.variables!.domain).toMatchObject({ default: 'example.com' });
    await expect(swaggerParser('validate', res.body)).resolves.toBeDefined();
  });
});

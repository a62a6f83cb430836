import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { expectErrorEnvelope } from '../support/expect-error.js';
import { INT64_MAX, INT64_MIN } from '../support/fixtures.js';

/*
 * The namespace-action endpoints (docs/rules.md#namespace-actions), black-box over
 * HTTP. The app runs with an ACTIONS_FILE (YAML) that declares, for a few projects of their own,
 * forward actions to a real HTTP backend started here, static answers and a shared store key; every
 * other project gets the built-in defaults. CORS is on (HTTP_CORS_ORIGINS) for the preflight tests.
 */

const ORIGIN = 'https://shop.example';
const FORWARD = uniqueProjectKey('fwd');
const DOWN = uniqueProjectKey('down');
const STATIC = uniqueProjectKey('stat');
const UNSPECIFIED = uniqueProjectKey('zero');
const FORWARD_TIMEOUT_MS = 400;
/** ACTIONS_FORWARD_TIMEOUT_MS of the app: the timeout of forward actions that declare none. */
const DEFAULT_TIMEOUT_MS = 600;

interface BackendCall {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A real backend: answers by path; remembers every request it receives. */
function startBackend(): Promise<{ server: Server; url: string; calls: BackendCall[] }> {
  const calls: BackendCall[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      calls.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const path = req.url!.split('?')[0];
      const status = /\/status\/(\d{3})$/.exec(path);
      if (status) {
        res.writeHead(Number(status[1]), { 'Content-Type': 'application/json' });
        return res.end(Number(status[1]) === 204 ? undefined : JSON.stringify({ backendStatus: Number(status[1]) }));
      }
      if (path.endsWith('/slow') || req.url!.includes('slow=1')) {
        const timer = setTimeout(() => res.end('{"late":true}'), 5_000);
        res.on('close', () => clearTimeout(timer));
        return;
      }
      if (path.endsWith('/not-json')) {
        res.writeHead(200, { 'Content-Type': 'text/html' });
        return res.end('<html>not json</html>');
      }
      if (path.endsWith('/big')) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        return res.end(`{"max":${INT64_MAX},"min":${INT64_MIN}}`);
      }
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'Cache-Control': 'max-age=5',
        'X-Backend': 'yes',
        'Set-Cookie': 'session=backend',
        'Strict-Transport-Security': 'max-age=100',
        'Access-Control-Allow-Origin': '*',
        'Content-Security-Policy': "default-src 'none'",
        Server: 'backend/1.0',
        'X-Powered-By': 'backend',
        Connection: 'keep-alive, X-Hop',
        'X-Hop': 'secret',
        Location: 'http://internal/elsewhere',
      });
      res.end(JSON.stringify({ method: req.method, url: req.url, body }));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls })),
  );
}

/** A port nothing listens on: bound, then closed. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function actionsYaml(backend: string, downPort: number): string {
  return `
actions:
  - method: GET
    path: namespace-action-with-headers
    projects: [${FORWARD}]
    handler:
      type: forward
      url: ${backend}/api
      timeoutMs: ${FORWARD_TIMEOUT_MS}
      headers: { X-Api-Key: backend-secret }
      forwardHeaders: [Test-Header, Accept-Language, X-Not-Sent]
  - method: GET
    path: /namespace-action
    projects: [${FORWARD}]
    handler: { type: forward, url: "${backend}/api/echo?fixed=1" }
  - method: post
    path: /{projectKey}/resource/namespace-action
    projects: [${FORWARD}]
    handler: { type: forward, url: "${backend}/api/echo" }
  - method: PUT
    path: json-serializable-primitive-type
    projects: [${FORWARD}]
    handler: { type: forward, url: "${backend}/api/echo" }
  - method: GET
    path: namespace-action
    projects: [${DOWN}]
    handler: { type: forward, url: "http://127.0.0.1:${downPort}/x" }
  - method: GET
    path: namespace-action
    projects: [${UNSPECIFIED}]
    handler: { type: forward, url: "${backend.replace('127.0.0.1', '0.0.0.0')}/api/echo" }
  - method: GET
    path: namespace-action-with-example
    projects: [${STATIC}]
    handler:
      type: static
      status: 202
      headers: { Cache-Control: no-store, X-Custom: declared }
      body: { big: ${INT64_MAX}, list: [1, "two", null, true] }
  - method: PUT
    path: json-serializable-primitive-type
    projects: [${STATIC}]
    handler: { type: store, key: namespace-action }
`;
}

describe('namespace actions', () => {
  let t: TestApp;
  let backend: Awaited<ReturnType<typeof startBackend>>;
  let dir: string;

  beforeAll(async () => {
    backend = await startBackend();
    dir = mkdtempSync(join(tmpdir(), 'actions-'));
    const file = join(dir, 'actions.yaml');
    writeFileSync(file, actionsYaml(backend.url, await closedPort()));
    t = await createTestApp({ ACTIONS_FILE: file, HTTP_CORS_ORIGINS: ORIGIN, ACTIONS_FORWARD_TIMEOUT_MS: String(DEFAULT_TIMEOUT_MS) });
  });
  afterAll(async () => {
    await t.close();
    backend.server.closeAllConnections();
    await new Promise((resolve) => backend.server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const path = (pk: string, endpoint: string) => `/${pk}/resource/${endpoint}`;
  const lastCall = () => backend.calls[backend.calls.length - 1];

  /** A fresh project with a token of the given scopes. */
  async function project(scopes = 'manage_test'): Promise<{ pk: string; auth: Record<string, string> }> {
    const pk = uniqueProjectKey('na');
    return { pk, auth: await t.auth(scopes, { projectKey: pk }) };
  }

  function expectCart(body: Record<string, any>): void {
    expect(Object.keys(body).sort()).toEqual(['billingAddress', 'cartId', 'cartVersion', 'discountCodes', 'lineItems', 'payments', 'shippingAddress', 'sum']);
    expect(typeof body.cartId).toBe('string');
    expect(typeof body.cartVersion).toBe('string');
    expect(body).toMatchObject({ shippingAddress: {}, billingAddress: {}, payments: [], discountCodes: [] });
    const money = { fractionDigits: expect.any(Number), centAmount: expect.any(Number), currencyCode: expect.any(String) };
    expect(body.sum).toEqual(money);
    expect(body.lineItems.length).toBeGreaterThan(0);
    const item = body.lineItems[0];
    expect(item).toEqual({
      lineItemId: expect.any(String),
      productId: expect.any(String),
      name: expect.any(String),
      type: expect.any(String),
      count: expect.any(Number),
      price: money,
      discountTexts: expect.any(Array),
      discounts: expect.any(Array),
      totalPrice: money,
      variant: expect.objectContaining({ id: expect.any(String), sku: expect.any(String), groupId: expect.any(String), price: money, isOnStock: expect.any(Boolean) }),
      isGift: expect.any(Boolean),
      _url: expect.stringMatching(/^\//),
    });
    expect(Number.isInteger(item.count)).toBe(true);
    expect(item.variant.images.every((url: unknown) => typeof url === 'string' && /^https?:\/\//.test(url))).toBe(true);
    const attributes = item.variant.attributes;
    for (const name of ['articleNumberManufacturer', 'articleNumberMax', 'matrixId', 'baseId', 'colorFreeDefinition', 'size', 'season']) {
      expect(typeof attributes[name]).toBe('string');
    }
    for (const name of ['designer', 'madeInItaly', 'commonSize', 'color', 'style', 'gender']) {
      expect(attributes[name]).toEqual({ key: expect.any(String), label: expect.any(String) });
    }
  }

  const VALID_HEADERS = { 'Test-Header': '{"version":1}', 'Path-Header': '/carts/current' };

  describe('defaults (no declaration for the project)', () => {
    it('GET namespace-action-with-example answers the cart', async () => {
      const res = await t.http.get(path(t.projectKey, 'namespace-action-with-example')).set(await t.auth('view_test'));
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expectCart(res.body);
    });

    it('GET namespace-action-with-headers answers the same cart when its headers are valid', async () => {
      const example = await t.http.get(path(t.projectKey, 'namespace-action-with-example')).set(await t.auth('view_test'));
      const res = await t.http.get(path(t.projectKey, 'namespace-action-with-headers')).set(await t.auth('view_test')).set(VALID_HEADERS);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(example.body);
    });

    it('GET namespace-action answers null before anything was stored', async () => {
      const { pk } = await project();
      const res = await t.http.get(path(pk, 'namespace-action')).set(await t.auth('view_test', { projectKey: pk }));
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.text).toBe('null');
      expect(res.headers.etag).toBeUndefined();
    });

    it('POST namespace-action stores its JSON body and answers it (200); GET answers what was last stored', async () => {
      const { pk, auth } = await project();
      const first = await t.http.post(path(pk, 'namespace-action')).set(auth).send({ cart: 'abc', items: [1, 2] });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ cart: 'abc', items: [1, 2] });
      expect(first.headers.etag).toBe('"1"');
      const second = await t.http.post(path(pk, 'namespace-action')).set(auth).send(['second']);
      expect(second.body).toEqual(['second']);
      expect(second.headers.etag).toBe('"2"');
      const read = await t.http.get(path(pk, 'namespace-action')).set(await t.auth('view_test', { projectKey: pk }));
      expect(read.status).toBe(200);
      expect(read.body).toEqual(['second']);
      expect(read.headers.etag).toBe('"2"');
    });

    it('POST namespace-action without a body stores and answers null', async () => {
      const { pk, auth } = await project();
      await t.http.post(path(pk, 'namespace-action')).set(auth).send({ before: true });
      const res = await t.http.post(path(pk, 'namespace-action')).set(auth);
      expect(res.status).toBe(200);
      expect(res.text).toBe('null');
      const read = await t.http.get(path(pk, 'namespace-action')).set(auth);
      expect(read.text).toBe('null');
      expect(read.headers.etag).toBe('"2"');
    });

    it('keeps 64-bit integers exact through POST and GET', async () => {
      const { pk, auth } = await project();
      const text = `{"max":${INT64_MAX},"min":${INT64_MIN},"list":[${INT64_MAX}]}`;
      const res = await t.http.post(path(pk, 'namespace-action')).set(auth).set('Content-Type', 'application/json').send(text);
      expect(res.status).toBe(200);
      const read = await t.http.get(path(pk, 'namespace-action')).set(auth);
      for (const answer of [res, read]) {
        const compact = answer.text.replace(/\s/g, '');
        expect(compact).toContain(`"max":${INT64_MAX}`);
        expect(compact).toContain(`"min":${INT64_MIN}`);
        expect(compact).toContain(`"list":[${INT64_MAX}]`);
      }
    });

    it('projects are isolated: a value stored in one project is not visible in another', async () => {
      const a = await project();
      const b = await project();
      await t.http.post(path(a.pk, 'namespace-action')).set(a.auth).send({ secret: 'a' });
      const res = await t.http.get(path(b.pk, 'namespace-action')).set(b.auth);
      expect(res.text).toBe('null');
    });

    it('concurrent writers: every write gets its own version, none is lost, the last version holds the value', async () => {
      const { pk, auth } = await project();
      const writers = 20;
      const answers = await Promise.all(
        Array.from({ length: writers }, (_, i) => t.http.post(path(pk, 'namespace-action')).set(auth).send({ writer: i })),
      );
      expect(answers.map((r) => r.status)).toEqual(Array(writers).fill(200));
      const versions = answers.map((r) => Number(/^"(\d+)"$/.exec(r.headers.etag)![1])).sort((x, y) => x - y);
      expect(versions).toEqual(Array.from({ length: writers }, (_, i) => i + 1));
      const read = await t.http.get(path(pk, 'namespace-action')).set(auth);
      expect(read.headers.etag).toBe(`"${writers}"`);
      const lastWriter = answers.find((r) => r.headers.etag === `"${writers}"`)!;
      expect(read.body).toEqual(lastWriter.body);
    });

    it('malformed JSON body → 400 InvalidJsonInput, nothing stored', async () => {
      const { pk, auth } = await project();
      const res = await t.http.post(path(pk, 'namespace-action')).set(auth).set('Content-Type', 'application/json').send('{"a":');
      expectErrorEnvelope(res, 400, 'InvalidJsonInput');
      expect((await t.http.get(path(pk, 'namespace-action')).set(auth)).text).toBe('null');
    });

    it.each([
      ['application/x-www-form-urlencoded', 'a=1'],
      ['text/plain', 'hello'],
    ])('a %s body → 415 UnsupportedMediaType', async (type, body) => {
      const { pk, auth } = await project();
      const res = await t.http.post(path(pk, 'namespace-action')).set(auth).set('Content-Type', type).send(body);
      expectErrorEnvelope(res, 415, 'UnsupportedMediaType');
    });
  });

  describe('PUT json-serializable-primitive-type (default: store and answer the value)', () => {
    const VALUES: Array<[label: string, sent: string, answered: string]> = [
      ['a bare string', '"raw string"', '"raw string"'],
      ['an empty string', '""', '""'],
      ['a string with escapes and unicode', '"line\\nbreak \\"quoted\\" \\u00e9 €"', '"line\\nbreak \\"quoted\\" é €"'],
      ['an integer', '42', '42'],
      ['a negative decimal', '-12.5', '-12.5'],
      ['zero', '0', '0'],
      ['the largest int64', INT64_MAX, INT64_MAX],
      ['the smallest int64', INT64_MIN, INT64_MIN],
      ['an integer beyond 64 bits', '18446744073709551616', '18446744073709551616'],
      ['true', 'true', 'true'],
      ['false', 'false', 'false'],
      ['null', 'null', 'null'],
      ['an empty array', '[]', '[]'],
      ['a mixed array', `[1,"a",null,true,${INT64_MAX}]`, `[1, "a", null, true, ${INT64_MAX}]`],
      ['an empty object', '{}', '{}'],
      ['a nested object', '{"a":{"b":[1,{"c":null}]}}', '{"a": {"b": [1, {"c": null}]}}'],
    ];

    it.each(VALUES)('%s: stored and answered exactly as application/json', async (_label, sent, answered) => {
      const { pk, auth } = await project();
      const res = await t.http.put(path(pk, 'json-serializable-primitive-type')).set(auth).set('Content-Type', 'application/json').send(sent);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.text).toBe(answered);
      expect(res.headers.etag).toBe('"1"');
    });

    it('a second PUT replaces the value (version 2)', async () => {
      const { pk, auth } = await project();
      await t.http.put(path(pk, 'json-serializable-primitive-type')).set(auth).set('Content-Type', 'application/json').send('1');
      const res = await t.http.put(path(pk, 'json-serializable-primitive-type')).set(auth).set('Content-Type', 'application/json').send('"two"');
      expect(res.text).toBe('"two"');
      expect(res.headers.etag).toBe('"2"');
    });

    it('no body stores null', async () => {
      const { pk, auth } = await project();
      const res = await t.http.put(path(pk, 'json-serializable-primitive-type')).set(auth);
      expect(res.status).toBe(200);
      expect(res.text).toBe('null');
    });

    it.each([
      ['an unquoted string', 'raw string', 'InvalidJsonInput'],
      ['a number too large for JSON', '1e400', 'InvalidInput'],
      ['a NUL character', '"a\\u0000b"', 'InvalidInput'],
      ['nesting deeper than 64 levels', `${'['.repeat(65)}${']'.repeat(65)}`, 'InvalidInput'],
    ])('%s → 400 %s', async (_label, sent, code) => {
      const { pk, auth } = await project();
      const res = await t.http.put(path(pk, 'json-serializable-primitive-type')).set(auth).set('Content-Type', 'application/json').send(sent);
      expectErrorEnvelope(res, 400, code);
    });
  });

  describe('access (docs/rules.md#scopes: reads view_test or manage_test, writes manage_test)', () => {
    it.each([
      ['get', 'namespace-action'],
      ['get', 'namespace-action-with-example'],
      ['get', 'namespace-action-with-headers'],
      ['post', 'namespace-action'],
      ['put', 'json-serializable-primitive-type'],
    ] as const)('%s %s without a token → 401', async (method, endpoint) => {
      const res = await t.http[method](path(t.projectKey, endpoint));
      expectErrorEnvelope(res, 401, 'invalid_token');
    });

    it.each([
      ['post', 'namespace-action'],
      ['put', 'json-serializable-primitive-type'],
    ] as const)('%s %s with view_test only → 403', async (method, endpoint) => {
      const res = await t.http[method](path(t.projectKey, endpoint)).set(await t.auth('view_test')).send({ a: 1 });
      expectErrorEnvelope(res, 403, 'insufficient_scope');
    });

    it.each(['namespace-action', 'namespace-action-with-example'])('GET %s with manage_test → 200', async (endpoint) => {
      const res = await t.http.get(path(t.projectKey, endpoint)).set(await t.auth('manage_test'));
      expect(res.status).toBe(200);
    });

    it('a token of another project → 403', async () => {
      const res = await t.http.get(path(t.projectKey, 'namespace-action')).set(await t.auth('manage_test', { projectKey: t.otherProjectKey }));
      expectErrorEnvelope(res, 403, 'insufficient_scope');
    });
  });

  describe('GET namespace-action-with-headers: header rules and their order', () => {
    const get = async (headers: Record<string, string>, pk = t.projectKey) =>
      t.http.get(path(pk, 'namespace-action-with-headers')).set(await t.auth('view_test', { projectKey: pk })).set(headers);

    it.each(['application/json', '*/*', 'application/*', 'text/html, application/json;q=0.1', 'application/json; charset=utf-8', 'APPLICATION/JSON'])(
      'Accept %p allows JSON → 200',
      async (accept) => {
        const res = await get({ ...VALID_HEADERS, Accept: accept });
        expect(res.status).toBe(200);
      },
    );

    it('no Accept header counts as application/json → 200', async () => {
      const res = await t.http
        .get(path(t.projectKey, 'namespace-action-with-headers'))
        .set(await t.auth('view_test'))
        .set(VALID_HEADERS)
        .unset('Accept');
      expect(res.status).toBe(200);
    });

    it.each(['text/html', 'application/json;q=0', 'application/xml, text/*', '*/*;q=0', 'image/png, */*;q=0, application/json;q=0'])(
      'Accept %p excludes JSON → 406 NotAcceptable',
      async (accept) => {
        const res = await get({ ...VALID_HEADERS, Accept: accept });
        expectErrorEnvelope(res, 406, 'NotAcceptable');
      },
    );

    it('406 is checked before the other headers', async () => {
      const res = await get({ Accept: 'text/html' });
      expectErrorEnvelope(res, 406, 'NotAcceptable');
    });

    it('authentication (401) and scope (403) come before 406', async () => {
      const anonymous = await t.http.get(path(t.projectKey, 'namespace-action-with-headers')).set('Accept', 'text/html');
      expectErrorEnvelope(anonymous, 401, 'invalid_token');
      const foreign = await t.http
        .get(path(t.projectKey, 'namespace-action-with-headers'))
        .set(await t.auth('view_test', { projectKey: t.otherProjectKey }))
        .set('Accept', 'text/html');
      expectErrorEnvelope(foreign, 403, 'insufficient_scope');
    });

    it('both headers missing → 400 with a RequiredField for each', async () => {
      const res = await get({ Accept: 'application/json' });
      expectErrorEnvelope(res, 400, 'RequiredField');
      expect(res.body.errors).toEqual([
        expect.objectContaining({ code: 'RequiredField', field: 'Test-Header' }),
        expect.objectContaining({ code: 'RequiredField', field: 'Path-Header' }),
      ]);
    });

    it.each([
      ['Test-Header', { 'Path-Header': '/x' }],
      ['Path-Header', { 'Test-Header': '{}' }],
    ])('%s missing → 400 RequiredField naming it', async (field, headers) => {
      const res = await get(headers);
      expectErrorEnvelope(res, 400, 'RequiredField');
      expect(res.body.errors).toEqual([expect.objectContaining({ code: 'RequiredField', field, message: `${field}: a value is required.` })]);
    });

    it.each(['no-slash', 'carts/1', 'x/', ''])('Path-Header %p does not match ^/.*$ → 400 InvalidField', async (value) => {
      const res = await get({ 'Test-Header': '{}', 'Path-Header': value });
      expectErrorEnvelope(res, 400, value === '' ? ['InvalidField', 'RequiredField'] : 'InvalidField');
      expect(res.body.errors[0].field).toBe('Path-Header');
    });

    it.each(['/', '/a/b?c=d', '/ünïcode', '//double'])('Path-Header %p matches → 200', async (value) => {
      const res = await get({ 'Test-Header': '{}', 'Path-Header': encodeURI(value) });
      expect(res.status).toBe(200);
    });

    it.each([
      ['not JSON', 'not json', 'Test-Header'],
      ['a JSON array', '[1]', 'Test-Header'],
      ['a JSON string', '"x"', 'Test-Header'],
      ['a bad version', '{"version":"one"}', 'Test-Header.version'],
      ['an unknown member', '{"colour":"red"}', 'Test-Header.colour'],
      ['a bad array element', '{"objectTypeProperty":{"arrayOfIntExample":[1,"a"]}}', 'Test-Header.objectTypeProperty.arrayOfIntExample[1]'],
      ['an int32 out of range', '{"objectTypeProperty":{"arrayOfObjectType":[{"integerExampleInt32":2147483648}]}}', 'Test-Header.objectTypeProperty.arrayOfObjectType[0].integerExampleInt32'],
      ['an unknown array', '{"objectTypeProperty":{"arrayOfNothing":[]}}', 'Test-Header.objectTypeProperty.arrayOfNothing'],
    ])('Test-Header with %s → 400 InvalidField at %s', async (_label, value, field) => {
      const res = await get({ 'Test-Header': value, 'Path-Header': '/x' });
      expectErrorEnvelope(res, 400, 'InvalidField');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    });

    it.each([
      ['an empty object', '{}'],
      ['a version only', '{"version":3}'],
      ['a partial objectTypeProperty', '{"objectTypeProperty":{"arrayOfTwonumbersExample":[1]}}'],
      ['64-bit integers', `{"objectTypeProperty":{"arrayOfIntExample":[${INT64_MAX}],"arrayOfObjectType":[{"integerExample":${INT64_MIN}}]}}`],
    ])('Test-Header with %s is valid → 200', async (_label, value) => {
      const res = await get({ 'Test-Header': value, 'Path-Header': '/x' });
      expect(res.status).toBe(200);
    });

    it('every header problem is listed at once', async () => {
      const res = await get({ 'Test-Header': '{"version":0}', 'Path-Header': 'x' });
      expectErrorEnvelope(res, 400, 'InvalidField');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['Test-Header.version', 'Path-Header']);
    });
  });

  describe('forward actions (a real backend)', () => {
    const fwd = () => t.auth('manage_test', { projectKey: FORWARD });
    const withHeaders = async (pathHeader: string, extra: Record<string, string> = {}) =>
      t.http
        .get(path(FORWARD, 'namespace-action-with-headers'))
        .set(await fwd())
        .set({ 'Test-Header': '{"version":2}', 'Path-Header': pathHeader, ...extra });

    it('GET passes the query, the configured headers and the selected request headers; Path-Header is the backend path', async () => {
      const res = await withHeaders('/echo', { 'Accept-Language': 'de-DE', Cookie: 'mine=1' }).then((r) => r);
      expect(res.status).toBe(200);
      const call = lastCall();
      expect(call.method).toBe('GET');
      expect(call.url).toBe('/api/echo');
      expect(call.headers['x-api-key']).toBe('backend-secret');
      expect(call.headers['test-header']).toBe('{"version":2}');
      expect(call.headers['accept-language']).toBe('de-DE');
      expect(call.headers.accept).toBe('application/json');
      expect(call.headers.authorization).toBeUndefined();
      expect(call.headers.cookie).toBeUndefined();
      expect(call.headers['x-not-sent']).toBeUndefined();
      expect(res.body).toEqual({ method: 'GET', url: '/api/echo', body: '' });
    });

    it('the query string reaches the backend as sent, after the declared URL\'s own query', async () => {
      const res = await t.http.get(`${path(FORWARD, 'namespace-action')}?x=1&y=a%20b&x=2`).set(await fwd());
      expect(res.status).toBe(200);
      expect(lastCall().url).toBe('/api/echo?fixed=1&x=1&y=a%20b&x=2');
    });

    it('backend answer headers: hop-by-hop and security-relevant ones are not passed through, the rest are', async () => {
      const res = await withHeaders('/echo');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['cache-control']).toBe('max-age=5');
      expect(res.headers['x-backend']).toBe('yes');
      for (const name of ['set-cookie', 'strict-transport-security', 'access-control-allow-origin', 'server', 'x-powered-by', 'x-hop', 'location', 'keep-alive']) {
        expect({ name, value: res.headers[name] }).toEqual({ name, value: undefined });
      }
      // This server's own policy (src/observability/security-headers.ts), not the backend's `default-src 'none'`.
      expect(res.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
    });

    it('POST sends the JSON body exactly (64-bit integers included) with the method', async () => {
      const text = `{"n":${INT64_MAX},"s":"x"}`;
      const res = await t.http.post(path(FORWARD, 'namespace-action')).set(await fwd()).set('Content-Type', 'application/json').send(text);
      expect(res.status).toBe(200);
      const call = lastCall();
      expect(call.method).toBe('POST');
      expect(call.body).toBe(text);
      expect(call.headers['content-type']).toBe('application/json');
    });

    it('PUT json-serializable-primitive-type sends a bare string', async () => {
      const res = await t.http.put(path(FORWARD, 'json-serializable-primitive-type')).set(await fwd()).set('Content-Type', 'application/json').send('"raw string"');
      expect(res.status).toBe(200);
      expect(lastCall()).toMatchObject({ method: 'PUT', body: '"raw string"' });
    });

    it('relays the backend\'s JSON exactly, 64-bit integers included', async () => {
      const res = await withHeaders('/big');
      expect(res.status).toBe(200);
      expect(res.text).toBe(`{"max":${INT64_MAX},"min":${INT64_MIN}}`);
    });

    it.each([400, 404, 409, 422])('a backend %i is relayed with its body', async (status) => {
      const res = await withHeaders(`/status/${status}`);
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ backendStatus: status });
    });

    it('a backend 204 answers 200 null', async () => {
      const res = await withHeaders('/status/204');
      expect(res.status).toBe(200);
      expect(res.text).toBe('null');
    });

    it.each([500, 502, 503])('a backend %i → 502 BadGateway', async (status) => {
      const res = await withHeaders(`/status/${status}`);
      expectErrorEnvelope(res, 502, 'BadGateway');
      expect(res.body.message).not.toContain('127.0.0.1');
    });

    it.each([301, 302])('a backend redirect (%i) → 502 BadGateway', async (status) => {
      const res = await withHeaders(`/status/${status}`);
      expectErrorEnvelope(res, 502, 'BadGateway');
    });

    it('a backend answer that is not JSON → 502 BadGateway', async () => {
      const res = await withHeaders('/not-json');
      expectErrorEnvelope(res, 502, 'BadGateway');
    });

    it('a slow backend → 504 GatewayTimeout after the declared timeout', async () => {
      const started = Date.now();
      const res = await withHeaders('/slow');
      expectErrorEnvelope(res, 504, 'GatewayTimeout');
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(FORWARD_TIMEOUT_MS - 50);
      expect(elapsed).toBeLessThan(4_000);
    });

    it('without a declared timeout, ACTIONS_FORWARD_TIMEOUT_MS applies', async () => {
      const started = Date.now();
      const res = await t.http.get(`${path(FORWARD, 'namespace-action')}?slow=1`).set(await fwd());
      expectErrorEnvelope(res, 504, 'GatewayTimeout');
      expect(res.body.message).toContain(`${DEFAULT_TIMEOUT_MS} ms`);
      expect(Date.now() - started).toBeGreaterThanOrEqual(DEFAULT_TIMEOUT_MS - 50);
    });

    it('a backend that is down → 502 BadGateway, without naming it', async () => {
      const res = await t.http.get(path(DOWN, 'namespace-action')).set(await t.auth('view_test', { projectKey: DOWN }));
      expectErrorEnvelope(res, 502, 'BadGateway');
      expect(res.text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
    });

    it.each(['/../secret', '/..;/admin', '/api/..', '/x;jsessionid=1', '/%2e%2e/admin', '/%2E%2E/admin', '/a%2fb', '/a%2Fb', '/a\\b', '/a%5cb'])(
      'a Path-Header %p (a climb, a path parameter, an encoded separator, a backslash) → 400 InvalidField, the backend is not called',
      async (pathHeader) => {
        const before = backend.calls.length;
        const res = await withHeaders(pathHeader);
        expectErrorEnvelope(res, 400, 'InvalidField');
        expect(res.body.errors[0]).toMatchObject({ field: 'Path-Header' });
        expect(backend.calls.length).toBe(before);
      },
    );

    it('a backend on a host never allowed ("this host", 0.0.0.0, which reaches loopback) → 502 without naming it, the backend is not called', async () => {
      const before = backend.calls.length;
      const res = await t.http.get(path(UNSPECIFIED, 'namespace-action')).set(await t.auth('view_test', { projectKey: UNSPECIFIED }));
      expectErrorEnvelope(res, 502, 'BadGateway');
      expect(res.body.message).toBe('The backend of this action is not an allowed host.');
      expect(res.text).not.toMatch(/0\.0\.0\.0|127\.0\.0\.1/);
      expect(backend.calls.length).toBe(before);
    });

    it('the header rules apply before the backend is called', async () => {
      const before = backend.calls.length;
      const res = await t.http.get(path(FORWARD, 'namespace-action-with-headers')).set(await fwd()).set('Accept', 'text/html');
      expectErrorEnvelope(res, 406, 'NotAcceptable');
      expect(backend.calls.length).toBe(before);
    });
  });

  describe('static and store declarations', () => {
    it('a static action answers its declared status, headers and exact body', async () => {
      const res = await t.http.get(path(STATIC, 'namespace-action-with-example')).set(await t.auth('view_test', { projectKey: STATIC }));
      expect(res.status).toBe(202);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-custom']).toBe('declared');
      expect(res.text).toBe(`{"big":${INT64_MAX},"list":[1,"two",null,true]}`);
    });

    it('a declaration applies to its projects only: other projects keep the default', async () => {
      const res = await t.http.get(path(t.projectKey, 'namespace-action-with-example')).set(await t.auth('view_test'));
      expect(res.status).toBe(200);
      expectCart(res.body);
    });

    it('a store action with a declared key shares the value with the endpoints using that key', async () => {
      const auth = await t.auth('manage_test', { projectKey: STATIC });
      const put = await t.http.put(path(STATIC, 'json-serializable-primitive-type')).set(auth).set('Content-Type', 'application/json').send('"shared"');
      expect(put.status).toBe(200);
      const read = await t.http.get(path(STATIC, 'namespace-action')).set(auth);
      expect(read.text).toBe('"shared"');
    });
  });

  describe('OpenAPI', () => {
    type Operation = { operationId: string; parameters?: Array<Record<string, any>>; responses: Record<string, any>; requestBody?: any };
    let paths: Record<string, Record<string, Operation>>;
    beforeAll(async () => {
      paths = (await t.http.get('/openapi.json')).body.paths;
    });
    const op = (method: string, endpoint: string) => paths[`/{projectKey}/resource/${endpoint}`]?.[method];

    it.each([
      ['post', 'namespace-action', ['200', '400', '401', '403', '413', '415', '502', '504']],
      ['get', 'namespace-action', ['200', '401', '403', '502', '504']],
      ['get', 'namespace-action-with-example', ['200', '401', '403', '502', '504']],
      ['get', 'namespace-action-with-headers', ['200', '400', '401', '403', '406', '502', '504']],
      ['put', 'json-serializable-primitive-type', ['200', '400', '401', '403', '413', '415', '502', '504']],
    ])('documents %s %s with its responses', (method, endpoint, statuses) => {
      const operation = op(method, endpoint);
      expect(operation).toBeDefined();
      expect(Object.keys(operation.responses).sort()).toEqual(expect.arrayContaining(statuses));
      expect(Object.keys(operation.responses['200'].content)).toEqual(['application/json']);
    });

    it('documents the headers of namespace-action-with-headers with their patterns', () => {
      const headers = Object.fromEntries(op('get', 'namespace-action-with-headers').parameters!.filter((p) => p.in === 'header').map((p) => [p.name, p]));
      expect(headers['Path-Header']).toMatchObject({ required: true, schema: { type: 'string', pattern: '^/.*$' } });
      expect(headers['Test-Header']).toMatchObject({ required: true, schema: { type: 'string' } });
      expect(headers.Accept).toMatchObject({ required: false, schema: { pattern: 'application/json' } });
    });

    it('documents the cart as the example answers', () => {
      for (const endpoint of ['namespace-action-with-example', 'namespace-action-with-headers']) {
        expect(op('get', endpoint).responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CartDto' });
      }
    });

    it('documents the JSON-primitive body as any JSON value (no type constraint)', () => {
      const schema = op('put', 'json-serializable-primitive-type').requestBody.content['application/json'].schema;
      expect(schema.type).toBeUndefined();
      expect(schema.$ref).toBeUndefined();
      expect(schema.description).toMatch(/Any JSON value/);
    });
  });

  describe('CORS (HTTP_CORS_ORIGINS set)', () => {
    it('answers the preflight of a namespace action with its custom headers for an allowed origin', async () => {
      const res = await t.http
        .options(path(t.projectKey, 'namespace-action-with-headers'))
        .set('Origin', ORIGIN)
        .set('Access-Control-Request-Method', 'GET')
        .set('Access-Control-Request-Headers', 'authorization,test-header,path-header');
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
      expect(res.headers['access-control-allow-methods']).toMatch(/GET/);
      expect(res.headers['access-control-allow-headers']).toMatch(/test-header/i);
      expect(res.headers['access-control-allow-headers']).toMatch(/path-header/i);
    });

    it('answers the preflight of PUT json-serializable-primitive-type', async () => {
      const res = await t.http
        .options(path(t.projectKey, 'json-serializable-primitive-type'))
        .set('Origin', ORIGIN)
        .set('Access-Control-Request-Method', 'PUT')
        .set('Access-Control-Request-Headers', 'authorization,content-type');
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
      expect(res.headers['access-control-allow-methods']).toMatch(/PUT/);
    });

    it('an actual request from an allowed origin carries Access-Control-Allow-Origin', async () => {
      const res = await t.http.get(path(t.projectKey, 'namespace-action-with-example')).set(await t.auth('view_test')).set('Origin', ORIGIN);
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
      expect(res.headers['access-control-expose-headers']).toMatch(/ETag/);
    });

    it('another origin gets no Access-Control-Allow-Origin', async () => {
      const res = await t.http
        .options(path(t.projectKey, 'namespace-action'))
        .set('Origin', 'https://evil.example')
        .set('Access-Control-Request-Method', 'POST');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });
  });
});

describe('ACTIONS_FILE refused at start-up', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'bad-actions-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function startWith(name: string, text: string): Promise<string> {
    const file = join(dir, name);
    writeFileSync(file, text);
    try {
      const app = await createTestApp({ ACTIONS_FILE: file });
      await app.close();
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('the app started with a bad actions file');
  }

  it('names each bad entry and why', async () => {
    const message = await startWith(
      'bad.yaml',
      `actions:
  - method: GET
    path: namespace-action
    handler: { type: static, status: 200 }
  - method: GET
    path: namespace-action-with-headers
    handler: { type: forward, url: "ftp://backend/x" }
  - method: DELETE
    path: namespace-action
    handler: { type: store }
  - method: GET
    path: namespace-action
    handler: { type: static, status: 204 }
`,
    );
    expect(message).toContain('Invalid configuration');
    expect(message).toContain('actions[1] (GET namespace-action-with-headers): handler.url: required, an absolute http or https URL');
    expect(message).toContain('actions[2] (DELETE namespace-action): method and path: no namespace-action endpoint is DELETE namespace-action');
    expect(message).toContain('actions[3] (GET namespace-action): handler.status: must be an integer from 200 to 599');
    expect(message).not.toContain('actions[0]');
  });

  it('names a duplicate declaration', async () => {
    const message = await startWith(
      'dup.json',
      JSON.stringify({
        actions: [
          { method: 'GET', path: 'namespace-action', projects: ['shop-a'], handler: { type: 'store' } },
          { method: 'GET', path: 'namespace-action', projects: ['shop-b', 'shop-a'], handler: { type: 'store' } },
        ],
      }),
    );
    expect(message).toContain('actions[1] (GET namespace-action): project shop-a already has this endpoint declared by actions[0]');
  });

  it.each([
    ['broken.yaml', 'actions: [ {', 'not valid YAML'],
    ['broken.json', '{"actions": [', 'not valid JSON'],
    ['actions.txt', '{}', 'the name must end in .json, .yaml or .yml'],
  ])('%s → %s', async (name, text, expected) => {
    expect(await startWith(name, text)).toContain(expected);
  });

  it.each(['0', '600001', 'soon'])('ACTIONS_FORWARD_TIMEOUT_MS=%s is refused', async (value) => {
    await expect(createTestApp({ ACTIONS_FORWARD_TIMEOUT_MS: value })).rejects.toThrow(`ACTIONS_FORWARD_TIMEOUT_MS: must be an integer from 1 to 600000 (got '${value}')`);
  });

  it('a file that does not exist', async () => {
    const file = join(dir, 'missing.yaml');
    await expect(createTestApp({ ACTIONS_FILE: file })).rejects.toThrow(`ACTIONS_FILE: ${file}: cannot be read (ENOENT)`);
  });
});

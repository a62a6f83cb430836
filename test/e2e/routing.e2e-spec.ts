import { connect } from 'node:net';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { draft } from '../support/fixtures.js';
import { listenOnFreePort } from '../support/listening-app.js';
import { expectErrorEnvelope as expectEnvelope } from '../support/expect-error.js';

/*
 * Static paths under /{projectKey}/resource (key=…, searchApiPattern, sorted-query-parameters,
 * namespace-action…, images, json-serializable-primitive-type) must win over `{id}` for every
 * method. The router prefers static segments to parameters, and `{id}` matches UUIDs only; these
 * tests check the outcome: a request to a static path is answered by its own route.
 */

function registeredRoutes(t: TestApp): Array<{ method: string; path: string }> {
  return t.routes.map((r) => ({ method: r.method.toLowerCase(), path: r.path }));
}

const ITEM_PATH = '/:projectKey/resource/:id';
/** One segment after /resource that is not a bare parameter: a static name, or `key=:key`. */
const STATIC_CHILD = /^\/:projectKey\/resource\/(?!:)[^/]+$/;


describe('route order under /{projectKey}/resource', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('registers the by-id routes for GET, POST and DELETE', () => {
    const methods = registeredRoutes(t).filter((r) => r.path === ITEM_PATH).map((r) => r.method).sort();
    expect(methods).toEqual(['delete', 'get', 'post']);
  });

  it('answers a request to every static /{projectKey}/resource/<segment> route with that route, not {id}', async () => {
    const staticChildren = registeredRoutes(t).filter((r) => STATIC_CHILD.test(r.path));
    // Not vacuous: at least GET key=:key is such a route today.
    expect(staticChildren).toEqual(expect.arrayContaining([expect.objectContaining({ method: 'get', path: '/:projectKey/resource/key=:key' })]));
    for (const route of staticChildren) {
      const path = route.path.replace(':projectKey', t.projectKey).replace(/:(\w+)/g, 'x');
      // Without a token, a protected route answers 401; {id} would answer 404 (a non-UUID matches no route).
      const res = await t.http[route.method as 'get'](path);
      expect({ route: `${route.method} ${route.path}`, status: res.status }).toEqual({ route: `${route.method} ${route.path}`, status: 401 });
    }
  });

  it('registers no other one-segment parameter route beside {id} (it would shadow or be shadowed)', () => {
    const params = registeredRoutes(t).filter((r) => /^\/:projectKey\/resource\/:[^/]+$/.test(r.path) && r.path !== ITEM_PATH);
    expect(params).toEqual([]);
  });

  it('GET /{pk}/resource/key=abc reaches the by-key route (router order), not the by-id route', async () => {
    const created = await t.http.post(`/${t.projectKey}/resource`).set(await t.auth('manage_test')).send(draft({ key: 'abc' }));
    expect(created.status).toBe(201);
    const res = await t.http.get(`/${t.projectKey}/resource/key=abc`).set(await t.auth('view_test'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created.body);
    expect(res.body.key).toBe('abc');
  });

  it('GET /{pk}/resource/key=<absent key> is a 404 ResourceNotFound from the by-key route', async () => {
    const res = await t.http.get(`/${t.projectKey}/resource/key=no-such-key`).set(await t.auth('view_test'));
    expectEnvelope(res, 404, 'ResourceNotFound');
  });

  // The search, query, namespace-action and image modules are not built yet: until they are, these
  // static paths answer 404 ResourceNotFound. What is tested is that the router does not hand them to
  // the {id} routes as if 'searchApiPattern' etc. were a resource id (update when the modules land).
  it('router order: GET /{pk}/resource/searchApiPattern is answered by the search (200), not as resource id "searchApiPattern"', async () => {
    const res = await t.http.get(`/${t.projectKey}/resource/searchApiPattern`).set(await t.auth('view_test'));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ limit: 20, offset: 0, facets: {} });
  });

  it('router order: GET /{pk}/resource/sorted-query-parameters is answered by the query (200), not as resource id "sorted-query-parameters"', async () => {
    const res = await t.http.get(`/${t.projectKey}/resource/sorted-query-parameters`).set(await t.auth('view_test'));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ limit: 20, offset: 0 });
    expect(Array.isArray(res.body.results)).toBe(true);
  });

  // Also right once the images module exists: no resource has the key 'no-such-sku' (404).
  it('router order: POST /{pk}/resource/images is not treated as an update of resource id "images" (404 ResourceNotFound)', async () => {
    // A 1x1 PNG signature and header: what an image upload sends.
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    const res = await t.http
      .post(`/${t.projectKey}/resource/images?sku=no-such-sku`)
      .set(await t.auth('manage_products'))
      .set('Content-Type', 'image/png')
      .send(png);
    expectEnvelope(res, 404, 'ResourceNotFound');
  });

  it('router order: GET /{pk}/resource/namespace-action is answered by its action (200), not as resource id "namespace-action"', async () => {
    const res = await t.http.get(`/${t.projectKey}/resource/namespace-action`).set(await t.auth('view_test'));
    expect(res.status).toBe(200);
  });

  it('router order: POST /{pk}/resource/namespace-action is answered by its action (200, the stored body), not as an update of resource id "namespace-action"', async () => {
    const res = await t.http.post(`/${t.projectKey}/resource/namespace-action`).set(await t.auth('manage_test')).send({ any: 'value' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ any: 'value' });
  });
});

describe('paths that match no route', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const UNKNOWN: Array<[method: 'get' | 'delete' | 'post' | 'put' | 'patch', path: string]> = [
    ['get', '/nope'],
    ['delete', '/x/y/z'],
    ['get', '/'],
    ['post', '/nope'],
    ['put', '/a/b'],
  ];

  it.each(UNKNOWN)('%s %s without a token → 404 ResourceNotFound envelope', async (method, path) => {
    const res = await t.http[method](path);
    expectEnvelope(res, 404, 'ResourceNotFound');
  });

  it.each(UNKNOWN)('%s %s with a token → 404 ResourceNotFound envelope', async (method, path) => {
    const res = await t.http[method](path).set(await t.auth('manage_test view_test'));
    expectEnvelope(res, 404, 'ResourceNotFound');
  });

  it.each([
    ['delete', 'resource'],
    ['get', 'resource/a/b/c'],
    ['get', 'nope'],
  ] as const)('%s /{pk}/%s (no such route under a project) → 404 ResourceNotFound, with or without a token', async (method, rest) => {
    const withToken = await t.http[method](`/${t.projectKey}/${rest}`).set(await t.auth('manage_test view_test'));
    expectEnvelope(withToken, 404, 'ResourceNotFound');
    const without = await t.http[method](`/${t.projectKey}/${rest}`);
    expectEnvelope(without, 404, 'ResourceNotFound');
  });
});

describe('paths with dot segments or encoded dots, requests without Host, conditions a file cannot meet', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp();
    port = Number(new URL(await listenOnFreePort(t)).port);
  });
  afterAll(() => t.close());

  /** A request sent as written: supertest and fetch would normalise `..` or add a Host header. */
  function raw(text: string): Promise<{ status: number; headers: string; body: string }> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.end(text));
      let answer = '';
      socket.on('data', (data: Buffer) => (answer += data.toString('utf8')));
      socket.on('error', reject);
      socket.on('close', () => {
        const [head, body = ''] = answer.split('\r\n\r\n');
        resolve({ status: Number(head.split(' ')[1]), headers: head, body });
      });
    });
  }

  it.each([
    '/docs/../x',
    '/docs/%2e%2e/x',
    '/docs/%2E./openapi.json',
    `/{pk}/resource/..`,
    `/{pk}/resource/../api-clients`,
    `/{pk}/resource/%2e`,
    '/health/../metrics',
  ])('%s → 404 ResourceNotFound, with or without a token', async (template) => {
    const path = template.replace('{pk}', t.projectKey);
    const token = (await t.auth('manage_test view_test manage_api_clients')).Authorization;
    for (const auth of ['', `Authorization: ${token}\r\n`]) {
      const res = await raw(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Connection: close\r\n\r\n`);
      expect(res.status).toBe(404);
      expect(JSON.parse(res.body).errors[0].code).toBe('ResourceNotFound');
    }
  });

  it('a request without Host → 400 InvalidInput in the envelope, with X-Request-Id', async () => {
    const res = await raw(`GET /${t.projectKey}/resource HTTP/1.1\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBe(400);
    expect(res.headers).toMatch(/\r\nx-request-id: \S+/i);
    expect(res.headers).toMatch(/\r\ncontent-type: application\/json/i);
    expect(JSON.parse(res.body)).toEqual(expect.objectContaining({ statusCode: 400, errors: [expect.objectContaining({ code: 'InvalidInput' })] }));
  });

  it('health checks answer without Host (load balancers probing with HTTP/1.0)', async () => {
    const res = await raw('GET /health/live HTTP/1.0\r\n\r\n');
    expect(res.status).toBe(200);
  });

  it('If-Match that does not match → 412 PreconditionFailed in the envelope (not a 500)', async () => {
    expectEnvelope(await t.http.get('/docs/swagger-ui.css').set('If-Match', '"nope"'), 412, 'PreconditionFailed');
  });

  it('a Range past the end → 416 RangeNotSatisfiable in the envelope (not a 500)', async () => {
    expectEnvelope(await t.http.get('/docs/swagger-ui.css').set('Range', 'bytes=99999999-'), 416, 'RangeNotSatisfiable');
  });
});

import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { failLikeShutdown } from '../support/database-faults.js';
import { createTestApp, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { expectErrorEnvelope } from '../support/expect-error.js';
import { draft } from '../support/fixtures.js';
import { png } from '../support/image-bytes.js';
import { authHeader, type BootstrapClient, bootstrapEnv, freePort, ServerProcess, sleep } from '../support/server-process.js';
import { Database } from '../../src/database/database.js';

/*
 * Operations (src/observability/): security headers on every answer, the Swagger page's own
 * Content-Security-Policy, X-Request-Id, JSON logs through pino and Prometheus metrics at /metrics.
 * An in-process app without METRICS_TOKEN for the headers and request ids; one real server process
 * (node dist/src/main.js, its stdout kept) with METRICS_TOKEN for the logs and the metrics.
 * CORS off by default and on for listed origins: complex-path and namespace-actions e2e tests.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const API_CSP = "default-src 'none';frame-ancestors 'none'";

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The directives of a Content-Security-Policy header, by name. */
function directives(header: string | undefined): Record<string, string[]> {
  return Object.fromEntries(
    (header ?? '')
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...values]) => [name, values]),
  );
}

describe('security headers, X-Request-Id and /metrics off (no METRICS_TOKEN)', () => {
  let t: TestApp;
  let db: Database;
  let removeFault: (() => Promise<void>) | undefined;
  const suffix = randomBytes(4).toString('hex');

  beforeAll(async () => {
    t = await createTestApp({ METRICS_TOKEN: '', PUBLIC_BASE_URL: '', HTTP_CORS_ORIGINS: '', HTTP_BODY_LIMIT_BYTES: '1024', AUTH_DEMO_CLIENT: 'false' });
    db = t.app.get(Database);
    // Creating a resource in the other project fails as PostgreSQL shutting down would make it fail.
    removeFault = await failLikeShutdown(db, { table: 'resource', event: 'INSERT', when: `NEW.project_key = '${t.otherProjectKey}'` });
  });

  afterAll(async () => {
    await removeFault?.();
    await t?.close();
  });

  describe('security headers', () => {
    function expectApiHeaders(headers: Record<string, string>): void {
      expect({
        csp: headers['content-security-policy'],
        nosniff: headers['x-content-type-options'],
        frame: headers['x-frame-options'],
        referrer: headers['referrer-policy'],
        opener: headers['cross-origin-opener-policy'],
        resource: headers['cross-origin-resource-policy'],
        hsts: headers['strict-transport-security'],
        poweredBy: headers['x-powered-by'],
      }).toEqual({
        csp: API_CSP,
        nosniff: 'nosniff',
        frame: 'DENY',
        referrer: 'no-referrer',
        opener: 'same-origin',
        resource: 'same-origin',
        hsts: undefined,
        poweredBy: undefined,
      });
    }

    it('a JSON answer: nosniff, frame-ancestors none and DENY, no referrer, no HSTS without an https PUBLIC_BASE_URL', async () => {
      const res = await t.http.get('/health/live');
      expect(res.status).toBe(200);
      expectApiHeaders(res.headers);
    });

    it('error answers too (404 unknown route, 401 without a token)', async () => {
      const unknown = await t.http.get('/no/such/route');
      expectErrorEnvelope(unknown, 404, 'ResourceNotFound');
      expectApiHeaders(unknown.headers);
      const noToken = await t.http.get(`/${t.projectKey}/resource/${randomUUID()}`);
      expectErrorEnvelope(noToken, 401, 'invalid_token');
      expectApiHeaders(noToken.headers);
    });

    it('/docs: scripts only from this server, inline styles only those of the page (by hash), never framed', async () => {
      const res = await t.http.get('/docs');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      const csp = directives(res.headers['content-security-policy']);
      expect(csp['default-src']).toEqual(["'none'"]);
      expect(csp['script-src']).toEqual(["'self'"]);
      expect(csp['frame-ancestors']).toEqual(["'none'"]);
      expect(csp['connect-src']).toEqual(["'self'"]);
      expect(res.headers['content-security-policy']).not.toContain("'unsafe-inline'");
      expect(res.headers['content-security-policy']).not.toContain("'unsafe-eval'");
      // No inline script at all; every inline style of the page is allowed by its hash.
      expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
      const inline = [...res.text.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/gi), ...res.text.matchAll(/\sstyle="([^"]*)"/gi)].map((m) => m[1]);
      expect(inline.length).toBeGreaterThan(0);
      expect(csp['style-src']).toEqual(expect.arrayContaining(["'self'", ...inline.map(sha256)]));
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    });

    it('image bytes may be shown by other origins (Cross-Origin-Resource-Policy: cross-origin), with the API policy otherwise', async () => {
      const key = `img-${suffix}`;
      const created = await t.http.post(`/${t.projectKey}/resource`).set(await t.auth('manage_test')).send(draft({ key }));
      expect(created.status).toBe(201);
      const uploaded = await t.http
        .post(`/${t.projectKey}/resource/images`)
        .query({ sku: key })
        .set(await t.auth('manage_products'))
        .set('Content-Type', 'image/png')
        .send(png());
      expect(uploaded.status).toBe(200);
      const res = await t.http.get(uploaded.body.images[0].url);
      expect(res.status).toBe(200);
      expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
      expect(res.headers['content-security-policy']).toBe(API_CSP);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    });
  });

  describe('X-Request-Id', () => {
    it('generated (a random UUID) when the request has none, different per request', async () => {
      const [first, second] = [await t.http.get('/health/live'), await t.http.get('/health/live')];
      expect(first.headers['x-request-id']).toMatch(UUID);
      expect(second.headers['x-request-id']).toMatch(UUID);
      expect(first.headers['x-request-id']).not.toBe(second.headers['x-request-id']);
    });

    it.each([
      ['a UUID', randomUUID()],
      ['letters, digits and -._:', 'Req-42_a.b:c'],
      ['128 characters', 'x'.repeat(128)],
    ])('kept when well-formed: %s', async (_name, id) => {
      const res = await t.http.get('/health/live').set('X-Request-Id', id);
      expect(res.headers['x-request-id']).toBe(id);
    });

    it.each([
      ['129 characters', 'x'.repeat(129)],
      ['a space', 'two words'],
      ['markup', '<script>alert(1)</script>'],
      ['percent-encoded CR LF and a header', 'id%0d%0aSet-Cookie:%20a=b'],
      ['a quote and a semicolon', 'a";b'],
      ['a non-ASCII character', 'caf\u00e9'],
    ])('replaced by a fresh UUID when malformed: %s', async (_name, id) => {
      const res = await t.http.get('/health/live').set('X-Request-Id', id);
      expect(res.headers['x-request-id']).toMatch(UUID);
      expect(res.headers['set-cookie']).toBeUndefined();
    });

    it('replaced when the header is repeated (Node joins repeated headers with ", ")', async () => {
      const res = await t.http.get('/health/live').set('X-Request-Id', 'first-id, second-id');
      expect(res.headers['x-request-id']).toMatch(UUID);
    });

    describe('echoed on error answers', () => {
      const id = () => `err-${randomBytes(6).toString('hex')}`;

      it('404 unknown route', async () => {
        const sent = id();
        const res = await t.http.get('/no/such/route').set('X-Request-Id', sent);
        expectErrorEnvelope(res, 404, 'ResourceNotFound');
        expect(res.headers['x-request-id']).toBe(sent);
      });

      it('400 malformed JSON', async () => {
        const sent = id();
        const res = await t.http
          .post(`/${t.projectKey}/resource`)
          .set(await t.auth('manage_test'))
          .set('X-Request-Id', sent)
          .set('Content-Type', 'application/json')
          .send('{"objectTypeProperty":');
        expectErrorEnvelope(res, 400, 'InvalidJsonInput');
        expect(res.headers['x-request-id']).toBe(sent);
      });

      it('400 malformed URL (answered by Fastify before routing)', async () => {
        const sent = id();
        const res = await t.http.get('/%E0%A4%A').set('X-Request-Id', sent);
        expectErrorEnvelope(res, 400, 'InvalidInput');
        expect(res.headers['x-request-id']).toBe(sent);
      });

      it('401 without a token', async () => {
        const sent = id();
        const res = await t.http.get(`/${t.projectKey}/resource/${randomUUID()}`).set('X-Request-Id', sent);
        expectErrorEnvelope(res, 401, 'invalid_token');
        expect(res.headers['x-request-id']).toBe(sent);
      });

      it('413 body over HTTP_BODY_LIMIT_BYTES', async () => {
        const sent = id();
        const res = await t.http
          .post(`/${t.projectKey}/resource`)
          .set(await t.auth('manage_test'))
          .set('X-Request-Id', sent)
          .send(draft({ key: 'k'.repeat(200) }, { arrayOfStringExample: ['x'.repeat(2000)] }));
        expectErrorEnvelope(res, 413, 'PayloadTooLarge');
        expect(res.headers['x-request-id']).toBe(sent);
      });

      it('503 while the database refuses', async () => {
        const sent = id();
        const res = await t.http
          .post(`/${t.otherProjectKey}/resource`)
          .set(await t.auth('manage_test', { projectKey: t.otherProjectKey }))
          .set('X-Request-Id', sent)
          .send(draft());
        expectErrorEnvelope(res, 503, 'ServiceUnavailable');
        expect(res.headers['retry-after']).toBe('5');
        expect(res.headers['x-request-id']).toBe(sent);
      });
    });
  });

  describe('/metrics without METRICS_TOKEN', () => {
    it('answers 404 like any unknown route, with or without a token', async () => {
      for (const headers of [{}, { Authorization: 'Bearer some-token-0123456789' }, await t.auth('view_test')]) {
        const res = await t.http.get('/metrics').set(headers);
        expectErrorEnvelope(res, 404, 'ResourceNotFound');
        expect(res.body.message).toBe('No route matches GET /metrics.');
      }
    });
  });
});

describe('a server process: JSON logs and /metrics (METRICS_TOKEN set)', () => {
  const METRICS_TOKEN = `metrics-${randomBytes(16).toString('hex')}`;
  const client: BootstrapClient = { projectKey: uniqueProjectKey('obs'), clientId: `obs-${randomBytes(4).toString('hex')}`, clientSecret: `secret-${randomBytes(16).toString('hex')}` };
  let server: ServerProcess;
  let dataDir: string | undefined;
  let auth: Record<string, string>;
  let token: string;

  beforeAll(async () => {
    if (!process.env.DATABASE_URL) dataDir = mkdtempSync(join(tmpdir(), 'observability-'));
    server = new ServerProcess('observability', await freePort(), {
      ...bootstrapEnv(client),
      BOOTSTRAP_SCOPES: `manage_test:${client.projectKey} view_test:${client.projectKey} manage_products:${client.projectKey}`,
      DATA_DIR: dataDir,
      METRICS_TOKEN,
      PUBLIC_BASE_URL: 'https://api.example.test',
      // Images accepted with 202 stay queued: the queue depth gauge is read while they wait.
      IMAGES_WORKER_INTERVAL_MS: '86400000',
      HTTP_CORS_ORIGINS: '',
    });
    await server.waitReady();
    auth = await authHeader(server, client);
    token = auth.Authorization.replace(/^Bearer /, '');
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const lines = () => server.output.split('\n').filter((line) => line.trim() !== '');

  /** The log lines whose `reqId` is `id`, once at least one was written (the output arrives through a pipe). */
  async function linesOf(id: string): Promise<Array<Record<string, unknown>>> {
    for (let waited = 0; waited < 5_000; waited += 50) {
      const found = lines().filter((line) => line.includes(id)).map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.reqId === id);
      if (found.length > 0) return found;
      await sleep(50);
    }
    throw new Error(`no log line with reqId ${id}:\n${server.output.slice(-3000)}`);
  }

  function fetchFrom(path: string, init: RequestInit = {}): Promise<Response> {
    return fetch(`${server.base}${path}`, init);
  }

  async function createResource(key: string): Promise<string> {
    const res = await fetchFrom(`/${client.projectKey}/resource`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify(draft({ key })) });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  }

  describe('logs', () => {
    it('one JSON line per request with reqId = the X-Request-Id echoed, method, route pattern, path, statusCode and responseTime', async () => {
      const id = await createResource(`logged-${randomBytes(3).toString('hex')}`);
      const sent = `log-${randomBytes(6).toString('hex')}`;
      const res = await fetchFrom(`/${client.projectKey}/resource/${id}?optionalQueryParameter=x`, { headers: { ...auth, 'X-Request-Id': sent } });
      expect([res.status, res.headers.get('x-request-id')]).toEqual([200, sent]);
      const [line, ...more] = await linesOf(sent);
      expect(more).toEqual([]);
      expect(line).toEqual({
        level: 'info',
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        pid: server.child.pid,
        hostname: expect.any(String),
        reqId: sent,
        method: 'GET',
        route: '/:projectKey/resource/:id',
        url: `/${client.projectKey}/resource/${id}`,
        statusCode: 200,
        responseTime: expect.any(Number),
        msg: 'request completed',
      });
      expect(line.responseTime as number).toBeGreaterThanOrEqual(0);
    });

    it('a generated request id is the one logged; an unknown path is logged as (unmatched)', async () => {
      const res = await fetchFrom('/no/such/route');
      expect(res.status).toBe(404);
      const id = res.headers.get('x-request-id')!;
      expect(id).toMatch(UUID);
      const [line] = await linesOf(id);
      expect(line).toMatchObject({ reqId: id, method: 'GET', route: '(unmatched)', url: '/no/such/route', statusCode: 404 });
    });

    it('every line is JSON, start-up lines included ("listening on", the migrations or the database opened)', async () => {
      const parsed = lines().map((line) => {
        try {
          return JSON.parse(line) as Record<string, unknown>;
        } catch {
          throw new Error(`not a JSON line: ${line}`);
        }
      });
      expect(parsed.find((line) => line.context === 'Server')).toMatchObject({ level: 'info', msg: expect.stringMatching(/^listening on http:\/\/127\.0\.0\.1:\d+/) });
      // Nest's own narration (a line per module and per route) is debug, below the default level.
      expect(parsed.filter((line) => ['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication'].includes(String(line.context)))).toEqual([]);
      expect(parsed.every((line) => typeof line.level === 'string' && typeof line.time === 'string' && typeof line.msg === 'string')).toBe(true);
    });

    it('never logs a client secret, a token, an Authorization header or a cookie', async () => {
      const wrongSecret = `wrong-${randomBytes(12).toString('hex')}`;
      const cookie = `session-${randomBytes(12).toString('hex')}`;
      const form = (secret: string) => new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: secret }).toString();
      const formHeaders = { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: `sid=${cookie}` };
      const issued = await fetchFrom('/oauth/token', { method: 'POST', headers: formHeaders, body: form(client.clientSecret) });
      expect(issued.status).toBe(200);
      const { access_token: freshToken } = (await issued.json()) as { access_token: string };
      expect((await fetchFrom('/oauth/token', { method: 'POST', headers: formHeaders, body: form(wrongSecret) })).status).toBe(401);
      const introspected = await fetchFrom('/oauth/introspect', {
        method: 'POST',
        headers: { ...formHeaders, Authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}` },
        body: new URLSearchParams({ token: freshToken }).toString(),
      });
      expect(introspected.status).toBe(200);
      const read = await fetchFrom(`/${client.projectKey}/resource/${randomUUID()}`, { headers: { Authorization: `Bearer ${freshToken}`, Cookie: `sid=${cookie}` } });
      expect(read.status).toBe(404);
      const bad = await fetchFrom(`/${client.projectKey}/resource/${randomUUID()}`, { headers: { Authorization: `Bearer ${freshToken}x` } });
      expect(bad.status).toBe(401);
      await linesOf(bad.headers.get('x-request-id')!);

      const output = server.output;
      for (const secret of [client.clientSecret, wrongSecret, token, freshToken, cookie, Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')]) {
        expect(output).not.toContain(secret);
      }
      expect(output).not.toMatch(/authorization|cookie|client_secret/i);
    });
  });

  it('HSTS (one year, no includeSubDomains) when PUBLIC_BASE_URL is https; the Swagger page may call PUBLIC_BASE_URL', async () => {
    const res = await fetchFrom('/health/live');
    expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000');
    const docs = await fetchFrom('/docs');
    expect(directives(docs.headers.get('content-security-policy') ?? undefined)['connect-src']).toEqual(["'self'", 'https://api.example.test']);
  });

  describe('/metrics', () => {
    const scrape = (authorization?: string) => fetchFrom('/metrics', { headers: authorization ? { Authorization: authorization } : {} });

    it.each([
      ['no Authorization', undefined],
      ['a wrong token', 'Bearer wrong-token-0123456789abcdef'],
      ['the token with one character more', `Bearer ${METRICS_TOKEN}x`],
      ['the token as Basic credentials', `Basic ${METRICS_TOKEN}`],
    ])('401 with %s', async (_name, authorization) => {
      const res = await scrape(authorization);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
      const body = (await res.json()) as { errors: Array<{ code: string }> };
      expect(body.errors[0].code).toBe('invalid_token');
    });

    it('401 with an API token: the route takes no OAuth scope, only its own token', async () => {
      expect((await scrape(`Bearer ${token}`)).status).toBe(401);
    });

    it('200 with the token: request count and latency by method, route pattern and status; pool; image queue; process metrics', async () => {
      const id = await createResource(`counted-${randomBytes(3).toString('hex')}`);
      for (let i = 0; i < 3; i++) expect((await fetchFrom(`/${client.projectKey}/resource/${id}`, { headers: auth })).status).toBe(200);
      const res = await scrape(`Bearer ${METRICS_TOKEN}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const text = await res.text();
      const value = (series: string) => Number(new RegExp(`^${series.replace(/[{}()[\]|.*+?^$\\/]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
      const labels = 'method="GET",route="/:projectKey/resource/:id",status_code="200"';
      expect(value(`http_requests_total{${labels}}`)).toBeGreaterThanOrEqual(3);
      expect(value(`http_request_duration_seconds_count{${labels}}`)).toBeGreaterThanOrEqual(3);
      expect(value(`http_request_duration_seconds_bucket{le="+Inf",${labels}}`)).toBeGreaterThanOrEqual(3);
      expect(value('http_requests_total{method="POST",route="/:projectKey/resource",status_code="201"}')).toBeGreaterThanOrEqual(1);
      // DATABASE_POOL_SIZE (default 10) on PostgreSQL; one connection on the embedded database.
      expect(value('db_pool_max_connections')).toBe(process.env.DATABASE_URL ? Number(process.env.DATABASE_POOL_SIZE || 10) : 1);
      expect(value('db_pool_connections')).toBeGreaterThanOrEqual(1);
      expect(value('db_pool_idle_connections')).toBeGreaterThanOrEqual(0);
      expect(value('db_pool_waiting_clients')).toBe(0);
      expect(value('image_jobs_pending')).toBeGreaterThanOrEqual(0);
      expect(value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
      expect(value('nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
      // The route label is the pattern, never a raw path.
      expect(text).not.toContain(`route="/${client.projectKey}`);
    });

    it('image_jobs_pending counts an image accepted with 202 until it is attached', async () => {
      const pending = async () => {
        const text = await (await scrape(`Bearer ${METRICS_TOKEN}`)).text();
        return Number(/^image_jobs_pending (\d+)$/m.exec(text)?.[1]);
      };
      const key = `queued-${randomBytes(3).toString('hex')}`;
      await createResource(key);
      const before = await pending();
      const upload = await fetchFrom(`/${client.projectKey}/resource/images?sku=${key}`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'image/png', Prefer: 'respond-async' },
        body: png(),
      });
      expect(upload.status).toBe(202);
      expect(await pending()).toBe(before + 1);
    });

    it('is not in the OpenAPI document', async () => {
      const doc = (await (await fetchFrom('/openapi.json')).json()) as { paths: Record<string, unknown> };
      expect(Object.keys(doc.paths)).not.toContain('/metrics');
    });
  });
});

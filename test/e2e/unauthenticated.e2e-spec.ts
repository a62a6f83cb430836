import { connect, type Socket } from 'node:net';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { listenOnFreePort } from '../support/listening-app.js';
import { awayFromMinuteBoundary } from '../support/timing.js';
import { draft } from '../support/fixtures.js';

/** A raw HTTP exchange: what the server answered and when the connection closed, relative to the start. */
interface Exchange {
  head: string;
  answeredAfterMs: number;
  closedAfterMs: number;
  /** Bytes of the body the client had written when the connection closed. */
  written: number;
}

/**
 * Sends `head` and then body bytes for as long as the connection takes them (never finishing a body of the
 * declared length), and reports when the answer came and when the server closed the connection.
 */
function exchange(port: number, head: string, { keepWriting, chunked = false }: { keepWriting: boolean; chunked?: boolean }): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket: Socket = connect(port, '127.0.0.1');
    const chunk = Buffer.alloc(64 * 1024, 0x5b); // '[': the start of a deeply nested JSON array
    let received = '';
    let answeredAfterMs = -1;
    let written = 0;
    let writing = keepWriting;
    const pump = (): void => {
      while (writing && !socket.destroyed) {
        written += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
    };
    socket.on('connect', () => {
      socket.write(head);
      socket.write(chunked ? Buffer.concat([Buffer.from('64\r\n'), chunk.subarray(0, 100), Buffer.from('\r\n')]) : chunk.subarray(0, 100));
      written = 100;
      pump();
    });
    socket.on('data', (data: Buffer) => {
      received += data.toString('latin1');
      if (answeredAfterMs < 0 && received.includes('\r\n\r\n')) answeredAfterMs = Date.now() - started;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      writing = false;
      resolve({ head: received.split('\r\n\r\n')[0], answeredAfterMs, closedAfterMs: Date.now() - started, written });
    });
    setTimeout(() => {
      writing = false;
      socket.destroy();
      reject(new Error(`no close within 10 s; answer so far: ${received.slice(0, 200)}`));
    }, 10_000).unref();
  });
}

function post(path: string, headers: Record<string, string>): string {
  const lines = Object.entries({ Host: '127.0.0.1', 'Content-Type': 'application/json', ...headers }).map(([k, v]) => `${k}: ${v}`);
  return `POST ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

describe('requests without a valid token on routes that need one', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    // Long request timeout: an answer that waited for the body would come only after it.
    t = await createTestApp({ HTTP_REQUEST_TIMEOUT_MS: '60000', RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '1000000' });
    port = Number(new URL(await listenOnFreePort(t)).port);
  });
  afterAll(() => t.close());

  it('are answered 401 before their body arrives (a body that never ends does not delay the answer)', async () => {
    const result = await exchange(port, post(`/${t.projectKey}/resource`, { 'Content-Length': '600000' }), { keepWriting: false });
    expect(result.head).toMatch(/^HTTP\/1\.1 401 /);
    expect(result.head).toMatch(/\r\nconnection: close/i);
    expect(result.head).toMatch(/\r\nx-request-id: /i);
    expect(result.answeredAfterMs).toBeLessThan(5_000);
  });

  it('with a token that fails verification, likewise', async () => {
    const result = await exchange(port, post(`/${t.projectKey}/resource`, { 'Content-Length': '600000', Authorization: 'Bearer not.a.token' }), { keepWriting: false });
    expect(result.head).toMatch(/^HTTP\/1\.1 401 /);
    expect(result.answeredAfterMs).toBeLessThan(5_000);
  });

  it('a body larger than HTTP_UNAUTHENTICATED_MAX_BODY_BYTES closes the connection after the 401; a small one keeps it for the next request', async () => {
    const large = await exchange(port, post(`/${t.projectKey}/resource`, { 'Content-Length': String(1 << 30) }), { keepWriting: true });
    expect(large.head).toMatch(/^HTTP\/1\.1 401 /);
    expect(large.head).toMatch(/\r\nconnection: close/i);
    const body = '{"key":"x"}';
    const small = post(`/${t.projectKey}/resource`, { 'Content-Length': String(body.length) }) + body;
    const answers = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(`${small}GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`));
      let text = '';
      socket.on('data', (data: Buffer) => (text += data.toString('latin1')));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answers.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 401', 'HTTP/1.1 200']);
  });

  it('a chunked body is refused the same way', async () => {
    const result = await exchange(port, post(`/${t.projectKey}/resource`, { 'Transfer-Encoding': 'chunked' }), { keepWriting: false, chunked: true });
    expect(result.head).toMatch(/^HTTP\/1\.1 401 /);
    expect(result.answeredAfterMs).toBeLessThan(5_000);
  });

  it('the order of the checks holds before the body: a parameter that fails its pattern is 404, an unknown path 404', async () => {
    const badId = await exchange(port, post(`/${t.projectKey}/resource/not-a-uuid`, { 'Content-Length': '600000' }), { keepWriting: false });
    expect(badId.head).toMatch(/^HTTP\/1\.1 404 /);
    const authed = await t.http.post(`/${t.projectKey}/resource/not-a-uuid`).set(await t.auth('manage_test')).send({ version: 1, actions: [] });
    expect(authed.status).toBe(404);
  });

  it('public routes still read their body (the token endpoint answers on its form)', async () => {
    const res = await t.http.post('/oauth/token').type('form').send({ grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'wrong-secret-000' });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
  });

  it('a request with a valid token is unaffected: its body is read and validated', async () => {
    const headers = await t.auth('manage_test');
    const malformed = await t.http.post(`/${t.projectKey}/resource`).set(headers).set('Content-Type', 'application/json').send('[[[');
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0].code).toBe('InvalidJsonInput');
    const created = await t.http.post(`/${t.projectKey}/resource`).set(headers).send(draft({ key: 'after-strangers' }));
    expect(created.status).toBe(201);
  });
});

describe('requests that fail to authenticate are rate limited per remote address', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '3' });
  });
  afterAll(() => t.close());

  it('past RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE → 429 with Retry-After; a valid token from the same address still gets through', async () => {
    const headers = await t.auth('view_test');
    await awayFromMinuteBoundary();
    for (let i = 0; i < 3; i++) {
      const res = await t.http.get(`/${t.projectKey}/resource`).set('Authorization', i === 1 ? 'Bearer bad.token.here' : '');
      expect(res.status).toBe(401);
    }
    const limited = await t.http.post(`/${t.projectKey}/resource`).send({ key: 'x' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.body.errors[0].code).toBe('TooManyRequests');
    const authorized = await t.http.get(`/${t.projectKey}/resource`).set(headers);
    expect(authorized.status).toBe(200);
    // Public routes are not counted against the address.
    const health = await t.http.get('/health/live');
    expect(health.status).toBe(200);
  });
});

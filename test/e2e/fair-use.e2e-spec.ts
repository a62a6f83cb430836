import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { Database, PROJECT_WAIT_MS } from '../../src/database/database.js';
import { createTestApp, onPostgres, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { draft } from '../support/fixtures.js';
import { expectErrorEnvelope } from '../support/expect-error.js';
import { png } from '../support/image-bytes.js';
import { awayFromMinuteBoundary, sleep } from '../support/timing.js';
import { basic } from '../support/auth.js';
import { createApiClient, listenOnFreePort } from '../support/listening-app.js';

/*
 * Fair use and the holes of a review (docs/rules.md#fair-use): each attack as a real request against
 * the running app, each of which the server answered wrongly before its fix.
 */

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The largest list answer of this file's app: 256 KiB. */
const MAX_RESPONSE_BYTES = 262_144;

/** Requests per minute the token endpoints allow per client id and per address in this file's app. */
const TOKEN_LIMIT = 30;

/** The p-th percentile (0–100) of `values`, nearest rank. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Figures a reader wants beside the verdict (the other tenants' latencies under an attack). */
function report(text: string): void {
  process.stdout.write(`[fair-use] ${text}\n`);
}

/**
 * A flood from another process (its own event loop, as a real attacker's would be): `concurrency`
 * loops sending `request` to `url` until stdin closes; prints the count of each answer status.
 */
function startFlood(url: string, request: { method: string; headers: Record<string, string>; body?: string }, concurrency: number) {
  const script = `
    const [url, request, concurrency] = JSON.parse(process.argv[1]);
    const counts = {};
    let stop = false;
    process.stdin.on('close', () => (stop = true)).resume();
    const loops = Array.from({ length: concurrency }, async () => {
      while (!stop) {
        try {
          const res = await fetch(url, request);
          await res.arrayBuffer();
          counts[res.status] = (counts[res.status] ?? 0) + 1;
        } catch { counts.failed = (counts.failed ?? 0) + 1; }
      }
    });
    Promise.all(loops).then(() => process.stdout.write(JSON.stringify(counts)));`;
  const child = spawn(process.execPath, ['-e', script, JSON.stringify([url, request, concurrency])], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  const ended = new Promise<Record<string, number>>((resolve) => child.on('close', () => resolve(output ? JSON.parse(output) : {})));
  return {
    /** Stops the flood; the count of each answer status. */
    stop: () => {
      child.stdin.end();
      return ended;
    },
  };
}

let addressCounter = 0;
/** A client address of its own (the app trusts one proxy hop: X-Forwarded-For names the client). */
const newAddress = () => `198.51.100.${++addressCounter}`;

interface BackendCall {
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

/** A backend that answers `{}` and records what it received. */
function startBackend(): Promise<{ server: Server; url: string; calls: BackendCall[] }> {
  const calls: BackendCall[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      calls.push({ url: req.url!, headers: req.headers });
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls })),
  );
}

/** A project whose namespace actions forward to the recording backend. */
const FORWARD = uniqueProjectKey('fwd');

function actionsYaml(backendUrl: string): string {
  return `actions:
  - method: GET
    path: namespace-action-with-headers
    projects: [${FORWARD}]
    handler: { type: forward, url: "${backendUrl}/api", forwardHeaders: [Accept-Language] }
  - method: GET
    path: namespace-action
    projects: [${FORWARD}]
    handler: { type: forward, url: "${backendUrl}/api/echo?tenant=${FORWARD}&mode=safe" }
`;
}

describe('fair use and hardening', () => {
  /** One app for the file (an app takes seconds to start); each block uses projects of its own. */
  let t: TestApp;
  let db: Database;
  let backend: Awaited<ReturnType<typeof startBackend>>;
  let dir: string;
  let listening: string | undefined;
  /** The app's address on a real socket (for requests supertest cannot make). */
  const baseUrl = async () => (listening ??= await listenOnFreePort(t));
  beforeAll(async () => {
    backend = await startBackend();
    dir = mkdtempSync(join(tmpdir(), 'fair-use-'));
    writeFileSync(join(dir, 'actions.yaml'), actionsYaml(backend.url));
    t = await createTestApp({
      AUTH_DEMO_CLIENT: 'false',
      ACTIONS_FILE: join(dir, 'actions.yaml'),
      IMAGES_WORKER_INTERVAL_MS: '100',
      IMAGES_BLOB_RECLAIM_DELAY_MS: '1000',
      RATE_LIMIT_TOKEN_PER_MINUTE: String(TOKEN_LIMIT),
      HTTP_TRUST_PROXY_HOPS: '1',
      HTTP_MAX_RESPONSE_BYTES: String(MAX_RESPONSE_BYTES),
    });
    db = t.app.get(Database);
  });
  afterAll(async () => {
    await t?.close();
    backend.server.closeAllConnections();
    await new Promise((resolve) => backend.server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  describe('POST /oauth/token and /oauth/introspect: rate limits, bounded hashing, no timing oracle', () => {
    const token = (id: string, secret: string, address: string) =>
      t.http.post('/oauth/token').set('Authorization', basic(id, secret)).set('X-Forwarded-For', address).type('form').send('grant_type=client_credentials');

    it("one address flooding wrong secrets for a known client id: another tenant's token requests keep answering (p99 < 1 s)", async () => {
      // Over a real socket with keep-alive (fetch), so that the flood costs the server what it would,
      // and not what supertest's per-request set-up costs this process.
      const base = await baseUrl();
      const fetchToken = async (id: string, secret: string, address: string) => {
        const res = await fetch(`${base}/oauth/token`, {
          method: 'POST',
          headers: { Authorization: basic(id, secret), 'X-Forwarded-For': address, 'Content-Type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials',
        });
        await res.arrayBuffer();
        return res.status;
      };
      const target = await createApiClient(t, 'view_test', uniqueProjectKey('target'));
      const victim = await createApiClient(t, 'view_test', uniqueProjectKey('victim'));
      const quiet: number[] = [];
      for (let i = 0; i < 10; i++) {
        const started = performance.now();
        expect(await fetchToken(victim.id, victim.secret, newAddress())).toBe(200);
        quiet.push(performance.now() - started);
      }
      const flood = startFlood(
        `${base}/oauth/token`,
        {
          method: 'POST',
          headers: { Authorization: basic(target.id, 'wrong-secret-0123456789'), 'X-Forwarded-For': newAddress(), 'Content-Type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials',
        },
        32,
      );
      const latencies: number[] = [];
      const statuses: number[] = [];
      let attackStatuses: Record<string, number>;
      try {
        await sleep(1_000);
        const victimAddress = newAddress();
        for (let i = 0; i < 20; i++) {
          const started = performance.now();
          statuses.push(await fetchToken(victim.id, victim.secret, victimAddress));
          latencies.push(performance.now() - started);
        }
      } finally {
        attackStatuses = await flood.stop();
      }
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      const p50 = Math.round(percentile(latencies, 50));
      const p99 = Math.round(percentile(latencies, 99));
      report(`token endpoint without an attack: p50 ${Math.round(percentile(quiet, 50))} ms, p99 ${Math.round(percentile(quiet, 99))} ms`);
      report(`token endpoint under a wrong-secret flood (32 concurrent, another process): victim p50 ${p50} ms, p99 ${p99} ms; attacker answers ${JSON.stringify(attackStatuses)}`);
      expect(attackStatuses['429']).toBeGreaterThan(0);
      // Under 1 s, the rule's bound; on a machine so busy that the quiet p99 is already near that, within
      // 4 times the quiet p99 (before the bounds the flood made it about 10 times: 2.2 s against 0.2 s).
      expect(p99).toBeLessThan(Math.max(1_000, 4 * percentile(quiet, 99)));
    }, 180_000);

    it(`past ${TOKEN_LIMIT} requests a minute for one client id → 429 TooManyRequests with Retry-After, from any address and even with the right secret`, async () => {
      const client = await createApiClient(t, 'view_test', uniqueProjectKey('limited'));
      await awayFromMinuteBoundary();
      for (let i = 0; i < TOKEN_LIMIT; i++) expect((await token(client.id, 'wrong-secret', newAddress())).status).toBe(401);
      const refused = await token(client.id, client.secret, newAddress());
      expectErrorEnvelope(refused, 429, 'TooManyRequests');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      const introspect = await t.http.post('/oauth/introspect').set('Authorization', basic(client.id, client.secret)).set('X-Forwarded-For', newAddress()).type('form').send('token=x');
      expectErrorEnvelope(introspect, 429, 'TooManyRequests');
    });

    it(`past ${TOKEN_LIMIT} requests a minute from one address → 429, whichever client ids it names; other addresses are served`, async () => {
      const address = newAddress();
      await awayFromMinuteBoundary();
      for (let i = 0; i < TOKEN_LIMIT; i++) expect((await token(`nobody-${i}`, 'wrong-secret', address)).status).toBe(401);
      const refused = await token('nobody-else', 'wrong-secret', address);
      expectErrorEnvelope(refused, 429, 'TooManyRequests');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(refused.headers['x-request-id']).toBeDefined();
      const client = await createApiClient(t, 'view_test', uniqueProjectKey('other'));
      expect((await token(client.id, client.secret, newAddress())).status).toBe(200);
    });

    it('an unknown client id takes as long as a known one with a wrong secret (no timing oracle)', async () => {
      const known = await createApiClient(t, 'view_test', uniqueProjectKey('timing'));
      const address = newAddress();
      const timed = async (id: string) => {
        const started = performance.now();
        expect((await token(id, 'wrong-secret', address)).status).toBe(401);
        return performance.now() - started;
      };
      const knownTimes: number[] = [];
      const unknownTimes: number[] = [];
      for (let i = 0; i < 6; i++) {
        knownTimes.push(await timed(known.id));
        unknownTimes.push(await timed(`unknown-${i}-${known.id}`));
      }
      const [knownMedian, unknownMedian] = [percentile(knownTimes, 50), percentile(unknownTimes, 50)];
      report(`wrong secret: known id median ${knownMedian.toFixed(1)} ms, unknown id median ${unknownMedian.toFixed(1)} ms`);
      // A scrypt costs tens of milliseconds; a lookup alone, a few. Generous: half the known id's time.
      expect(unknownMedian).toBeGreaterThan(knownMedian / 2);
    });
  });

  // PostgreSQL only: the embedded database has one connection, so there is no pool to share out; it runs one
  // statement at a time on the server's thread, where a heavy statement delays every project whatever the pool
  // (see docs/getting-started.md#the-embedded-database, and embedded-query-cost.e2e-spec.ts).
  if (onPostgres) describe('one project cannot take the whole database pool (DATABASE_PROJECT_CONCURRENCY)', () => {
    const HEAVY = uniqueProjectKey('heavy');
    const LIGHT = uniqueProjectKey('light');
    /** A where no index narrows: every element of every resource's 10,000 integers, 60 times over. */
    const heavyWhere = Array.from({ length: 60 }, (_, i) => `objectTypeProperty(arrayOfIntExample > ${1_000_000 + i})`).join(' or ');
    let lightId: string;
    beforeAll(async () => {
      const manage = await t.auth('manage_test', { projectKey: HEAVY });
      const ints = Array.from({ length: 10_000 }, (_, i) => i);
      for (let i = 0; i < 30; i++) {
        expect((await t.http.post(`/${HEAVY}/resource`).set(manage).send(draft({}, { arrayOfIntExample: ints }))).status).toBe(201);
      }
      const light = await t.http.post(`/${LIGHT}/resource`).set(await t.auth('manage_test', { projectKey: LIGHT })).send(draft());
      lightId = light.body.id;
    }, 120_000);

    it("another project's reads keep answering while one project runs 20 heavy queries at a time (p90 < 1 s)", async () => {
      const heavy = await t.auth('view_test', { projectKey: HEAVY });
      const view = await t.auth('view_test', { projectKey: LIGHT });
      const heavyOnce = async () => {
        const started = performance.now();
        const res = await t.http.get(`/${HEAVY}/resource/sorted-query-parameters`).query({ where: heavyWhere, limit: 1 }).set(heavy);
        return { status: res.status, ms: performance.now() - started };
      };
      const single = await heavyOnce();
      let stop = false;
      const heavyStatuses = new Map<number, number>();
      const load = Array.from({ length: 20 }, async () => {
        while (!stop) {
          const { status } = await heavyOnce();
          heavyStatuses.set(status, (heavyStatuses.get(status) ?? 0) + 1);
        }
      });
      const latencies: number[] = [];
      const statuses: number[] = [];
      try {
        await sleep(1_000);
        const until = Date.now() + 30_000;
        for (let i = 0; i < 40 && Date.now() < until; i++) {
          const started = performance.now();
          statuses.push((await t.http.get(`/${LIGHT}/resource/${lightId}`).set(view)).status);
          latencies.push(performance.now() - started);
        }
      } finally {
        stop = true;
        await Promise.all(load);
      }
      const p50 = Math.round(percentile(latencies, 50));
      const p90 = Math.round(percentile(latencies, 90));
      const max = Math.round(Math.max(...latencies));
      report(`one heavy query alone: ${Math.round(single.ms)} ms (${single.status}); another project's GET by id under 20 concurrent heavy queries: p50 ${p50} ms, p90 ${p90} ms, max ${max} ms (${latencies.length} reads, answers ${JSON.stringify(statuses.filter((s) => s !== 200))} other than 200); heavy answers ${JSON.stringify(Object.fromEntries(heavyStatuses))}`);
      // Starved reads (no turns: the heavy project holds the pool) answer 503 after PROJECT_WAIT_MS or wait
      // for a heavy statement to end (up to its 10 s timeout). A read or two may still wait for the CPU the
      // heavy statements saturate on a small machine (one of 40 took 1.5 s in a CI run), hence p90 and the max.
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      expect(p90).toBeLessThan(1_000);
      expect(max).toBeLessThan(PROJECT_WAIT_MS);
    }, 180_000);
  });

  describe('list answers are never built past HTTP_MAX_RESPONSE_BYTES', () => {
    const BIG = uniqueProjectKey('big');
    beforeAll(async () => {
      // Four resources of about 100 KB each: a page of all four passes 256 KiB, a page of two does not.
      const manage = await t.auth('manage_test', { projectKey: BIG });
      for (let i = 0; i < 4; i++) {
        const strings = Array.from({ length: 10 }, (_, j) => `${'x'.repeat(9_990)}${i}-${j}`);
        const res = await t.http.post(`/${BIG}/resource`).set(manage).send(draft({ key: `big-${i}` }, { arrayOfStringExample: strings }));
        expect(res.status).toBe(201);
      }
    });

    it.each(['sorted-query-parameters', 'searchApiPattern'])(
      'GET %s?limit=4 (about 400 KB) → 400 InvalidInput asking for a smaller limit; limit=2 → 200',
      async (path) => {
        const view = await t.auth('view_test', { projectKey: BIG });
        const refused = await t.http.get(`/${BIG}/resource/${path}`).query({ limit: 4 }).set(view);
        expectErrorEnvelope(refused, 400, 'InvalidInput');
        expect(refused.body.message).toMatch(/smaller limit/);
        expect(refused.body.message).toContain(String(MAX_RESPONSE_BYTES));
        const page = await t.http.get(`/${BIG}/resource/${path}`).query({ limit: 2 }).set(view);
        expect(page.status).toBe(200);
        expect(page.body.results).toHaveLength(2);
        expect(page.text.length).toBeLessThan(MAX_RESPONSE_BYTES);
      },
    );

    it('GET /resource merging all four (about 400 KB) → 400 InvalidInput asking for a narrower filter; merging two → 200', async () => {
      const view = await t.auth('view_test', { projectKey: BIG });
      const refused = await t.http.get(`/${BIG}/resource`).set(view);
      expectErrorEnvelope(refused, 400, 'InvalidInput');
      expect(refused.body.message).toMatch(/narrow the filter/);
      expect(refused.body.message).toContain(String(MAX_RESPONSE_BYTES));
      const two = [0, 1].map((i) => `${'x'.repeat(9_990)}${i}-0`);
      const merged = await t.http.get(`/${BIG}/resource`).query({ arrayOfStringWithDescription: two }).set(view);
      expect(merged.status).toBe(200);
      expect(merged.headers['x-total-count']).toBe('2');
      expect(merged.body.arrayOfStringExample).toHaveLength(20);
      expect(merged.text.length).toBeLessThan(MAX_RESPONSE_BYTES);
    });
  });

  describe('an image upload slot needs a minimum transfer rate', () => {
    it('an upload declaring 10 MB and sending a byte a second → 400 after the first seconds, not after the idle timeout', async () => {
      const key = `slow-${Math.random().toString(36).slice(2)}`;
      expect((await t.http.post(`/${t.projectKey}/resource`).set(await t.auth('manage_test')).send(draft({ key }))).status).toBe(201);
      const { port } = new URL(await baseUrl());
      const socket = connect(Number(port), '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk));
      socket.on('error', () => undefined);
      const { Authorization } = await t.auth('manage_products');
      socket.write(
        `POST /${t.projectKey}/resource/images?sku=${key} HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${Authorization}\r\n` +
          'Content-Type: image/png\r\nContent-Length: 10000000\r\n\r\n',
      );
      const started = Date.now();
      const body = png(5, 5);
      let sent = 0;
      while (!answer && Date.now() - started < 15_000) {
        socket.write(body.subarray(sent % body.length, (sent % body.length) + 1));
        sent++;
        await sleep(1_000);
      }
      socket.destroy();
      const elapsed = Date.now() - started;
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer).toContain('too slow');
      expect(elapsed).toBeGreaterThanOrEqual(4_000);
      expect(elapsed).toBeLessThan(15_000);
    }, 30_000);
  });

  describe('deleting a resource deletes its images and reclaims their unused bytes', () => {
    async function resourceWithImage(bytes: Buffer): Promise<{ id: string; imageUrl: string }> {
      const manage = await t.auth('manage_test');
      const key = `img-${Math.random().toString(36).slice(2)}`;
      const created = await t.http.post(`/${t.projectKey}/resource`).set(manage).send(draft({ key }));
      expect(created.status).toBe(201);
      const uploaded = await t.http.post(`/${t.projectKey}/resource/images`).query({ sku: key }).set(await t.auth('manage_products')).set('Content-Type', 'image/png').send(bytes);
      expect(uploaded.status).toBe(200);
      return { id: created.body.id, imageUrl: uploaded.body.images[0].url };
    }

    const blobStored = async (bytes: Buffer) =>
      (await db.query('SELECT 1 FROM image_blob WHERE project_key = $1 AND sha256 = $2', [t.projectKey, sha256(bytes)])).length === 1;

    it('the image URL answers 404 after the delete; bytes of that image alone are reclaimed, shared bytes kept', async () => {
      const own = png(11, 7);
      const shared = png(13, 9);
      const alone = await resourceWithImage(own);
      const first = await resourceWithImage(shared);
      const second = await resourceWithImage(shared);
      const view = await t.auth('view_test');
      const manage = await t.auth('manage_test');
      expect((await t.http.get(alone.imageUrl).set(view)).status).toBe(200);

      for (const { id } of [alone, first]) expect((await t.http.delete(`/${t.projectKey}/resource/${id}`).query({ version: 2 }).set(manage)).status).toBe(200);

      expectErrorEnvelope(await t.http.get(alone.imageUrl).set(view), 404, 'ResourceNotFound');
      expectErrorEnvelope(await t.http.get(first.imageUrl).set(view), 404, 'ResourceNotFound');
      const deadline = Date.now() + 15_000;
      while ((await blobStored(own)) && Date.now() < deadline) await sleep(200);
      expect(await blobStored(own)).toBe(false);
      expect(await blobStored(shared)).toBe(true);
      const kept = await t.http.get(second.imageUrl).set(view);
      expect(kept.status).toBe(200);
      expect(sha256(kept.body as Buffer)).toBe(sha256(shared));
    });
  });

  describe('forward actions: who calls, Path-Header, the declared query', () => {
    const action = (name: string) => `/${FORWARD}/resource/${name}`;

    it('the backend learns the project key, client id and customer id from the token; forged ones are dropped', async () => {
      const caller = await t.auth('view_test', { projectKey: FORWARD, customerId: 'cust-9' });
      const clientId = JSON.parse(Buffer.from(caller.Authorization.split('.')[1], 'base64url').toString()).client_id;
      const forged = { 'X-Project-Key': 'other-project', 'X-Client-Id': 'admin', 'X-Customer-Id': 'someone-else' };
      const res = await t.http.get(action('namespace-action')).set(caller).set(forged);
      expect(res.status).toBe(200);
      const headers = backend.calls.at(-1)!.headers;
      expect([headers['x-project-key'], headers['x-client-id'], headers['x-customer-id']]).toEqual([FORWARD, clientId, 'cust-9']);

      await t.http.get(action('namespace-action')).set(await t.auth('view_test', { projectKey: FORWARD })).set(forged);
      expect(backend.calls.at(-1)!.headers['x-customer-id']).toBeUndefined();
      expect(backend.calls.at(-1)!.headers['x-project-key']).toBe(FORWARD);
    });

    it.each(['/%2e%2e/admin', '/%2E%2E/admin', '/x/%2e./admin', '/carts%2f..%2fadmin', '/carts%2F..%2Fadmin', '/carts%5c..%5cadmin', '/carts%5C..%5Cadmin'])(
      'Path-Header %p (encoded dots, slashes, backslashes) → 400 InvalidField, the backend is not called',
      async (pathHeader) => {
        const before = backend.calls.length;
        const res = await t.http
          .get(action('namespace-action-with-headers'))
          .set(await t.auth('view_test', { projectKey: FORWARD }))
          .set({ 'Test-Header': '{}', 'Path-Header': pathHeader });
        expectErrorEnvelope(res, 400, 'InvalidField');
        expect(res.body.errors[0].field).toBe('Path-Header');
        expect(backend.calls.length).toBe(before);
      },
    );

    it("the declared query parameters win over the caller's of the same name", async () => {
      const res = await t.http
        .get(`${action('namespace-action')}?tenant=other&x=1&mode=unsafe&%74enant=again&y=2`)
        .set(await t.auth('view_test', { projectKey: FORWARD }));
      expect(res.status).toBe(200);
      expect(backend.calls.at(-1)!.url).toBe(`/api/echo?tenant=${FORWARD}&mode=safe&x=1&y=2`);
    });
  });

  describe('the log line of a 500 names the route, not the URL', () => {
    const BROKEN = uniqueProjectKey('broken');
    const suffix = Math.random().toString(36).slice(2, 8);
    beforeAll(async () => {
      // Creating a resource in this project fails with an error no mapping knows: a real 500.
      await db.query(`CREATE FUNCTION fair_use_fail_${suffix}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'something unexpected' USING ERRCODE = 'XX000'; END $$`);
      await db.query(`CREATE TRIGGER fair_use_fail_${suffix} BEFORE INSERT ON resource FOR EACH ROW
        WHEN (NEW.project_key = '${BROKEN}') EXECUTE FUNCTION fair_use_fail_${suffix}()`);
    });
    afterAll(async () => {
      await db.query(`DROP TRIGGER IF EXISTS fair_use_fail_${suffix} ON resource`);
      await db.query(`DROP FUNCTION IF EXISTS fair_use_fail_${suffix}()`);
    });

    it('POST /{projectKey}/resource?<secret query> → 500 General; the error line has the pattern, neither the query nor the path values', async () => {
      const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      try {
        const res = await t.http
          .post(`/${BROKEN}/resource?access_token=s3cr3t-in-query`)
          .set(await t.auth('manage_test', { projectKey: BROKEN }))
          .send(draft({ key: 'customer-email-at-example' }));
        expectErrorEnvelope(res, 500, 'General');
        const lines = logged.mock.calls.map((call) => JSON.stringify(call[0]));
        const line = lines.find((text) => text.includes('something unexpected'));
        expect(line).toContain('POST /:projectKey/resource:');
        expect(line).not.toContain('s3cr3t-in-query');
        expect(line).not.toContain(BROKEN);
      } finally {
        logged.mockRestore();
      }
    });
  });

  describe('a customer-bound client holds no manage_test', () => {
    it('POST /{projectKey}/api-clients with customerId and manage_test → 400 InvalidField', async () => {
      const admin = await t.auth('manage_api_clients manage_my_profile_test');
      const pk = t.projectKey;
      const refused = await t.http.post(`/${pk}/api-clients`).set(admin).send({ name: 'shop', scope: `manage_my_profile_test:${pk} manage_test:${pk}`, customerId: 'cust-1' });
      expectErrorEnvelope(refused, 400, 'InvalidField');
      expect(refused.body.errors[0].field).toBe('scope');
      expect(refused.body.message).toContain('customer-bound');
      const listed = await t.http.get(`/${pk}/api-clients`).set(admin);
      expect(listed.body.results.filter((c: { name: string }) => c.name === 'shop')).toEqual([]);
      const allowed = await t.http.post(`/${pk}/api-clients`).set(admin).send({ name: 'shop', scope: `manage_my_profile_test:${pk}`, customerId: 'cust-1' });
      expect(allowed.status).toBe(201);
    });

    it('a customer-bound client stored with manage_test before that rule gets no token holding it', async () => {
      const admin = await t.auth('manage_api_clients manage_my_profile_test');
      const pk = t.projectKey;
      const created = await t.http.post(`/${pk}/api-clients`).set(admin).send({ name: 'legacy-shop', scope: `manage_my_profile_test:${pk}`, customerId: 'cust-2' });
      expect(created.status).toBe(201);
      await db.query('UPDATE api_client SET scope = $2 WHERE id = $1', [created.body.id, `manage_my_profile_test:${pk} manage_test:${pk}`]);
      const token = (form: Record<string, string>) =>
        t.http.post('/oauth/token').auth(created.body.id, created.body.secret).set('X-Forwarded-For', newAddress()).type('form').send({ grant_type: 'client_credentials', ...form });
      const every = await token({});
      expect(every.status).toBe(200);
      expect(every.body.scope.split(' ').sort()).toEqual([`customer_id_test:cust-2`, `manage_my_profile_test:${pk}`]);
      const lifting = await token({ scope: `manage_test:${pk}` });
      expectErrorEnvelope(lifting, 400, 'invalid_scope');
      expect(lifting.body.error_description).toContain(`manage_test:${pk}`);
    });
  });

  describe('signing keys at rest: SIGNING_KEY_ENCRYPTION_KEY', () => {
    /** Apps on a database of their own: an encrypted key would stop every other app on a shared one. */
    let env: Record<string, string>;
    let keysDir: string | undefined;
    let keysDatabase: string | undefined;
    beforeAll(async () => {
      if (onPostgres) {
        keysDatabase = `fair_use_keys_${randomBytes(4).toString('hex')}`;
        await db.query(`CREATE DATABASE ${keysDatabase}`);
        const url = new URL(process.env.DATABASE_URL!);
        url.pathname = `/${keysDatabase}`;
        env = { DATABASE_URL: url.toString() };
      } else {
        keysDir = mkdtempSync(join(tmpdir(), 'fair-use-keys-'));
        env = { DATA_DIR: keysDir };
      }
    });
    afterAll(async () => {
      if (keysDatabase) await db.query(`DROP DATABASE IF EXISTS ${keysDatabase} WITH (FORCE)`);
      if (keysDir) rmSync(keysDir, { recursive: true, force: true });
    });

    const storedKeys = async (app: TestApp) =>
      app.app.get(Database).query<{ kid: string; private_key: string }>('SELECT kid, private_key FROM signing_key ORDER BY kid');

    it('a plaintext key is encrypted at the next start, tokens stay valid, rotation re-encrypts, a missing key stops the start', async () => {
      const [oldKey, newKey] = [randomBytes(32).toString('base64'), randomBytes(32).toString('base64')];
      const plain = await createTestApp({ ...env, AUTH_DEMO_CLIENT: 'false' });
      let token: Record<string, string>;
      let before: { kid: string; private_key: string }[];
      try {
        token = await plain.auth('view_test');
        before = await storedKeys(plain);
        expect(before).toHaveLength(1);
        expect(before[0].private_key).toMatch(/^-----BEGIN PRIVATE KEY-----/);
      } finally {
        await plain.close();
      }

      for (const keys of [oldKey, `${newKey},${oldKey}`]) {
        const app = await createTestApp({ ...env, AUTH_DEMO_CLIENT: 'false', SIGNING_KEY_ENCRYPTION_KEY: keys });
        try {
          const after = await storedKeys(app);
          expect(after.map((row) => row.kid)).toEqual(before.map((row) => row.kid));
          expect(after[0].private_key).toMatch(/^aes256gcm:/);
          expect(after[0].private_key).not.toContain('PRIVATE KEY');
          const currentId = createHash('sha256').update(Buffer.from(keys.split(',')[0], 'base64')).digest('hex').slice(0, 16);
          expect(after[0].private_key.split(':')[1]).toBe(currentId);
          // A token signed before the change still verifies: the same key, read back.
          expect((await app.http.get(`/${plain.projectKey}/resource/key=none`).set(token)).status).toBe(404);
        } finally {
          await app.close();
        }
      }

      await expect(createTestApp({ ...env, AUTH_DEMO_CLIENT: 'false', SIGNING_KEY_ENCRYPTION_KEY: oldKey })).rejects.toThrow(/SIGNING_KEY_ENCRYPTION_KEY does not hold/);
    }, 180_000);
  });
});

/**
 * "The server is stateless; several replicas run against one PostgreSQL" (docs/operations.md#scaling-out), tested with
 * real server processes (`node dist/src/main.js`, built by `pretest`):
 *  - on PostgreSQL (DATABASE_URL set): two processes share the database; a write through one is read
 *    through the other; of 20 concurrent updates carrying the same version, split across both, exactly
 *    one wins; retrying writers lose no update; under 20 writers on 5 resources each resource's messages
 *    are numbered 1..n without gap and its versions are 1..current; reads through one process during updates through the
 *    other never go back in time; a token issued by one is accepted by the other, and a deleted
 *    client's token is refused by the other within AUTH_CLIENT_CHECK_SECONDS; concurrent image uploads
 *    through both, most of them attached in the background by the two processes' workers, attach each
 *    image exactly once; concurrent namespace-action store writes through both lose no write; two
 *    processes started at the same moment on a fresh database both become ready and apply each
 *    migration exactly once (advisory lock).
 *  - on the embedded database (DATABASE_URL unset): a second process on the same DATA_DIR refuses to
 *    start (lock file) while the first keeps serving; once the first stops, the directory opens again.
 * Requests carry a bearer token when the server has a token endpoint (bootstrap client from BOOTSTRAP_*).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { MIGRATIONS } from '../../src/database/migrations/index.js';
import { draft } from '../support/fixtures.js';
import { gif, jpeg, png } from '../support/image-bytes.js';
import {
  authHeader as tokenFor,
  bootstrapEnv,
  type BootstrapClient,
  call,
  deadline,
  freePort,
  MAIN,
  ServerProcess,
  sleep,
  START_TIMEOUT_MS,
} from '../support/server-process.js';

const CLIENT = { projectKey: 'multi', clientId: 'multi-client', clientSecret: 'multi-process-test-secret' };
const PROJECT = CLIENT.projectKey;
/** AUTH_CLIENT_CHECK_SECONDS of the two PostgreSQL processes. */
const CLIENT_CHECK_SECONDS = 1;

/** Per hook and test: server start-ups (PGlite takes seconds on a fresh directory) dominate. */
const TIMEOUT_MS = 180_000;

const children: ServerProcess[] = [];
async function startServer(name: string, env: Record<string, string | undefined>): Promise<ServerProcess> {
  const server = new ServerProcess(name, await freePort(), { ...baseEnv(), ...env });
  children.push(server);
  return server;
}

afterAll(async () => {
  await Promise.all(children.map((child) => child.stop()));
}, TIMEOUT_MS);

const authHeader = (server: ServerProcess) => tokenFor(server, CLIENT);

const uniqueKey = (prefix: string) => `${prefix}-${randomBytes(6).toString('hex')}`;

if (process.env.DATABASE_URL) {
  const databaseUrl = process.env.DATABASE_URL;

  describe('several server processes on one PostgreSQL', () => {
    let a: ServerProcess;
    let b: ServerProcess;
    let auth: Record<string, string>;
    /** A client of the project with every scope the tests below need (the bootstrap one has manage_test and view_test). */
    let admin: BootstrapClient;
    let db: pg.Client;

    beforeAll(async () => {
      // The workers look for jobs every 20 ms, so both are at the queue together; clients are re-checked every second.
      const env = { DATABASE_URL: databaseUrl, IMAGES_WORKER_INTERVAL_MS: '20', AUTH_CLIENT_CHECK_SECONDS: String(CLIENT_CHECK_SECONDS) };
      a = await startServer('A', env);
      await a.waitReady();
      b = await startServer('B', env);
      await b.waitReady();
      auth = await authHeader(a);
      admin = await createClientWithCli(databaseUrl, `manage_test:${PROJECT} view_test:${PROJECT} manage_products:${PROJECT} manage_api_clients:${PROJECT}`);
      db = new pg.Client({ connectionString: databaseUrl });
      await db.connect();
    }, TIMEOUT_MS);

    afterAll(async () => {
      await db?.end();
    });

    it('serves through one process what was written through the other', async () => {
      const key = uniqueKey('shared');
      const created = await call(a, 'POST', `/${PROJECT}/resource`, auth, draft({ key }, { arrayOfStringExample: [key] }));
      expect(created.status).toBe(201);
      expect(created.body.version).toBe(1);

      const byId = await call(b, 'GET', `/${PROJECT}/resource/${created.body.id}`, auth);
      expect(byId.status).toBe(200);
      expect(byId.body).toEqual(created.body);

      const byKey = await call(b, 'GET', `/${PROJECT}/resource/key=${key}`, auth);
      expect(byKey.status).toBe(200);
      expect(byKey.body.id).toBe(created.body.id);

      const query = await call(b, 'GET', `/${PROJECT}/resource?stringParameter=${key}`, auth);
      expect(query.status).toBe(200);
      expect(query.headers.get('x-total-count')).toBe('1');
      expect(query.body.arrayOfStringExample).toEqual([key]);
    }, TIMEOUT_MS);

    it('lets exactly one of 20 concurrent same-version updates across both processes win', async () => {
      const created = await call(a, 'POST', `/${PROJECT}/resource`, auth, draft({ key: uniqueKey('race') }));
      expect(created.status).toBe(201);
      const id = created.body.id as string;

      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          call(i % 2 === 0 ? a : b, 'POST', `/${PROJECT}/resource/${id}`, auth, {
            version: 1,
            actions: [{ action: 'changeSomeProperty', someProperty: `x` }],
          }),
        ),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(19);
      for (const conflict of answers.filter((answer) => answer.status === 409)) {
        expect(conflict.body.errors[0].code).toBe('ConcurrentModification');
        expect(conflict.body.errors[0].currentVersion).toBe(2);
      }
      const winner = answers.find((answer) => answer.status === 200)!;
      expect(winner.body.version).toBe(2);
      expect(winner.body.someProperty).toBe('x');

      for (const server of [a, b]) {
        const read = await call(server, 'GET', `/${PROJECT}/resource/${id}`, auth);
        expect(read.status).toBe(200);
        expect(read.body.version).toBe(2);
        expect(read.body.someProperty).toBe('x');
      }
    }, TIMEOUT_MS);

    it('loses no update when concurrent writers on both processes retry on 409', async () => {
      const created = await call(b, 'POST', `/${PROJECT}/resource`, auth, draft({ key: uniqueKey('retry') }));
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      const writers = 10;

      const wins = await Promise.all(
        Array.from({ length: writers }, (_, i) =>
          updateRetrying(i % 2 === 0 ? a : b, auth, id, { action: 'importFooForSecondPropertyToUpdate', secondPropertyToUpdate: `writer-${i}` }),
        ),
      );
      expect(wins.filter(Boolean)).toHaveLength(writers);
      const read = await call(a, 'GET', `/${PROJECT}/resource/${id}`, auth);
      expect(read.body.version).toBe(1 + writers);
    }, TIMEOUT_MS);

    it('numbers each resource\'s messages 1..n without gap or repeat, and keeps versions 1..current, under 20 writers on 5 resources across both processes', async () => {
      const ids: string[] = [];
      const keys: string[] = [];
      for (let i = 0; i < 5; i++) {
        const key = uniqueKey('log');
        const created = await call(i % 2 === 0 ? a : b, 'POST', `/${PROJECT}/resource`, auth, draft({ key }));
        expect(created.status).toBe(201);
        ids.push(created.body.id as string);
        keys.push(key);
      }
      // Each writer: update actions (one to three per write, retrying on 409) and overwrites by key (no version).
      const writes = await Promise.all(
        Array.from({ length: 20 }, async (_, w) => {
          const server = w % 2 === 0 ? a : b;
          const r = w % 5;
          let written = 0;
          for (let n = 0; n < 6; n++) {
            if (n % 3 === 2) {
              const put = await call(server, 'PUT', `/${PROJECT}/resource`, auth, draft({ key: keys[r], publish: n % 2 === 0 }));
              expect(put.status).toBe(201);
            } else {
              const actions = Array.from({ length: 1 + ((w + n) % 3) }, (_, i) => ({ action: 'changeSomeProperty', someProperty: `w${w}-n${n}-${i}` }));
              expect(await updateRetrying(server, auth, ids[r], actions)).toBe(true);
            }
            written++;
          }
          return written;
        }),
      );
      expect(writes.reduce((sum, n) => sum + n, 0)).toBe(120);
      for (const id of ids) {
        const current = await call(a, 'GET', `/${PROJECT}/resource/${id}`, auth);
        expect(current.body.version).toBe(1 + 24);
        const messages = await call(b, 'GET', `/${PROJECT}/messages?where=${encodeURIComponent(`resource(id = "${id}")`)}&sort=sequenceNumber%20asc&limit=500`, auth);
        expect(messages.status).toBe(200);
        const numbers = (messages.body.results as { sequenceNumber: number }[]).map((m) => m.sequenceNumber);
        expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1));
        const versions = await call(a, 'GET', `/${PROJECT}/resource/${id}/versions?limit=500`, auth);
        expect(versions.status).toBe(200);
        expect((versions.body.results as { version: number }[]).map((v) => v.version)).toEqual(Array.from({ length: 25 }, (_, i) => 25 - i));
        // Exactly the messages the versions' writes name, no more, no fewer.
        expect(numbers.length).toBe((versions.body.results as { types: string[] }[]).reduce((sum, v) => sum + v.types.length, 0));
        // Every version's messages are numbered after the previous version's.
        const byVersion = (messages.body.results as { resourceVersion: number }[]).map((m) => m.resourceVersion);
        expect([...byVersion].sort((x, y) => x - y)).toEqual(byVersion);
      }
    }, TIMEOUT_MS);

    it('serves reads through one process while the other takes concurrent updates: no read goes back in time', async () => {
      const key = uniqueKey('mixed');
      const created = await call(a, 'POST', `/${PROJECT}/resource`, auth, draft({ key }, { arrayOfStringExample: [key] }));
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      const writers = 6;
      let writing = true;

      const writes = Promise.all(
        Array.from({ length: writers }, (_, i) => updateRetrying(a, auth, id, { action: 'changeSomeProperty', someProperty: `writer-${i}` })),
      ).finally(() => (writing = false));
      const reads = Promise.all(
        Array.from({ length: 3 }, async () => {
          const seen: number[] = [];
          for (let round = 0; round < 200 && (writing || seen.length === 0); round++) {
            const byId = await call(b, 'GET', `/${PROJECT}/resource/${id}`, auth);
            expect(byId.status).toBe(200);
            seen.push(byId.body.version);
            const query = await call(b, 'GET', `/${PROJECT}/resource?stringParameter=${key}`, auth);
            expect(query.status).toBe(200);
            expect(query.headers.get('x-total-count')).toBe('1');
          }
          return seen;
        }),
      );
      expect((await writes).filter(Boolean)).toHaveLength(writers);
      for (const seen of await reads) {
        expect(seen).toEqual([...seen].sort((x, y) => x - y));
      }
      const final = await call(b, 'GET', `/${PROJECT}/resource/${id}`, auth);
      expect(final.body.version).toBe(1 + writers);
    }, TIMEOUT_MS);

    it('accepts a token issued by one process on the other, and the other refuses it once its client is deleted', async () => {
      const adminOnA = await tokenFor(a, admin);
      const created = await call(a, 'POST', `/${PROJECT}/api-clients`, adminOnA, { name: 'replica reader', scope: `view_test:${PROJECT}` });
      expect(created.status).toBe(201);
      const reader = { projectKey: PROJECT, clientId: created.body.id as string, clientSecret: created.body.secret as string };
      const resource = await call(a, 'POST', `/${PROJECT}/resource`, auth, draft({ key: uniqueKey('token') }));
      expect(resource.status).toBe(201);
      const path = `/${PROJECT}/resource/${resource.body.id}`;

      const fromA = await tokenFor(a, reader);
      const fromB = await tokenFor(b, reader);
      for (const [token, server] of [[fromA, b], [fromB, a], [fromA, a], [fromB, b]] as const) {
        expect((await call(server, 'GET', path, token)).status).toBe(200);
      }

      expect((await call(a, 'DELETE', `/${PROJECT}/api-clients/${reader.clientId}`, adminOnA)).status).toBe(200);
      // B last saw the client (above) before the delete: once AUTH_CLIENT_CHECK_SECONDS have passed, it must check again.
      await sleep(CLIENT_CHECK_SECONDS * 1000 + 100);
      for (const token of [fromA, fromB]) {
        const refused = await call(b, 'GET', path, token);
        expect(refused.status).toBe(401);
        expect(refused.body.errors[0].code).toBe('invalid_token');
      }
      expect((await call(b, 'GET', path, await tokenFor(b, admin))).status).toBe(200);
    }, TIMEOUT_MS);

    it('attaches each of many concurrent image uploads through both processes exactly once, most by the workers', async () => {
      const upload = { A: await tokenFor(a, admin), B: await tokenFor(b, admin) };
      const created = await call(a, 'POST', `/${PROJECT}/resource`, auth, draft({ key: uniqueKey('images') }));
      expect(created.status).toBe(201);
      const { id: resourceId, key: sku } = created.body as { id: string; key: string };
      const count = 30;
      // 8 distinct files, each uploaded several times at once: the shared blob row is written concurrently too.
      const files = Array.from({ length: 8 }, (_, i) =>
        [
          { bytes: png(i + 1, 2), type: 'image/png' },
          { bytes: jpeg(i + 8, 8), type: 'image/jpeg' },
          { bytes: gif(i + 2, 3), type: 'image/gif' },
        ][i % 3],
      );

      const uploads = await Promise.all(
        Array.from({ length: count }, async (_, i) => {
          const via = i % 2 === 0 ? a : b;
          const other = via === a ? b : a;
          const background = i % 4 !== 0; // 3 of 4 go to the workers
          const { bytes, type } = files[i % files.length];
          const res = await fetch(`${via.base}/${PROJECT}/resource/images?sku=${sku}&filename=up-${i}`, {
            method: 'POST',
            headers: { ...upload[via === a ? 'A' : 'B'], 'Content-Type': type, ...(background ? { Prefer: 'respond-async' } : {}) },
            body: bytes,
          });
          const body = (await res.json()) as { stringExample?: string; images?: Array<{ id: string; filename: string }> };
          expect(res.status).toBe(background ? 202 : 200);
          const imageId = background ? body.stringExample : body.images?.find((image) => image.filename.startsWith(`up-${i}-`))?.id;
          expect(imageId).toEqual(expect.any(String));
          return { imageId, bytes, other };
        }),
      );
      const ids = uploads.map((u) => u.imageId!);
      expect(new Set(ids).size).toBe(count);

      const until = Date.now() + 30_000;
      let resource = (await call(b, 'GET', `/${PROJECT}/resource/${resourceId}`, auth)).body;
      while (resource.images.length < count && Date.now() < until) {
        await sleep(100);
        resource = (await call(b, 'GET', `/${PROJECT}/resource/${resourceId}`, auth)).body;
      }
      const listed: string[] = resource.images.map((image: { id: string }) => image.id);
      expect([...listed].sort()).toEqual([...ids].sort());
      // Every attach, at once or by a worker, adds one version; none was applied twice.
      expect(resource.version).toBe(1 + count);
      expect((await call(a, 'GET', `/${PROJECT}/resource/${resourceId}`, auth)).body).toEqual(resource);

      const rows = await db.query<{ jobs: number; images: number }>(
        `SELECT (SELECT count(*)::int FROM image_job WHERE image_id = ANY($1::uuid[])) AS jobs,
                (SELECT count(*)::int FROM image WHERE resource_id = $2) AS images`,
        [ids, resourceId],
      );
      expect(rows.rows[0]).toEqual({ jobs: 0, images: count });

      // The bytes, stored once per file, are served by the process that did not take the upload.
      for (const { imageId, bytes, other } of uploads) {
        const served = await fetch(`${other.base}/${PROJECT}/resource/images/${imageId!}`);
        expect(served.status).toBe(200);
        expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true);
      }
    }, TIMEOUT_MS);

    it('loses no namespace-action store write when both processes write at once, and each serves the last', async () => {
      const path = `/${PROJECT}/resource/namespace-action`;
      const before = await call(a, 'GET', path, auth);
      expect(before.status).toBe(200);
      const start = Number(before.headers.get('etag')?.replace(/"/g, '') ?? 0);
      const writes = 20;

      const answers = await Promise.all(
        Array.from({ length: writes }, async (_, i) => {
          const via = i % 2 === 0 ? a : b;
          const value = { writer: i, via: via.name };
          const [posted, put] = await Promise.all([
            call(via, 'POST', path, auth, value),
            call(via === a ? b : a, 'PUT', `/${PROJECT}/resource/json-serializable-primitive-type`, auth, `value-${i}`),
          ]);
          expect(posted.status).toBe(200);
          expect(posted.body).toEqual(value);
          expect(put.status).toBe(200);
          expect(put.body).toBe(`value-${i}`);
          return { value, version: Number(posted.headers.get('etag')!.replace(/"/g, '')), putVersion: Number(put.headers.get('etag')!.replace(/"/g, '')) };
        }),
      );
      // Each write got its own version: none overwrote another unseen.
      expect(answers.map((x) => x.version).sort((x, y) => x - y)).toEqual(Array.from({ length: writes }, (_, i) => start + 1 + i));
      const putVersions = answers.map((x) => x.putVersion).sort((x, y) => x - y);
      expect(new Set(putVersions).size).toBe(writes);
      expect(putVersions[writes - 1] - putVersions[0]).toBe(writes - 1);

      const last = answers.find((x) => x.version === start + writes)!;
      for (const server of [a, b]) {
        const read = await call(server, 'GET', path, auth);
        expect(read.status).toBe(200);
        expect(read.headers.get('etag')).toBe(`"${start + writes}"`);
        expect(read.body).toEqual(last.value);
      }
    }, TIMEOUT_MS);
  });

  describe('two processes starting at the same moment on a fresh PostgreSQL database', () => {
    const admin = new pg.Client({ connectionString: databaseUrl });
    const baseName = (new URL(databaseUrl).pathname.slice(1) || 'postgres').toLowerCase().replace(/[^a-z0-9_]/g, '_');
    const freshName = `${baseName.slice(0, 40)}_mp_${randomBytes(4).toString('hex')}`;
    const freshUrl = new URL(databaseUrl);
    freshUrl.pathname = `/${freshName}`;
    let created = false;
    let first: ServerProcess;
    let second: ServerProcess;

    beforeAll(async () => {
      await admin.connect();
      await admin.query(`CREATE DATABASE "${freshName}"`);
      created = true;
      const env = { DATABASE_URL: freshUrl.toString() };
      const [port1, port2] = [await freePort(), await freePort()];
      // Spawned in the same tick: both reach the migrations together.
      first = new ServerProcess('fresh-1', port1, { ...baseEnv(), ...env });
      second = new ServerProcess('fresh-2', port2, { ...baseEnv(), ...env });
      children.push(first, second);
    }, TIMEOUT_MS);

    afterAll(async () => {
      await Promise.all([first?.stop(), second?.stop()]);
      if (created) await admin.query(`DROP DATABASE IF EXISTS "${freshName}" WITH (FORCE)`);
      await admin.end();
    }, TIMEOUT_MS);

    it('both become ready, and every migration is recorded once', async () => {
      await Promise.all([first.waitReady(), second.waitReady()]);

      const db = new pg.Client({ connectionString: freshUrl.toString() });
      await db.connect();
      try {
        const { rows } = await db.query<{ name: string; n: number }>(
          'SELECT name, count(*)::int AS n FROM migrations GROUP BY name ORDER BY name',
        );
        expect(rows.length).toBe(MIGRATIONS.length);
        expect(rows.filter((row) => row.n !== 1)).toEqual([]);
      } finally {
        await db.end();
      }
      // Under the advisory lock one process applies everything; the other finds nothing left.
      const appliers = [first, second].filter((server) => server.output.includes('applied migrations'));
      expect(appliers).toHaveLength(1);
    }, TIMEOUT_MS);

    it('serves through both processes', async () => {
      const auth = await authHeader(second);
      const created = await call(second, 'POST', `/${PROJECT}/resource`, auth, draft({ key: uniqueKey('fresh') }));
      expect(created.status).toBe(201);
      const read = await call(first, 'GET', `/${PROJECT}/resource/${created.body.id}`, auth);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(created.body);
    }, TIMEOUT_MS);
  });
} else {
  describe('embedded database: one process per data directory', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'multi-process-'));
    let first: ServerProcess;
    let auth: Record<string, string>;
    let createdId: string;

    beforeAll(async () => {
      first = await startServer('embedded-1', { DATABASE_URL: undefined, DATA_DIR: dataDir });
      await first.waitReady();
      auth = await authHeader(first);
    }, TIMEOUT_MS);

    afterAll(async () => {
      await Promise.all(children.map((child) => child.stop()));
      rmSync(dataDir, { recursive: true, force: true });
    }, TIMEOUT_MS);

    it('refuses a second process on the same DATA_DIR while the first keeps serving', async () => {
      expect(existsSync(join(dataDir, 'server.lock'))).toBe(true);
      const second = await startServer('embedded-2', { DATABASE_URL: undefined, DATA_DIR: dataDir });
      const code = await Promise.race([second.exited, deadline(START_TIMEOUT_MS).then(() => 'still running')]);
      expect(code).not.toBe('still running');
      expect(code).not.toBe(0);
      expect(second.output).toMatch(/in use|lock/i);
      expect(second.output).toContain(dataDir);

      expect(first.running).toBe(true);
      const ready = await fetch(`${first.base}/health/ready`);
      expect(ready.status).toBe(200);
      const created = await call(first, 'POST', `/${PROJECT}/resource`, auth, draft({ key: uniqueKey('embedded') }));
      expect(created.status).toBe(201);
      createdId = created.body.id;
      const read = await call(first, 'GET', `/${PROJECT}/resource/${createdId}`, auth);
      expect(read.status).toBe(200);
      expect(read.body.version).toBe(1);
    }, TIMEOUT_MS);

    it('opens the directory again, data intact, once the first process has stopped', async () => {
      expect(createdId).toBeDefined();
      await first.stop();
      // A graceful stop (src/shutdown.ts) releases the directory and exits 0.
      expect(first.exitCode).toBe(0);
      expect(existsSync(join(dataDir, 'server.lock'))).toBe(false);

      const third = await startServer('embedded-3', { DATABASE_URL: undefined, DATA_DIR: dataDir });
      await third.waitReady();
      const thirdAuth = await authHeader(third);
      const read = await call(third, 'GET', `/${PROJECT}/resource/${createdId}`, thirdAuth);
      expect(read.status).toBe(200);
      expect(read.body.id).toBe(createdId);
    }, TIMEOUT_MS);
  });
}

function baseEnv(): Record<string, string> {
  return bootstrapEnv(CLIENT);
}

/** One update action through `server`, retried with the current version after each 409 (at most 50 tries); whether it got through. */
async function updateRetrying(server: ServerProcess, auth: Record<string, string>, id: string, action: Record<string, unknown> | Record<string, unknown>[]): Promise<boolean> {
  let version = 1;
  for (let attempt = 0; attempt < 200; attempt++) {
    const answer = await call(server, 'POST', `/${PROJECT}/resource/${id}`, auth, { version, actions: [action].flat() });
    if (answer.status === 200) return true;
    expect(answer.status).toBe(409);
    version = answer.body.errors[0].currentVersion;
  }
  return false;
}

/** A new API client of the project, created by the operator CLI (`dist/src/cli.js`) as an operator would. */
async function createClientWithCli(databaseUrl: string, scope: string): Promise<BootstrapClient> {
  const env: Record<string, string | undefined> = { ...process.env, DATABASE_URL: databaseUrl };
  delete env.NODE_OPTIONS;
  const { stdout } = await promisify(execFile)(process.execPath, [join(MAIN, '..', 'cli.js'), 'client', 'create', '--project', PROJECT, '--name', 'multi-process admin', '--scope', scope], {
    env,
    timeout: 60_000,
  });
  const created = JSON.parse(stdout) as { id: string; secret: string };
  return { projectKey: PROJECT, clientId: created.id, clientSecret: created.secret };
}

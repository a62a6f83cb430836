/**
 * "The server is stateless; several replicas run against one PostgreSQL" (CONTRACT.md §4), tested with
 * real server processes (`node dist/src/main.js`, built by `pretest`):
 *  - on PostgreSQL (DATABASE_URL set): two processes share the database; a write through one is read
 *    through the other; of 20 concurrent updates carrying the same version, split across both, exactly
 *    one wins; retrying writers lose no update; two processes started at the same moment on a fresh
 *    database both become ready and apply each migration exactly once (advisory lock).
 *  - on the embedded database (DATABASE_URL unset): a second process on the same DATA_DIR refuses to
 *    start (lock file) while the first keeps serving; once the first stops, the directory opens again.
 * Requests carry a bearer token when the server has a token endpoint (bootstrap client from BOOTSTRAP_*).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { MIGRATIONS } from '../../src/database/migrations/index.js';
import { draft } from '../support/fixtures.js';
import { authHeader as tokenFor, bootstrapEnv, call, deadline, freePort, ServerProcess, START_TIMEOUT_MS } from '../support/server-process.js';

const CLIENT = { projectKey: 'multi', clientId: 'multi-client', clientSecret: 'multi-process-test-secret' };
const PROJECT = CLIENT.projectKey;

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

    beforeAll(async () => {
      a = await startServer('A', { DATABASE_URL: databaseUrl });
      await a.waitReady();
      b = await startServer('B', { DATABASE_URL: databaseUrl });
      await b.waitReady();
      auth = await authHeader(a);
    }, TIMEOUT_MS);

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
        Array.from({ length: writers }, async (_, i) => {
          const server = i % 2 === 0 ? a : b;
          let version = 1;
          for (let attempt = 0; attempt < 50; attempt++) {
            const answer = await call(server, 'POST', `/${PROJECT}/resource/${id}`, auth, {
              version,
              actions: [{ action: 'importFooForSecondPropertyToUpdate', secondPropertyToUpdate: `writer-${i}` }],
            });
            if (answer.status === 200) return 1;
            expect(answer.status).toBe(409);
            version = answer.body.errors[0].currentVersion;
          }
          return 0;
        }),
      );
      expect(wins.reduce((sum: number, win) => sum + win, 0)).toBe(writers);
      const read = await call(a, 'GET', `/${PROJECT}/resource/${id}`, auth);
      expect(read.body.version).toBe(1 + writers);
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
      // Nest's shutdown hooks close the app, then re-raise SIGTERM: a graceful stop ends by that signal.
      expect(first.exitCode === 0 || first.exitSignal === 'SIGTERM').toBe(true);
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

/**
 * Read replicas (docs/operations.md#read-replicas-of-the-database), with real server processes (`node dist/src/main.js`, built by `pretest`):
 *  - on PostgreSQL (DATABASE_URL set, only to select this branch): the test runs a primary of its own and a
 *    streaming replica of it made with `pg_basebackup -R` (PostgreSQL 15, temporary directories, free loopback
 *    ports; both with pg_stat_statements), and a server with DATABASE_REPLICA_URLS. List reads (GET and HEAD
 *    /resource, sorted-query-parameters, searchApiPattern with fuzzy words) are answered by the replica: its
 *    pg_stat_statements counts them, the primary's does not, and so do the server's per-pool counters; writes
 *    go to the primary, and show up in list reads within the lag bound. With the replica's replay paused, no
 *    list read sent more than DATABASE_REPLICA_MAX_LAG_MS after a write was acknowledged misses it (the
 *    primary answers those). A read cut off on the replica mid-statement is answered by the primary. With the
 *    replica stopped, no request fails and the primary answers; started again, it is used again, no restart.
 *  - on the embedded database (DATABASE_URL unset): a server given DATABASE_REPLICA_URLS refuses to start.
 */
import pg from 'pg';
import { draft } from '../support/fixtures.js';
import { assertPostgresBinaries, PostgresCluster } from '../support/postgres-cluster.js';
import { authHeader, bootstrapEnv, freePort, ServerProcess, sleep } from '../support/server-process.js';

const CLIENT = { projectKey: 'replicas', clientId: 'replicas-client', clientSecret: 'replicas-test-secret-0123' };
const PROJECT = CLIENT.projectKey;
const TIMEOUT_MS = 120_000;
const MAX_LAG_MS = 2_000;
const METRICS_TOKEN = 'replicas-metrics-token-0123456789';

if (process.env.DATABASE_URL) {
  describe('PostgreSQL primary with a streaming replica (DATABASE_REPLICA_URLS)', () => {
    // fsync off: these servers are thrown away; what is tested is where reads go and how stale they may be.
    const settings = ['shared_preload_libraries=pg_stat_statements', 'fsync=off'];
    const primary = new PostgresCluster('replicas-primary-', settings);
    const replica = new PostgresCluster('replicas-standby-', settings);
    let server: ServerProcess;
    let auth: Record<string, string>;
    /** The replica's label in /metrics: host:port/database. */
    let replicaName: string;

    beforeAll(async () => {
      assertPostgresBinaries(['initdb', 'pg_ctl', 'pg_basebackup', 'postgres']);
      await primary.create();
      await primary.sql('CREATE EXTENSION pg_stat_statements');
      await replica.createStandbyOf(primary);
      replicaName = `127.0.0.1:${replica.port}/postgres`;
      server = new ServerProcess('replicas', await freePort(), {
        ...bootstrapEnv(CLIENT),
        DATABASE_URL: primary.url(),
        DATABASE_REPLICA_URLS: replica.url(),
        DATABASE_REPLICA_MAX_LAG_MS: String(MAX_LAG_MS),
        METRICS_TOKEN,
        // No request lines: the replica's changes of state are what the (bounded) kept output holds.
        LOG_LEVEL: 'warn',
      });
      await server.waitReady();
      auth = await authHeader(server, CLIENT);
      await until('the replica is up', async () => (await replicaHealth()).state === 'up');
    }, TIMEOUT_MS);

    afterAll(async () => {
      await server?.stop();
      await replica.destroy();
      await primary.destroy();
    }, TIMEOUT_MS);

    async function get(path: string, method = 'GET'): Promise<Response> {
      return fetch(`${server.base}${path}`, { method, headers: auth });
    }

    /** X-Total-Count of GET /resource: the project's resources as a list read sees them. */
    async function listed(): Promise<number> {
      const res = await get(`/${PROJECT}/resource`);
      expect(res.status).toBe(200);
      return Number(res.headers.get('x-total-count'));
    }

    async function create(key: string): Promise<void> {
      const res = await fetch(`${server.base}/${PROJECT}/resource`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify(draft({ key }, { arrayOfStringExample: ['replicated', 'elephant'] })),
      });
      expect(res.status).toBe(201);
    }

    async function replicaHealth(): Promise<{ state: string; lagMs: number | null }> {
      const res = await fetch(`${server.base}/health/ready`);
      const body = (await res.json()) as { replicas: { replica: number; state: string; lagMs: number | null }[] };
      expect(res.status).toBe(200);
      expect(body.replicas).toHaveLength(1);
      expect(body.replicas[0].replica).toBe(1);
      return body.replicas[0];
    }

    async function metrics(): Promise<(series: string) => number> {
      const res = await fetch(`${server.base}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(res.status).toBe(200);
      const text = await res.text();
      return (series) => Number(new RegExp(`^${series.replace(/[{}()[\]|.*+?^$\\/]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
    }

    /** List-read statements each pool answered, and those retried on the primary. */
    async function reads(): Promise<{ primary: number; replica: number; retries: number }> {
      const value = await metrics();
      return {
        primary: value('db_list_reads_total{pool="primary"}'),
        replica: value(`db_list_reads_total{pool="${replicaName}"}`),
        retries: value(`db_replica_retries_total{replica="${replicaName}"}`),
      };
    }

    /** Calls of the statements whose text contains `fragment` (a LIKE pattern; constants show as $n), on one server. */
    async function calls(cluster: PostgresCluster, fragment: string): Promise<number> {
      const rows = await cluster.sql<{ calls: string }>('SELECT coalesce(sum(calls), 0)::text AS calls FROM pg_stat_statements WHERE query LIKE $1', [`%${fragment}%`]);
      return Number(rows[0].calls);
    }

    it('answers list reads from the replica and writes on the primary; a write shows up in a list read within the bound', async () => {
      await primary.sql('SELECT pg_stat_statements_reset()');
      await replica.sql('SELECT pg_stat_statements_reset()');
      const before = await reads();
      const count = await listed();

      for (const key of ['replicated-1', 'replicated-2', 'replicated-3']) await create(key);
      const acknowledged = performance.now();
      let polls = 0;
      while ((await listed()) !== count + 3) {
        polls++;
        expect(performance.now() - acknowledged).toBeLessThan(MAX_LAG_MS);
        await sleep(20);
      }
      console.log(`replicas: the writes showed up in a list read ${Math.round(performance.now() - acknowledged)} ms after they were acknowledged (${polls} polls missed them)`);

      expect((await get(`/${PROJECT}/resource`, 'HEAD')).status).toBe(404); // the API description's defaults match none of these
      const query = await get(`/${PROJECT}/resource/sorted-query-parameters?where=${encodeURIComponent('key in ("replicated-1", "replicated-3")')}`);
      expect(((await query.json()) as { total: number }).total).toBe(2);
      const search = await get(`/${PROJECT}/resource/searchApiPattern?text.en=elephnt&fuzzy=true`);
      expect(((await search.json()) as { total: number }).total).toBe(count + 3);

      // GET and HEAD /resource (1 + polls + 1 + 1 statements), sorted-query-parameters (1), search (neighbours and search: 2).
      const after = await reads();
      expect(after.replica - before.replica).toBe(polls + 6);
      expect(after.primary - before.primary).toBe(0);

      // Seen by the servers themselves: the replica ran every list statement, the primary none; the inserts ran on the primary.
      const listStatements: [string, string, number][] = [
        ['GET /resource', 'row_number() OVER (ORDER BY r.created_at, r.id)', polls + 2],
        ['HEAD /resource', 'SELECT EXISTS (SELECT %FROM resource r', 1],
        ['sorted-query-parameters', 'SELECT b.count, b.results, b.chunk, (SELECT count(*) FROM resource r', 1],
        ['searchApiPattern: fuzzy neighbours', 'SELECT q.i, w.word', 1],
        ['searchApiPattern: search', 'WITH base AS MATERIALIZED', 1],
      ];
      for (const [name, fragment, expected] of listStatements) {
        expect([name, 'replica', await calls(replica, fragment)]).toEqual([name, 'replica', expected]);
        expect([name, 'primary', await calls(primary, fragment)]).toEqual([name, 'primary', 0]);
      }
      expect(await calls(primary, 'INSERT INTO resource')).toBeGreaterThanOrEqual(3);
      expect(await calls(replica, 'INSERT INTO resource')).toBe(0);
      // The server's replica connections carry its name, as on the primary.
      const sessions = await replica.sql<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1", [`resource-api/${server.child.pid}`]);
      expect(sessions[0].n).toBeGreaterThanOrEqual(1);

      const value = await metrics();
      expect(value(`db_replica_up{replica="${replicaName}"}`)).toBe(1);
      expect(value(`db_replica_lag_seconds{replica="${replicaName}"}`)).toBeLessThan(MAX_LAG_MS / 1000);
      expect(value(`db_replica_pool_max_connections{replica="${replicaName}"}`)).toBe(10);
      expect(value(`db_replica_pool_connections{replica="${replicaName}"}`)).toBeGreaterThanOrEqual(1);
    });

    it('with replay paused, no list read sent more than the bound after a write misses it: the primary answers those', async () => {
      await replica.sql('SELECT pg_wal_replay_pause()');
      await until('replay is paused', async () => (await replica.sql<{ s: string }>('SELECT pg_get_wal_replay_pause_state() AS s'))[0].s === 'paused');
      try {
        const count = await listed();
        const before = await reads();
        await create('written-while-paused');
        const acknowledged = performance.now();

        // Poll until the write shows up; each answer that misses it must have been sent within the bound.
        const missed: number[] = [];
        for (;;) {
          const sent = performance.now();
          if ((await listed()) === count + 1) break;
          missed.push(Math.round(sent - acknowledged));
          expect(sent - acknowledged).toBeLessThanOrEqual(MAX_LAG_MS);
          await sleep(50);
        }
        const seen = performance.now() - acknowledged;
        console.log(`replicas, replay paused: ${missed.length} list reads missed the write (sent ${missed[0]}…${missed.at(-1)} ms after it), the first to see it came ${Math.round(seen)} ms after it`);
        // The replica did answer for a while (stale within the bound), then the primary took over by itself.
        expect(missed.length).toBeGreaterThan(0);
        expect(seen).toBeLessThan(MAX_LAG_MS + 1_500);
        expect((await replicaHealth()).state).toBe('lagging');
        // The health answer judges the lag when asked; the log line comes with the next check (each second).
        const logged = new RegExp(`replica 1 \\(${replicaName}\\) may be behind by up to \\d+ ms, more than DATABASE_REPLICA_MAX_LAG_MS \\(2000\\): the primary answers its reads \\(its replay is paused\\)`);
        await until('the lagging replica is logged', async () => logged.test(server.output));
        const after = await reads();
        expect(after.primary - before.primary).toBeGreaterThanOrEqual(1);
        // The replica still has not replayed it: that answer was the primary's.
        const onReplica = await replica.sql<{ n: number }>('SELECT count(*)::int AS n FROM resource WHERE project_key = $1', [PROJECT]);
        expect(onReplica[0].n).toBe(count);
      } finally {
        await replica.sql('SELECT pg_wal_replay_resume()');
      }
      await until('the replica is up again', async () => (await replicaHealth()).state === 'up');
      const before = await reads();
      await listed();
      expect((await reads()).replica - before.replica).toBe(1);
    });

    it('answers a read cut off on the replica mid-statement from the primary', async () => {
      const count = await listed();
      const before = await reads();
      // A lock taken on the primary is replayed on the replica, where it blocks the list read until we end it.
      const locker = new pg.Client({ connectionString: primary.url() });
      await locker.connect();
      try {
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE resource IN ACCESS EXCLUSIVE MODE');
        await primary.sql('SELECT txid_current()'); // a commit: the lock's WAL record is flushed and streamed
        await until('the lock is replayed', async () => (await replica.sql<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'resource'::regclass AND mode = 'AccessExclusiveLock'"))[0].n === 1);

        const answer = get(`/${PROJECT}/resource`);
        let blocked: number | undefined;
        await until('the read waits on the replica', async () => {
          const rows = await replica.sql<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", [`resource-api/${server.child.pid}`]);
          blocked = rows[0]?.pid;
          return blocked !== undefined;
        });
        await replica.sql('SELECT pg_terminate_backend($1)', [blocked]);
        // Retried on the primary, where it waits for the lock in turn.
        await until('the read waits on the primary', async () => (await primary.sql<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", [`resource-api/${server.child.pid}`]))[0].n === 1);
        await locker.query('ROLLBACK');
        const res = await answer;
        expect(res.status).toBe(200);
        expect(Number(res.headers.get('x-total-count'))).toBe(count);
      } finally {
        await locker.end();
      }
      const after = await reads();
      expect(after.retries - before.retries).toBe(1);
      expect(after.primary - before.primary).toBe(1);
      await until('the replica is up again', async () => (await replicaHealth()).state === 'up');
    });

    it('with the replica stopped, no request fails: the primary answers, and the replica is used again once it is back', async () => {
      const statuses = new Map<number, number>();
      let stopped = false;
      const traffic = Array.from({ length: 3 }, async (_, i) => {
        while (!stopped) {
          const res = await get(i === 0 ? `/${PROJECT}/resource` : `/${PROJECT}/resource/sorted-query-parameters?where=${encodeURIComponent('published = true')}`);
          await res.arrayBuffer();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          await sleep(10);
        }
      });
      try {
        await sleep(300);
        await replica.stop('immediate');
        await until('the replica is down', async () => (await replicaHealth()).state === 'down');
        const before = await reads();
        const count = await listed();
        await create('written-while-replica-down');
        expect(await listed()).toBe(count + 1);
        await sleep(500);
        const after = await reads();
        expect(after.replica - before.replica).toBe(0);
        expect(after.primary - before.primary).toBeGreaterThanOrEqual(2);
        expect((await fetch(`${server.base}/health/ready`)).status).toBe(200);
        expect(server.output).toContain(`replica 1 (${replicaName}) is unreachable`);
      } finally {
        stopped = true;
        await Promise.all(traffic);
      }
      expect(Object.fromEntries(statuses)).toEqual({ 200: expect.any(Number) });

      await replica.start();
      await until('the replica is up again', async () => (await replicaHealth()).state === 'up');
      const before = await reads();
      await listed();
      expect((await reads()).replica - before.replica).toBe(1);
      expect(server.running ? 'running' : server.describe()).toBe('running');
    });
  });
} else {
  describe('embedded database', () => {
    it('refuses DATABASE_REPLICA_URLS at start-up: the embedded database has no replicas', async () => {
      const server = new ServerProcess('replicas-embedded', await freePort(), {
        ...bootstrapEnv(CLIENT),
        DATABASE_URL: undefined,
        DATABASE_REPLICA_URLS: 'postgres://postgres@127.0.0.1:5432/replica',
      });
      try {
        expect(await server.exited).toBe(1);
        expect(server.output).toContain('DATABASE_REPLICA_URLS: needs DATABASE_URL: the embedded database has no replicas');
      } finally {
        await server.stop();
      }
    });
  });
}

/** Waits for `condition`, checked every 50 ms, for at most 15 s. */
async function until(what: string, condition: () => Promise<boolean>): Promise<void> {
  const deadline = performance.now() + 15_000;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(50);
  }
}

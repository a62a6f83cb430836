/**
 * The service survives the failures of its database (docs/getting-started.md: "PostgreSQL", "The embedded
 * database"), tested with real server processes (`node dist/src/main.js`, built by `pretest`):
 *  - on PostgreSQL (DATABASE_URL set, only to select this branch): the test runs a throwaway PostgreSQL
 *    15 cluster of its own (initdb in a temporary directory, a free port; the machine's shared server is
 *    never touched), fsync on as in production, and stops it twice under traffic: with
 *    `pg_ctl stop -m fast` (an orderly shutdown: sessions terminated, a checkpoint) and with
 *    `-m immediate` (the real crash: every backend killed, the WAL replayed at the next start). While it
 *    is down every request answers fast with 503 `ServiceUnavailable` and `Retry-After`, never 500 or a
 *    hang; /health/ready answers 503 and /health/live 200; the image worker logs the outage once, the
 *    503s make at most one warning. Started again, the database is used by the same process with no
 *    restart (the recovery time is printed), every write acknowledged before and during the outage is
 *    there with its acknowledged version and content, and the token issued before still works.
 *  - on the embedded database (DATABASE_URL unset): a process is killed with SIGKILL in the middle of
 *    a stream of writes, twice in a row; each time a new process opens the same DATA_DIR (the dead
 *    process's lock file is taken over) and every acknowledged write is there with at least its
 *    acknowledged version.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { draft } from '../support/fixtures.js';
import { PostgresCluster } from '../support/postgres-cluster.js';
import { authHeader as tokenFor, bootstrapEnv, call, freePort, ServerProcess, sleep } from '../support/server-process.js';

const CLIENT = { projectKey: 'faults', clientId: 'faults-client', clientSecret: 'faults-test-secret-0123' };
const PROJECT = CLIENT.projectKey;
const TIMEOUT_MS = 120_000;
/** A request that takes longer than this hangs, as far as these tests are concerned (a generous bound). */
const ANSWER_BOUND_MS = 10_000;
/** Updates a writer makes to one resource before it creates the next. */
const UPDATES_PER_RESOURCE = 4;

const children: ServerProcess[] = [];
async function startServer(name: string, env: Record<string, string | undefined>): Promise<ServerProcess> {
  const server = new ServerProcess(name, await freePort(), { ...bootstrapEnv(CLIENT), ...env });
  children.push(server);
  await server.waitReady();
  return server;
}

afterAll(async () => {
  await Promise.all(children.map((child) => child.stop()));
}, TIMEOUT_MS);

/** One request of the traffic, as its client saw it. `status` 0: no HTTP answer (connection error or timeout). */
interface Outcome {
  kind: 'create' | 'update' | 'read' | 'query';
  status: number;
  /** `performance.now()` when the request was sent and when its answer was read. */
  start: number;
  end: number;
  code?: string;
  retryAfter: string | null;
  error?: string;
}

/** What the API acknowledged last for a resource (2xx). */
interface Acknowledged {
  version: number;
  someProperty?: string;
}

/**
 * Steady traffic through fetch: writers create resources and update each a few times with the version
 * they know (an update whose fate the writer did not learn is settled by the 409's current version);
 * readers read back acknowledged resources and run a query. Every acknowledged write is recorded.
 */
class Traffic {
  readonly acknowledged = new Map<string, Acknowledged>();
  readonly outcomes: Outcome[] = [];
  /** Reads that saw an older version than one acknowledged before the read was sent. */
  readonly staleReads: string[] = [];
  inFlight = 0;
  private stopped = false;
  private readonly loops: Promise<void>[] = [];
  private readonly prefix = randomBytes(4).toString('hex');

  constructor(
    private readonly server: ServerProcess,
    private readonly auth: Record<string, string>,
  ) {}

  start(writers: number, readers: number): void {
    for (let i = 0; i < writers; i++) this.loops.push(this.writer(i));
    for (let i = 0; i < readers; i++) this.loops.push(this.reader(i));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }

  firstSuccessAfter(time: number): Outcome | undefined {
    return this.outcomes.filter((o) => o.status >= 200 && o.status < 300 && o.end > time).sort((a, b) => a.end - b.end)[0];
  }

  private async writer(writer: number): Promise<void> {
    let current: { id: string; version: number } | undefined;
    let n = 0;
    while (!this.stopped) {
      n++;
      if (!current || current.version > UPDATES_PER_RESOURCE) {
        const { outcome, body } = await this.send('create', 'POST', `/${PROJECT}/resource`, draft({ key: `${this.prefix}-${writer}-${n}` }));
        if (outcome.status === 201) {
          current = { id: body.id, version: body.version };
          this.acknowledged.set(body.id, { version: body.version });
        }
      } else {
        const someProperty = `w${writer}-n${n}`;
        const { outcome, body } = await this.send('update', 'POST', `/${PROJECT}/resource/${current.id}`, {
          version: current.version,
          actions: [{ action: 'changeSomeProperty', someProperty }],
        });
        if (outcome.status === 200) {
          current.version = body.version;
          this.acknowledged.set(current.id, { version: body.version, someProperty: body.someProperty });
        } else if (outcome.status === 409) {
          // An update sent before the outage was applied though its answer was lost.
          current.version = body.errors[0].currentVersion;
        }
      }
      await sleep(this.lastFailed() ? 100 : 10);
    }
  }

  private async reader(reader: number): Promise<void> {
    let n = 0;
    while (!this.stopped) {
      n++;
      const ids = [...this.acknowledged.keys()];
      if (n % 4 === 0 || ids.length === 0) {
        await this.send('query', 'GET', `/${PROJECT}/resource`);
      } else {
        const id = ids[(n * 7 + reader) % ids.length];
        const known = this.acknowledged.get(id)!.version;
        const { outcome, body } = await this.send('read', 'GET', `/${PROJECT}/resource/${id}`);
        if (outcome.status === 200 && body.version < known) this.staleReads.push(`${id}: read version ${body.version} after ${known} was acknowledged`);
      }
      await sleep(this.lastFailed() ? 100 : 10);
    }
  }

  private lastFailed(): boolean {
    const last = this.outcomes[this.outcomes.length - 1];
    return last !== undefined && (last.status === 0 || last.status >= 500);
  }

  private async send(kind: Outcome['kind'], method: string, path: string, body?: unknown): Promise<{ outcome: Outcome; body: any }> {
    const start = performance.now();
    this.inFlight++;
    let outcome: Outcome;
    let parsed: any;
    try {
      const res = await fetch(`${this.server.base}${path}`, {
        method,
        headers: { ...this.auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(ANSWER_BOUND_MS + 5_000),
      });
      const text = await res.text();
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = text;
      }
      outcome = { kind, status: res.status, start, end: performance.now(), code: parsed?.errors?.[0]?.code, retryAfter: res.headers.get('retry-after') };
    } catch (error) {
      outcome = { kind, status: 0, start, end: performance.now(), retryAfter: null, error: String((error as Error).cause ?? error) };
    } finally {
      this.inFlight--;
    }
    this.outcomes.push(outcome);
    return { outcome, body: parsed };
  }
}

/** Every acknowledged write is there: each resource has at least its acknowledged version, and that one's content. */
async function expectAcknowledgedWritesPresent(server: ServerProcess, auth: Record<string, string>, acknowledged: Map<string, Acknowledged>): Promise<void> {
  const missing: string[] = [];
  const entries = [...acknowledged.entries()];
  for (let i = 0; i < entries.length; i += 20) {
    await Promise.all(
      entries.slice(i, i + 20).map(async ([id, ack]) => {
        const read = await call(server, 'GET', `/${PROJECT}/resource/${id}`, auth);
        if (read.status !== 200) missing.push(`${id}: GET answered ${read.status}`);
        else if (read.body.version < ack.version) missing.push(`${id}: version ${read.body.version}, acknowledged ${ack.version}`);
        else if (read.body.version === ack.version && read.body.someProperty !== ack.someProperty) {
          missing.push(`${id}: someProperty ${String(read.body.someProperty)}, acknowledged ${String(ack.someProperty)}`);
        }
      }),
    );
  }
  expect(missing).toEqual([]);
}

const summary = (outcomes: Outcome[]) =>
  Object.entries(
    outcomes.reduce<Record<string, number>>((counts, o) => {
      const key = `${o.kind} ${o.status}${o.code ? ` ${o.code}` : ''}${o.error ? ` ${o.error}` : ''}`;
      counts[key] = (counts[key] ?? 0) + 1;
      return counts;
    }, {}),
  )
    .map(([key, count]) => `${key}: ${count}`)
    .join('; ');

if (process.env.DATABASE_URL) {
  describe('PostgreSQL outage under steady traffic', () => {
    // fsync on (the default), as in production: the crash below is a real one.
    const cluster = new PostgresCluster('faults-pg-');
    let server: ServerProcess;
    let auth: Record<string, string>;
    const acknowledged = new Map<string, Acknowledged>();

    beforeAll(async () => {
      await cluster.create();
      // The image worker polls every 10 ms, so the outage is likely to catch it in the middle of a transaction.
      // LOG_LEVEL=warn: no request lines, so the warnings the outage causes are what the log holds (and
      // the process's kept output, bounded, is not used up by the first outage's request lines).
      server = await startServer('outage', { DATABASE_URL: cluster.url(), IMAGES_WORKER_INTERVAL_MS: '10', LOG_LEVEL: 'warn' });
      auth = await tokenFor(server, CLIENT);
    }, TIMEOUT_MS);

    afterAll(async () => {
      await server?.stop();
      await cluster.destroy();
    }, TIMEOUT_MS);

    /** One outage: traffic, the database stopped in `mode` for a few seconds, started again, traffic after. */
    async function outage(mode: 'fast' | 'immediate'): Promise<void> {
      const traffic = new Traffic(server, auth);
      traffic.start(4, 2);
      let down = 0;
      let up = 0;
      let outageLog = '';
      try {
        await sleep(1_500);
        expect(traffic.acknowledged.size).toBeGreaterThan(0);
        const logStart = server.output.length;
        down = performance.now();
        await cluster.stop(mode);

        // While it is down: the process stays up, liveness 200, readiness 503, no new token.
        await sleep(1_000);
        expect(server.running ? 'running' : server.describe()).toBe('running');
        expect((await call(server, 'GET', '/health/live', {})).status).toBe(200);
        const ready = await call(server, 'GET', '/health/ready', {});
        expect(ready.status).toBe(503);
        expect(ready.body.errors[0].code).toBe('ServiceUnavailable');
        const token = await fetch(`${server.base}/oauth/token`, {
          method: 'POST',
          headers: { Authorization: `Basic ${Buffer.from(`${CLIENT.clientId}:${CLIENT.clientSecret}`).toString('base64')}`, 'Content-Type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials',
        });
        expect(token.status).toBe(503);
        expect(token.headers.get('retry-after')).toMatch(/^\d+$/);
        await sleep(3_000);
        expect(server.running ? 'running' : server.describe()).toBe('running');
        outageLog = server.output.slice(logStart);

        await cluster.start();
        up = performance.now();
        const deadline = up + 30_000;
        while (!traffic.firstSuccessAfter(up) && performance.now() < deadline) await sleep(20);
        await sleep(1_000);
      } finally {
        await traffic.stop();
      }

      const recovered = traffic.firstSuccessAfter(up);
      expect(recovered).toBeDefined();
      const during = traffic.outcomes.filter((o) => o.end > down && o.start < up);
      console.log(
        `PostgreSQL stop -m ${mode}: down ${Math.round(up - down)} ms; first 2xx (${recovered!.kind}) ${Math.round(recovered!.end - up)} ms ` +
          `after the database was ready again; ${traffic.outcomes.length} requests, ${during.length} while down, ` +
          `slowest ${Math.round(Math.max(...traffic.outcomes.map((o) => o.end - o.start)))} ms. ${summary(traffic.outcomes)}`,
      );

      // Only expected answers, all fast; every failure is the 503 envelope with Retry-After.
      const expected = { create: [201, 503], update: [200, 409, 503], read: [200, 503], query: [200, 503] };
      expect(traffic.outcomes.filter((o) => !expected[o.kind].includes(o.status))).toEqual([]);
      expect(traffic.outcomes.filter((o) => o.end - o.start >= ANSWER_BOUND_MS)).toEqual([]);
      const unavailable = traffic.outcomes.filter((o) => o.status === 503);
      expect(unavailable.length).toBeGreaterThan(0);
      expect(unavailable.filter((o) => o.code !== 'ServiceUnavailable' || !/^\d+$/.test(o.retryAfter ?? ''))).toEqual([]);
      expect(traffic.staleReads).toEqual([]);
      // A 409 comes only from an update applied though its answer was lost in the outage: at most one per writer.
      expect(traffic.outcomes.filter((o) => o.status === 409).length).toBeLessThanOrEqual(4);

      // Logs (JSON lines): the image worker (polling every 10 ms here) reports the outage at most once, not
      // at every round (its round may still be waiting for a connection when the window closes); the
      // hundreds of 503s make at most one warning (one per 10 s); no error, nothing unhandled.
      const lines = outageLog
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level?: string; context?: string });
      expect(lines.filter((line) => line.context === 'ImagesWorker').length).toBeLessThanOrEqual(1);
      expect(lines.filter((line) => line.context === 'Errors').length).toBeLessThanOrEqual(1);
      expect(lines.filter((line) => line.level === 'error' || line.level === 'fatal')).toEqual([]);
      expect(outageLog).not.toMatch(/unhandled|uncaught/i);

      for (const [id, ack] of traffic.acknowledged) acknowledged.set(id, ack);
      await expectAcknowledgedWritesPresent(server, auth, acknowledged);
    }

    it('answers 503 fast while the database stops in order (pg_ctl stop -m fast), and recovers by itself with every acknowledged write', async () => {
      await outage('fast');
    }, TIMEOUT_MS);

    it('does the same when the database crashes (pg_ctl stop -m immediate): acknowledged writes survive WAL recovery', async () => {
      await outage('immediate');
    }, TIMEOUT_MS);

    it('still accepts the token issued before both outages, and issues new ones', async () => {
      expect(server.running).toBe(true);
      const read = await call(server, 'GET', `/${PROJECT}/resource`, auth);
      expect(read.status).toBe(200);
      const created = await call(server, 'POST', `/${PROJECT}/resource`, auth, draft({ key: `after-${randomBytes(4).toString('hex')}` }));
      expect(created.status).toBe(201);
      const fresh = await tokenFor(server, CLIENT);
      expect((await call(server, 'GET', `/${PROJECT}/resource/${created.body.id}`, fresh)).status).toBe(200);
      expect((await fetch(`${server.base}/health/ready`)).status).toBe(200);
    }, TIMEOUT_MS);
  });
} else {
  describe('embedded database: SIGKILL in the middle of a stream of writes', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'faults-embedded-'));
    const env = { DATABASE_URL: undefined, DATA_DIR: dataDir };
    const acknowledged = new Map<string, Acknowledged>();
    let server: ServerProcess;
    let auth: Record<string, string>;

    beforeAll(async () => {
      server = await startServer('embedded-0', env);
      auth = await tokenFor(server, CLIENT);
    }, TIMEOUT_MS);

    afterAll(async () => {
      await Promise.all(children.map((child) => child.stop()));
      rmSync(dataDir, { recursive: true, force: true });
    }, TIMEOUT_MS);

    for (const round of [1, 2]) {
      it(`round ${round}: a new process opens the directory of the killed one, with every acknowledged write`, async () => {
        const traffic = new Traffic(server, auth);
        traffic.start(4, 1);
        try {
          const deadline = performance.now() + 30_000;
          while (traffic.acknowledged.size < 20 && performance.now() < deadline) await sleep(50);
          await sleep(500);
          // The loops pause 10 ms between requests, and the embedded server answers a write in a few ms:
          // wait for an instant with a request under way, so the kill lands in the middle of one.
          while (traffic.inFlight === 0 && performance.now() < deadline) await sleep(1);
          expect(traffic.inFlight).toBeGreaterThan(0);
          server.child.kill('SIGKILL');
          await server.exited;
        } finally {
          // Also when a check above fails: loops left running would keep Jest from exiting.
          await traffic.stop();
        }
        expect(server.exitSignal).toBe('SIGKILL');
        expect(existsSync(join(dataDir, 'server.lock'))).toBe(true);
        const updates = traffic.outcomes.filter((o) => o.kind === 'update' && o.status === 200).length;
        console.log(`embedded round ${round}: ${traffic.acknowledged.size} resources, ${updates} acknowledged updates before SIGKILL; ${summary(traffic.outcomes)}`);
        expect(updates).toBeGreaterThan(0);
        expect(traffic.outcomes.filter((o) => o.status !== 0 && o.status !== 200 && o.status !== 201)).toEqual([]);
        for (const [id, ack] of traffic.acknowledged) acknowledged.set(id, ack);

        const started = performance.now();
        server = await startServer(`embedded-${round}`, env);
        console.log(`embedded round ${round}: the next process was ready ${Math.round(performance.now() - started)} ms after its start`);
        // The signing keys live in the database too: the token issued before the kill still works.
        await expectAcknowledgedWritesPresent(server, auth, acknowledged);
      }, TIMEOUT_MS);
    }
  });
}

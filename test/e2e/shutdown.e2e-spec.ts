/**
 * Graceful stop (docs/operations.md#shutdown), with real server processes (`node dist/src/main.js`) on
 * the database of the run (PostgreSQL when DATABASE_URL is set, else one embedded DATA_DIR that the
 * processes of this file open one after the other: each start proves the previous stop released it).
 *
 * The in-flight request is a namespace action that forwards to a backend started here, which holds
 * the request until the test releases it: the request lasts as long as the test wants, no timing.
 * It is sent on a keep-alive connection (fetch keeps them), the case that would otherwise hold the
 * server open after its answer.
 */
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { authHeader, bootstrapEnv, deadline, freePort, ServerProcess, sleep } from '../support/server-process.js';
import { until } from '../support/timing.js';

const CLIENT = { projectKey: 'shutdown', clientId: 'shutdown-client', clientSecret: 'shutdown-test-secret' };
const TIMEOUT_MS = 120_000;
/** Generous "no hang" bound for one step (an exit, a refused connection). */
const STEP_MS = 15_000;

/** A backend whose answers wait until `release()`; `arrived` resolves with each request's arrival. */
class HeldBackend {
  readonly server: Server;
  private held: ServerResponse[] = [];
  private waiting: Array<() => void> = [];

  constructor() {
    this.server = createServer((_req: IncomingMessage, res: ServerResponse) => {
      this.held.push(res);
      this.waiting.splice(0).forEach((wake) => wake());
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/held`;
  }

  /** Resolves once `count` requests are being held. */
  async arrived(count: number): Promise<void> {
    while (this.held.length < count) await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(body: unknown): void {
    for (const res of this.held.splice(0)) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    }
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const workDir = mkdtempSync(join(tmpdir(), 'shutdown-'));
const dataDir = join(workDir, 'data');
const lockFile = join(dataDir, 'server.lock');
const databaseUrl = process.env.DATABASE_URL;
const backend = new HeldBackend();
const children: ServerProcess[] = [];
let actionsFile: string;

beforeAll(async () => {
  const url = await backend.listen();
  actionsFile = join(workDir, 'actions.json');
  writeFileSync(
    actionsFile,
    JSON.stringify({ actions: [{ method: 'GET', path: 'namespace-action', projects: [CLIENT.projectKey], handler: { type: 'forward', url, timeoutMs: 60_000 } }] }),
  );
});

afterAll(async () => {
  await Promise.all(children.map((child) => child.stop()));
  await backend.close();
  rmSync(workDir, { recursive: true, force: true });
}, TIMEOUT_MS);

async function startServer(name: string, shutdownTimeoutMs: number): Promise<{ server: ServerProcess; auth: Record<string, string> }> {
  const server = new ServerProcess(name, await freePort(), {
    ...bootstrapEnv(CLIENT),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATABASE_URL: undefined, DATA_DIR: dataDir }),
    ACTIONS_FILE: actionsFile,
    SHUTDOWN_TIMEOUT_MS: String(shutdownTimeoutMs),
  });
  children.push(server);
  await server.waitReady();
  return { server, auth: await authHeader(server, CLIENT) };
}

/** The forwarded request, held by the backend until released; settles with its answer or its failure. */
function inFlight(server: ServerProcess, auth: Record<string, string>) {
  return fetch(`${server.base}/${CLIENT.projectKey}/resource/namespace-action`, { headers: auth }).then(
    async (res) => ({ status: res.status, body: (await res.json()) as unknown }),
    (error: Error) => ({ failed: error }),
  );
}

/** Resolves once a new connection to the server is refused (the listener is closed). */
async function connectionRefused(server: ServerProcess): Promise<void> {
  const end = Date.now() + STEP_MS;
  while (Date.now() < end) {
    const outcome = await fetch(`${server.base}/health/live`).then(
      () => 'answered',
      (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.message,
    );
    if (outcome === 'ECONNREFUSED') return;
    await sleep(50);
  }
  throw new Error(`new connections were still accepted ${STEP_MS} ms after the signal: ${server.describe()}`);
}

async function exitedWithin(server: ServerProcess, ms: number): Promise<void> {
  const outcome = await Promise.race([server.exited.then(() => 'exited'), deadline(ms).then(() => 'running')]);
  if (outcome !== 'exited') throw new Error(`still running ${ms} ms later: ${server.describe()}`);
}

/** This process's connections in pg_stat_activity (the pool names them `resource-api/<pid>`). */
async function connectionsOf(pid: number): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [`resource-api/${pid}`]);
    return rows[0].n;
  } finally {
    await client.end();
  }
}

/** After a stop: the embedded lock file is gone, or no PostgreSQL connection of the process is left. */
async function expectDatabaseReleased(server: ServerProcess): Promise<void> {
  if (!databaseUrl) {
    expect(existsSync(lockFile)).toBe(false);
    return;
  }
  // The server ends its connections before it exits; PostgreSQL drops them from the view right after.
  const end = Date.now() + STEP_MS;
  while ((await connectionsOf(server.child.pid!)) > 0 && Date.now() < end) await sleep(100);
  expect(await connectionsOf(server.child.pid!)).toBe(0);
}

async function expectDatabaseHeld(server: ServerProcess): Promise<void> {
  if (databaseUrl) expect(await connectionsOf(server.child.pid!)).toBeGreaterThan(0);
  else expect(existsSync(lockFile)).toBe(true);
}

describe('SIGTERM / SIGINT: graceful stop', () => {
  it('SIGTERM: refuses new connections, lets the in-flight request answer, releases the database, exits 0', async () => {
    const { server, auth } = await startServer('graceful', 60_000);
    await expectDatabaseHeld(server);
    const request = inFlight(server, auth);
    let settled = false;
    void request.then(() => (settled = true));
    await backend.arrived(1);

    server.child.kill('SIGTERM');
    await connectionRefused(server);
    expect(settled).toBe(false);
    expect(server.running).toBe(true);

    backend.release({ answer: 'after the signal' });
    expect(await request).toEqual({ status: 200, body: { answer: 'after the signal' } });
    await exitedWithin(server, STEP_MS);
    expect(server.exitCode).toBe(0);
    expect(server.exitSignal).toBeNull();
    expect(server.output).toContain('SIGTERM received');
    // Log lines still waiting in the asynchronous log stream when the process exits are written (pino
    // flushes it on exit): the in-flight request's line and the last one, logged right before the exit.
    await until('the last log line', () => server.output.includes('"msg":"closed"'), 5_000);
    expect(server.output).toMatch(/"route":"\/:projectKey\/resource\/namespace-action","url":"[^"]*","statusCode":200/);
    await expectDatabaseReleased(server);
  }, TIMEOUT_MS);

  it('SIGINT: the same stop, an idle keep-alive connection does not hold it open', async () => {
    const { server, auth } = await startServer('sigint', 60_000);
    const warm = await fetch(`${server.base}/${CLIENT.projectKey}/resource/namespace-action-with-example`, { headers: auth });
    expect(warm.status).toBe(200);
    await warm.arrayBuffer(); // the connection stays open, idle, in fetch's pool

    server.child.kill('SIGINT');
    await exitedWithin(server, STEP_MS);
    expect(server.exitCode).toBe(0);
    expect(server.exitSignal).toBeNull();
    expect(server.output).toContain('SIGINT received');
    await expectDatabaseReleased(server);
  }, TIMEOUT_MS);

  it('a connection that has sent nothing does not hold the stop', async () => {
    const { server } = await startServer('silent', 60_000);
    // Node counts such a connection as a request being received: without its closing, the stop would wait for
    // HTTP_HEADERS_TIMEOUT_MS, then cut it at the bound and exit 1.
    const silent = connect(Number(new URL(server.base).port), '127.0.0.1');
    await once(silent, 'connect');
    const closed = once(silent, 'close');

    server.child.kill('SIGTERM');
    await exitedWithin(server, STEP_MS);
    expect(server.exitCode).toBe(0);
    await closed;
    expect(silent.bytesRead).toBe(0);
  }, TIMEOUT_MS);

  it('a request outliving SHUTDOWN_TIMEOUT_MS is cut and the process exits 1 shortly after the bound', async () => {
    const bound = 1_000;
    const { server, auth } = await startServer('bound', bound);
    const request = inFlight(server, auth);
    await backend.arrived(1);

    const signalled = Date.now();
    server.child.kill('SIGTERM');
    await exitedWithin(server, bound + STEP_MS);
    // The server's timer starts after the signal, so the wait can only be longer than the bound.
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(bound);
    expect(server.exitCode).toBe(1);
    expect(server.exitSignal).toBeNull();
    expect(server.output).toContain(`requests still running after ${bound} ms`);
    const answer = await request;
    expect(answer).toHaveProperty('failed');
    await expectDatabaseReleased(server);
    backend.release(null);
  }, TIMEOUT_MS);
});

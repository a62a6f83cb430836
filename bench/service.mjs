// Shared by the endpoint benchmarks: start the built service on a free port with a bootstrap client,
// wait until it is ready, and get a token for that client.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, fstatSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { SERVER_ENV } from '../scripts/server-env.mjs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

/** Whether the module at `moduleUrl` (its import.meta.url) is the script node was started with, not an import. */
export function isMainModule(moduleUrl) {
  return process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(moduleUrl);
}

/** Clock ticks per second of /proc's CPU times. */
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** `/proc/<pid>/stat`'s fields after the command name: [state, ppid, …]; undefined once the process is gone. */
export function procStat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** CPU time (user + system, ms) of a process; with `children`, also of its children it has waited for. */
export function cpuMs(pid, children = false) {
  const f = procStat(pid);
  if (!f) return undefined;
  // Fields 14-17 of stat (utime, stime, cutime, cstime) are 11-14 here.
  const ticks = Number(f[11]) + Number(f[12]) + (children ? Number(f[13]) + Number(f[14]) : 0);
  return (ticks * 1000) / CLOCK_TICKS;
}

/**
 * The CPU times of a process and of its children (a PostgreSQL postmaster: the whole server), for
 * `cpuMsBetween`. Undefined once the process is gone.
 */
export function cpuSnapshot(pid) {
  const own = cpuMs(pid, true);
  if (own === undefined) return undefined;
  const children = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const f = procStat(entry);
    if (f && Number(f[1]) === Number(pid)) children.set(entry, cpuMs(entry) ?? 0);
  }
  return { own, children };
}

/**
 * CPU time (ms) a process and its children spent between two snapshots. A child that exits is added to its
 * parent's time whole when it is reaped, so one that ran before the first snapshot and exited before the
 * second (an idle pool connection closed, say) counts only for what it spent after the first.
 */
export function cpuMsBetween(before, after) {
  let total = after.own - before.own;
  for (const [pid, ms] of after.children) total += ms - (before.children.get(pid) ?? 0);
  for (const [pid, ms] of before.children) if (!after.children.has(pid)) total -= ms;
  return total;
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * A file in place of a pipe for a child's stdout and stderr. The service's request lines (one per request at
 * its default LOG_LEVEL) must not be read by the bench process while it measures: autocannon shares that
 * process's event loop, and reading 3,000 lines/s there cut the GET rate it measured by 15–25 %. A server's
 * lines go to a file or a log collector in production, not to its clients. `tail()` is the file's last
 * 8,000 bytes (for diagnostics); `remove()` deletes it.
 */
export function outputFile(prefix) {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const fd = openSync(join(dir, 'output.log'), 'w+');
  return {
    fd,
    tail() {
      const size = fstatSync(fd).size;
      const buffer = Buffer.alloc(Math.min(size, 8000));
      readSync(fd, buffer, 0, buffer.length, size - buffer.length);
      return buffer.toString('utf8');
    },
    remove() {
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * `node <dist>/src/main.js` on PostgreSQL (`databaseUrl`), with the rate limit off and a bootstrap
 * client `client` ({projectKey, id, secret, scopes}); `env` adds variables. Resolves when
 * /health/ready answers 200, with the child and its base URL.
 */
export async function startService({ dist, databaseUrl, client, env = {} }) {
  const port = await freePort();
  const output = outputFile('bench-service');
  // SERVICE_NODE_FLAGS: flags for the server's node, e.g. `--perf-basic-prof` or `--cpu-prof --cpu-prof-dir=/tmp/prof`.
  const flags = (process.env.SERVICE_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...flags, join(dist, 'src/main.js')], {
    cwd: ROOT,
    stdio: ['ignore', output.fd, output.fd],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...SERVER_ENV,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'warn',
      BOOTSTRAP_PROJECT_KEY: client.projectKey,
      BOOTSTRAP_CLIENT_ID: client.id,
      BOOTSTRAP_CLIENT_SECRET: client.secret,
      BOOTSTRAP_SCOPES: client.scopes,
      ...env,
    },
  });
  // A bench that dies on an uncaught error must not leave its server running (and polling the database).
  process.once('exit', () => {
    child.kill('SIGKILL');
    output.remove();
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`service exited:\n${output.tail()}`);
    try {
      if ((await fetch(`${url}/health/ready`)).ok) return { child, url };
    } catch {}
    await sleep(200);
  }
  child.kill('SIGKILL');
  throw new Error(`service not ready:\n${output.tail()}`);
}

/** SIGTERM to a service of startService (none: nothing), SIGKILL if it has not exited within 10 s. */
export async function stopService(service) {
  if (!service || service.child.exitCode !== null || service.child.signalCode !== null) return;
  service.child.kill('SIGTERM');
  await Promise.race([new Promise((r) => service.child.once('exit', r)), sleep(10_000, undefined, { ref: false })]);
  if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
}

/** A token of the client credentials grant. */
export async function fetchToken(url, { id, secret }) {
  const res = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
  return (await res.json()).access_token;
}

/** The number ≥ 0 that the environment variable `name` holds, `fallback` when it is unset. */
export function envNumber(name, fallback) {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name}: expected a number ≥ 0, got '${process.env[name]}'`);
  return value;
}

/**
 * The database a bench runs on: DATABASE_URL when set, else a fresh one named `<prefix>_<time>` on
 * BENCH_PG_ADMIN_URL (default the local PostgreSQL); `drop()` removes a database made here (and nothing else).
 */
export async function benchDatabase(prefix, log = (text) => process.stderr.write(`${text}\n`)) {
  const adminUrl = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = async (sql) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, drop: async () => {} };
  const name = `${prefix}_${Date.now()}`;
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch((error) => log(`could not drop ${name}: ${error.message}`)) };
}

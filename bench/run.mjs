// `npm run bench`: the service against a plain node:http + pg baseline that runs the same SQL.
// See bench/README.md for what is measured and how to read the figures.
//
// Env knobs: BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default 3), BENCH_CONNECTIONS (default 50),
// BENCH_SCENARIOS (comma list of get,create,update; default all), BENCH_MODES (comma list of
// postgres,embedded; default both), BENCH_FSYNC (off|on, default off: the throwaway cluster's durability),
// DATABASE_URL (use this PostgreSQL instead of a throwaway one), BENCH_FLOORS=1 (GET against bare Fastify and Nest
// routes too: bench/framework-floor.mjs).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import pg from 'pg';
import { CREATE_BODY, OTHER_PROJECT, OTP_JSON, PROJECT, SEED_COUNT, seed } from './payloads.mjs';
import { SERVER_ENV } from '../scripts/server-env.mjs';
import { cpuMs, cpuMsBetween, cpuSnapshot, isMainModule, outputFile } from './service.mjs';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(BENCH_DIR);
const PG_BIN = '/usr/lib/postgresql/15/bin';

const DURATION = positiveNumber('BENCH_DURATION', 10);
const WARMUP = positiveNumber('BENCH_WARMUP', 3, true);
const CONNECTIONS = positiveNumber('BENCH_CONNECTIONS', 50);
const SCENARIOS = listEnv('BENCH_SCENARIOS', ['get', 'create', 'update']);
const MODES = listEnv('BENCH_MODES', ['postgres', 'embedded']);
const EMBEDDED_SEED = listEnv('BENCH_EMBEDDED_SEED', ['sql', 'http'])[0];
// on: the throwaway cluster commits durably (fsync, synchronous_commit), as a production server does.
const FSYNC = listEnv('BENCH_FSYNC', ['off', 'on'])[0];
/** Scenarios also measured against the plain baseline (the resource row alone, no search rows). */
const PLAIN_SCENARIOS = new Set(['create', 'update']);
/** The database of the plain baseline, beside the service's in the throwaway cluster. */
const PLAIN_DATABASE = 'bench_plain';
// The service's observability as measured: by default its default LOG_LEVEL=log (one JSON line per
// request; BENCH_LOG_LEVEL=warn drops them); with BENCH_METRICS=1 the service also counts every request
// for /metrics (METRICS_TOKEN set).
const SERVICE_LOG_LEVEL = listEnv('BENCH_LOG_LEVEL', ['log', 'warn'])[0];
const SERVICE_METRICS = process.env.BENCH_METRICS === '1';
// BENCH_SERVICE_ENV: more of the service's settings, as `NAME=value` separated by spaces (to measure what one
// costs, e.g. `DATABASE_PROJECT_CONCURRENCY=10`); printed with the results.
const SERVICE_EXTRA_ENV = Object.fromEntries(
  (process.env.BENCH_SERVICE_ENV ?? '').split(' ').filter(Boolean).map((pair) => {
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`BENCH_SERVICE_ENV: expected NAME=value, got ${pair}`);
    return [pair.slice(0, at), pair.slice(at + 1)];
  }),
);
// BENCH_FLOORS=1: GET by id also against bare Fastify and bare Nest routes running the same SQL
// (bench/framework-floor.mjs): what the frameworks alone keep of the baseline's rate.
const FLOORS = process.env.BENCH_FLOORS === '1' ? ['fastify', 'nest'] : [];
const SEED_CONCURRENCY = 20;
const POOL_SIZE = 10;

const CLIENT_ID = 'bench-client';
const CLIENT_SECRET = 'bench-secret-0123456789';

// The targets with class-validator DTOs and Passport on every request.
const TARGETS = {
  get: { min: 0.75 },
  create: { min: 0.55 },
  update: { min: 0.65 },
  // Against the plain baseline: the same SQL on a database without the search trigger.
  createPlain: { min: 0.5 },
  updatePlain: { min: 0.5 },
  // The service's peak RSS under load; embedded, PGlite runs in the server process.
  rssMb: { postgres: 250, embedded: 350 },
  embeddedReadyMs: { max: 2000 },
};

const SCENARIO_TITLES = {
  get: 'GET /{projectKey}/resource/{id} (random seeded id)',
  create: 'POST /{projectKey}/resource (~1 KB draft)',
  update: 'POST /{projectKey}/resource/{id} (changeSomeProperty, round-robin over 10,000 ids)',
};

export function positiveNumber(name, fallback, zeroOk = false) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (!zeroOk && value === 0)) throw new Error(`${name}: a positive number, got '${raw}'`);
  return value;
}

function listEnv(name, allowed) {
  const raw = process.env[name];
  if (!raw) return allowed;
  const values = raw.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = values.filter((v) => !allowed.includes(v));
  if (unknown.length) throw new Error(`${name}: unknown ${unknown.join(', ')} (known: ${allowed.join(', ')})`);
  return allowed.filter((v) => values.includes(v));
}

// ---------------------------------------------------------------------------------------------
// Cleanup: every child and temp dir is registered here, and removed on any exit path.
// ---------------------------------------------------------------------------------------------
const cleanup = { children: new Set(), postgres: undefined, dirs: [], outputs: [] };
let cleanedUp = false;

function cleanupSync() {
  if (cleanedUp) return;
  cleanedUp = true;
  for (const child of cleanup.children) {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.kill('SIGKILL');
      } catch {}
    }
  }
  if (cleanup.postgres) stopPostgresSync(cleanup.postgres, 'immediate');
  for (const dir of cleanup.dirs) rmSync(dir, { recursive: true, force: true });
  for (const output of cleanup.outputs.splice(0)) output.remove();
}

// Imported (bench/scale.mjs reuses the load helpers), this file neither runs nor takes the signals.
const isMain = isMainModule(import.meta.url);
if (isMain) {
  process.on('exit', cleanupSync);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      process.stderr.write(`\nbench: ${signal}, cleaning up\n`);
      cleanupSync();
      process.exit(130);
    });
  }
}

function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanup.dirs.push(dir);
  return dir;
}

function log(message) {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

// ---------------------------------------------------------------------------------------------
// Processes
// ---------------------------------------------------------------------------------------------
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Spawns a node process with its output in a file (see outputFile), whose tail `child.output()` reads for diagnostics. */
function spawnNode(name, args, env) {
  const output = outputFile(`bench-${name}`);
  cleanup.outputs.push(output);
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', output.fd, output.fd] });
  cleanup.children.add(child);
  child.output = () => output.tail();
  child.name = name;
  child.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  child.exited.then(({ code, signal }) => {
    cleanup.children.delete(child);
    if (!child.stopping) log(`${name} (pid ${child.pid}) exited unexpectedly: code ${code}, signal ${signal}\n${child.output()}`);
  });
  return child;
}

async function stopChild(child, timeoutMs = 10_000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.stopping = true;
  child.kill('SIGTERM');
  const done = await Promise.race([child.exited, sleep(timeoutMs).then(() => undefined)]);
  if (!done) {
    log(`${child.name} did not stop within ${timeoutMs} ms: SIGKILL`);
    child.kill('SIGKILL');
    await child.exited;
  }
}

/** Polls `url` until it answers 200; returns the ms since `since`. */
async function waitReady(url, child, since, timeoutMs = 90_000) {
  const deadline = since + timeoutMs;
  while (performance.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${child.name} exited before ready:\n${child.output()}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.status === 200) return performance.now() - since;
    } catch {}
    await sleep(20);
  }
  throw new Error(`${child.name} not ready within ${timeoutMs} ms:\n${child.output()}`);
}

function serviceEnv(port, database) {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...SERVER_ENV,
    PORT: String(port),
    HOST: '127.0.0.1',
    ...database,
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: SERVICE_LOG_LEVEL,
    ...(SERVICE_METRICS ? { METRICS_TOKEN: 'bench-metrics-token-0123456789' } : {}),
    ...SERVICE_EXTRA_ENV,
    BOOTSTRAP_PROJECT_KEY: PROJECT,
    BOOTSTRAP_CLIENT_ID: CLIENT_ID,
    BOOTSTRAP_CLIENT_SECRET: CLIENT_SECRET,
    BOOTSTRAP_SCOPES: `manage_test:${PROJECT} view_test:${PROJECT}`,
  };
}

async function startService(database) {
  const port = await freePort();
  const since = performance.now();
  // SERVICE_NODE_FLAGS: flags for the service's node, as bench/service.mjs takes them (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
  const flags = (process.env.SERVICE_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawnNode('service', [...flags, 'dist/src/main.js'], serviceEnv(port, database));
  const readyMs = await waitReady(`http://127.0.0.1:${port}/health/ready`, child, since);
  return { name: 'service', child, port, url: `http://127.0.0.1:${port}`, readyMs };
}

async function startBaseline(databaseUrl, name = 'baseline', script = 'bench/baseline-server.mjs', env = {}) {
  const port = await freePort();
  const since = performance.now();
  const child = spawnNode(name, [script], {
    PATH: process.env.PATH,
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    POOL_SIZE: String(POOL_SIZE),
    ...env,
  });
  const readyMs = await waitReady(`http://127.0.0.1:${port}/health/ready`, child, since);
  return { name, child, port, url: `http://127.0.0.1:${port}`, readyMs };
}

/** VACUUM of each database, then a CHECKPOINT (see runScenarios). */
async function settleDatabases(urls) {
  for (const url of urls) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('VACUUM');
    } finally {
      await client.end();
    }
  }
  const client = new pg.Client({ connectionString: urls[0] });
  await client.connect();
  try {
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
}

/**
 * The plain baseline's database: the service's migrations, then without the search trigger, so a
 * write stores the resource row and its own indexes alone (the limit a write of this row can reach).
 * Seeded like the service's.
 */
async function preparePlainDatabase(adminUrl) {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${PLAIN_DATABASE}`);
    await admin.query(`CREATE DATABASE ${PLAIN_DATABASE}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${PLAIN_DATABASE}`;
  execFileSync(process.execPath, ['dist/src/migrate-cli.js'], { cwd: ROOT, env: { PATH: process.env.PATH, DATABASE_URL: url.href }, stdio: 'ignore' });
  const client = new pg.Client({ connectionString: url.href });
  await client.connect();
  try {
    await client.query('DROP TRIGGER "resource_search_index" ON "resource"');
  } finally {
    await client.end();
  }
  const seeded = await seedBySql(url.href);
  return { url: url.href, data: { ids: seeded.ids, versions: seeded.versions, cursor: 0 } };
}

// ---------------------------------------------------------------------------------------------
// Throwaway PostgreSQL 15
// ---------------------------------------------------------------------------------------------
function asPostgres(bin, args, options = {}) {
  return execFileSync('runuser', ['-u', 'postgres', '--', join(PG_BIN, bin), ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...options });
}

function stopPostgresSync(pgInfo, mode) {
  spawnSync('runuser', ['-u', 'postgres', '--', join(PG_BIN, 'pg_ctl'), 'stop', '-D', pgInfo.dataDir, '-m', mode, '-w', '-t', '20'], { stdio: 'ignore' });
}

async function startPostgres() {
  for (const bin of ['initdb', 'pg_ctl', 'postgres']) {
    if (!existsSync(join(PG_BIN, bin))) throw new Error(`${join(PG_BIN, bin)} not found: install PostgreSQL 15 or set DATABASE_URL`);
  }
  const dir = tempDir('bench-pg-');
  const dataDir = join(dir, 'data');
  const socketDir = join(dir, 'socket');
  mkdirSync(socketDir);
  for (const d of [dir, socketDir]) chownSync(d, uidOf('postgres'), gidOf('postgres'));
  const started = performance.now();
  asPostgres('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-locale', '--no-sync']);
  const port = await freePort();
  const options = `-p ${port} -k ${socketDir} -h 127.0.0.1 -c fsync=${FSYNC} -c synchronous_commit=${FSYNC}`;
  cleanup.postgres = { dataDir };
  try {
    asPostgres('pg_ctl', ['start', '-D', dataDir, '-w', '-t', '60', '-l', join(dir, 'postgres.log'), '-o', options]);
  } catch (error) {
    const logText = existsSync(join(dir, 'postgres.log')) ? readFileSync(join(dir, 'postgres.log'), 'utf8') : '';
    throw new Error(`pg_ctl start failed: ${error.stderr ?? error.message}\n${logText}`);
  }
  log(`PostgreSQL 15 started on 127.0.0.1:${port} in ${Math.round(performance.now() - started)} ms (${options})`);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    options,
    async stop() {
      stopPostgresSync({ dataDir }, 'fast');
      cleanup.postgres = undefined;
    },
  };
}

function uidOf(user) {
  return Number(execFileSync('id', ['-u', user]).toString().trim());
}
function gidOf(user) {
  return Number(execFileSync('id', ['-g', user]).toString().trim());
}

// ---------------------------------------------------------------------------------------------
// Auth and seeding
// ---------------------------------------------------------------------------------------------
async function token(baseUrl, clientId, secret) {
  const res = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST /oauth/token for ${clientId}: ${res.status} ${text}`);
  return JSON.parse(text).access_token;
}

/** PostgreSQL mode: 10,000 + 10,000 rows by SQL; returns the bench ids with their versions. */
async function seedBySql(databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const started = performance.now();
    const rows = await seed(client);
    const settings = {};
    for (const name of ['server_version', 'fsync', 'synchronous_commit', 'full_page_writes', 'shared_buffers', 'max_connections']) {
      settings[name] = (await client.query(`SHOW ${name}`)).rows[0][name];
    }
    log(`seeded ${SEED_COUNT} + ${SEED_COUNT} resources by SQL in ${Math.round(performance.now() - started)} ms`);
    return { ids: rows.map((r) => r.id), versions: new Map(rows.map((r) => [r.id, r.version])), settings };
  } finally {
    await client.end();
  }
}

/** Embedded mode: POST /resource, bounded concurrency; returns the created ids. */
async function seedByHttp(baseUrl, project, bearer, count) {
  const ids = [];
  let next = 0;
  let failures = 0;
  const worker = async () => {
    while (next < count) {
      const i = ++next;
      const res = await fetch(`${baseUrl}/${project}/resource`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: `{"key":"k${i}","objectTypeProperty":${OTP_JSON}}`,
      });
      const text = await res.text();
      if (res.status !== 201) {
        if (++failures > 5) throw new Error(`seeding ${project}: POST /resource answered ${res.status} ${text.slice(0, 300)}`);
        continue;
      }
      ids.push(/"id"\s*:\s*"([^"]+)"/.exec(text)[1]);
    }
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
  return ids;
}

// ---------------------------------------------------------------------------------------------
// Load
// ---------------------------------------------------------------------------------------------
/** The autocannon request of a scenario; `data` holds the seeded ids and the client-side versions. */
function scenarioRequest(scenario, data) {
  data.inFlight ??= new Set();
  const json = { 'content-type': 'application/json' };
  if (scenario === 'get') {
    return {
      method: 'GET',
      setupRequest(req) {
        req.path = `/${PROJECT}/resource/${data.ids[Math.floor(Math.random() * data.ids.length)]}`;
        return req;
      },
    };
  }
  if (scenario === 'create') {
    return { method: 'POST', path: `/${PROJECT}/resource`, headers: json, body: CREATE_BODY };
  }
  if (scenario === 'update') {
    return {
      method: 'POST',
      headers: json,
      setupRequest(req, context) {
        const id = data.ids[data.cursor++ % data.ids.length];
        context.id = id;
        data.inFlight.add(id);
        req.path = `/${PROJECT}/resource/${id}`;
        req.body = `{"version":${data.versions.get(id) ?? 1},"actions":[{"action":"changeSomeProperty","someProperty":"value-${data.cursor}"}]}`;
        return req;
      },
      onResponse(status, body, context) {
        // Any 2xx carries the resource (the service may answer 201 here, see smoke test); a 409 the current version.
        const match = status >= 200 && status < 300 ? /"version"\s*:\s*(\d+)/.exec(body) : status === 409 ? /"currentVersion"\s*:\s*(\d+)/.exec(body) : null;
        if (match) data.versions.set(context.id, Number(match[1]));
        data.inFlight.delete(context.id);
      },
    };
  }
  throw new Error(`unknown scenario ${scenario}`);
}

function rssMb(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The throwaway PostgreSQL's CPU times (`cpuSnapshot` of its postmaster); undefined without the throwaway cluster. */
function postgresCpu() {
  const dataDir = cleanup.postgres?.dataDir;
  if (!dataDir) return undefined;
  try {
    return cpuSnapshot(Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]));
  } catch {
    return undefined;
  }
}

/** One autocannon run; `onLatency(ms)`, when given, hears every response's latency (autocannon's summary has no p95). */
export async function cannon(server, scenario, data, bearer, duration, connections = CONNECTIONS, onLatency = undefined) {
  data.inFlight ??= new Set();
  const run = autocannon({
    url: server.url,
    connections,
    pipelining: 1,
    duration,
    timeout: 10,
    headers: { authorization: `Bearer ${bearer}` },
    requests: [scenarioRequest(scenario, data)],
  });
  if (onLatency) run.on('response', (_client, _status, _bytes, ms) => onLatency(ms));
  const result = await run;
  if (scenario === 'update') await resyncVersions(server, data, bearer);
  return result;
}

/**
 * Autocannon drops the requests in flight when its time is up; the server may still apply them, so
 * their versions are read back before the next run (else each would cost one 409 later).
 */
async function resyncVersions(server, data, bearer) {
  if (data.inFlight.size === 0) return;
  await sleep(500);
  const ids = [...data.inFlight];
  data.inFlight.clear();
  await Promise.all(
    ids.map(async (id) => {
      const res = await fetch(`${server.url}/${PROJECT}/resource/${id}`, { headers: { authorization: `Bearer ${bearer}` } });
      const match = /"version"\s*:\s*(\d+)/.exec(await res.text());
      if (res.status === 200 && match) data.versions.set(id, Number(match[1]));
    }),
  );
}

/** One measured run: warm-up, then the measured window with RSS sampled every 500 ms. */
async function measure(server, scenario, data, bearer) {
  if (WARMUP > 0) await cannon(server, scenario, data, bearer, WARMUP);
  let maxRss = rssMb(server.child.pid) ?? 0;
  const sampler = setInterval(() => {
    maxRss = Math.max(maxRss, rssMb(server.child.pid) ?? 0);
  }, 500);
  const serverCpu = cpuMs(server.child.pid);
  const databaseCpu = postgresCpu();
  let result;
  try {
    result = await cannon(server, scenario, data, bearer, DURATION);
  } finally {
    clearInterval(sampler);
  }
  const perRequest = (ms) => (ms === undefined || result.requests.total === 0 ? undefined : round((ms * 1000) / result.requests.total, 0));
  const serverCpuAfter = cpuMs(server.child.pid);
  const databaseCpuAfter = postgresCpu();
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count]));
  const run = {
    reqPerSec: result.requests.average,
    totalRequests: result.requests.total,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    meanMs: result.latency.average,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodes,
    maxRssMb: round(maxRss, 1),
    // CPU time per request in the measured window (the load generator, in this process, is not counted).
    serverCpuUs: perRequest(serverCpu === undefined || serverCpuAfter === undefined ? undefined : serverCpuAfter - serverCpu),
    databaseCpuUs: perRequest(databaseCpu && databaseCpuAfter ? cpuMsBetween(databaseCpu, databaseCpuAfter) : undefined),
  };
  log(
    `  ${scenario.padEnd(6)} ${server.name.padEnd(8)} ${fmt(run.reqPerSec).padStart(8)} req/s  p50 ${run.p50Ms} ms  p99 ${run.p99Ms} ms  ` +
      `errors ${run.errors}  non-2xx ${run.non2xx}  RSS ${run.maxRssMb} MB  CPU/req ${run.serverCpuUs ?? '-'} µs + PostgreSQL ${run.databaseCpuUs ?? '-'} µs  ` +
      JSON.stringify(statusCodes),
  );
  if (run.non2xx > 0 || run.errors > 0) {
    run.sample = await sampleFailure(server, scenario, data, bearer).catch((error) => ({ error: String(error) }));
    log(`    a ${scenario} request to ${server.name} after the run: ${JSON.stringify(run.sample)}`);
  }
  return run;
}

/** After a run with failures: one more request of the scenario, to show a status and body. */
async function sampleFailure(server, scenario, data, bearer) {
  const request = scenarioRequest(scenario, { ...data, inFlight: new Set() });
  const req = { method: request.method, path: request.path, headers: request.headers ?? {}, body: request.body };
  request.setupRequest?.(req, {});
  const res = await fetch(server.url + req.path, { method: req.method, headers: { ...req.headers, authorization: `Bearer ${bearer}` }, body: req.body });
  const body = await res.text();
  return { request: `${req.method} ${req.path}`, status: res.status, body: body.slice(0, 500) };
}

/** Per scenario: the servers alternate, A B A B (or A A with one server). */
/**
 * `settle`, when given, runs before each measured run, outside its window: on the throwaway PostgreSQL it
 * vacuums the databases and checkpoints, so that no run pays for the dead rows, pending index entries and
 * dirty pages of the run before it (a server that writes faster leaves more of them to the next).
 */
async function runScenarios(servers, data, bearer, rounds = 2, settle = async () => {}) {
  const results = {};
  for (const scenario of SCENARIOS) {
    const loaded = servers.filter((s) => !s.scenarios || s.scenarios.has(scenario));
    results[scenario] = Object.fromEntries(loaded.map((s) => [s.name, { runs: [] }]));
    for (let round = 0; round < rounds; round++) {
      for (const server of loaded) {
        await settle();
        results[scenario][server.name].runs.push(await measure(server, scenario, server.data ?? data, bearer));
      }
    }
    for (const server of loaded) summarize(results[scenario][server.name]);
  }
  return results;
}

function summarize(entry) {
  const mean = (f) => entry.runs.reduce((sum, r) => sum + f(r), 0) / entry.runs.length;
  entry.reqPerSec = round(mean((r) => r.reqPerSec), 1);
  entry.p50Ms = round(mean((r) => r.p50Ms), 2);
  entry.p99Ms = round(mean((r) => r.p99Ms), 2);
  entry.errors = entry.runs.reduce((sum, r) => sum + r.errors, 0);
  entry.non2xx = entry.runs.reduce((sum, r) => sum + r.non2xx, 0);
  entry.maxRssMb = Math.max(...entry.runs.map((r) => r.maxRssMb));
  const cpu = (field) => (entry.runs.every((r) => r[field] !== undefined) ? round(mean((r) => r[field]), 0) : undefined);
  entry.serverCpuUs = cpu('serverCpuUs');
  entry.databaseCpuUs = cpu('databaseCpuUs');
}

/** A quick check that each server answers each scenario as expected before loading it; returns the deviations. */
async function smokeTest(server, data, bearer, scenarios = SCENARIOS) {
  const expected = { get: 200, create: 201, update: 200 };
  const deviations = [];
  for (const scenario of scenarios) {
    const request = scenarioRequest(scenario, data);
    const req = { method: request.method, path: request.path, headers: request.headers ?? {}, body: request.body };
    const context = {};
    request.setupRequest?.(req, context);
    const res = await fetch(server.url + req.path, { method: req.method, headers: { ...req.headers, authorization: `Bearer ${bearer}` }, body: req.body });
    const body = await res.text();
    request.onResponse?.(res.status, body, context);
    if (res.status !== expected[scenario]) {
      deviations.push({ server: server.name, scenario, request: `${req.method} ${req.path}`, expected: expected[scenario], status: res.status, body: body.slice(0, 300) });
      log(`WARNING ${server.name} ${scenario}: ${req.method} ${req.path} answered ${res.status}, expected ${expected[scenario]}: ${body.slice(0, 200)}…`);
    }
  }
  return deviations;
}

// ---------------------------------------------------------------------------------------------
// Modes
// ---------------------------------------------------------------------------------------------
async function postgresMode() {
  const external = process.env.DATABASE_URL;
  let postgres;
  const result = { database: external ? 'DATABASE_URL (external)' : 'throwaway PostgreSQL 15' };
  let service;
  let baseline;
  let plain;
  const floors = [];
  try {
    if (external) {
      log('PostgreSQL mode on DATABASE_URL');
    } else {
      postgres = await startPostgres();
      result.serverOptions = postgres.options;
    }
    const databaseUrl = external ?? postgres.url;
    service = await startService({ DATABASE_URL: databaseUrl });
    result.serviceReadyMs = round(service.readyMs, 0);
    log(`service ready in ${result.serviceReadyMs} ms (pid ${service.child.pid}, migrations applied)`);
    const seeded = await seedBySql(databaseUrl);
    result.settings = seeded.settings;
    log(`PostgreSQL settings: ${JSON.stringify(seeded.settings)}`);
    baseline = await startBaseline(databaseUrl);
    log(`baseline ready in ${Math.round(baseline.readyMs)} ms (pid ${baseline.child.pid})`);
    if (!external && SCENARIOS.some((s) => PLAIN_SCENARIOS.has(s))) {
      const plainDb = await preparePlainDatabase(databaseUrl);
      plain = { ...(await startBaseline(plainDb.url, 'plain')), scenarios: PLAIN_SCENARIOS, data: plainDb.data, databaseUrl: plainDb.url };
      log(`plain baseline ready (database ${PLAIN_DATABASE}, no search trigger, pid ${plain.child.pid})`);
    }
    if (SCENARIOS.includes('get')) {
      for (const floor of FLOORS) {
        floors.push({ ...(await startBaseline(databaseUrl, floor, 'bench/framework-floor.mjs', { FLOOR: floor })), scenarios: new Set(['get']) });
        log(`${floor} floor ready (pid ${floors.at(-1).child.pid})`);
      }
    }
    const bearer = await token(service.url, CLIENT_ID, CLIENT_SECRET);
    const data = { ids: seeded.ids, versions: seeded.versions, cursor: 0 };
    result.smokeDeviations = [];
    for (const server of [service, baseline, ...floors]) {
      const scenarios = server.scenarios ? SCENARIOS.filter((s) => server.scenarios.has(s)) : SCENARIOS;
      result.smokeDeviations.push(...(await smokeTest(server, data, bearer, scenarios)));
    }
    const settle = external ? undefined : () => settleDatabases([databaseUrl, ...(plain ? [plain.databaseUrl] : [])]);
    result.scenarios = await runScenarios([service, baseline, ...(plain ? [plain] : []), ...floors], data, bearer, 2, settle);
    for (const [scenario, entry] of Object.entries(result.scenarios)) {
      entry.ratio = round(entry.service.reqPerSec / entry.baseline.reqPerSec, 3);
      for (const floor of FLOORS) if (entry[floor]) entry[floor].ratio = round(entry[floor].reqPerSec / entry.baseline.reqPerSec, 3);
      entry.target = TARGETS[scenario].min;
      entry.pass = entry.ratio >= TARGETS[scenario].min;
      if (entry.plain) {
        entry.plainRatio = round(entry.service.reqPerSec / entry.plain.reqPerSec, 3);
        entry.plainTarget = TARGETS[`${scenario}Plain`].min;
        entry.plainPass = entry.plainRatio >= entry.plainTarget;
      }
    }
  } finally {
    await stopChild(service?.child);
    await stopChild(baseline?.child);
    await stopChild(plain?.child);
    for (const floor of floors) await stopChild(floor.child);
    await postgres?.stop();
  }
  return result;
}

async function embeddedMode() {
  const result = { database: 'embedded PGlite (DATA_DIR)', seededBy: EMBEDDED_SEED };
  const dataDir = join(tempDir('bench-embedded-'), 'data');
  const childEnv = { PATH: process.env.PATH, HOME: process.env.HOME, ...SERVER_ENV, DATA_DIR: dataDir };
  let service;
  try {
    let started = performance.now();
    let data;
    let other;
    if (EMBEDDED_SEED === 'sql') {
      // The same SQL as in PostgreSQL mode, through the service's own opener (migrations included),
      // in a child process while no server holds the directory: seconds instead of ~100 s over HTTP.
      const seeded = spawnSync(process.execPath, ['bench/seed-embedded.mjs', dataDir], { cwd: ROOT, env: childEnv, encoding: 'utf8', timeout: 180_000, maxBuffer: 64 << 20 });
      if (seeded.status !== 0) throw new Error(`bench/seed-embedded.mjs: ${seeded.status} ${seeded.stderr}`);
      const { rows } = JSON.parse(seeded.stdout.trim().split('\n').pop());
      data = { ids: rows.map((r) => r.id), versions: new Map(rows.map((r) => [r.id, r.version])), cursor: 0 };
      result.seedSeconds = round((performance.now() - started) / 1000, 1);
      log(`embedded data directory created and seeded with ${SEED_COUNT} + ${SEED_COUNT} resources by SQL in ${result.seedSeconds} s`);
    } else {
      // bench-other needs a client of its own; the CLI creates it while no server holds the directory.
      const cli = spawnSync(
        process.execPath,
        ['dist/src/cli.js', 'client', 'create', '--project', OTHER_PROJECT, '--name', 'bench-other', '--scope', `manage_test:${OTHER_PROJECT}`],
        { cwd: ROOT, env: childEnv, encoding: 'utf8', timeout: 120_000 },
      );
      if (cli.status !== 0) throw new Error(`cli client create: ${cli.status} ${cli.stderr}`);
      other = JSON.parse(cli.stdout.trim().split('\n').pop());
      log(`embedded data directory created (migrations, bench-other client) in ${Math.round(performance.now() - started)} ms`);
    }

    service = await startService({ DATA_DIR: dataDir });
    result.serviceReadyMsFirstStart = round(service.readyMs, 0);
    log(`service (embedded) ready in ${result.serviceReadyMsFirstStart} ms (pid ${service.child.pid})`);
    const bearer = await token(service.url, CLIENT_ID, CLIENT_SECRET);
    if (EMBEDDED_SEED === 'http') {
      const otherBearer = await token(service.url, other.id, other.secret);
      started = performance.now();
      const ids = await seedByHttp(service.url, PROJECT, bearer, SEED_COUNT);
      await seedByHttp(service.url, OTHER_PROJECT, otherBearer, SEED_COUNT);
      result.seedSeconds = round((performance.now() - started) / 1000, 1);
      result.seedReqPerSec = round((2 * SEED_COUNT) / result.seedSeconds, 0);
      log(`seeded ${ids.length} + ${SEED_COUNT} resources over HTTP in ${result.seedSeconds} s (${result.seedReqPerSec} req/s, concurrency ${SEED_CONCURRENCY})`);
      data = { ids, versions: new Map(ids.map((id) => [id, 1])), cursor: 0 };
    }
    result.smokeDeviations = await smokeTest(service, data, bearer);
    result.scenarios = await runScenarios([service], data, bearer);

    // Time to ready on the existing, seeded (and loaded) data directory.
    await stopChild(service.child, 20_000);
    service = undefined;
    service = await startService({ DATA_DIR: dataDir });
    result.readyMsExistingDir = round(service.readyMs, 0);
    log(`service (embedded) ready on the existing data directory in ${result.readyMsExistingDir} ms`);
    result.readyPass = result.readyMsExistingDir < TARGETS.embeddedReadyMs.max;
  } finally {
    await stopChild(service?.child, 20_000);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------
export function round(value, digits) {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

function fmt(value) {
  return value >= 100 ? String(Math.round(value)) : String(round(value, 1));
}

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  const line = (r) => r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  return [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

function report(results) {
  const out = [];
  const header = ['scenario', 'server', 'req/s (runs)', 'p50 ms', 'p99 ms', 'errors', 'non-2xx', 'RSS MB', 'CPU µs/req', 'ratio', 'target'];
  const rows = [header];
  const pgScen = results.postgres?.scenarios ?? {};
  const embScen = results.embedded?.scenarios ?? {};
  const cell = (e) => `${fmt(e.reqPerSec)} (${e.runs.map((r) => fmt(r.reqPerSec)).join(', ')})`;
  const cpu = (e) => (e.serverCpuUs === undefined ? '' : e.databaseCpuUs === undefined ? `${e.serverCpuUs}` : `${e.serverCpuUs} + ${e.databaseCpuUs}`);
  for (const scenario of SCENARIOS) {
    const p = pgScen[scenario];
    if (p) {
      rows.push([scenario, 'service/pg', cell(p.service), p.service.p50Ms, p.service.p99Ms, p.service.errors, p.service.non2xx, p.service.maxRssMb, cpu(p.service), p.ratio.toFixed(2), `>= ${p.target} ${p.pass ? 'PASS' : 'FAIL'}`]);
      rows.push(['', 'baseline/pg', cell(p.baseline), p.baseline.p50Ms, p.baseline.p99Ms, p.baseline.errors, p.baseline.non2xx, p.baseline.maxRssMb, cpu(p.baseline), '', '']);
      if (p.plain) {
        rows.push(['', 'plain/pg', cell(p.plain), p.plain.p50Ms, p.plain.p99Ms, p.plain.errors, p.plain.non2xx, p.plain.maxRssMb, cpu(p.plain), p.plainRatio.toFixed(2), `>= ${p.plainTarget} ${p.plainPass ? 'PASS' : 'FAIL'}`]);
      }
      for (const floor of FLOORS.filter((f) => p[f])) {
        const f = p[floor];
        rows.push(['', `${floor} floor/pg`, cell(f), f.p50Ms, f.p99Ms, f.errors, f.non2xx, f.maxRssMb, cpu(f), f.ratio.toFixed(2), '']);
      }
    }
    const e = embScen[scenario];
    if (e) {
      const vsBaseline = p ? (e.service.reqPerSec / p.baseline.reqPerSec).toFixed(2) : '';
      rows.push([p ? '' : scenario, 'service/embedded', cell(e.service), e.service.p50Ms, e.service.p99Ms, e.service.errors, e.service.non2xx, e.service.maxRssMb, cpu(e.service), vsBaseline ? `(${vsBaseline})` : '', '']);
    }
  }
  out.push(table(rows));
  out.push('');
  out.push('ratio = service req/s / baseline req/s on the same PostgreSQL (mean of the runs); on the plain/pg line, service req/s / plain req/s');
  out.push('(the same SQL without the search trigger: the resource row alone); (embedded) = embedded service / PostgreSQL baseline, for information.');
  if (FLOORS.length) out.push('floor/pg lines (BENCH_FLOORS=1): a bare Fastify or Nest route running the same SQL, its req/s / baseline req/s; no target.');
  out.push('CPU µs/req = CPU time (user + system, from /proc) of the server process + of the throwaway PostgreSQL in the measured');
  out.push('windows, per request answered (mean of the runs); the load generator is not counted. Steadier than req/s on a noisy machine.');
  out.push('');
  const targets = [['target', 'value', 'limit', 'result']];
  for (const s of SCENARIOS) {
    if (pgScen[s]) targets.push([`${s} ratio`, pgScen[s].ratio.toFixed(2), `>= ${TARGETS[s].min}`, pgScen[s].pass ? 'PASS' : 'FAIL']);
    if (pgScen[s]?.plain) targets.push([`${s} ratio to plain`, pgScen[s].plainRatio.toFixed(2), `>= ${pgScen[s].plainTarget}`, pgScen[s].plainPass ? 'PASS' : 'FAIL']);
  }
  for (const [mode, scen] of [['postgres', pgScen], ['embedded', embScen]]) {
    const rss = Math.max(0, ...Object.values(scen).map((e) => e.service.maxRssMb));
    if (!Object.keys(scen).length) continue;
    const label = mode === 'postgres' ? `service RSS (${mode})` : `service RSS (${mode}, incl. PGlite)`;
    targets.push([label, `${rss} MB`, `< ${TARGETS.rssMb[mode]} MB`, rss < TARGETS.rssMb[mode] ? 'PASS' : 'FAIL']);
  }
  if (results.embedded?.readyMsExistingDir !== undefined) {
    targets.push(['embedded ready, existing dir', `${results.embedded.readyMsExistingDir} ms`, `< ${TARGETS.embeddedReadyMs.max} ms`, results.embedded.readyPass ? 'PASS' : 'FAIL']);
  }
  out.push(table(targets));
  out.push('');
  const settings = results.postgres?.settings;
  if (settings) out.push(`PostgreSQL ${settings.server_version}: fsync=${settings.fsync}, synchronous_commit=${settings.synchronous_commit}, full_page_writes=${settings.full_page_writes}, shared_buffers=${settings.shared_buffers} (${results.postgres.database})`);
  if (results.embedded) out.push(`embedded: seeded by ${results.embedded.seededBy} in ${results.embedded.seedSeconds} s; ready ${results.embedded.serviceReadyMsFirstStart} ms (first start after seeding), ${results.embedded.readyMsExistingDir} ms (restart on the loaded dir)`);
  const deviations = [...(results.postgres?.smokeDeviations ?? []), ...(results.embedded?.smokeDeviations ?? [])];
  for (const d of deviations) out.push(`note: ${d.server} ${d.scenario} answered ${d.status} (expected ${d.expected}): ${d.request}`);
  out.push(`load average at start ${loadAtStart.map((l) => l.toFixed(1)).join(' ')}, at end ${loadavg().map((l) => l.toFixed(1)).join(' ')} (${cpus().length} CPUs: other work on the machine skews absolute figures; compare ratios within one run)`);
  out.push(`node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model}), ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s per run`);
  out.push(`service LOG_LEVEL=${SERVICE_LOG_LEVEL}, metrics ${SERVICE_METRICS ? 'on (METRICS_TOKEN set)' : 'off'}${process.env.BENCH_SERVICE_ENV ? `, ${process.env.BENCH_SERVICE_ENV}` : ''}`);
  return out.join('\n');
}

function targetsSummary(results) {
  const t = {};
  for (const s of SCENARIOS) {
    const e = results.postgres?.scenarios?.[s];
    if (e) t[`${s}Ratio`] = { value: e.ratio, min: TARGETS[s].min, pass: e.pass };
    if (e?.plain) t[`${s}PlainRatio`] = { value: e.plainRatio, min: e.plainTarget, pass: e.plainPass };
  }
  for (const mode of ['postgres', 'embedded']) {
    const scen = results[mode]?.scenarios;
    if (scen && Object.keys(scen).length) {
      const rss = Math.max(...Object.values(scen).map((e) => e.service.maxRssMb));
      t[`rssMb_${mode}`] = { value: rss, max: TARGETS.rssMb[mode], pass: rss < TARGETS.rssMb[mode] };
    }
  }
  if (results.embedded?.readyMsExistingDir !== undefined) {
    t.embeddedReadyMs = { value: results.embedded.readyMsExistingDir, max: TARGETS.embeddedReadyMs.max, pass: results.embedded.readyPass };
  }
  return t;
}

let loadAtStart = loadavg();

async function main() {
  if (!existsSync(join(ROOT, 'dist/src/main.js'))) throw new Error('dist/src/main.js missing: run `npm run build` first (or `npm run bench`).');
  const startedAt = new Date();
  loadAtStart = loadavg();
  log(`node ${process.version}, ${cpus().length} CPUs; scenarios ${SCENARIOS.join(',')}; modes ${MODES.join(',')}; ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s`);
  const results = {};
  if (MODES.includes('postgres')) results.postgres = await postgresMode();
  if (MODES.includes('embedded')) results.embedded = await embeddedMode();
  const text = report(results);
  process.stdout.write(`\n${text}\n`);
  const stamp = startedAt.toISOString().replace('T', '-').replace(/:/g, '').slice(0, 17);
  const file = join(BENCH_DIR, 'results', `${stamp}.json`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        startedAt: startedAt.toISOString(),
        elapsedSeconds: round((Date.now() - startedAt.getTime()) / 1000, 1),
        machine: { node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model, totalMemMb: Math.round(totalmem() / 1_048_576), platform: process.platform, loadAverageAtStart: loadAtStart, loadAverageAtEnd: loadavg() },
        settings: { connections: CONNECTIONS, warmupSeconds: WARMUP, durationSeconds: DURATION, scenarios: SCENARIOS, modes: MODES, poolSize: POOL_SIZE, seeded: SEED_COUNT, floors: FLOORS },
        fsync: results.postgres?.settings ? { fsync: results.postgres.settings.fsync, synchronous_commit: results.postgres.settings.synchronous_commit, full_page_writes: results.postgres.settings.full_page_writes } : undefined,
        targets: targetsSummary(results),
        results,
      },
      null,
      2,
    )}\n`,
  );
  process.stdout.write(`\nresults written to ${file}\n`);
}

if (isMain) {
  main().then(
    () => {
      cleanupSync();
      process.exit(0);
    },
    (error) => {
      process.stderr.write(`bench failed: ${error?.stack ?? error}\n`);
      cleanupSync();
      process.exit(1);
    },
  );
}

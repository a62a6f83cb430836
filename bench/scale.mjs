// Scale benchmark (cost as the work grows): GET, create, update, query and
// search at 10,000, 100,000 and 1,000,000 resources, and the storage per resource.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:scale
//
// DATABASE_URL names a PostgreSQL server: any database on it, through which this script creates the
// database `bench_scale` (a leftover of that name is dropped first) and drops it again at the end, also
// on failure and on SIGINT/SIGTERM/SIGHUP. Nothing else on that server is touched. It runs the built
// service (`dist/src/main.js`) once on `bench_scale`, at its defaults as `npm start` runs it (its
// LOG_LEVEL, one JSON line per request; allocator and V8 settings of scripts/server-env.mjs) but with the rate
// limit off, and then for each size N, ascending:
//   1. grows project `bench` to N resources by SQL: bench/search.mjs's corpus (its document shape and
//      Zipf-drawn texts over its vocabulary, SEARCH_BENCH_VOCABULARY / SEARCH_BENCH_WORDS apply; the
//      first 100,000 are search.mjs's own), 1,000 rows a statement, progress logged every 100,000; the
//      search trigger writes `resource_search` and `search_word` as in production; then VACUUM ANALYZE;
//   2. storage: pg_total_relation_size (heap, TOAST and indexes, every partition) of `resource` and of
//      the tables the search trigger writes (`resource_search`, `search_word`), in MB and bytes per resource
//      (after the first size, what the writes of the smaller sizes left behind is in it too);
//   3. GET by id: autocannon, SCALE_CONNECTIONS connections, a random one of up to 100,000 seeded ids (drawn
//      at random over all N) per request: req/s and p50/p95/p99 of every response's latency;
//   4. query: bench/query.mjs's `nested` (arrayOfObjectType(integerExampleInt32 = n and integerExample >
//      500000), with the total) and `deep-page` (the paging pattern 90% into the collection), and search:
//      bench/search.mjs's `text` and `facets`; sequential requests as in those scripts
//      (QUERY_BENCH_REQUESTS / SEARCH_BENCH_REQUESTS, default 300 after 30 warm-up): p50/p95/p99;
//   5. update (bench/run.mjs's: changeSomeProperty on the sampled ids in turn, versions tracked) and
//      create (the ~1 KB draft of bench/payloads.mjs) under autocannon like GET; then the resources the
//      creates added are deleted again, so each size holds N resources when it is measured.
// Each autocannon scenario runs min(3, SCALE_DURATION) s of warm-up, then SCALE_DURATION s measured.
// At the end: a Markdown table per metric (rows: sizes; columns: scenarios) on stdout, and every figure in
// bench/results/scale-<YYYY-MM-DD-HHMMSS>.json (UTC). No timing is asserted; the machine (CPUs, load
// average at start and end) and the server's settings are printed with the figures.
//
// Env knobs: SCALE_SIZES (default 10000,100000,1000000), SCALE_DURATION (s per autocannon scenario,
// default 10), SCALE_CONNECTIONS (default 50), DATABASE_URL (required). 1,000,000 resources take about
// 10 GB on the server (about 10 KB a resource in a small run), and most of the run's time is spent growing
// them (about 1,000 resources/s on the 2-core development machine).
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { PROJECT } from './payloads.mjs';
import { REQUESTS as QUERY_REQUESTS, measure as measureQuery, scenarios as queryScenarios } from './query.mjs';
import { cannon, positiveNumber, round } from './run.mjs';
import {
  CORPUS_SEED,
  REQUESTS as SEARCH_REQUESTS,
  insertResources,
  measure as measureSearch,
  percentile,
  queryWords,
  random,
  scenarios as searchScenarios,
} from './search.mjs';
import { fetchToken, startService, stopService } from './service.mjs';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const SERVER_URL = process.env.DATABASE_URL;
const DATABASE = 'bench_scale';
const DURATION = positiveNumber('SCALE_DURATION', 10);
const WARMUP = Math.min(3, DURATION);
const CONNECTIONS = positiveNumber('SCALE_CONNECTIONS', 50);
const SIZES = [...new Set((process.env.SCALE_SIZES || '10000,100000,1000000').split(',').map((s) => Number(s.trim())))].sort((a, b) => a - b);
/** Rows per logged step of the growth. */
const STEP = 100_000;
/** Seeded ids that GET and update draw from. */
const SAMPLE = 100_000;
/** The tables one resource stores rows in: its own and those the search trigger writes (migrations 6 to 9). */
const TABLES = ['resource', 'resource_search', 'search_word'];
const CLIENT = { projectKey: PROJECT, id: 'bench-scale-client', secret: 'bench-scale-secret-0123456789', scopes: `manage_test:${PROJECT} view_test:${PROJECT}` };
const LOAD = ['get', 'create', 'update'];
const SEQUENTIAL = ['query nested', 'query deep-page', 'search text', 'search facets'];

if (!SERVER_URL) {
  console.error('Set DATABASE_URL to a PostgreSQL server (e.g. postgres://postgres@127.0.0.1:5432/postgres): the bench creates and drops its database bench_scale there.');
  process.exit(2);
}
if (SIZES.some((n) => !Number.isInteger(n) || n <= 0)) {
  console.error(`SCALE_SIZES: positive whole numbers, comma-separated (got '${process.env.SCALE_SIZES}')`);
  process.exit(2);
}

function log(message) {
  process.stderr.write(`[scale-bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** Runs `sql` through the database DATABASE_URL names (not the bench's own). */
async function onServer(sql) {
  const server = new pg.Client({ connectionString: SERVER_URL });
  await server.connect();
  await server.query(sql).finally(() => server.end());
}

const state = { service: undefined, client: undefined, created: false, cleaning: undefined, signal: undefined };

/** Stops the service, closes the connection and drops the bench database; once, whatever called it. */
function cleanup() {
  state.cleaning ??= (async () => {
    await state.client?.end().catch(() => {});
    await stopService(state.service);
    if (state.created) {
      await onServer(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`).then(
        () => log(`database ${DATABASE} dropped`),
        (error) => log(`could not drop database ${DATABASE}: ${error.message}`),
      );
    }
  })();
  return state.cleaning;
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    state.signal = signal;
    log(`${signal}: cleaning up`);
    cleanup().finally(() => process.exit(130));
  });
}

/** Grows the project from `from` to `to` resources (`rand`: the corpus's generator, carried on). */
async function grow(from, to, rand) {
  const started = performance.now();
  for (let at = from; at < to; at += STEP) {
    const end = Math.min(to, at + STEP);
    const stepStarted = performance.now();
    await insertResources(state.client, PROJECT, at, end, rand);
    log(`  resources ${at.toLocaleString('en-US')} → ${end.toLocaleString('en-US')}: ${Math.round((end - at) / ((performance.now() - stepStarted) / 1000))}/s`);
  }
  const vacuumStarted = performance.now();
  await state.client.query('VACUUM ANALYZE');
  return { seedSeconds: round((vacuumStarted - started) / 1000, 1), vacuumSeconds: round((performance.now() - vacuumStarted) / 1000, 1) };
}

/** Per table, and in all: MB and bytes per resource (every partition, TOAST and index counted). */
async function storage(size) {
  const { rows } = await state.client.query(
    // pg_partition_tree has no rows for a table that is not partitioned.
    `SELECT t AS name, coalesce((SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree(t::regclass)), pg_total_relation_size(t::regclass))::bigint AS bytes
     FROM unnest($1::text[]) AS t`,
    [TABLES],
  );
  const entry = (bytes) => ({ mb: round(bytes / 1_048_576, 1), bytesPerResource: Math.round(bytes / size) });
  const result = Object.fromEntries(rows.map((r) => [r.name, entry(Number(r.bytes))]));
  result.total = entry(rows.reduce((sum, r) => sum + Number(r.bytes), 0));
  return result;
}

/** Seeded ids drawn at random over the whole project, with their versions (bench/run.mjs's `data`). */
async function sample() {
  const { rows } = await state.client.query(
    'SELECT id::text AS id, version FROM resource WHERE project_key = $1 AND key IS NOT NULL ORDER BY random() LIMIT $2',
    [PROJECT, SAMPLE],
  );
  return { ids: rows.map((r) => r.id), versions: new Map(rows.map((r) => [r.id, r.version])), cursor: 0 };
}

/** An autocannon scenario of bench/run.mjs: warm-up, then the measured run with every response's latency. */
async function load(scenario, data, bearer) {
  await cannon(state.service, scenario, data, bearer, WARMUP, CONNECTIONS);
  const latencies = [];
  const result = await cannon(state.service, scenario, data, bearer, DURATION, CONNECTIONS, (ms) => latencies.push(ms));
  latencies.sort((a, b) => a - b);
  const run = {
    reqPerSec: round(result.requests.average, 1),
    p50Ms: round(percentile(latencies, 50), 1),
    p95Ms: round(percentile(latencies, 95), 1),
    p99Ms: round(percentile(latencies, 99), 1),
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count])),
  };
  log(`  ${scenario.padEnd(6)} ${run.reqPerSec} req/s  p50 ${run.p50Ms} ms  p95 ${run.p95Ms} ms  errors ${run.errors}  non-2xx ${run.non2xx}`);
  return run;
}

/** A sequential scenario's figures as measured by query.mjs or search.mjs, rounded. */
function sequential(result) {
  const entry = { p50Ms: round(result.p50, 1), p95Ms: round(result.p95, 1), p99Ms: round(result.p99, 1), meanTotal: result.meanTotal, meanCount: result.meanCount };
  const matches = result.name === 'deep-page' ? `mean count ${entry.meanCount} (withTotal=false)` : `mean total ${entry.meanTotal}`;
  log(`  ${result.name.padEnd(9)} p50 ${entry.p50Ms} ms  p95 ${entry.p95Ms} ms  ${matches}`);
  return entry;
}

async function measureSize(size, bearer, words) {
  const url = state.service.url;
  const entry = { size, storage: await storage(size), load: {}, sequential: {} };
  log(`  storage: ${TABLES.map((t) => `${t} ${entry.storage[t].mb} MB (${entry.storage[t].bytesPerResource} B/resource)`).join(', ')}`);
  const data = await sample();
  entry.load.get = await load('get', data, bearer);
  const { rows: deep } = await state.client.query('SELECT id::text FROM resource WHERE project_key = $1 ORDER BY id OFFSET $2 LIMIT 200', [PROJECT, Math.floor(size * 0.9)]);
  const query = queryScenarios(deep.map((r) => r.id));
  entry.sequential['query nested'] = sequential(await measureQuery(url, bearer, 'nested', query.nested, PROJECT));
  entry.sequential['query deep-page'] = sequential(await measureQuery(url, bearer, 'deep-page', query['deep-page'], PROJECT));
  const search = searchScenarios(words);
  entry.sequential['search text'] = sequential(await measureSearch(url, bearer, 'text', search.text, PROJECT));
  entry.sequential['search facets'] = sequential(await measureSearch(url, bearer, 'facets', search.facets, PROJECT));
  entry.load.update = await load('update', data, bearer);
  entry.load.create = await load('create', data, bearer);
  const removed = await state.client.query('DELETE FROM resource WHERE project_key = $1 AND key IS NULL', [PROJECT]);
  log(`  ${removed.rowCount} resources the creates added deleted`);
  return entry;
}

const n = (value) => value.toLocaleString('en-US');

function markdown(title, columns, cell, sizes) {
  return [
    `${title}`,
    '',
    `| resources | ${columns.join(' | ')} |`,
    `|---:|${columns.map(() => '---:').join('|')}|`,
    ...sizes.map((s) => `| ${n(s.size)} | ${columns.map((c) => cell(s, c)).join(' | ')} |`),
  ].join('\n');
}

function report(sizes, settings, loadAtStart) {
  const storageColumns = [...TABLES, 'total'];
  return [
    markdown(`req/s (autocannon, ${CONNECTIONS} connections, ${DURATION} s)`, LOAD, (s, c) => n(Math.round(s.load[c].reqPerSec)), sizes),
    markdown('p95 ms under that load', LOAD, (s, c) => s.load[c].p95Ms, sizes),
    markdown(`p50 ms (sequential, ${QUERY_REQUESTS} queries / ${SEARCH_REQUESTS} searches per scenario)`, SEQUENTIAL, (s, c) => s.sequential[c].p50Ms, sizes),
    markdown('p95 ms (sequential)', SEQUENTIAL, (s, c) => s.sequential[c].p95Ms, sizes),
    markdown('storage, bytes per resource', storageColumns, (s, c) => n(s.storage[c].bytesPerResource), sizes),
    markdown('storage, MB', storageColumns, (s, c) => n(s.storage[c].mb), sizes),
    [
      `mean total matches (query nested / search text / search facets): ${sizes.map((s) => `${n(s.size)}: ${['query nested', 'search text', 'search facets'].map((c) => s.sequential[c].meanTotal).join(' / ')}`).join('; ')}`,
      `non-2xx or errors under load: ${sizes.flatMap((s) => LOAD.filter((c) => s.load[c].non2xx || s.load[c].errors).map((c) => `${n(s.size)} ${c}: ${s.load[c].non2xx} non-2xx, ${s.load[c].errors} errors`)).join('; ') || 'none'}`,
      `PostgreSQL ${Object.entries(settings).map(([k, v]) => `${k}=${v}`).join(', ')}`,
      `node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model}), ${Math.round(totalmem() / 1_073_741_824)} GB; load average at start ${loadAtStart.map((l) => l.toFixed(1)).join(' ')}, at end ${loadavg().map((l) => l.toFixed(1)).join(' ')} (other work on the machine moves every figure)`,
    ].join('\n'),
  ].join('\n\n');
}

async function main() {
  const startedAt = new Date();
  const loadAtStart = loadavg();
  log(`node ${process.version}, ${cpus().length} CPUs, load average ${loadAtStart.map((l) => l.toFixed(1)).join(' ')}; sizes ${SIZES.map(n).join(', ')}; ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s`);
  await onServer(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await onServer(`CREATE DATABASE ${DATABASE}`);
  state.created = true;
  const databaseUrl = new URL(SERVER_URL);
  databaseUrl.pathname = `/${DATABASE}`;
  // LOG_LEVEL unset: the service's default, as `npm start` runs it (startService would set warn).
  state.service = await startService({ dist: 'dist', databaseUrl: databaseUrl.href, client: CLIENT, env: { LOG_LEVEL: undefined } });
  log(`service ready at ${state.service.url} on database ${DATABASE} (pid ${state.service.child.pid})`);
  state.client = new pg.Client({ connectionString: databaseUrl.href });
  await state.client.connect();
  const { rows } = await state.client.query(
    `SELECT name, current_setting(name) AS value FROM pg_settings
     WHERE name IN ('server_version', 'shared_buffers', 'effective_cache_size', 'work_mem', 'fsync', 'synchronous_commit', 'full_page_writes') ORDER BY name`,
  );
  const settings = Object.fromEntries(rows.map((r) => [r.name, r.value]));
  log(`PostgreSQL ${JSON.stringify(settings)}`);
  const bearer = await fetchToken(state.service.url, CLIENT);
  const rand = random(CORPUS_SEED);
  const sizes = [];
  let words;
  for (const size of SIZES) {
    const from = sizes.at(-1)?.size ?? 0;
    log(`growing to ${n(size)} resources`);
    const grown = await grow(from, size, rand);
    log(`  grown in ${grown.seedSeconds} s, VACUUM ANALYZE ${grown.vacuumSeconds} s`);
    words ??= await queryWords(state.client);
    sizes.push({ ...(await measureSize(size, bearer, words)), ...grown });
  }
  const text = report(sizes, settings, loadAtStart);
  process.stdout.write(`\n${text}\n`);
  const stamp = startedAt.toISOString().replace('T', '-').replace(/:/g, '').slice(0, 17);
  const file = join(BENCH_DIR, 'results', `scale-${stamp}.json`);
  mkdirSync(dirname(file), { recursive: true });
  const machine = { node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model, totalMemMb: Math.round(totalmem() / 1_048_576), loadAverageAtStart: loadAtStart, loadAverageAtEnd: loadavg() };
  const knobs = { sizes: SIZES, warmupSeconds: WARMUP, durationSeconds: DURATION, connections: CONNECTIONS, sampledIds: SAMPLE, queryRequests: QUERY_REQUESTS, searchRequests: SEARCH_REQUESTS };
  const elapsedSeconds = round((Date.now() - startedAt.getTime()) / 1000, 1);
  writeFileSync(file, `${JSON.stringify({ startedAt: startedAt.toISOString(), elapsedSeconds, machine, settings: knobs, postgres: settings, sizes }, null, 2)}\n`);
  process.stdout.write(`\nresults written to ${file}\n`);
}

let exitCode = 0;
try {
  await main();
} catch (error) {
  if (!state.signal) {
    process.stderr.write(`scale bench failed: ${error?.stack ?? error}\n`);
    exitCode = 1;
  }
} finally {
  await cleanup();
}
if (!state.signal) process.exit(exitCode);

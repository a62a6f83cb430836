// Bulk benchmark: POST /{projectKey}/resource/import and GET /{projectKey}/resource/export (docs/bulk-and-cli.md).
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/<your db> [SERVICE_DIST=dist] [BULK_BENCH_COUNT=200000] node bench/bulk.mjs
//
// Writes BULK_BENCH_COUNT (default 200,000) drafts of about 1 KB (with 64-bit integers) to an NDJSON file and:
//   import   streams it to the service's import (project `bench-bulk`, every line a create with its
//            ResourceCreated message and version record): resources/s, and the service's peak RSS;
//   copy     the limit: the same rows with `psql \copy` into the same `resource` table with its triggers
//            (search index), project `bench-bulk-copy` (no message, no version: COPY writes the rows alone);
//   export   streams the imported project back (GET …/export, read as fast as it comes): resources/s and the
//            service's peak RSS.
// Targets: import ≥ 0.5 of copy; export ≥ 50,000 resources/s.
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { fetchToken, startService } from './service.mjs';

const DATABASE_URL = process.env.DATABASE_URL;
const SERVICE_DIST = process.env.SERVICE_DIST ?? 'dist';
const COUNT = Number(process.env.BULK_BENCH_COUNT ?? 200_000);
const PROJECT = 'bench-bulk';
const COPY_PROJECT = 'bench-bulk-copy';
const CLIENT = { projectKey: PROJECT, id: 'bench-bulk-client', secret: 'bench-bulk-secret-0123456789', scopes: `manage_test:${PROJECT} view_test:${PROJECT}` };
const GOALS = { importToCopy: 0.5, exportPerSecond: 50_000 };

if (!DATABASE_URL) {
  console.error('Set DATABASE_URL to a PostgreSQL database you created (createdb …).');
  process.exit(2);
}

function log(message) {
  process.stderr.write(`[bulk-bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

const INT64 = '9223372036854775807';
/** The draft's document: about 1 KB, different for every resource. */
function documentOf(i) {
  const words = Array.from({ length: 12 }, (_, j) => `word${(i * 31 + j * 7) % 5000}-${'x'.repeat(20)}`);
  return (
    `{"arrayOfIntExample":[${i},${i + 1},${INT64}],"arrayOfUniqueIntExample":[1,2,3,${i + 4}],"arrayOfTwonumbersExample":[1.5,${i}.5],` +
    `"arrayOfFloatExample":[0.25,${i % 97}.75],"arrayOfNumberNoDefaultsExample":[${i % 1500}],"arrayOfStringExample":${JSON.stringify(words)},` +
    `"arrayOfObjectType":[{"integerExample":${INT64},"integerExampleInt32":${i % 100000}},{"integerExample":-${i},"integerExampleInt32":7}]}`
  );
}

async function writeFiles(dir) {
  const drafts = createWriteStream(join(dir, 'drafts.ndjson'));
  const copy = createWriteStream(join(dir, 'copy.csv'));
  const by = '"{""clientId"":""bench""}"';
  for (let i = 0; i < COUNT; i++) {
    const document = documentOf(i);
    if (!drafts.write(`{"key":"b-${i}","objectTypeProperty":${document}}\n`)) await once(drafts, 'drain');
    // id, project_key, key, version, created_at, last_modified_at, created_by, last_modified_by, published, object_type_property, message_sequence
    const row = `${crypto.randomUUID()},${COPY_PROJECT},b-${i},1,2026-11-25T00:00:00Z,2026-11-25T00:00:00Z,${by},${by},true,"${document.replaceAll('"', '""')}",0\n`;
    if (!copy.write(row)) await once(copy, 'drain');
  }
  drafts.end();
  copy.end();
  await Promise.all([once(drafts, 'finish'), once(copy, 'finish')]);
}

/** The child's resident set, sampled every 200 ms until `stop()`; `peak()` in MB. */
function sampleRss(pid) {
  let peak = 0;
  const read = () => {
    try {
      const kb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
      peak = Math.max(peak, kb);
    } catch {}
  };
  read();
  const timer = setInterval(read, 200);
  return { stop: () => clearInterval(timer), peak: () => Math.round(peak / 1024) };
}

function post(url, path, token, file) {
  return new Promise((resolve, reject) => {
    const target = new URL(path, url);
    const req = request(target, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' } });
    req.on('error', reject);
    req.on('response', async (res) => {
      let tail = '';
      let lines = 0;
      res.setEncoding('utf8');
      for await (const chunk of res) {
        for (let i = chunk.indexOf('\n'); i !== -1; i = chunk.indexOf('\n', i + 1)) lines++;
        tail = (tail + chunk).slice(-300);
      }
      resolve({ status: res.statusCode, lines, last: tail.trimEnd().split('\n').pop() });
    });
    createReadStream(file).pipe(req);
  });
}

async function exportAll(url, path, token) {
  const res = await fetch(new URL(path, url), { headers: { authorization: `Bearer ${token}` } });
  let lines = 0;
  let tail = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body) {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    tail = (tail + decoder.decode(chunk.subarray(Math.max(0, chunk.length - 300)))).slice(-300);
  }
  return { status: res.status, lines, last: tail.trimEnd().split('\n').pop() };
}

const dir = mkdtempSync(join(tmpdir(), 'bulk-bench-'));
const client = new pg.Client({ connectionString: DATABASE_URL });
let service;
try {
  // Builds before IMPORT_IDLE_TIMEOUT_MS (SERVICE_DIST may name one) cut an import at HTTP_REQUEST_TIMEOUT_MS,
  // and 200,000 lines take longer than its default 120 s on a busy machine.
  service = await startService({ dist: SERVICE_DIST, databaseUrl: DATABASE_URL, client: CLIENT, env: { HTTP_REQUEST_TIMEOUT_MS: '3600000' } });
  log(`service ready at ${service.url} (${SERVICE_DIST})`);
  await client.connect();
  for (const project of [PROJECT, COPY_PROJECT]) {
    for (const table of ['message', 'resource_version', 'resource']) await client.query(`DELETE FROM ${table} WHERE project_key = $1`, [project]);
  }
  // The deletes leave the search trigger's rows dead too: a run on a reused database, with 400,000 dead rows
  // of resource_search left unvacuumed, imported at a tenth of the speed (one batch past the statement timeout).
  await client.query('VACUUM ANALYZE resource, resource_search, search_word, message, resource_version');
  await writeFiles(dir);
  log(`wrote ${COUNT} drafts and their COPY rows to ${dir}`);
  const token = await fetchToken(service.url, CLIENT);

  let rss = sampleRss(service.child.pid);
  let started = performance.now();
  const imported = await post(service.url, `/${PROJECT}/resource/import`, token, join(dir, 'drafts.ndjson'));
  const importSeconds = (performance.now() - started) / 1000;
  rss.stop();
  const importRss = rss.peak();
  const expected = `{"summary":{"lines":${COUNT},"created":${COUNT},"updated":0,"unchanged":0,"failed":0}}`;
  if (imported.status !== 200 || imported.last !== expected) throw new Error(`import: ${imported.status} ${imported.last}`);
  log(`import: ${COUNT} in ${importSeconds.toFixed(1)} s`);

  started = performance.now();
  const copy = spawnSync('psql', [DATABASE_URL, '-v', 'ON_ERROR_STOP=1', '-c',
    `\\copy resource (id, project_key, key, version, created_at, last_modified_at, created_by, last_modified_by, published, object_type_property, message_sequence) FROM '${join(dir, 'copy.csv')}' WITH (FORMAT csv)`], { encoding: 'utf8' });
  const copySeconds = (performance.now() - started) / 1000;
  if (copy.status !== 0) throw new Error(`psql \\copy: ${copy.stderr}`);
  log(`copy: ${COUNT} in ${copySeconds.toFixed(1)} s`);

  // The import's and the copy's 200,000 new rows each start autovacuum on the tables they filled (`resource`,
  // `resource_search`, and the import's `message` and `resource_version`, which the export reads), which would
  // run beside the export: the export is measured after it, on settled tables.
  await client.query('VACUUM ANALYZE resource, resource_search, search_word, message, resource_version');
  await sleep(500);
  rss = sampleRss(service.child.pid);
  started = performance.now();
  const exported = await exportAll(service.url, `/${PROJECT}/resource/export`, token);
  const exportSeconds = (performance.now() - started) / 1000;
  rss.stop();
  if (exported.status !== 200 || exported.lines !== COUNT + 1 || exported.last !== `{"summary":{"count":${COUNT}}}`) throw new Error(`export: ${exported.status} ${exported.lines} ${exported.last}`);

  const importRate = COUNT / importSeconds;
  const copyRate = COUNT / copySeconds;
  const exportRate = COUNT / exportSeconds;
  const ratio = importRate / copyRate;
  console.log(`\nbulk, ${COUNT} resources of about 1 KB:`);
  console.log(`import   ${Math.round(importRate).toString().padStart(8)} resources/s   peak RSS ${importRss} MB   (with messages and versions)`);
  console.log(`copy     ${Math.round(copyRate).toString().padStart(8)} resources/s   (psql \\copy into the same table and triggers)`);
  console.log(`export   ${Math.round(exportRate).toString().padStart(8)} resources/s   peak RSS ${rss.peak()} MB`);
  console.log(`goals: import/copy ${ratio.toFixed(2)} ≥ ${GOALS.importToCopy} → ${ratio >= GOALS.importToCopy ? 'met' : 'NOT met'}; ` +
    `export ${Math.round(exportRate)}/s ≥ ${GOALS.exportPerSecond} → ${exportRate >= GOALS.exportPerSecond ? 'met' : 'NOT met'}`);
  console.log(JSON.stringify({ count: COUNT, importPerSecond: Math.round(importRate), copyPerSecond: Math.round(copyRate), importToCopy: Number(ratio.toFixed(3)), exportPerSecond: Math.round(exportRate), importPeakRssMb: importRss, exportPeakRssMb: rss.peak() }));
} finally {
  await client.end().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
  if (service) {
    service.child.kill('SIGTERM');
    await Promise.race([new Promise((r) => service.child.once('exit', r)), sleep(10_000)]);
    if (service.child.exitCode === null) service.child.kill('SIGKILL');
  }
}

// Change-log benchmark: GET /messages by resource and GET /resource/{id}/versions at 100,000 resources.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/<your db> [SERVICE_DIST=dist] node bench/change-log.mjs
//
// Starts `node $SERVICE_DIST/src/main.js` on that database (its migrations run at start-up), seeds by SQL
// CHANGE_LOG_BENCH_COUNT (default 100,000) resources in project `bench-log` and as many in
// `bench-log-other`, each with 1–10 versions, a message per version and its version record (about 550,000
// messages and as many versions per project), then times sequential requests (CHANGE_LOG_BENCH_REQUESTS
// per scenario, default 300, after 30 warm-up requests) and prints p50/p95/p99 per scenario:
//   messages-of     GET /messages?where=resource(id = "<random>")&sort=sequenceNumber asc
//   messages-page   GET /messages?limit=20&offset=<random up to 1,000>   (default order, withTotal=false)
//   versions        GET /resource/<random id>/versions
//   version         GET /resource/<random id>/versions/<random version>
// Target: every p95 < 25 ms on PostgreSQL.
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { fetchToken, startService } from './service.mjs';

const DATABASE_URL = process.env.DATABASE_URL;
const SERVICE_DIST = process.env.SERVICE_DIST ?? 'dist';
const COUNT = Number(process.env.CHANGE_LOG_BENCH_COUNT ?? 100_000);
const REQUESTS = Number(process.env.CHANGE_LOG_BENCH_REQUESTS ?? 300);
const WARMUP = 30;
const PROJECT = 'bench-log';
const OTHER_PROJECT = 'bench-log-other';
const CLIENT = {
  projectKey: PROJECT,
  id: 'bench-log-client',
  secret: 'bench-log-secret-0123456789',
  scopes: `manage_test:${PROJECT} view_messages:${PROJECT} view_audit_log:${PROJECT}`,
};
const TARGET_P95_MS = 25;

if (!DATABASE_URL) {
  console.error('Set DATABASE_URL to a PostgreSQL database you created (createdb …).');
  process.exit(2);
}

function log(message) {
  process.stderr.write(`[change-log-bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** Deterministic pseudo-random numbers (mulberry32). */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const int = (rand, n) => Math.floor(rand() * n);

const DOCUMENT = `{"arrayOfIntExample":[1,2,3],"arrayOfUniqueIntExample":[1,2,3],"arrayOfTwonumbersExample":[1.5,2.5],"arrayOfFloatExample":[0.5],"arrayOfNumberNoDefaultsExample":[1500],"arrayOfStringExample":["a","b"],"arrayOfObjectType":[{"integerExample":9223372036854775807,"integerExampleInt32":2}]}`;

/** Resources with 1–10 versions each; every version with its record and one message (the first a ResourceCreated). */
async function seedProject(client, project) {
  const { rows } = await client.query('SELECT count(*)::int AS n FROM resource WHERE project_key = $1', [project]);
  if (rows[0].n === COUNT) {
    log(`project ${project} already holds ${COUNT} resources; not seeding`);
    return false;
  }
  const started = performance.now();
  for (const table of ['message', 'resource_version', 'resource']) await client.query(`DELETE FROM ${table} WHERE project_key = $1`, [project]);
  const BATCH = 10_000;
  for (let from = 0; from < COUNT; from += BATCH) {
    await client.query(
      `WITH r AS (
         INSERT INTO resource (id, project_key, key, version, created_at, last_modified_at, created_by, last_modified_by, published,
                               object_type_property, some_property, message_sequence)
         SELECT gen_random_uuid(), $1, 'l' || i, 1 + (i * 7919) % 10, now() - make_interval(days => 10, secs => i),
                now() - make_interval(secs => i), '{"clientId":"seed"}', '{"clientId":"seed"}', true, $4::jsonb, 'v', 1 + (i * 7919) % 10
         FROM generate_series($2::int, $3::int) AS i
         RETURNING id, key, version, created_at
       ), v AS (
         SELECT r.id, r.key, s, r.created_at + make_interval(secs => s) AS at FROM r, generate_series(1, r.version) AS s
       ), m AS (
         INSERT INTO message (id, project_key, resource_id, resource_version, sequence_number, resource_key, type, created_at, created_by, payload, change_id)
         SELECT gen_random_uuid(), $1, v.id, v.s, v.s, v.key, CASE WHEN v.s = 1 THEN 'ResourceCreated' ELSE 'SomePropertyChanged' END, v.at,
                '{"clientId":"seed"}', CASE WHEN v.s = 1 THEN '"representation":{"id":"' || v.id || '"}' ELSE '"someProperty":"v' || v.s || '"' END, gen_random_uuid()
         FROM v
       )
       INSERT INTO resource_version (resource_id, version, project_key, modified_at, modified_by, types, representation)
       SELECT v.id, v.s, $1, v.at, '{"clientId":"seed"}', ARRAY[CASE WHEN v.s = 1 THEN 'ResourceCreated' ELSE 'SomePropertyChanged' END],
              '{"id":"' || v.id || '","key":"' || v.key || '","version":' || v.s || ',"objectTypeProperty":' || $4 || '}'
       FROM v`,
      [project, from, Math.min(COUNT, from + BATCH) - 1, DOCUMENT],
    );
  }
  log(`seeded ${COUNT} resources with their messages and versions in ${project} in ${Math.round(performance.now() - started)} ms`);
  return true;
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function measure(url, auth, name, path) {
  const times = [];
  for (let i = 0; i < WARMUP + REQUESTS; i++) {
    const target = path();
    const started = performance.now();
    const res = await fetch(`${url}${target}`, { headers: { authorization: `Bearer ${auth}` } });
    const text = await res.text();
    const elapsed = performance.now() - started;
    if (res.status !== 200) throw new Error(`${name}: ${target}: ${res.status} ${text.slice(0, 500)}`);
    if (i >= WARMUP) times.push(elapsed);
  }
  times.sort((a, b) => a - b);
  return { name, p50: percentile(times, 50), p95: percentile(times, 95), p99: percentile(times, 99) };
}

const client = new pg.Client({ connectionString: DATABASE_URL });
let service;
try {
  service = await startService({ dist: SERVICE_DIST, databaseUrl: DATABASE_URL, client: CLIENT });
  log(`service ready at ${service.url} (${SERVICE_DIST})`);
  await client.connect();
  const seeded = (await seedProject(client, PROJECT)) | (await seedProject(client, OTHER_PROJECT));
  if (seeded) await client.query('VACUUM ANALYZE resource, message, resource_version');
  const { rows } = await client.query(`SELECT id::text, version FROM resource WHERE project_key = $1 ORDER BY random() LIMIT 2000`, [PROJECT]);
  const { rows: counts } = await client.query(`SELECT (SELECT count(*) FROM message)::int AS messages, (SELECT count(*) FROM resource_version)::int AS versions`);
  const auth = await fetchToken(service.url, CLIENT);
  const rand = random(11);
  const pick = () => rows[int(rand, rows.length)];
  const scenarios = {
    'messages-of': () => `/${PROJECT}/messages?${new URLSearchParams({ where: `resource(id = "${pick().id}")`, sort: 'sequenceNumber asc' })}`,
    'messages-page': () => `/${PROJECT}/messages?limit=20&withTotal=false&offset=${int(rand, 1000)}`,
    versions: () => `/${PROJECT}/resource/${pick().id}/versions`,
    version: () => {
      const row = pick();
      return `/${PROJECT}/resource/${row.id}/versions/${1 + int(rand, row.version)}`;
    },
  };
  const results = [];
  for (const [name, path] of Object.entries(scenarios)) results.push(await measure(service.url, auth, name, path));
  console.log(`\nchange log over ${COUNT} resources per project in two projects (${counts[0].messages} messages, ${counts[0].versions} versions in all), ${REQUESTS} sequential requests per scenario (after ${WARMUP} warm-up):`);
  console.log('scenario        p50 ms   p95 ms   p99 ms');
  for (const r of results) console.log(`${r.name.padEnd(14)} ${r.p50.toFixed(1).padStart(7)} ${r.p95.toFixed(1).padStart(8)} ${r.p99.toFixed(1).padStart(8)}`);
  const worst = Math.max(...results.map((r) => r.p95));
  console.log(`target: every p95 < ${TARGET_P95_MS} ms on PostgreSQL → ${worst < TARGET_P95_MS ? 'met' : 'NOT met'} (worst p95 ${worst.toFixed(1)} ms)`);
} finally {
  await client.end().catch(() => {});
  if (service) {
    service.child.kill('SIGTERM');
    await Promise.race([new Promise((r) => service.child.once('exit', r)), sleep(10_000)]);
    if (service.child.exitCode === null) service.child.kill('SIGKILL');
  }
}

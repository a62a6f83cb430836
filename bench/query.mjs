// Query benchmark: GET /{projectKey}/resource/sorted-query-parameters over 100,000 resources per project.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/<your db> [SERVICE_DIST=dist] node bench/query.mjs
//
// Starts `node $SERVICE_DIST/src/main.js` on that database (its migrations run at start-up), seeds by SQL
// QUERY_BENCH_COUNT (default 100,000) resources in project `bench-query` and as many in `bench-query-other`
// (skipped when they already hold that many), then times sequential requests (QUERY_BENCH_REQUESTS per
// scenario, default 300, after 30 warm-up requests) and prints p50/p95/p99 per scenario:
//   key        where=key = "q<random>"
//   version    where=version >= v and version < v + 2                        (~4% of the project)
//   any        where=objectTypeProperty(arrayOfStringExample contains any ("w<a>", "w<b>"))
//   nested     where=objectTypeProperty(arrayOfObjectType(integerExampleInt32 = n and integerExample > 500000))
//   andor      where=(version = v or objectTypeProperty(arrayOfStringExample = "w<a>")) and published = true
//              &sort=lastModifiedAt desc
//   deep-page  the commercetools paging pattern 90% into the collection: sort=id asc, withTotal=false,
//              limit=100, where=published = true, where=id > "<an id 90% in>"
// The first five use the default withTotal=true (the count is part of the cost). Then it prints EXPLAIN
// (ANALYZE) of the exact SQL the service runs for the first four (captured from the built service's own
// query code), to show which indexes serve them.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { fetchToken, isMainModule, startService, stopService } from './service.mjs';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const DATABASE_URL = process.env.DATABASE_URL;
const SERVICE_DIST = process.env.SERVICE_DIST ?? 'dist';
const COUNT = Number(process.env.QUERY_BENCH_COUNT ?? 100_000);
export const REQUESTS = Number(process.env.QUERY_BENCH_REQUESTS ?? 300);
const WARMUP = 30;
const PROJECT = 'bench-query';
const OTHER_PROJECT = 'bench-query-other';
const CLIENT_ID = 'bench-query-client';
const CLIENT_SECRET = 'bench-query-secret-0123456789';
const CLIENT = { projectKey: PROJECT, id: CLIENT_ID, secret: CLIENT_SECRET, scopes: `manage_test:${PROJECT} view_test:${PROJECT}` };
const TARGET_P95_MS = 25;
const WORDS = 2000;
const VERSIONS = 50;
// Imported (bench/scale.mjs runs some of these scenarios), this file does not run.
const isMain = isMainModule(import.meta.url);

if (isMain && !DATABASE_URL) {
  console.error('Set DATABASE_URL to a PostgreSQL database you created (createdb …).');
  process.exit(2);
}

function log(message) {
  process.stderr.write(`[query-bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
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

function resourceRow(i, rand) {
  const ints = Array.from({ length: 1 + int(rand, 5) }, () => int(rand, 1000));
  const strings = [...new Set(Array.from({ length: 2 + int(rand, 3) }, () => `w${int(rand, WORDS)}`))];
  const objects = Array.from({ length: int(rand, 4) }, () =>
    `{"integerExample":${rand() < 0.05 ? '9223372036854775807' : int(rand, 1_000_000)},"integerExampleInt32":${int(rand, 1000)}}`,
  );
  const otp =
    `{"arrayOfIntExample":[${ints}],"arrayOfUniqueIntExample":[${[...new Set(ints)]}],"arrayOfTwonumbersExample":[${rand()},${rand()}],` +
    `"arrayOfFloatExample":[${rand() * 100}],"arrayOfNumberNoDefaultsExample":[],"arrayOfStringExample":${JSON.stringify(strings)},` +
    `"arrayOfObjectType":[${objects}]}`;
  return { key: `q${i}`, version: 1 + int(rand, VERSIONS), published: rand() < 0.9, otp, ageMs: i * 1000 + int(rand, 1000) };
}

async function seedProject(client, project, seed) {
  const { rows } = await client.query('SELECT count(*)::int AS n FROM resource WHERE project_key = $1', [project]);
  if (rows[0].n === COUNT) {
    log(`project ${project} already holds ${COUNT} resources; not seeding`);
    return false;
  }
  await client.query('DELETE FROM resource WHERE project_key = $1', [project]);
  const rand = random(seed);
  const started = performance.now();
  const BATCH = 2000;
  for (let from = 0; from < COUNT; from += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, COUNT - from) }, (_, j) => resourceRow(from + j, rand));
    await client.query(
      `INSERT INTO resource (id, project_key, key, version, created_at, last_modified_at, created_by, last_modified_by, published, object_type_property)
       SELECT gen_random_uuid(), $1, k, v, now() - make_interval(secs => a / 1000.0), now() - make_interval(secs => a / 2000.0),
              '{"clientId":"seed"}', '{"clientId":"seed"}', p, o::jsonb
       FROM unnest($2::text[], $3::int[], $4::boolean[], $5::text[], $6::bigint[]) AS x(k, v, p, o, a)`,
      [project, batch.map((r) => r.key), batch.map((r) => r.version), batch.map((r) => r.published), batch.map((r) => r.otp), batch.map((r) => r.ageMs)],
    );
  }
  log(`seeded ${COUNT} resources in ${project} in ${Math.round(performance.now() - started)} ms`);
  return true;
}


/** Each scenario: the query parameters of request i, as [name, value] pairs. */
export function scenarios(deepIds) {
  const rand = random(7);
  return {
    key: () => [['where', `key = "q${int(rand, COUNT)}"`]],
    version: () => {
      const v = 1 + int(rand, VERSIONS - 2);
      return [['where', `version >= ${v} and version < ${v + 2}`]];
    },
    any: () => [['where', `objectTypeProperty(arrayOfStringExample contains any ("w${int(rand, WORDS)}", "w${int(rand, WORDS)}"))`]],
    nested: () => [['where', `objectTypeProperty(arrayOfObjectType(integerExampleInt32 = ${int(rand, 1000)} and integerExample > 500000))`]],
    andor: () => [
      ['where', `(version = ${1 + int(rand, VERSIONS)} or objectTypeProperty(arrayOfStringExample = "w${int(rand, WORDS)}")) and published = true`],
      ['sort', 'lastModifiedAt desc'],
    ],
    'deep-page': () => [
      ['sort', 'id asc'],
      ['withTotal', 'false'],
      ['limit', '100'],
      ['where', 'published = true'],
      ['where', `id > "${deepIds[int(rand, deepIds.length)]}"`],
    ],
  };
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

export async function measure(url, auth, name, build, project = PROJECT) {
  const times = [];
  let totals = 0;
  let counts = 0;
  for (let i = 0; i < WARMUP + REQUESTS; i++) {
    const search = new URLSearchParams(build(i)).toString();
    const started = performance.now();
    const res = await fetch(`${url}/${project}/resource/sorted-query-parameters?${search}`, { headers: { authorization: `Bearer ${auth}` } });
    const text = await res.text();
    const elapsed = performance.now() - started;
    if (res.status !== 200) throw new Error(`${name}: ${res.status} ${text.slice(0, 500)}`);
    if (i >= WARMUP) {
      times.push(elapsed);
      totals += Number(/"total":(\d+)/.exec(text)?.[1] ?? 0);
      counts += Number(/"count":(\d+)/.exec(text)[1]);
    }
  }
  times.sort((a, b) => a - b);
  return {
    name,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    p99: percentile(times, 99),
    meanTotal: Math.round(totals / REQUESTS),
    meanCount: Math.round(counts / REQUESTS),
  };
}

/** The SQL the service runs for these parameters, from the built service's own query code. */
async function capturedSql(params) {
  const dist = (file) => pathToFileURL(resolve(ROOT, SERVICE_DIST, file)).href;
  const { ResourceQueryService } = await import(dist('src/resource/resource-query.service.js'));
  const { ResourceQueryRepository } = await import(dist('src/resource/resource-query.repository.js'));
  let captured;
  const db = {
    async query() {
      return [];
    },
    async one(text, values) {
      captured = { text, values };
      return { count: 0, total: 0, results: '[]' };
    },
  };
  // The HTTP config's response bound, at its default (HTTP_MAX_RESPONSE_BYTES): only the page's SQL is wanted.
  const service = new ResourceQueryService(new ResourceQueryRepository(db), { maxResponseBytes: 64 * 1_048_576 });
  const dto = {};
  const variables = new Map();
  for (const [name, value] of params) {
    if (name === 'where' || name === 'sort') (dto[name] ??= []).push(value);
    else if (name === 'limit') dto.limit = Number(value);
    else if (name === 'withTotal') dto.withTotal = value === 'true';
    else if (name.startsWith('var.')) variables.set(name.slice(4), [...(variables.get(name.slice(4)) ?? []), value]);
  }
  await service.query(PROJECT, dto, variables);
  return captured;
}

if (isMain) {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  let service;
  try {
    service = await startService({ dist: SERVICE_DIST, databaseUrl: DATABASE_URL, client: CLIENT });
    log(`service ready at ${service.url} (${SERVICE_DIST})`);
    await client.connect();
    const seeded = (await seedProject(client, PROJECT, 42)) | (await seedProject(client, OTHER_PROJECT, 43));
    if (seeded) await client.query('VACUUM ANALYZE resource');
    const { rows: deep } = await client.query(
      `SELECT id::text FROM resource WHERE project_key = $1 ORDER BY id OFFSET $2 LIMIT 200`,
      [PROJECT, Math.floor(COUNT * 0.9)],
    );
    const auth = await fetchToken(service.url, CLIENT);
    const all = scenarios(deep.map((row) => row.id));
    const results = [];
    for (const [name, build] of Object.entries(all)) results.push(await measure(service.url, auth, name, build));
    console.log(`\nsorted-query-parameters over ${COUNT} resources (and ${COUNT} in another project), ${REQUESTS} sequential requests per scenario (after ${WARMUP} warm-up):`);
    console.log('scenario     p50 ms   p95 ms   p99 ms   mean count   mean total');
    for (const r of results) {
      console.log(`${r.name.padEnd(10)} ${r.p50.toFixed(1).padStart(8)} ${r.p95.toFixed(1).padStart(8)} ${r.p99.toFixed(1).padStart(8)}   ${String(r.meanCount).padStart(10)}   ${r.name === 'deep-page' ? '(withTotal=false)' : r.meanTotal}`);
    }
    const worst = Math.max(...results.map((r) => r.p95));
    console.log(`target: every p95 < ${TARGET_P95_MS} ms on PostgreSQL → ${worst < TARGET_P95_MS ? 'met' : 'NOT met'} (worst p95 ${worst.toFixed(1)} ms)`);

    console.log('\nEXPLAIN (ANALYZE) of the service\'s SQL for the first four scenarios:');
    for (const name of ['key', 'version', 'any', 'nested']) {
      const params = all[name]();
      const { text, values } = await capturedSql(params);
      const { rows } = await client.query(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) ${text}`, values);
      const plan = rows.map((row) => row['QUERY PLAN']);
      const indexes = [...new Set(plan.join('\n').match(/resource_\w+/g) ?? [])];
      console.log(`\n--- ${name}: ${params.map(([k, v]) => `${k}=${v}`).join('&')}`);
      console.log(`indexes used: ${indexes.length ? indexes.join(', ') : 'NONE'}`);
      console.log(plan.map((line) => `  ${line}`).join('\n'));
    }
  } finally {
    await client.end().catch(() => {});
    await stopService(service);
  }
}

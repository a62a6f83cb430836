// Search benchmark: GET /{projectKey}/resource/searchApiPattern over 100,000 resources.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/<your db> [SERVICE_DIST=dist] node bench/search.mjs
//
// Starts `node $SERVICE_DIST/src/main.js` on that database (its migrations run at start-up), seeds
// SEARCH_BENCH_COUNT (default 100,000) resources by SQL in project `bench-search` (skipped when the
// project already holds that many), then times sequential requests (SEARCH_BENCH_REQUESTS per scenario,
// default 300, after 30 warm-up requests) and prints p50/p95/p99 per scenario:
//   text    text.en=<word>                       words of mid frequency, rotating
//   fuzzy   text.en=<word with one typo>&fuzzy=true
//   facets  text.en=<word> + filter.query + filter + a terms, a range and a filtered facet
// SEARCH_BENCH_SLOWEST=<n> logs the n slowest requests of each scenario; SEARCH_BENCH_SCENARIOS=facets,…
// runs only those.
// Texts are English sentences drawn from a Zipf distribution over ~400 common words, so a query word
// matches a realistic share of the resources (the mean `total` per scenario is printed too).
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { fetchToken, startService } from './service.mjs';

const DATABASE_URL = process.env.DATABASE_URL;
const SERVICE_DIST = process.env.SERVICE_DIST ?? 'dist';
const COUNT = Number(process.env.SEARCH_BENCH_COUNT ?? 100_000);
const REQUESTS = Number(process.env.SEARCH_BENCH_REQUESTS ?? 300);
const WARMUP = 30;
const PROJECT = 'bench-search';
const CLIENT_ID = 'bench-search-client';
const CLIENT_SECRET = 'bench-search-secret-0123456789';
const CLIENT = { projectKey: PROJECT, id: CLIENT_ID, secret: CLIENT_SECRET, scopes: `manage_test:${PROJECT} view_test:${PROJECT}` };
const TARGET_P95_MS = 50;

if (!DATABASE_URL) {
  console.error('Set DATABASE_URL to a PostgreSQL database you created (createdb …).');
  process.exit(2);
}

const WORDS = `time person year way day thing man world life hand part child eye woman place work week case point government
company number group problem fact water room mother area money story month lot right study book job word business issue side
kind head house service friend father power hour game line end member law car city community name president team minute idea
kid body information back parent face others level office door health art war history party result change morning reason research
girl guy moment air teacher force education foot boy age policy process music market sense nation plan college interest death
experience effect use class control care field development role effort rate heart drug show leader light voice wife police mind
price report decision son view relationship town road arm difference value building action model season society tax director
position player record paper space ground form event official matter center couple site project activity star table need court
oil situation cost industry figure street image phone data picture practice piece land product doctor wall patient worker news
test movie north love support technology step baby computer type attention film tree source organization hair window evidence
population site garden river mountain forest ocean island bridge castle village kitchen bread cheese apple orange lemon coffee
tea sugar salt pepper butter chicken fish horse dog cat bird flower summer winter spring autumn rain snow wind cloud storm sun
moon planet rocket engine wheel bicycle train station airport ticket journey travel holiday hotel beach shell sand wave boat ship
harbor captain sailor anchor compass map treasure gold silver iron copper stone marble glass paint color red blue green yellow
purple white black brown bright dark quiet loud fast slow happy sad strong weak young old new ancient modern simple complex
running walking reading writing singing dancing cooking building painting swimming climbing driving flying sleeping thinking
learning teaching playing working growing falling rising opening closing breaking making taking giving finding keeping leaving
calling trying asking turning moving living believing holding bringing happening standing losing paying meeting including
continuing setting changing leading understanding watching following stopping creating speaking spending allowing adding
offering remembering loving considering appearing buying waiting serving dying sending expecting staying reaching killing
raising passing selling requiring reporting deciding pulling elephant tiger lion zebra giraffe monkey rabbit turtle dolphin
whale shark eagle falcon owl sparrow penguin kangaroo koala panda wolf fox bear deer moose bison camel donkey goat sheep`
  .split(/\s+/)
  .filter(Boolean);

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

/** Zipf(s = 1) over the word list: word i is drawn with weight 1 / (i + 1). */
const CUMULATIVE = (() => {
  let sum = 0;
  return WORDS.map((_, i) => (sum += 1 / (i + 1)));
})();
function zipfWord(rand) {
  const x = rand() * CUMULATIVE[CUMULATIVE.length - 1];
  let lo = 0;
  let hi = CUMULATIVE.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (CUMULATIVE[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return WORDS[lo];
}
const sentence = (rand, min, max) => Array.from({ length: min + Math.floor(rand() * (max - min + 1)) }, () => zipfWord(rand)).join(' ');

function resourceRow(i, rand) {
  const ints = Array.from({ length: 1 + Math.floor(rand() * 6) }, () => Math.floor(rand() * 1000));
  const strings = Array.from({ length: 2 + Math.floor(rand() * 4) }, () => sentence(rand, 1, 3));
  const objects = Array.from({ length: Math.floor(rand() * 3) }, () =>
    `{"integerExample":${rand() < 0.1 ? '9223372036854775807' : Math.floor(rand() * 1e12) - 5e11},"integerExampleInt32":${Math.floor(rand() * 1000)}}`,
  );
  const otp =
    `{"arrayOfIntExample":[${ints}],"arrayOfUniqueIntExample":[${[...new Set(ints)]}],"arrayOfTwonumbersExample":[${rand()},${rand()}],` +
    `"arrayOfFloatExample":[${rand() * 100}],"arrayOfNumberNoDefaultsExample":[],"arrayOfStringExample":${JSON.stringify(strings)},` +
    `"arrayOfObjectType":[${objects}]}`;
  return { key: `s${i}`, published: rand() < 0.9, otp, some: sentence(rand, 6, 14), second: rand() < 0.5 ? sentence(rand, 3, 8) : null };
}

async function seed(client) {
  const { rows } = await client.query('SELECT count(*)::int AS n FROM resource WHERE project_key = $1', [PROJECT]);
  if (rows[0].n === COUNT) {
    log(`project ${PROJECT} already holds ${COUNT} resources; not seeding`);
    return;
  }
  await client.query('DELETE FROM resource WHERE project_key = $1', [PROJECT]);
  const rand = random(42);
  const started = performance.now();
  const BATCH = 1000;
  for (let from = 0; from < COUNT; from += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, COUNT - from) }, (_, j) => resourceRow(from + j, rand));
    await client.query(
      `INSERT INTO resource (id, project_key, key, version, created_at, last_modified_at, created_by, last_modified_by, published,
                             object_type_property, some_property, second_property_to_update)
       SELECT gen_random_uuid(), $1, k, 1, now(), now(), '{"clientId":"seed"}', '{"clientId":"seed"}', p, o::jsonb, s, t
       FROM unnest($2::text[], $3::boolean[], $4::text[], $5::text[], $6::text[]) AS x(k, p, o, s, t)`,
      [PROJECT, batch.map((r) => r.key), batch.map((r) => r.published), batch.map((r) => r.otp), batch.map((r) => r.some), batch.map((r) => r.second)],
    );
  }
  // VACUUM as well: the measurement starts on a settled database (visibility map and hint bits set, GIN
  // pending lists merged), not racing the autovacuum the 900,000 new rows would start.
  await client.query('VACUUM ANALYZE resource');
  await client.query('VACUUM ANALYZE search_word');
  await client.query('VACUUM ANALYZE resource_search');
  log(`seeded ${COUNT} resources in ${Math.round(performance.now() - started)} ms`);
}

function log(message) {
  process.stderr.write(`[search-bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}


/** Words of mid frequency (ranks 40–240 of the Zipf list) and one-typo variants of them. */
const QUERY_WORDS = WORDS.slice(40, 240).filter((w) => w.length >= 5);
const typo = (word, i) => word.slice(0, i % (word.length - 1) + 1) + word.slice((i % (word.length - 1)) + 2);
const enc = encodeURIComponent;
const SCENARIOS = {
  text: (i) => `text.en=${enc(QUERY_WORDS[i % QUERY_WORDS.length])}`,
  fuzzy: (i) => `text.en=${enc(typo(QUERY_WORDS[i % QUERY_WORDS.length], i))}&fuzzy=true`,
  facets: (i) =>
    `text.en=${enc(QUERY_WORDS[i % QUERY_WORDS.length])}` +
    `&filter.query=${enc('objectTypeProperty.arrayOfIntExample:range (100 to 900)')}` +
    `&filter=${enc('objectTypeProperty.arrayOfObjectType.integerExample:exists')}` +
    `&facet=${enc('objectTypeProperty.arrayOfStringExample')}` +
    `&facet=${enc('objectTypeProperty.arrayOfIntExample:range (* to 250), (250 to 500), (500 to *)')}` +
    `&facet=${enc(`objectTypeProperty.arrayOfObjectType.integerExample:9223372036854775807 counting resources as max`)}`,
};

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function measure(url, auth, name, build) {
  const times = [];
  const slowest = [];
  let totals = 0;
  for (let i = 0; i < WARMUP + REQUESTS; i++) {
    const started = performance.now();
    const res = await fetch(`${url}/${PROJECT}/resource/searchApiPattern?${build(i)}`, { headers: { authorization: `Bearer ${auth}` } });
    const text = await res.text();
    const elapsed = performance.now() - started;
    if (res.status !== 200) throw new Error(`${name}: ${res.status} ${text.slice(0, 500)}`);
    if (i >= WARMUP) {
      times.push(elapsed);
      slowest.push({ ms: elapsed, query: decodeURIComponent(build(i)), total: Number(/"total":(\d+)/.exec(text)[1]) });
      totals += Number(/"total":(\d+)/.exec(text)[1]);
    }
  }
  times.sort((a, b) => a - b);
  if (process.env.SEARCH_BENCH_SLOWEST) {
    for (const slow of slowest.sort((a, b) => b.ms - a.ms).slice(0, Number(process.env.SEARCH_BENCH_SLOWEST))) {
      log(`${name} slow: ${slow.ms.toFixed(1)} ms, total ${slow.total}: ${slow.query}`);
    }
  }
  return { name, p50: percentile(times, 50), p95: percentile(times, 95), p99: percentile(times, 99), meanTotal: Math.round(totals / REQUESTS) };
}

const client = new pg.Client({ connectionString: DATABASE_URL });
let service;
try {
  service = await startService({ dist: SERVICE_DIST, databaseUrl: DATABASE_URL, client: CLIENT });
  log(`service ready at ${service.url} (${SERVICE_DIST})`);
  await client.connect();
  await seed(client);
  const auth = await fetchToken(service.url, CLIENT);
  const results = [];
  const only = process.env.SEARCH_BENCH_SCENARIOS?.split(',');
  for (const [name, build] of Object.entries(SCENARIOS)) if (!only || only.includes(name)) results.push(await measure(service.url, auth, name, build));
  console.log(`\nsearchApiPattern over ${COUNT} resources, ${REQUESTS} sequential requests per scenario (after ${WARMUP} warm-up):`);
  console.log('scenario   p50 ms   p95 ms   p99 ms   mean total matches');
  for (const r of results) {
    console.log(`${r.name.padEnd(8)} ${r.p50.toFixed(1).padStart(8)} ${r.p95.toFixed(1).padStart(8)} ${r.p99.toFixed(1).padStart(8)}   ${r.meanTotal}`);
  }
  const worst = Math.max(...results.map((r) => r.p95));
  console.log(`target: p95 < ${TARGET_P95_MS} ms on PostgreSQL → ${worst < TARGET_P95_MS ? 'met' : 'NOT met'} (worst p95 ${worst.toFixed(1)} ms)`);
} finally {
  await client.end().catch(() => {});
  if (service) {
    service.child.kill('SIGTERM');
    await Promise.race([new Promise((r) => service.child.once('exit', r)), sleep(10_000)]);
    if (service.child.exitCode === null) service.child.kill('SIGKILL');
  }
}

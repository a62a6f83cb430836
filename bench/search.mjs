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
// Texts are sentences drawn from a Zipf distribution (word of rank r with weight 1/r) over a vocabulary:
//   SEARCH_BENCH_VOCABULARY=large    (default) SEARCH_BENCH_WORDS (default 60,000) generated words: pronounceable
//                                    syllable combinations, a–z, 3–12 letters, from a seeded PRNG (the same every
//                                    run); query words are drawn log-uniformly by rank from rank 20 to the end, so
//                                    frequent and rare words both occur; fuzzy queries carry one typo (3–5 letters)
//                                    or one or two (6 or more).
//   SEARCH_BENCH_VOCABULARY=english  ~400 common English words; query words of mid frequency (ranks 40–240),
//                                    fuzzy queries with one typo.
// Each vocabulary has its own project, so both can live in one database. The mean `total` per scenario and
// the project's vocabulary size (`search_word` rows) are printed too.
import pg from 'pg';
import { fetchToken, isMainModule, startService, stopService } from './service.mjs';

const DATABASE_URL = process.env.DATABASE_URL;
const SERVICE_DIST = process.env.SERVICE_DIST ?? 'dist';
const COUNT = Number(process.env.SEARCH_BENCH_COUNT ?? 100_000);
export const REQUESTS = Number(process.env.SEARCH_BENCH_REQUESTS ?? 300);
const WARMUP = 30;
const VOCABULARY = process.env.SEARCH_BENCH_VOCABULARY ?? 'large';
const VOCABULARY_SIZE = Number(process.env.SEARCH_BENCH_WORDS ?? 60_000);
const PROJECT = VOCABULARY === 'english' ? 'bench-search' : 'bench-search-large';
const CLIENT_ID = `${PROJECT}-client`;
const CLIENT_SECRET = 'bench-search-secret-0123456789';
const CLIENT = { projectKey: PROJECT, id: CLIENT_ID, secret: CLIENT_SECRET, scopes: `manage_test:${PROJECT} view_test:${PROJECT}` };
const TARGET_P95_MS = 50;
/** The seed of the corpus's generator: the same resources every run. */
export const CORPUS_SEED = 42;
// Imported (bench/scale.mjs grows this corpus and runs these scenarios), this file does not run.
const isMain = isMainModule(import.meta.url);

if (isMain && !DATABASE_URL) {
  console.error('Set DATABASE_URL to a PostgreSQL database you created (createdb …).');
  process.exit(2);
}
if (VOCABULARY !== 'english' && VOCABULARY !== 'large') {
  console.error('SEARCH_BENCH_VOCABULARY is english or large.');
  process.exit(2);
}

/** Deterministic pseudo-random numbers (mulberry32). */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ENGLISH_WORDS = `time person year way day thing man world life hand part child eye woman place work week case point government
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

const ONSETS = ['', '', 'b', 'c', 'd', 'f', 'g', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'w', 'z',
  'br', 'ch', 'cl', 'cr', 'dr', 'fl', 'gr', 'pl', 'pr', 'sh', 'sl', 'st', 'th', 'tr'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'a', 'e', 'i', 'o', 'ai', 'ea', 'ee', 'oo', 'ou', 'y'];
const CODAS = ['', '', '', '', 'n', 'r', 's', 'l', 't', 'm', 'nd', 'ng', 'rt', 'st', 'ck', 'x'];
const SYLLABLES = [1, 2, 2, 2, 3, 3, 3, 4];

/**
 * `size` distinct pronounceable words of 3–12 letters a–z, the same every run (seeded), in a random
 * order that is also their Zipf rank.
 */
function generatedWords(size) {
  const rand = random(7);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const words = new Set();
  while (words.size < size) {
    let word = '';
    for (let n = pick(SYLLABLES); n > 0; n--) word += pick(ONSETS) + pick(VOWELS) + pick(CODAS);
    if (word.length >= 3 && word.length <= 12) words.add(word);
  }
  return [...words];
}

const WORDS = VOCABULARY === 'english' ? ENGLISH_WORDS : generatedWords(VOCABULARY_SIZE);

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
  const started = performance.now();
  await insertResources(client, PROJECT, 0, COUNT, random(CORPUS_SEED));
  // VACUUM as well: the measurement starts on a settled database (visibility map and hint bits set, GIN
  // pending lists merged), not racing the autovacuum the 900,000 new rows would start.
  await client.query('VACUUM ANALYZE resource');
  await client.query('VACUUM ANALYZE search_word');
  await client.query('VACUUM ANALYZE resource_search');
  log(`seeded ${COUNT} resources in ${Math.round(performance.now() - started)} ms`);
}

/**
 * Inserts the corpus's resources `from` to `to` - 1 (keys s<from>…) in `project` by SQL, 1,000 a statement;
 * `rand` is the corpus's generator, `random(CORPUS_SEED)` at 0, carried on from one call to the next.
 */
export async function insertResources(client, project, from, to, rand) {
  const BATCH = 1000;
  for (let at = from; at < to; at += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, to - at) }, (_, j) => resourceRow(at + j, rand));
    await client.query(
      `INSERT INTO resource (id, project_key, key, version, created_at, last_modified_at, created_by, last_modified_by, published,
                             object_type_property, some_property, second_property_to_update)
       SELECT gen_random_uuid(), $1, k, 1, now(), now(), '{"clientId":"seed"}', '{"clientId":"seed"}', p, o::jsonb, s, t
       FROM unnest($2::text[], $3::boolean[], $4::text[], $5::text[], $6::text[]) AS x(k, p, o, s, t)`,
      [project, batch.map((r) => r.key), batch.map((r) => r.published), batch.map((r) => r.otp), batch.map((r) => r.some), batch.map((r) => r.second)],
    );
  }
}

function log(message) {
  process.stderr.write(`[search-bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}


/**
 * The words the scenarios search for, in order. English: words of mid frequency (ranks 40–240 of the Zipf
 * list). Large: ranks drawn log-uniformly between 20 and the vocabulary's end (as many queries for ranks
 * 20–200 as for 200–2,000 or 2,000–20,000), so frequent words and rare ones both occur; words that are
 * English stop words (`english` ignores them) are skipped.
 */
export async function queryWords(client) {
  if (VOCABULARY === 'english') return WORDS.slice(40, 240).filter((w) => w.length >= 5);
  const rand = random(99);
  const drawn = Array.from({ length: WARMUP + REQUESTS }, () => WORDS[Math.floor(20 * Math.pow(WORDS.length / 20, rand()))]);
  const { rows } = await client.query(
    `SELECT w FROM unnest($1::text[]) WITH ORDINALITY AS x(w, n) WHERE numnode(plainto_tsquery('english', w)) > 0 ORDER BY n`,
    [drawn],
  );
  return rows.map((r) => r.w);
}

/** One edit at a random place: a letter removed, added or replaced by another (3 letters: added or replaced). */
function typo(word, rand) {
  const at = Math.floor(rand() * word.length);
  const letter = String.fromCharCode(97 + Math.floor(rand() * 26));
  const op = word.length > 3 ? Math.floor(rand() * 3) : 1 + Math.floor(rand() * 2);
  if (op === 0) return word.slice(0, at) + word.slice(at + 1);
  if (op === 1) return word.slice(0, at) + letter + word.slice(at);
  const other = letter === word[at] ? String.fromCharCode(97 + ((letter.charCodeAt(0) - 96) % 26)) : letter;
  return word.slice(0, at) + other + word.slice(at + 1);
}

/**
 * The fuzzy scenario's word for request i. English: the request's word with one letter dropped. Large: one
 * typo, or two in half the words of 6 or more letters.
 */
function typoWords(words) {
  if (VOCABULARY === 'english') {
    return (i) => {
      const w = words[i % words.length];
      return w.slice(0, (i % (w.length - 1)) + 1) + w.slice((i % (w.length - 1)) + 2);
    };
  }
  const rand = random(5);
  const typos = words.map((w) => {
    const once = typo(w, rand);
    return w.length >= 6 && rand() < 0.5 ? typo(once, rand) : once;
  });
  return (i) => typos[i % typos.length];
}

const enc = encodeURIComponent;
export const scenarios = (words, typoWord) => ({
  text: (i) => `text.en=${enc(words[i % words.length])}`,
  fuzzy: (i) => `text.en=${enc(typoWord(i))}&fuzzy=true`,
  facets: (i) =>
    `text.en=${enc(words[i % words.length])}` +
    `&filter.query=${enc('objectTypeProperty.arrayOfIntExample:range (100 to 900)')}` +
    `&filter=${enc('objectTypeProperty.arrayOfObjectType.integerExample:exists')}` +
    `&facet=${enc('objectTypeProperty.arrayOfStringExample')}` +
    `&facet=${enc('objectTypeProperty.arrayOfIntExample:range (* to 250), (250 to 500), (500 to *)')}` +
    `&facet=${enc(`objectTypeProperty.arrayOfObjectType.integerExample:9223372036854775807 counting resources as max`)}`,
});

export const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

export async function measure(url, auth, name, build, project = PROJECT) {
  const times = [];
  const slowest = [];
  let totals = 0;
  for (let i = 0; i < WARMUP + REQUESTS; i++) {
    const started = performance.now();
    const res = await fetch(`${url}/${project}/resource/searchApiPattern?${build(i)}`, { headers: { authorization: `Bearer ${auth}` } });
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

if (isMain) {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  let service;
  try {
    service = await startService({ dist: SERVICE_DIST, databaseUrl: DATABASE_URL, client: CLIENT });
    log(`service ready at ${service.url} (${SERVICE_DIST})`);
    await client.connect();
    await seed(client);
    const vocabulary = (await client.query('SELECT count(*)::int AS n FROM search_word WHERE project_key = $1', [PROJECT])).rows[0].n;
    const words = await queryWords(client);
    const auth = await fetchToken(service.url, CLIENT);
    const results = [];
    const only = process.env.SEARCH_BENCH_SCENARIOS?.split(',');
    for (const [name, build] of Object.entries(scenarios(words, typoWords(words)))) if (!only || only.includes(name)) results.push(await measure(service.url, auth, name, build));
    console.log(`\nsearchApiPattern over ${COUNT} resources, ${REQUESTS} sequential requests per scenario (after ${WARMUP} warm-up):`);
    console.log(`vocabulary: ${VOCABULARY}, ${vocabulary} distinct words in search_word of project ${PROJECT}`);
    console.log('scenario   p50 ms   p95 ms   p99 ms   mean total matches');
    for (const r of results) {
      console.log(`${r.name.padEnd(8)} ${r.p50.toFixed(1).padStart(8)} ${r.p95.toFixed(1).padStart(8)} ${r.p99.toFixed(1).padStart(8)}   ${r.meanTotal}`);
    }
    const worst = Math.max(...results.map((r) => r.p95));
    console.log(`target: p95 < ${TARGET_P95_MS} ms on PostgreSQL → ${worst < TARGET_P95_MS ? 'met' : 'NOT met'} (worst p95 ${worst.toFixed(1)} ms)`);
  } finally {
    await client.end().catch(() => {});
    await stopService(service);
  }
}

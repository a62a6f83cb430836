import { createTestApp, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { draft } from '../support/fixtures.js';
import { createResource, searchPath } from '../support/resources.js';
import { Database } from '../../src/database/database.js';
import { SearchRepository } from '../../src/search/search.repository.js';

/**
 * Fuzzy search's neighbour lookup (SearchRepository.findNeighbours: a trigram index for plain words,
 * lengths for the others) against a brute-force Levenshtein over the same vocabulary: the same words
 * in the same order (distance, then byte-wise), at most 20, for both levels, on a vocabulary of a few
 * thousand generated words with hyphens, dots and non-ASCII letters among them.
 */

/** Deterministic pseudo-random numbers (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rand = random(20251125);
const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];
const PLAIN = 'abcdefghijklmnopqrstuvwxyz'.split('');
/** Mostly a–z; sometimes a character pg_trgm does not read as an ASCII letter. */
const letter = () => (rand() < 0.06 ? pick(['-', '.', 'ä', 'ö', 'ü', 'ß', 'é', 'ñ']) : pick(PLAIN));

/** One edit at a random place: a character removed, added or replaced. */
function edit(word: string): string {
  const chars = [...word];
  const at = Math.floor(rand() * (chars.length + 1));
  const op = chars.length > 1 ? Math.floor(rand() * 3) : 1;
  if (op === 0) chars.splice(Math.min(at, chars.length - 1), 1);
  else if (op === 1) chars.splice(at, 0, letter());
  else chars[Math.min(at, chars.length - 1)] = letter();
  return chars.join('');
}

const randomWord = (min: number, max: number) => Array.from({ length: min + Math.floor(rand() * (max - min + 1)) }, letter).join('');

/** Levenshtein distance over code points (as fuzzystrmatch counts characters). */
function levenshtein(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++) current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[y.length];
}

const byteWise = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** What fuzzy search must find: every other word within distance k, nearest first, then byte-wise, at most 20. */
function bruteForce(vocabulary: string[], word: string, k: number): string[] {
  return vocabulary
    .filter((w) => w !== word)
    .map((w) => ({ w, d: levenshtein(w, word) }))
    .filter((c) => c.d <= k)
    .sort((a, b) => a.d - b.d || byteWise(a.w, b.w))
    .slice(0, 20)
    .map((c) => c.w);
}

describe('fuzzy search: neighbours of a word', () => {
  let t: TestApp;
  let pk: string;
  let vocabulary: string[];

  /** Words the tests name: plain words next to hyphenated and non-ASCII ones, repeated letters, a crowd of 3-letter words. */
  const NAMED = [
    'hauser', 'häuser', 'haeuser', 'hauser-x', 'foobar', 'foo-bar', 'foo-baz', 'fobar', 'strasse', 'straße', 'strase', 'cafe', 'café', 'cafés',
    'aaaa', 'aaaaa', 'aaaaaaa', 'aaaaaaaa', 'aaaabaaa', 'ababab', 'abababab', 'a.b', 'e-mail', 'email', 'emails',
    ...PLAIN.map((c) => `${c}at`),
  ];

  beforeAll(async () => {
    t = await createTestApp();
    pk = uniqueProjectKey('fuzzy-vocab');
    // Clusters: a base word and words one or two edits away from it, so most queries have neighbours.
    const words = new Set<string>(NAMED);
    while (words.size < 3000) {
      const base = randomWord(3, 13);
      words.add(base);
      for (let n = Math.floor(rand() * 5); n > 0; n--) words.add(rand() < 0.5 ? edit(base) : edit(edit(base)));
    }
    const db = t.app.get(Database);
    const insert = 'INSERT INTO search_word (project_key, word) SELECT $1, w FROM unnest($2::text[]) AS w WHERE char_length(w) BETWEEN 1 AND 64 ON CONFLICT DO NOTHING';
    await db.query(insert, [pk, [...words]]);
    // Another project's words next to these: never neighbours here.
    await db.query(insert, [uniqueProjectKey('fuzzy-other'), [...words].map((w) => `${w}q`)]);
    // Resources add their words through the write trigger, as in production.
    for (const [key, text] of [
      ['hyphen', 'a foo-bar and a well-known e-mail'],
      ['umlaut', 'Häuser und Straßen'],
      ['plain', 'elephant tiger'],
    ]) {
      await createResource(t, pk, draft({ key }, { arrayOfStringExample: [text] }));
    }
    vocabulary = (await db.query<{ word: string }>('SELECT word FROM search_word WHERE project_key = $1', [pk])).map((r) => r.word);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** findNeighbours for every query at distance k, 20 words per call (a text has at most 20 words). */
  async function lookUp(queries: string[], k: number): Promise<string[][]> {
    const found: string[][] = [];
    for (let from = 0; from < queries.length; from += 20) {
      const batch = queries.slice(from, from + 20).map((word) => ({ word, distance: k }));
      found.push(...(await t.app.get(SearchRepository).findNeighbours(pk, batch)));
    }
    return found;
  }

  async function expectExact(queries: string[], k: number) {
    const found = await lookUp(queries, k);
    const mismatches = queries.flatMap((q, i) => {
      const expected = bruteForce(vocabulary, q, k);
      return JSON.stringify(found[i]) === JSON.stringify(expected) ? [] : [{ q, k, found: found[i], expected }];
    });
    expect(mismatches).toEqual([]);
  }

  it('holds the words written by resources too', () => {
    expect(vocabulary).toEqual(expect.arrayContaining(['foo-bar', 'well-known', 'häuser', 'straßen', 'elephant']));
    expect(vocabulary.length).toBeGreaterThanOrEqual(3000);
  });

  it.each([1, 2])('finds exactly the words within distance %i of random words (typos of vocabulary words and new words)', async (k) => {
    const queries = Array.from({ length: 300 }, () => {
      const r = rand();
      if (r < 0.15) return randomWord(1, 14);
      const word = pick(vocabulary);
      return r < 0.25 ? word : r < 0.7 ? edit(word) : edit(edit(word));
    }).filter((w) => w.length > 0);
    await expectExact(queries, k);
  });

  it.each([1, 2])('finds exactly the words within distance %i of hyphenated, non-ASCII, repeated-letter and short words', async (k) => {
    const queries = [...NAMED, 'hauzer', 'häuzer', 'fooba', 'foo-ba', 'strasze', 'aaa', 'aaaaaa', 'bbbbbbb', 'xat', 'at', 'a', 'ca', 'elefant', 'straßn'];
    await expectExact(queries, k);
  });

  it('stops at 20 neighbours, nearest first then byte-wise', async () => {
    const [neighbours] = await lookUp(['zat'], 1);
    expect(neighbours).toEqual(bruteForce(vocabulary, 'zat', 1));
    expect(neighbours).toHaveLength(20);
    expect(neighbours).toEqual(expect.arrayContaining(['bat', 'cat']));
  });

  it('serves the HTTP fuzzy search: a typo across a hyphen and one next to a non-ASCII letter', async () => {
    const auth = await t.auth('view_test', { projectKey: pk });
    const keys = async (text: string) =>
      (await t.http.get(searchPath(pk)).query({ 'text.en': text, fuzzy: 'true' }).set(auth).expect(200)).body.results.map((r: { key: string }) => r.key);
    expect(await keys('foo-baar')).toEqual(['hyphen']);
    expect(await keys('hauser')).toEqual(['umlaut']);
    expect(await keys('elephnt')).toEqual(['plain']);
  });
});

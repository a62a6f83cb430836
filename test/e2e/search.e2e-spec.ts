import type { Response } from 'supertest';
import { createTestApp, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { draft, INT64_MAX, INT64_MIN, type ResourceBody } from '../support/fixtures.js';
import { expectErrorEnvelope } from '../support/expect-error.js';
import { createResource, searchPath } from '../support/resources.js';
import { parseJson } from '../../src/common/lossless-json.js';
import { Database } from '../../src/database/database.js';

/**
 * Black-box tests of GET /{projectKey}/resource/searchApiPattern (docs/rules.md#search and
 * "Further precisions"). Each area seeds a project of its own, so counts are exact.
 */

type Params = Array<[string, string | number | boolean]>;

const qs = (params: Params): string => params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&');

/** Arrays that hold nothing a test filters on, unless given. */
function neutral(strings: string[], arrays: Record<string, unknown> = {}, fields: Record<string, unknown> = {}) {
  return draft(fields, {
    arrayOfIntExample: [],
    arrayOfUniqueIntExample: [],
    arrayOfTwonumbersExample: [0, 0],
    arrayOfFloatExample: [],
    arrayOfNumberNoDefaultsExample: [],
    arrayOfStringExample: strings,
    arrayOfObjectType: [],
    ...arrays,
  });
}

describe('GET /{projectKey}/resource/searchApiPattern', () => {
  let t: TestApp;

  beforeAll(async () => {
    // Every language with stemming of its own (the default indexes English alone: search-languages.e2e-spec.ts).
    t = await createTestApp({ SEARCH_LANGUAGES: 'en,de,fr,es,it,nl,pt' });
  });
  afterAll(async () => {
    await t.close();
  });

  const create = (pk: string, body: object | string): Promise<ResourceBody> => createResource(t, pk, body);

  async function search(pk: string, params: Params): Promise<Response> {
    return t.http.get(`${searchPath(pk)}?${qs(params)}`).set(await t.auth('view_test', { projectKey: pk }));
  }

  /** A successful search: the body, with 64-bit integers as bigint. */
  async function ok(pk: string, params: Params): Promise<any> {
    const res = await search(pk, params);
    expect({ status: res.status, body: res.status === 200 ? 'ok' : res.body }).toEqual({ status: 200, body: 'ok' });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    return parseJson(res.text);
  }

  const keysOf = (body: any): Array<string | undefined> => body.results.map((r: ResourceBody) => r.key);
  const sortedKeys = (body: any) => keysOf(body).sort();

  async function bad(pk: string, params: Params, field: string, code = 'InvalidInput'): Promise<Response> {
    const res = await search(pk, params);
    expectErrorEnvelope(res, 400, code);
    expect(res.body.errors[0].message).toMatch(new RegExp(`^Malformed parameter: ${field.replace(/\./g, '\\.')}: `));
    return res;
  }

  describe('full text', () => {
    let pk: string;
    beforeAll(async () => {
      pk = uniqueProjectKey('text');
      const docs: Array<[string, string[]]> = [
        ['en-run', ['I run every morning']],
        ['en-shoes', ['running shoes']],
        ['en-walk', ['walking']],
        ['de-haus', ['Das Haus ist groß']],
        ['fr-cheval', ['un cheval blanc']],
        ['es-correr', ['correr es sano']],
        ['it-parlare', ['parlare piano']],
        ['nl-boek', ['een boek lezen']],
        ['pt-falar', ['falar devagar']],
        ['mixed', ['running', 'Häuser']],
        ['rank-single', ['zucchini']],
        ['rank-triple', ['zucchini zucchini zucchini soup']],
        ['zucchini-pie', ['dessert']],
      ];
      for (const [key, strings] of docs) await create(pk, neutral(strings, {}, { key }));
      await create(pk, neutral(['hidden treasure'], {}, { key: 'draft', publish: false }));
      await create(uniqueProjectKey('other'), neutral(['running treasure'], {}, { key: 'elsewhere' }));
    });

    it('stems English: running finds run, runs and running', async () => {
      expect(sortedKeys(await ok(pk, [['text.en', 'running']]))).toEqual(['en-run', 'en-shoes', 'mixed']);
      expect(sortedKeys(await ok(pk, [['text.en', 'runs']]))).toEqual(['en-run', 'en-shoes', 'mixed']);
    });

    it('stems German: Häuser finds Haus (text.de and text.de-DE)', async () => {
      expect(sortedKeys(await ok(pk, [['text.de', 'Häuser']]))).toEqual(['de-haus', 'mixed']);
      expect(sortedKeys(await ok(pk, [['text.de-DE', 'häuser']]))).toEqual(['de-haus', 'mixed']);
    });

    it.each([
      ['text.fr', 'chevaux', 'fr-cheval'],
      ['text.es', 'corriendo', 'es-correr'],
      ['text.it', 'parlando', 'it-parlare'],
      ['text.nl', 'boeken', 'nl-boek'],
      ['text.pt-BR', 'falando', 'pt-falar'],
    ])('stems %s: %s finds %s', async (parameter, word, key) => {
      expect(keysOf(await ok(pk, [[parameter, word]]))).toEqual([key]);
    });

    it('matches other languages word for word, without stemming (simple)', async () => {
      expect(sortedKeys(await ok(pk, [['text.sv', 'running']]))).toEqual(['en-shoes', 'mixed']);
      expect(keysOf(await ok(pk, [['text.ja', 'run']]))).toEqual(['en-run']);
    });

    it('requires every word of a text (AND)', async () => {
      expect(keysOf(await ok(pk, [['text.en', 'running shoes']]))).toEqual(['en-shoes']);
      expect(keysOf(await ok(pk, [['text.en', 'run, morning!']]))).toEqual(['en-run']);
      expect(keysOf(await ok(pk, [['text.en', 'running walking']]))).toEqual([]);
    });

    it('requires every text.* parameter (AND across languages and repeats)', async () => {
      expect(keysOf(await ok(pk, [['text.en', 'run'], ['text.de', 'Haus']]))).toEqual(['mixed']);
      expect(keysOf(await ok(pk, [['text.en', 'run'], ['text.en', 'shoe']]))).toEqual(['en-shoes']);
    });

    it('ranks by relevance: a match in the key first, then more occurrences', async () => {
      const body = await ok(pk, [['text.en', 'zucchini']]);
      expect(keysOf(body)).toEqual(['zucchini-pie', 'rank-triple', 'rank-single']);
      expect(body.total).toBe(3);
    });

    it('searches someProperty and secondPropertyToUpdate, and sees a write at once', async () => {
      const created = await create(pk, neutral([], {}, { key: 'props' }));
      const auth = await t.auth('manage_test', { projectKey: pk });
      const updated = await t.http
        .post(`/${pk}/resource/${created.id}`)
        .set(auth)
        .send({ version: 1, actions: [{ action: 'changeSomeProperty', someProperty: 'Sunflowers' }, { action: 'importFooForSecondPropertyToUpdate', secondPropertyToUpdate: 'tulips' }] });
      expect(updated.status).toBe(200);
      expect(keysOf(await ok(pk, [['text.en', 'sunflower']]))).toEqual(['props']);
      expect(keysOf(await ok(pk, [['text.en', 'tulip']]))).toEqual(['props']);
    });

    it('follows every write at once: a replaced text, a change of published alone, a delete', async () => {
      const auth = await t.auth('manage_test', { projectKey: pk });
      const put = async (strings: string[], publish: boolean) => {
        const res = await t.http.put(`/${pk}/resource`).set(auth).send(neutral(strings, {}, { key: 'sync', publish }));
        expect(res.status).toBe(201);
        return res.body as ResourceBody;
      };
      await put(['lighthouse'], true);
      expect(keysOf(await ok(pk, [['text.en', 'lighthouse']]))).toEqual(['sync']);

      await put(['windmill'], false);
      expect(keysOf(await ok(pk, [['text.en', 'lighthouse'], ['staged', 'true']]))).toEqual([]);
      expect(keysOf(await ok(pk, [['text.en', 'windmill']]))).toEqual([]);
      expect(keysOf(await ok(pk, [['text.en', 'windmill'], ['staged', 'true']]))).toEqual(['sync']);

      const published = await put(['windmill'], true);
      expect(keysOf(await ok(pk, [['text.en', 'windmill']]))).toEqual(['sync']);
      expect(keysOf(await ok(pk, [['text.nl', 'windmill']]))).toEqual(['sync']);

      const deleted = await t.http.delete(`/${pk}/resource/${published.id}?version=${published.version}`).set(auth);
      expect(deleted.status).toBe(200);
      // `total` counts the text index's rows: a row left behind by the delete would show there.
      expect(await ok(pk, [['text.en', 'windmill'], ['staged', 'true']])).toMatchObject({ total: 0, results: [] });
    });

    it('answers the results exactly as GET by id does', async () => {
      const body = await search(pk, [['text.en', 'walking']]);
      const id = (parseJson(body.text) as any).results[0].id;
      const single = await t.http.get(`/${pk}/resource/${id}`).set(await t.auth('view_test', { projectKey: pk }));
      expect(body.text).toContain(`"results":[${single.text}]`);
    });

    it('searches published resources unless staged=true', async () => {
      expect(keysOf(await ok(pk, [['text.en', 'treasure']]))).toEqual([]);
      expect(keysOf(await ok(pk, [['text.en', 'treasure'], ['staged', 'false']]))).toEqual([]);
      expect(keysOf(await ok(pk, [['text.en', 'treasure'], ['staged', 'true']]))).toEqual(['draft']);
    });

    it('never shows another project\'s resources', async () => {
      const body = await ok(pk, [['text.en', 'treasure'], ['staged', 'true'], ['facet', 'key']]);
      expect(keysOf(body)).toEqual(['draft']);
      expect(body.facets.key.terms).toEqual([{ term: 'draft', count: 1 }]);
    });

    it('refuses empty and oversized texts, ignores names that are not text.<lang>', async () => {
      await bad(pk, [['text.en', ' ,; ']], 'text.en', 'InvalidField');
      await bad(pk, [['text.en', 'a'.repeat(1001)]], 'text.en', 'InvalidField');
      await bad(pk, [['text.en', Array.from({ length: 21 }, (_, i) => `w${i}`).join(' ')]], 'text.en', 'InvalidField');
      const all = await ok(pk, [['text.english', 'zzz'], ['text.EN', 'zzz'], ['limit', 500]]);
      expect(all.total).toBe(14);
    });
  });

  describe('fuzzy', () => {
    let pk: string;
    beforeAll(async () => {
      pk = uniqueProjectKey('fuzzy');
      for (const [key, strings] of [
        ['elephant', ['elephant']],
        ['cat', ['cat']],
        ['ox', ['ox']],
        ['both', ['tiger lion']],
        ['run', ['I run daily']],
        ['running', ['running late']],
      ] as const) {
        await create(pk, neutral([...strings], {}, { key }));
      }
    });

    it('finds words within the default distance (2 for 6+ characters, 1 for 3–5)', async () => {
      expect(keysOf(await ok(pk, [['text.en', 'elephnt'], ['fuzzy', 'true']]))).toEqual(['elephant']);
      expect(keysOf(await ok(pk, [['text.en', 'elxphxnt'], ['fuzzy', 'true']]))).toEqual(['elephant']);
      expect(keysOf(await ok(pk, [['text.en', 'cot'], ['fuzzy', 'true']]))).toEqual(['cat']);
    });

    it('finds nothing beyond the distance', async () => {
      expect(keysOf(await ok(pk, [['text.en', 'elxphxnx'], ['fuzzy', 'true']]))).toEqual([]);
      expect(keysOf(await ok(pk, [['text.en', 'cxx'], ['fuzzy', 'true']]))).toEqual([]);
      expect(keysOf(await ok(pk, [['text.en', 'ax'], ['fuzzy', 'true']]))).toEqual([]);
      expect(keysOf(await ok(pk, [['text.en', 'elxphxnt'], ['fuzzy', 'true'], ['fuzzyLevel', 1]]))).toEqual([]);
      expect(keysOf(await ok(pk, [['text.en', 'elephnt'], ['fuzzy', 'true'], ['fuzzyLevel', 0]]))).toEqual([]);
    });

    it('judges each word by its own length', async () => {
      // The text has 11 characters (level 2), but "tigr" has 4 (level 1) and "lxxn" is 2 edits from "lion".
      expect(keysOf(await ok(pk, [['text.en', 'tigr lioon'], ['fuzzy', 'true']]))).toEqual(['both']);
      expect(keysOf(await ok(pk, [['text.en', 'tigr lxxn'], ['fuzzy', 'true']]))).toEqual([]);
    });

    it('combines typos with stemming: runing is one edit from running, whose stem run also finds "run"', async () => {
      expect(sortedKeys(await ok(pk, [['text.en', 'runing'], ['fuzzy', 'true']]))).toEqual(['run', 'running']);
      expect(sortedKeys(await ok(pk, [['text.en', 'runing']]))).toEqual([]);
    });

    it('is off without fuzzy=true; fuzzyLevel alone is validated and ignored', async () => {
      expect(keysOf(await ok(pk, [['text.en', 'elephnt']]))).toEqual([]);
      expect(keysOf(await ok(pk, [['text.en', 'elephnt'], ['fuzzyLevel', 1]]))).toEqual([]);
      expect(keysOf(await ok(pk, [['text.en', 'elephnt'], ['fuzzy', 'false'], ['fuzzyLevel', 2]]))).toEqual([]);
    });

    it.each([
      ['3', 'elephnt'],
      ['-1', 'elephnt'],
      ['1.5', 'elephnt'],
      ['abc', 'elephnt'],
      ['', 'elephnt'],
    ])('refuses fuzzyLevel=%j (not a whole number 0–2)', async (level, text) => {
      await bad(pk, [['text.en', text], ['fuzzy', 'true'], ['fuzzyLevel', level]], 'fuzzyLevel', 'InvalidField');
    });

    it('refuses a fuzzyLevel above the default for the text, with or without fuzzy', async () => {
      await bad(pk, [['text.en', 'cat'], ['fuzzy', 'true'], ['fuzzyLevel', 2]], 'fuzzyLevel', 'InvalidField');
      await bad(pk, [['text.en', 'ox'], ['fuzzy', 'true'], ['fuzzyLevel', 1]], 'fuzzyLevel', 'InvalidField');
      await bad(pk, [['text.en', 'cat'], ['fuzzyLevel', 2]], 'fuzzyLevel', 'InvalidField');
      expect(keysOf(await ok(pk, [['text.en', 'cot'], ['fuzzy', 'true'], ['fuzzyLevel', 1]]))).toEqual(['cat']);
      expect(keysOf(await ok(pk, [['text.en', 'ox'], ['fuzzy', 'true'], ['fuzzyLevel', 0]]))).toEqual(['ox']);
    });

    it('refuses fuzzy values other than true and false', async () => {
      await bad(pk, [['text.en', 'cat'], ['fuzzy', 'yes']], 'fuzzy', 'InvalidField');
      await bad(pk, [['staged', '1']], 'staged', 'InvalidField');
    });
  });

  describe('filters and facets', () => {
    let pk: string;
    beforeAll(async () => {
      pk = uniqueProjectKey('facets');
      const doc = (key: string | null, ints: number[], strings: string[], objects: string, floats: number[], publish = true) =>
        `{${key ? `"key":"${key}",` : ''}"publish":${publish},"objectTypeProperty":{"arrayOfIntExample":[${ints}],"arrayOfUniqueIntExample":[],` +
        `"arrayOfTwonumbersExample":[0,0],"arrayOfFloatExample":[${floats}],"arrayOfNumberNoDefaultsExample":[],` +
        `"arrayOfStringExample":${JSON.stringify(strings)},"arrayOfObjectType":[${objects}]}}`;
      const obj = (big: string, small: number) => `{"integerExample":${big},"integerExampleInt32":${small}}`;
      await create(pk, doc('f-1', [1, 2, 2], ['red', 'blue'], obj(INT64_MAX, 1), [0.5]));
      await create(pk, doc('f-2', [2, 3], ['red'], obj('5', 2), [1.5, 10]));
      await create(pk, doc('f-3', [3], ['green'], `${obj(INT64_MAX, 3)},${obj(INT64_MIN, 4)}`, [], false));
      await create(pk, doc(null, [], ['blue'], '', []));
      await create(pk, doc('f-5', [10, 100], [], obj('9223372036854775806', 5), []));
      // The same shapes in another project must count nowhere here.
      const other = uniqueProjectKey('other');
      await create(other, doc('f-1', [1, 2, 2], ['red', 'blue'], obj(INT64_MAX, 1), [0.5]));
      await create(other, doc('x-9', [2], ['red'], '', []));
    });

    const INTS = 'objectTypeProperty.arrayOfIntExample';
    const STRINGS = 'objectTypeProperty.arrayOfStringExample';
    const BIG = 'objectTypeProperty.arrayOfObjectType.integerExample';
    const all: Params = [['staged', 'true']];

    it('filters by values, numbers, ranges (both ends included), missing and exists', async () => {
      expect(sortedKeys(await ok(pk, [...all, ['filter.query', `key:"f-1","f-2"`]]))).toEqual(['f-1', 'f-2']);
      expect(sortedKeys(await ok(pk, [...all, ['filter.query', `${INTS}:3`]]))).toEqual(['f-2', 'f-3']);
      expect(sortedKeys(await ok(pk, [...all, ['filter.query', `${INTS}:range (3 to 10)`]]))).toEqual(['f-2', 'f-3', 'f-5']);
      expect(sortedKeys(await ok(pk, [...all, ['filter.query', `${INTS}:range (* to 1), (100 to *)`]]))).toEqual(['f-1', 'f-5']);
      expect(sortedKeys(await ok(pk, [...all, ['filter.query', `${INTS}:range (101 to *)`]]))).toEqual([]);
      // A range whose from is above its to matches nothing (no error), alone or beside another range; (* to *) is any value.
      expect(sortedKeys(await ok(pk, [...all, ['filter.query', `${INTS}:range (10 to 3)`]]))).toEqual([]);
      expect(sortedKeys(await ok(pk, [...all, ['filter.query', `${INTS}:range (10 to 3), (100 to *)`]]))).toEqual(['f-5']);
      expect(sortedKeys(await ok(pk, [...all, ['filter', `${INTS}:range (* to *)`]]))).toEqual(['f-1', 'f-2', 'f-3', 'f-5']);
      expect((await ok(pk, [...all, ['filter.query', 'version:range (2 to 1)']])).total).toBe(0);
      expect(keysOf(await ok(pk, [...all, ['filter.query', `${INTS}:missing`]]))).toEqual([undefined]);
      expect(sortedKeys(await ok(pk, [...all, ['filter.query', `${INTS}:exists`]]))).toEqual(['f-1', 'f-2', 'f-3', 'f-5']);
      expect(keysOf(await ok(pk, [...all, ['filter.query', `key:missing`]]))).toEqual([undefined]);
      expect(sortedKeys(await ok(pk, [...all, ['filter.query', `${STRINGS}:"green", missing`]]))).toEqual(['f-3', 'f-5']);
      expect(keysOf(await ok(pk, [...all, ['filter.query', 'published:false']]))).toEqual(['f-3']);
      expect((await ok(pk, [...all, ['filter.query', 'version:1']])).total).toBe(5);
      expect(sortedKeys(await ok(pk, [...all, ['filter.query', 'objectTypeProperty.arrayOfFloatExample:range (1 to 1.5)']]))).toEqual(['f-2']);
    });

    it('keeps filters and facets in step with every write, with and without text (values kept by the write trigger)', async () => {
      const own = uniqueProjectKey('sync-values');
      const auth = await t.auth('manage_test', { projectKey: own });
      const strings = ['beacon'];
      const created = await create(own, neutral(strings, { arrayOfIntExample: [7], arrayOfObjectType: [{ integerExample: 1, integerExampleInt32: 1 }] }, { key: 'k-v' }));
      const texts: Params[] = [[], [['text.en', 'beacon']]];
      const expectKeys = async (params: Params, keys: string[]) => {
        for (const text of texts) expect(keysOf(await ok(own, [...text, ...params]))).toEqual(keys);
      };
      await expectKeys([['filter.query', `${INTS}:7`]], ['k-v']);
      await expectKeys([['filter.query', `${BIG}:1`]], ['k-v']);

      // Only the document changes (the searched texts stay): the values follow.
      const update = async (version: number, actions: object[]) => {
        const res = await t.http.post(`/${own}/resource/${created.id}`).set(auth).send({ version, actions });
        expect(res.status).toBe(200);
      };
      const objectTypeProperty = { ...created.objectTypeProperty, arrayOfIntExample: [8, 9], arrayOfStringExample: strings, arrayOfObjectType: [] };
      await update(1, [{ action: 'setObjectTypeProperty', objectTypeProperty }]);
      await expectKeys([['filter.query', `${INTS}:7`]], []);
      await expectKeys([['filter.query', `${INTS}:range (9 to 9)`]], ['k-v']);
      await expectKeys([['filter.query', `${BIG}:missing`]], ['k-v']);
      for (const text of texts) {
        const body = await ok(own, [...text, ['facet', INTS]]);
        expect(body.facets[INTS]).toMatchObject({ total: 2, missing: 0, terms: [{ term: 8, count: 1 }, { term: 9, count: 1 }] });
      }

      // The key, then published alone.
      await update(2, [{ action: 'setKey', key: 'k-w' }]);
      await expectKeys([['filter.query', 'key:"k-w"']], ['k-w']);
      await expectKeys([['filter.query', 'key:"k-v"']], []);
      await update(3, [{ action: 'unpublish' }]);
      await expectKeys([['filter.query', `${INTS}:8`]], []);
      await expectKeys([['filter.query', `${INTS}:8`], ['staged', 'true']], ['k-w']);

      // A delete leaves no row behind in any partition.
      const deleted = await t.http.delete(`/${own}/resource/${created.id}?version=4`).set(auth);
      expect(deleted.status).toBe(200);
      for (const text of texts) expect(await ok(own, [...text, ['staged', 'true'], ['facet', INTS]])).toMatchObject({ total: 0, facets: { [INTS]: { total: 0 } } });
    });

    it('keeps the values once, in the values row, and rewrites only the rows a change concerns', async () => {
      const own = uniqueProjectKey('search-rows');
      const auth = await t.auth('manage_test', { projectKey: own });
      const created = await create(own, neutral(['lantern'], { arrayOfIntExample: [5, 6] }, { key: 'k-r' }));
      const db = t.app.get(Database);
      // Each row's transaction id (xmin): a rewritten row gets the writing transaction's.
      const rows = async () =>
        new Map(
          (
            await db.query<{ config: string; xmin: string; ints: string[] | null; published: boolean; key: string }>(
              `SELECT config, xmin::text AS xmin, array_of_int_example::text[] AS ints, published, key FROM resource_search WHERE resource_id = $1`,
              [created.id],
            )
          ).map((r) => [r.config, r]),
        );
      const update = async (version: number, actions: object[]) => {
        const res = await t.http.post(`/${own}/resource/${created.id}`).set(auth).send({ version, actions });
        expect(res.status).toBe(200);
      };
      const vectorConfigs = ['dutch', 'english', 'french', 'german', 'italian', 'portuguese', 'simple', 'spanish'];

      const first = await rows();
      expect([...first.keys()].sort()).toEqual([...vectorConfigs, 'values'].sort());
      expect(first.get('values')!.ints).toEqual(['5', '6']);
      for (const config of vectorConfigs) expect(first.get(config)!.ints).toBeNull();

      // A searched text changes: the vector rows are rewritten, the values row is not.
      await update(1, [{ action: 'changeSomeProperty', someProperty: 'harbour' }]);
      const afterText = await rows();
      expect(afterText.get('values')!.xmin).toBe(first.get('values')!.xmin);
      for (const config of vectorConfigs) expect(afterText.get(config)!.xmin).not.toBe(first.get(config)!.xmin);
      expect(keysOf(await ok(own, [['text.en', 'harbour'], ['filter.query', `${INTS}:6`]]))).toEqual(['k-r']);

      // Only the document's values change: the values row is rewritten, the vector rows are not.
      await update(2, [{ action: 'setObjectTypeProperty', objectTypeProperty: { ...created.objectTypeProperty, arrayOfIntExample: [7] } }]);
      const afterValues = await rows();
      expect(afterValues.get('values')!.ints).toEqual(['7']);
      for (const config of vectorConfigs) expect(afterValues.get(config)!.xmin).toBe(afterText.get(config)!.xmin);
      expect(keysOf(await ok(own, [['text.en', 'harbour'], ['filter.query', `${INTS}:7`]]))).toEqual(['k-r']);

      // published and the key reach every row.
      await update(3, [{ action: 'unpublish' }, { action: 'setKey', key: 'k-s' }]);
      for (const row of (await rows()).values()) expect({ published: row.published, key: row.key }).toEqual({ published: false, key: 'k-s' });
    });

    it('ANDs repeated filters', async () => {
      expect(keysOf(await ok(pk, [...all, ['filter.query', `${STRINGS}:"red"`], ['filter.query', `${INTS}:3`]]))).toEqual(['f-2']);
      expect(keysOf(await ok(pk, [...all, ['filter', `${STRINGS}:"red"`], ['filter', `${INTS}:1`]]))).toEqual(['f-1']);
    });

    it('compares 64-bit values exactly in filters', async () => {
      expect(sortedKeys(await ok(pk, [...all, ['filter.query', `${BIG}:${INT64_MAX}`]]))).toEqual(['f-1', 'f-3']);
      expect(keysOf(await ok(pk, [...all, ['filter.query', `${BIG}:9223372036854775806`]]))).toEqual(['f-5']);
      expect(sortedKeys(await ok(pk, [...all, ['filter.query', `${BIG}:range (${INT64_MAX} to *)`]]))).toEqual(['f-1', 'f-3']);
      expect(keysOf(await ok(pk, [...all, ['filter.query', `${BIG}:range (* to -9223372036854775807)`]]))).toEqual(['f-3']);
      expect(keysOf(await ok(pk, [...all, ['filter', `${BIG}:${INT64_MIN}`]]))).toEqual(['f-3']);
    });

    it('counts a terms facet: count desc, then term (numeric order for numbers), missing, total, other', async () => {
      const body = await ok(pk, [...all, ['facet', INTS]]);
      expect(body.facets[INTS]).toEqual({
        type: 'terms',
        dataType: 'number',
        missing: 1,
        total: 8,
        other: 0,
        terms: [
          { term: 2, count: 3 },
          { term: 3, count: 2 },
          { term: 1, count: 1 },
          { term: 10, count: 1 },
          { term: 100, count: 1 },
        ],
      });
      const published = await ok(pk, [['facet', `${STRINGS} counting resources`]]);
      expect(published.facets[`${STRINGS} counting resources`]).toEqual({
        type: 'terms',
        dataType: 'text',
        missing: 1,
        total: 4,
        other: 0,
        terms: [
          { term: 'blue', count: 2, resourceCount: 2 },
          { term: 'red', count: 2, resourceCount: 2 },
        ],
      });
    });

    it('counts resources and values apart, and names facets by alias', async () => {
      const body = await ok(pk, [...all, ['facet', `${INTS} counting resources as ints`], ['facet', 'published as pub'], ['facet', 'key']]);
      expect(Object.keys(body.facets).sort()).toEqual(['ints', 'key', 'pub']);
      expect(body.facets.ints.terms[0]).toEqual({ term: 2, count: 3, resourceCount: 2 });
      expect(body.facets.pub.terms).toEqual([
        { term: true, count: 4 },
        { term: false, count: 1 },
      ]);
      expect(body.facets.key).toMatchObject({ dataType: 'text', missing: 1, total: 4 });
    });

    it('keeps 64-bit terms exact', async () => {
      const res = await search(pk, [...all, ['facet', BIG]]);
      expect(res.status).toBe(200);
      const facet = (parseJson(res.text) as any).facets[BIG];
      expect(facet.terms).toEqual([
        { term: BigInt(INT64_MAX), count: 2 },
        { term: BigInt(INT64_MIN), count: 1 },
        { term: 5, count: 1 },
        { term: BigInt('9223372036854775806'), count: 1 },
      ]);
      expect(facet.missing).toBe(1);
    });

    it('counts a range facet: from ≤ v < to, with count, total, min, max and mean', async () => {
      const expr = `${INTS}:range (* to 2), (2 to 10), (10 to *)`;
      const body = await ok(pk, [...all, ['facet', `${expr} counting resources`]]);
      expect(body.facets[`${expr} counting resources`]).toEqual({
        type: 'range',
        dataType: 'number',
        ranges: [
          { from: null, fromStr: '*', to: 2, toStr: '2', count: 1, resourceCount: 1, total: 1, min: 1, max: 1, mean: 1 },
          { from: 2, fromStr: '2', to: 10, toStr: '10', count: 5, resourceCount: 3, total: 12, min: 2, max: 3, mean: 2.4 },
          { from: 10, fromStr: '10', to: null, toStr: '*', count: 2, resourceCount: 1, total: 110, min: 10, max: 100, mean: 55 },
        ],
      });
      const empty = await ok(pk, [...all, ['facet', `${INTS}:range (500 to 600) as none`]]);
      expect(empty.facets.none.ranges).toEqual([{ from: 500, fromStr: '500', to: 600, toStr: '600', count: 0, total: 0, min: null, max: null, mean: null }]);
    });

    it('keeps 64-bit values exact in range facets', async () => {
      const res = await search(pk, [...all, ['facet', `${BIG}:range (9223372036854775806 to *) as big`]]);
      expect(res.status).toBe(200);
      const [range] = (parseJson(res.text) as any).facets.big.ranges;
      expect(range).toMatchObject({ count: 3, min: BigInt('9223372036854775806'), max: BigInt(INT64_MAX), total: BigInt('27670116110564327420') });
      expect(range.from).toBe(BigInt('9223372036854775806'));
    });

    it('counts filtered facets (values, and resources with counting resources)', async () => {
      const body = await ok(pk, [
        ...all,
        ['facet', `${STRINGS}:"red" as reds`],
        ['facet', `${INTS}:2 counting resources as twos`],
        ['facet', 'key:missing counting resources as keyless'],
        ['facet', `${INTS}:range (2 to 3) counting resources`],
      ]);
      expect(body.facets.reds).toEqual({ type: 'filter', count: 2 });
      expect(body.facets.twos).toEqual({ type: 'filter', count: 3, resourceCount: 2 });
      expect(body.facets.keyless).toEqual({ type: 'filter', count: 1, resourceCount: 1 });
      expect(body.facets[`${INTS}:range (2 to 3) counting resources`]).toMatchObject({ type: 'range' });
    });

    it('filter.query filters results and facets', async () => {
      const body = await ok(pk, [...all, ['filter.query', `${STRINGS}:"red"`], ['facet', STRINGS]]);
      expect(body.total).toBe(2);
      expect(body.facets[STRINGS].terms).toEqual([
        { term: 'red', count: 2 },
        { term: 'blue', count: 1 },
      ]);
    });

    it('filter filters the results only, after the facets', async () => {
      const body = await ok(pk, [...all, ['filter', `${STRINGS}:"red"`], ['facet', STRINGS]]);
      expect(sortedKeys(body)).toEqual(['f-1', 'f-2']);
      expect(body.total).toBe(2);
      expect(body.facets[STRINGS].terms).toEqual([
        { term: 'blue', count: 2 },
        { term: 'red', count: 2 },
        { term: 'green', count: 1 },
      ]);
    });

    it('filter.facets filters the facets only', async () => {
      const body = await ok(pk, [...all, ['filter.facets', `${STRINGS}:"red"`], ['facet', STRINGS]]);
      expect(body.total).toBe(5);
      expect(body.facets[STRINGS].terms).toEqual([
        { term: 'red', count: 2 },
        { term: 'blue', count: 1 },
      ]);
    });

    it('pages and sorts: limit, offset, count, total; results as GET by id', async () => {
      const body = await ok(pk, [...all, ['sort', 'key asc'], ['limit', 2], ['offset', 1]]);
      expect({ limit: body.limit, offset: body.offset, count: body.count, total: body.total }).toEqual({ limit: 2, offset: 1, count: 2, total: 5 });
      expect(keysOf(body)).toEqual(['f-2', 'f-3']);
      expect(keysOf(await ok(pk, [...all, ['sort', 'key desc'], ['limit', 1]]))).toEqual([undefined]);
      const none = await ok(pk, [...all, ['limit', 0], ['facet', 'published']]);
      expect({ results: none.results, count: none.count, total: none.total }).toEqual({ results: [], count: 0, total: 5 });
      expect(none.facets.published.total).toBe(5);
      const defaults = await ok(pk, []);
      expect({ limit: defaults.limit, offset: defaults.offset, total: defaults.total, facets: defaults.facets }).toEqual({ limit: 20, offset: 0, total: 4, facets: {} });
      expect(keysOf(defaults)).toEqual(['f-1', 'f-2', undefined, 'f-5']);
    });

    it.each([
      ['createdAt', 'asc'],
      ['createdAt', 'desc'],
      ['lastModifiedAt', 'desc'],
      ['version', 'asc'],
    ])('sorts by %s %s, then id, with and without text', async (field, direction) => {
      for (const [text, count] of [[[], 5], [[['text.en', 'red blue']], 1], [[['text.en', 'red']], 2]] as Array<[Params, number]>) {
        const body = await ok(pk, [...all, ...text, ['sort', `${field} ${direction}`]]);
        expect(body.results).toHaveLength(count);
        const rows = body.results.map((r: ResourceBody & Record<string, unknown>) => [String(r[field]).padStart(20, '0'), r.id] as const);
        const expected = [...rows].sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : (a[0] < b[0]) === (direction === 'asc') ? -1 : 1));
        expect(rows).toEqual(expected);
      }
    });

    it.each([
      ['limit', '501'],
      ['limit', '-1'],
      ['limit', '2.5'],
      ['offset', '10001'],
      ['offset', 'x'],
    ])('refuses %s=%s', async (name, value) => {
      await bad(pk, [[name, value]], name, 'InvalidField');
    });

    it.each([['key'], ['foo asc'], ['key sideways'], ['']])('refuses sort=%j', async (sort) => {
      await bad(pk, [['sort', sort]], 'sort');
    });

    it.each([
      ['filter', 'nope:1'],
      ['filter', 'key'],
      ['filter', 'key:'],
      ['filter', 'key:"open'],
      ['filter', 'key:1'],
      ['filter', `${INTS}:"x"`],
      ['filter', `${INTS}:range (1 to)`],
      ['filter', `${INTS}:range 1 to 2`],
      ['filter', `${INTS}:1e99999`],
      ['filter', `${INTS}:1,,2`],
      ['filter', 'key:"a" junk'],
      ['filter.query', 'published:yes'],
      ['filter.facets', `${STRINGS}:range (1 to 2)`],
      ['facet', 'key:range (1 to 2)'],
      ['facet', 'key as'],
      ['facet', 'key counting'],
      ['facet', 'key as a as b'],
      ['facet', ''],
      ['facet', `${INTS}; DROP TABLE resource`],
    ])('refuses %s=%j with 400', async (name, expression) => {
      const res = await bad(pk, [[name, expression]], name);
      expect(res.body.errors[0].message).toMatch(/column \d+/);
    });

    it('refuses two facets with one name', async () => {
      await bad(pk, [['facet', 'key as k'], ['facet', 'published as k']], 'facet');
      await bad(pk, [['facet', 'key'], ['facet', 'key']], 'facet');
    });

    it('refuses too many expressions', async () => {
      await bad(pk, Array.from({ length: 21 }, (_, i): [string, string] => ['facet', `key as k${i}`]), 'facet', 'InvalidField');
    });
  });

  describe('access', () => {
    it('needs a token (401) with view_test or manage_test of the project (403 otherwise)', async () => {
      const path = `/${t.projectKey}/resource/searchApiPattern?text.en=x`;
      expectErrorEnvelope(await t.http.get(path), 401, 'invalid_token');
      expectErrorEnvelope(await t.http.get(path).set(await t.auth('view_test', { projectKey: t.otherProjectKey })), 403, 'insufficient_scope');
      expectErrorEnvelope(await t.http.get(path).set(await t.auth('manage_api_clients')), 403, 'insufficient_scope');
      expect((await t.http.get(path).set(await t.auth('manage_test'))).status).toBe(200);
    });
  });
});

import type { Response } from 'supertest';
import { Database } from '../../src/database/database.js';
import { buildResourceFilter, GetResourcesQueryDto } from '../../src/resource/resource-filter.js';
import { createTestApp, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { ARRAY_FIELDS, arrays, draft, INT64_MAX, INT64_MIN, type ResourceBody } from '../support/fixtures.js';
import { createResource, resourcePath as base } from '../support/resources.js';
import { sleep } from '../support/timing.js';

/**
 * Black-box tests of the reads: GET /{projectKey}/resource/{id}, GET …/key={key}, GET and HEAD
 * /{projectKey}/resource (docs/api-guide.md#query). Tests that count or merge use a
 * project of their own, so totals are exact.
 */

type Created = ResourceBody;

describe('resource reads', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const create = (pk: string, body: object): Promise<Created> => createResource(t, pk, body);
  /** `text` is sent as written (64-bit integers stay exact). */
  const createRaw = (pk: string, text: string): Promise<Created> => createResource(t, pk, text);

  async function query(pk: string, params: string | Record<string, unknown> = ''): Promise<Response> {
    const req = t.http.get(base(pk)).set(await t.auth('view_test', { projectKey: pk }));
    return typeof params === 'string' ? req.query(params) : req.query(params as Record<string, string>);
  }

  async function head(pk: string, params: string | Record<string, unknown> = ''): Promise<Response> {
    const req = t.http.head(base(pk)).set(await t.auth('view_test', { projectKey: pk }));
    return typeof params === 'string' ? req.query(params) : req.query(params as Record<string, string>);
  }

  /** A draft whose arrays avoid every value the tests filter on unless given. */
  function neutral(overrides: Record<string, unknown> = {}, draftOverrides: Record<string, unknown> = {}) {
    return draft(draftOverrides, {
      arrayOfIntExample: [],
      arrayOfUniqueIntExample: [],
      arrayOfTwonumbersExample: [0, 0],
      arrayOfFloatExample: [],
      arrayOfNumberNoDefaultsExample: [],
      arrayOfStringExample: [],
      arrayOfObjectType: [],
      ...overrides,
    });
  }

  function expectEnvelope(res: Response, status: number, code?: string): void {
    expect(res.status).toBe(status);
    expect(res.body.statusCode).toBe(status);
    expect(typeof res.body.message).toBe('string');
    expect(Array.isArray(res.body.errors)).toBe(true);
    expect(res.body.errors.length).toBeGreaterThan(0);
    if (code) expect(res.body.errors[0].code).toBe(code);
  }

  function expectNoBody(res: Response): void {
    expect(res.text ?? '').toBe('');
    expect(res.body ?? {}).toEqual({});
  }

  function total(res: Response): number {
    expect(res.headers['x-total-count']).toMatch(/^\d+$/);
    return Number(res.headers['x-total-count']);
  }

  describe('GET /{projectKey}/resource/{id}', () => {
    let created: Created;
    beforeAll(async () => {
      created = await create(t.projectKey, draft({ key: 'read-by-id' }));
    });

    it('answers 200 with the resource', async () => {
      const res = await t.http.get(`${base(t.projectKey)}/${created.id}`).set(await t.auth('view_test'));
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body).toEqual(created);
      expect(res.body).toMatchObject({ id: created.id, key: 'read-by-id', version: 1, published: true, images: [] });
    });

    it('accepts the optional query parameters; they do not change the result', async () => {
      const res = await t.http
        .get(`${base(t.projectKey)}/${created.id}`)
        .query({ optionalQueryParameter: 'a', secondOptionalQueryParameter: 'b c' })
        .set(await t.auth('view_test'));
      expect(res.status).toBe(200);
      expect(res.body).toEqual(created);
    });

    it('an optional query parameter given twice → 400 naming it', async () => {
      const res = await t.http
        .get(`${base(t.projectKey)}/${created.id}?optionalQueryParameter=a&optionalQueryParameter=b`)
        .set(await t.auth('view_test'));
      expectEnvelope(res, 400, 'InvalidField');
      expect(res.body.errors[0]).toMatchObject({ field: 'optionalQueryParameter' });
      expect(res.body.errors[0].message).toMatch(/^Malformed parameter: optionalQueryParameter: /);
    });

    it('unknown id → 404 ResourceNotFound', async () => {
      const res = await t.http.get(`${base(t.projectKey)}/3f2504e0-4f89-41d3-9a0c-0305e82c3301`).set(await t.auth('view_test'));
      expectEnvelope(res, 404, 'ResourceNotFound');
    });

    it.each(['not-a-uuid', '12345', '3f2504e0-4f89-41d3-9a0c-0305e82c330', "1' OR '1'='1"])(
      'malformed id %p → plain 404 ResourceNotFound',
      async (id) => {
        const res = await t.http.get(`${base(t.projectKey)}/${encodeURIComponent(id)}`).set(await t.auth('view_test'));
        expectEnvelope(res, 404, 'ResourceNotFound');
      },
    );

    it('keeps 64-bit integers exact', async () => {
      const pk = uniqueProjectKey('r');
      const text = JSON.stringify(draft({}, { arrayOfIntExample: ['@max@'], arrayOfObjectType: [{ integerExample: '@min@', integerExampleInt32: 0 }] }))
        .replace('"@max@"', INT64_MAX)
        .replace('"@min@"', INT64_MIN);
      const one = await createRaw(pk, text);
      const res = await t.http.get(`${base(pk)}/${one.id}`).set(await t.auth('view_test', { projectKey: pk }));
      expect(res.status).toBe(200);
      const compact = res.text.replace(/\s/g, '');
      expect(compact).toContain(`"arrayOfIntExample":[${INT64_MAX}]`);
      expect(compact).toContain(`"integerExample":${INT64_MIN}`);
    });
  });

  describe('GET /{projectKey}/resource/key={key}', () => {
    it('answers 200 with the resource', async () => {
      const created = await create(t.projectKey, draft({ key: 'by-key_1' }));
      const res = await t.http.get(`${base(t.projectKey)}/key=by-key_1`).set(await t.auth('view_test'));
      expect(res.status).toBe(200);
      expect(res.body).toEqual(created);
    });

    it('finds an unpublished resource too', async () => {
      const created = await create(t.projectKey, draft({ key: 'by-key-unpublished', publish: false }));
      const res = await t.http.get(`${base(t.projectKey)}/key=by-key-unpublished`).set(await t.auth('view_test'));
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(created.id);
      expect(res.body.published).toBe(false);
    });

    it('unknown key → 404 ResourceNotFound', async () => {
      const res = await t.http.get(`${base(t.projectKey)}/key=no-such-key`).set(await t.auth('view_test'));
      expectEnvelope(res, 404, 'ResourceNotFound');
    });

    it('is case-sensitive', async () => {
      await create(t.projectKey, draft({ key: 'CaseKey' }));
      expect((await t.http.get(`${base(t.projectKey)}/key=CaseKey`).set(await t.auth('view_test'))).status).toBe(200);
      expectEnvelope(await t.http.get(`${base(t.projectKey)}/key=casekey`).set(await t.auth('view_test')), 404, 'ResourceNotFound');
    });
  });

  describe('JSON text of the answers', () => {
    /** The member names of the object that follows `"objectTypeProperty":` in a JSON text, in order. */
    function arrayOrder(text: string): string[] {
      const start = text.indexOf('"objectTypeProperty":');
      return [...text.slice(start).matchAll(/"(arrayOf\w+)":/g)].map((m) => m[1]).slice(0, ARRAY_FIELDS.length);
    }

    it('objectTypeProperty lists its arrays in the schema\'s order on every route that answers a resource', async () => {
      const pk = uniqueProjectKey('o');
      const created = await t.http.post(base(pk)).set(await t.auth('manage_test', { projectKey: pk })).send(draft({ key: 'order-1' }));
      expect(created.status).toBe(201);
      expect(arrayOrder(created.text)).toEqual([...ARRAY_FIELDS]);
      const byId = await t.http.get(`${base(pk)}/${created.body.id}`).set(await t.auth('view_test', { projectKey: pk }));
      expect(arrayOrder(byId.text)).toEqual([...ARRAY_FIELDS]);
      const byKey = await t.http.get(`${base(pk)}/key=order-1`).set(await t.auth('view_test', { projectKey: pk }));
      expect(arrayOrder(byKey.text)).toEqual([...ARRAY_FIELDS]);
    });

    it('GET /resource is written as compactly as every other answer (no spaces around : and ,)', async () => {
      const pk = uniqueProjectKey('f');
      await create(pk, draft());
      const res = await query(pk);
      expect(res.status).toBe(200);
      expect(res.text).not.toMatch(/" : |, /);
      expect(Object.keys(JSON.parse(res.text))).toEqual([...ARRAY_FIELDS]);
    });
  });

  describe('GET /{projectKey}/resource (merge)', () => {
    it('an empty project: every array empty, arrayOfTwonumbersExample [], X-Total-Count 0', async () => {
      const pk = uniqueProjectKey('e');
      const res = await query(pk);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(total(res)).toBe(0);
      expect(res.body).toEqual({
        arrayOfIntExample: [],
        arrayOfUniqueIntExample: [],
        arrayOfTwonumbersExample: [],
        arrayOfFloatExample: [],
        arrayOfNumberNoDefaultsExample: [],
        arrayOfStringExample: [],
        arrayOfObjectType: [],
      });
    });

    it('merges: concatenation by (createdAt, id), unique union, [min, max], X-Total-Count', async () => {
      const pk = uniqueProjectKey('m');
      const a = await create(pk, draft({}, {
        arrayOfIntExample: [1, 2, 2],
        arrayOfUniqueIntExample: [1, 2, 3],
        arrayOfTwonumbersExample: [1.5, 2.5],
        arrayOfFloatExample: [0.5],
        arrayOfNumberNoDefaultsExample: [10],
        arrayOfStringExample: ['a1', 'a2'],
        arrayOfObjectType: [{ integerExample: 1, integerExampleInt32: 11 }],
      }));
      await sleep(5);
      const b = await create(pk, draft({}, {
        arrayOfIntExample: [2, 7],
        arrayOfUniqueIntExample: [3, 4, 1],
        arrayOfTwonumbersExample: [-3, 0.25],
        arrayOfFloatExample: [],
        arrayOfNumberNoDefaultsExample: [20, 30],
        arrayOfStringExample: ['b1'],
        arrayOfObjectType: [],
      }));
      await sleep(5);
      const c = await create(pk, draft({ publish: false }, {
        arrayOfIntExample: [9],
        arrayOfUniqueIntExample: [5],
        arrayOfTwonumbersExample: [100, 4],
        arrayOfFloatExample: [7.75, 0.5],
        arrayOfNumberNoDefaultsExample: [],
        arrayOfStringExample: ['c1', 'a1'],
        arrayOfObjectType: [{ integerExample: 3, integerExampleInt32: 33 }, { integerExample: 2, integerExampleInt32: 22 }],
      }));
      const ordered = [a, b, c].sort((x, y) => (x.createdAt === y.createdAt ? (x.id < y.id ? -1 : 1) : x.createdAt < y.createdAt ? -1 : 1));
      const res = await query(pk);
      expect(res.status).toBe(200);
      expect(total(res)).toBe(3);
      for (const field of ['arrayOfIntExample', 'arrayOfFloatExample', 'arrayOfNumberNoDefaultsExample', 'arrayOfStringExample', 'arrayOfObjectType']) {
        expect(res.body[field]).toEqual(ordered.flatMap((r) => r.objectTypeProperty[field]));
      }
      expect([...res.body.arrayOfUniqueIntExample].sort()).toEqual([1, 2, 3, 4, 5]);
      expect(res.body.arrayOfUniqueIntExample).toHaveLength(5);
      expect(res.body.arrayOfTwonumbersExample).toEqual([-3, 100]);
      // Sanity: with distinct creation times the order is the creation order.
      expect(res.body.arrayOfStringExample).toEqual(['a1', 'a2', 'b1', 'c1', 'a1']);
    });

    it('arrayOfTwonumbersExample is [] when nothing matches, and [min, max] of one pair when one matches', async () => {
      const pk = uniqueProjectKey('t');
      await create(pk, neutral({ arrayOfTwonumbersExample: [8, -2.5], arrayOfStringExample: ['only'] }));
      const none = await query(pk, { stringParameter: 'nothing' });
      expect(none.status).toBe(200);
      expect(total(none)).toBe(0);
      expect(none.body.arrayOfTwonumbersExample).toEqual([]);
      expect(none.body.arrayOfStringExample).toEqual([]);
      const one = await query(pk, { stringParameter: 'only' });
      expect(total(one)).toBe(1);
      expect(one.body.arrayOfTwonumbersExample).toEqual([-2.5, 8]);
    });

    it('keeps 64-bit integers exact in the merged arrays', async () => {
      const pk = uniqueProjectKey('b');
      const text = JSON.stringify(
        neutral({
          arrayOfIntExample: ['@max@', '@min@'],
          arrayOfUniqueIntExample: ['@max@'],
          arrayOfObjectType: [{ integerExample: '@max@', integerExampleInt32: 1 }],
        }),
      )
        .split('"@max@"').join(INT64_MAX)
        .split('"@min@"').join(INT64_MIN);
      await createRaw(pk, text);
      await createRaw(pk, text.split(INT64_MAX).join('9223372036854775806'));
      const res = await query(pk);
      expect(res.status).toBe(200);
      const compact = res.text.replace(/\s/g, '');
      expect(compact).toContain(`"arrayOfIntExample":[${INT64_MAX},${INT64_MIN},9223372036854775806,${INT64_MIN}]`);
      expect(compact).toMatch(new RegExp(`"arrayOfUniqueIntExample":\\[(${INT64_MAX},9223372036854775806|9223372036854775806,${INT64_MAX})\\]`));
      expect(compact).toContain(`{"integerExample":${INT64_MAX},"integerExampleInt32":1}`);
      expect(compact).toContain(`{"integerExample":9223372036854775806,"integerExampleInt32":1}`);
    });

    it('merges at most the first 500 resources by (createdAt, id); X-Total-Count counts all matches', async () => {
      const pk = uniqueProjectKey('l');
      const auth = await t.auth('manage_test', { projectKey: pk });
      for (let batch = 0; batch < 25; batch++) {
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => t.http.post(base(pk)).set(auth).send(neutral({ arrayOfStringExample: [`n${batch * 20 + i}`] }))),
        );
        for (const r of results) expect(r.status).toBe(201);
      }
      await sleep(10);
      await create(pk, neutral({ arrayOfStringExample: ['late-1'] }));
      await sleep(5);
      await create(pk, neutral({ arrayOfStringExample: ['late-2'] }));
      const res = await query(pk);
      expect(res.status).toBe(200);
      expect(total(res)).toBe(502);
      expect(res.body.arrayOfStringExample).toHaveLength(500);
      expect(res.body.arrayOfStringExample).not.toContain('late-1');
      expect(res.body.arrayOfStringExample).not.toContain('late-2');
      expect(new Set(res.body.arrayOfStringExample).size).toBe(500);
    }, 120000);

    it('considers published and unpublished resources', async () => {
      const pk = uniqueProjectKey('u');
      await create(pk, neutral({ arrayOfStringExample: ['pub'] }));
      await create(pk, neutral({ arrayOfStringExample: ['unpub'] }, { publish: false }));
      const res = await query(pk);
      expect(total(res)).toBe(2);
      expect(res.body.arrayOfStringExample.sort()).toEqual(['pub', 'unpub']);
    });

    it('ignores unknown query parameters', async () => {
      const pk = uniqueProjectKey('x');
      await create(pk, neutral({ arrayOfStringExample: ['z'] }));
      const res = await query(pk, { someUnknownParameter: 'whatever' });
      expect(res.status).toBe(200);
      expect(total(res)).toBe(1);
    });
  });

  describe('GET /{projectKey}/resource (filters)', () => {
    const pk = uniqueProjectKey('f');
    let r: Record<string, Created> = {};
    let beforeUpdate: string;

    beforeAll(async () => {
      r = {};
      r.alpha = await create(pk, neutral({
        arrayOfIntExample: [5, 6],
        arrayOfUniqueIntExample: [100],
        arrayOfTwonumbersExample: [1, 2],
        arrayOfFloatExample: [0.5, 10],
        arrayOfNumberNoDefaultsExample: [1500],
        arrayOfStringExample: ['#alpha', 'red', 'green'],
        arrayOfObjectType: [{ integerExample: 41, integerExampleInt32: 1 }],
      }));
      await sleep(5);
      r.beta = await create(pk, neutral({
        arrayOfIntExample: [6, 7],
        arrayOfUniqueIntExample: [777],
        arrayOfTwonumbersExample: [3, 4],
        arrayOfFloatExample: [2.25],
        arrayOfNumberNoDefaultsExample: [1500, -1],
        arrayOfStringExample: ['#beta', 'green', 'blue'],
        arrayOfObjectType: [{ integerExample: 42, integerExampleInt32: 2 }],
      }));
      await sleep(5);
      r.gamma = await createRaw(pk, JSON.stringify(neutral({
        arrayOfIntExample: ['@max@'],
        arrayOfUniqueIntExample: [],
        arrayOfTwonumbersExample: [5, 6],
        arrayOfFloatExample: ['@ten@'],
        arrayOfNumberNoDefaultsExample: [777],
        arrayOfStringExample: ['#gamma', 'blue', 'Red'],
        arrayOfObjectType: [{ integerExample: 41, integerExampleInt32: 3 }, { integerExample: 43, integerExampleInt32: 4 }],
      })).replace('"@max@"', INT64_MAX).replace('"@ten@"', '10.0'));
      await sleep(5);
      r.delta = await createRaw(pk, JSON.stringify(neutral({
        arrayOfIntExample: ['@near@'],
        arrayOfStringExample: ['#delta', 'yellow'],
      })).replace('"@near@"', '9223372036854775806'));
      // Touch beta later so its lastModifiedAt is after `beforeUpdate`.
      await sleep(20);
      beforeUpdate = new Date().toISOString();
      await sleep(20);
      const updated = await t.http
        .post(`${base(pk)}/${r.beta.id}`)
        .set(await t.auth('manage_test', { projectKey: pk }))
        .send({ version: 1, actions: [{ action: 'doSomeThing' }] });
      // (The status of POST /resource/{id} is asserted in resource-update.e2e-spec.ts.)
      expect(updated.body.version).toBe(2);
      r.beta = updated.body;
    });

    /**
     * The resources a filter matches, told by the marker string ('#alpha', …) each one has in
     * arrayOfStringExample; checked against X-Total-Count.
     */
    async function matches(params: string | Record<string, unknown>): Promise<string[]> {
      const res = await query(pk, params);
      expect(res.status).toBe(200);
      const merged = res.body.arrayOfStringExample as string[];
      const names = merged.filter((s) => s.startsWith('#')).map((s) => s.slice(1));
      expect(names).toHaveLength(total(res));
      return names.sort();
    }

    it('no filter matches all four', async () => {
      expect(await matches({})).toEqual(['alpha', 'beta', 'delta', 'gamma']);
    });

    it('stringParameter: arrayOfStringExample contains the value (exact, case-sensitive)', async () => {
      expect(await matches({ stringParameter: 'green' })).toEqual(['alpha', 'beta']);
      expect(await matches({ stringParameter: 'Red' })).toEqual(['gamma']);
      expect(await matches({ stringParameter: 'gree' })).toEqual([]);
    });

    it('integerParameter: arrayOfIntExample contains the value', async () => {
      expect(await matches({ integerParameter: '6' })).toEqual(['alpha', 'beta']);
      expect(await matches({ integerParameter: '5' })).toEqual(['alpha']);
      // 777 is in other arrays, not in arrayOfIntExample.
      expect(await matches({ integerParameter: '777' })).toEqual([]);
    });

    it('integerParameter is exact over 64 bits', async () => {
      expect(await matches(`integerParameter=${INT64_MAX}`)).toEqual(['gamma']);
      expect(await matches('integerParameter=9223372036854775806')).toEqual(['delta']);
      expect(await matches('integerParameter=9223372036854775805')).toEqual([]);
    });

    it.each(['abc', '1.5', '9223372036854775808', '-9223372036854775809', ''])(
      'integerParameter %p → 400',
      async (value) => {
        const res = await query(pk, `integerParameter=${value}`);
        expectEnvelope(res, 400);
        expect(['InvalidField', 'InvalidInput']).toContain(res.body.errors[0].code);
      },
    );

    it('floatParameter: arrayOfFloatExample contains the value (numeric equality, 10 = 10.0)', async () => {
      expect(await matches({ floatParameter: '0.5' })).toEqual(['alpha']);
      expect(await matches({ floatParameter: '2.25' })).toEqual(['beta']);
      expect(await matches({ floatParameter: '10' })).toEqual(['alpha', 'gamma']);
      expect(await matches({ floatParameter: '10.0' })).toEqual(['alpha', 'gamma']);
      expect(await matches({ floatParameter: '1500' })).toEqual([]);
    });

    it.each(['abc', '1,5', 'NaN', '0x10'])('floatParameter %p → 400', async (value) => {
      expectEnvelope(await query(pk, { floatParameter: value }), 400);
    });

    it('withMarkdownDescription: arrayOfNumberNoDefaultsExample contains the value', async () => {
      expect(await matches({ withMarkdownDescription: '1500' })).toEqual(['alpha', 'beta']);
      expect(await matches({ withMarkdownDescription: '-1' })).toEqual(['beta']);
      expect(await matches({ withMarkdownDescription: '777' })).toEqual(['gamma']);
      expect(await matches({ withMarkdownDescription: '0.5' })).toEqual([]);
    });

    it('withMarkdownDescription that is not a number → 400', async () => {
      expectEnvelope(await query(pk, { withMarkdownDescription: 'lots' }), 400);
    });

    it('arrayOfString (repeatable): arrayOfStringExample contains all values', async () => {
      expect(await matches('arrayOfString=green')).toEqual(['alpha', 'beta']);
      expect(await matches('arrayOfString=green&arrayOfString=blue')).toEqual(['beta']);
      expect(await matches('arrayOfString=green&arrayOfString=yellow')).toEqual([]);
    });

    it('arrayOfStringWithDescription (repeatable): arrayOfStringExample contains any value', async () => {
      expect(await matches('arrayOfStringWithDescription=red')).toEqual(['alpha']);
      expect(await matches('arrayOfStringWithDescription=red&arrayOfStringWithDescription=yellow')).toEqual(['alpha', 'delta']);
      expect(await matches('arrayOfStringWithDescription=none&arrayOfStringWithDescription=other')).toEqual([]);
    });

    it('objectParameter: JSON of a partial ObjectTestType, containment (arrays ⊇)', async () => {
      const p = (value: unknown) => ({ objectParameter: JSON.stringify(value) });
      expect(await matches(p({ objectTypeProperty: { arrayOfStringExample: ['blue'] } }))).toEqual(['beta', 'gamma']);
      expect(await matches(p({ objectTypeProperty: { arrayOfStringExample: ['blue', 'green'] } }))).toEqual(['beta']);
      expect(await matches(p({ objectTypeProperty: { arrayOfIntExample: [6], arrayOfStringExample: ['red'] } }))).toEqual(['alpha']);
      expect(await matches(p({ objectTypeProperty: { arrayOfObjectType: [{ integerExample: 41 }] } }))).toEqual(['alpha', 'gamma']);
      expect(await matches(p({ objectTypeProperty: { arrayOfObjectType: [{ integerExample: 41, integerExampleInt32: 3 }] } }))).toEqual(['gamma']);
      expect(await matches(p({}))).toEqual(['alpha', 'beta', 'delta', 'gamma']);
    });

    it('objectParameter with version matches that version only', async () => {
      expect(await matches({ objectParameter: JSON.stringify({ version: 2 }) })).toEqual(['beta']);
      expect(await matches({ objectParameter: JSON.stringify({ version: 1 }) })).toEqual(['alpha', 'delta', 'gamma']);
      expect(
        await matches({ objectParameter: JSON.stringify({ version: 1, objectTypeProperty: { arrayOfStringExample: ['green'] } }) }),
      ).toEqual(['alpha']);
    });

    it('objectParameter keeps 64-bit integers exact', async () => {
      expect(await matches(`objectParameter=${encodeURIComponent(`{"objectTypeProperty":{"arrayOfIntExample":[${INT64_MAX}]}}`)}`)).toEqual(['gamma']);
    });

    it.each([
      ['not JSON', '{objectTypeProperty'],
      ['a JSON array', '[1]'],
      ['a JSON string', '"x"'],
      ['an unknown member', '{"colour":"red"}'],
      ['an unknown array', '{"objectTypeProperty":{"arrayOfBooleans":[true]}}'],
      ['a wrongly typed array', '{"objectTypeProperty":{"arrayOfIntExample":["a"]}}'],
      ['a bad version', '{"version":"one"}'],
    ])('objectParameter that is %s → 400', async (_name, value) => {
      const res = await query(pk, { objectParameter: value });
      expectEnvelope(res, 400);
      expect(['InvalidField', 'InvalidInput', 'InvalidJsonInput', 'RequiredField']).toContain(res.body.errors[0].code);
    });

    it('unionParameter as a number: any numeric array contains it', async () => {
      // 777: arrayOfUniqueIntExample of beta, arrayOfNumberNoDefaultsExample of gamma.
      expect(await matches({ unionParameter: '777' })).toEqual(['beta', 'gamma']);
      // 6: arrayOfIntExample of alpha and beta, arrayOfTwonumbersExample of gamma.
      expect(await matches({ unionParameter: '6' })).toEqual(['alpha', 'beta', 'gamma']);
      // 2.25: arrayOfFloatExample of beta.
      expect(await matches({ unionParameter: '2.25' })).toEqual(['beta']);
      // 100: arrayOfUniqueIntExample of alpha.
      expect(await matches({ unionParameter: '100' })).toEqual(['alpha']);
      expect(await matches({ unionParameter: '123456' })).toEqual([]);
      expect(await matches(`unionParameter=${INT64_MAX}`)).toEqual(['gamma']);
    });

    it('unionParameter as an ISO date-time: lastModifiedAt >= it', async () => {
      expect(await matches({ unionParameter: beforeUpdate })).toEqual(['beta']);
      expect(await matches({ unionParameter: '2000-01-01T00:00:00Z' })).toEqual(['alpha', 'beta', 'delta', 'gamma']);
      expect(await matches({ unionParameter: '2999-01-01T00:00:00.000Z' })).toEqual([]);
      // Exactly lastModifiedAt is included (>=).
      expect(await matches({ unionParameter: r.beta.lastModifiedAt })).toEqual(['beta']);
      // With an offset.
      expect(await matches({ unionParameter: '2000-01-01T02:00:00+02:00' })).toEqual(['alpha', 'beta', 'delta', 'gamma']);
    });

    it('unionParameter as a JSON object: containment like objectParameter', async () => {
      expect(await matches({ unionParameter: JSON.stringify({ objectTypeProperty: { arrayOfStringExample: ['yellow'] } }) })).toEqual(['delta']);
      expect(await matches({ unionParameter: JSON.stringify({ version: 2 }) })).toEqual(['beta']);
    });

    it.each(['garbage', 'tomorrow', '12abc', '{not json', '{"colour":1}', '2024-13-45T99:00:00Z'])(
      'unionParameter %p → 400',
      async (value) => {
        expectEnvelope(await query(pk, { unionParameter: value }), 400);
      },
    );

    it('filters are ANDed', async () => {
      expect(await matches({ stringParameter: 'green', integerParameter: '7' })).toEqual(['beta']);
      expect(await matches({ stringParameter: 'green', withMarkdownDescription: '1500', floatParameter: '0.5' })).toEqual(['alpha']);
      expect(await matches({ stringParameter: 'red', floatParameter: '2.25' })).toEqual([]);
      expect(
        await matches(`arrayOfStringWithDescription=red&arrayOfStringWithDescription=blue&integerParameter=6`),
      ).toEqual(['alpha', 'beta']);
    });

    it("containment filters are answered by the project's document index, the one GIN index over the documents", async () => {
      const db = t.app.get(Database);
      const gin = await db.query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE tablename = 'resource' AND indexdef LIKE '%USING gin%'`);
      expect(gin.map((i) => i.indexname)).toEqual(['resource_project_document_idx']);
      const filters: Array<Partial<GetResourcesQueryDto>> = [
        { stringParameter: 'green' },
        { integerParameter: '7' },
        { objectParameter: '{"objectTypeProperty":{"arrayOfFloatExample":[0.5]}}' },
        { arrayOfStringWithDescription: ['red', 'blue'] },
        { unionParameter: '1500' },
      ];
      for (const filter of filters) {
        const condition = buildResourceFilter(Object.assign(new GetResourcesQueryDto(), filter), pk, 2);
        // The condition alone, without sequential scans: the planner must find an index that serves it.
        const client = await db.pool.connect();
        try {
          await client.query('BEGIN');
          await client.query('SET LOCAL enable_seqscan = off');
          const plan = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT r.id FROM resource r WHERE $1::text IS NOT NULL AND ${condition.sql}`, [pk, ...condition.values]);
          expect({ filter, plan: plan.rows.map((row) => row['QUERY PLAN']).join('\n') }).toEqual({ filter, plan: expect.stringContaining('resource_project_document_idx') });
        } finally {
          await client.query('ROLLBACK');
          client.release();
        }
      }
      expect(await matches({ stringParameter: 'green' })).toEqual(['alpha', 'beta']);
    });

    it('a filtered merge concatenates only the matches, in (createdAt, id) order', async () => {
      const res = await query(pk, { stringParameter: 'blue' });
      expect(res.status).toBe(200);
      expect(total(res)).toBe(2);
      expect(res.body.arrayOfStringExample).toEqual(['#beta', 'green', 'blue', '#gamma', 'blue', 'Red']);
      expect(res.body.arrayOfTwonumbersExample).toEqual([3, 6]);
      expect(res.body.arrayOfObjectType).toEqual([
        { integerExample: 42, integerExampleInt32: 2 },
        { integerExample: 41, integerExampleInt32: 3 },
        { integerExample: 43, integerExampleInt32: 4 },
      ]);
    });
  });

  describe('HEAD /{projectKey}/resource', () => {
    /** A resource matching every HEAD default: "test", 5, 10, 1500. */
    const matchingDefaults = (extra: Record<string, unknown> = {}) =>
      draft(extra, {
        arrayOfIntExample: [5],
        arrayOfFloatExample: [10],
        arrayOfNumberNoDefaultsExample: [1500],
        arrayOfStringExample: ['test'],
      });

    it('an empty project → 404 with no body', async () => {
      const res = await head(uniqueProjectKey('h'));
      expect(res.status).toBe(404);
      expectNoBody(res);
    });

    it('a bare HEAD matches a published resource whose arrays contain "test", 5, 10 and 1500 → 200 with no body', async () => {
      const pk = uniqueProjectKey('h');
      await create(pk, matchingDefaults());
      const res = await head(pk);
      expect(res.status).toBe(200);
      expectNoBody(res);
    });

    it.each([
      ['"test"', { arrayOfStringExample: ['other'] }, { stringParameter: 'other' }],
      ['5', { arrayOfIntExample: [4] }, { integerParameter: '4' }],
      ['10', { arrayOfFloatExample: [11] }, { floatParameter: '11' }],
      ['1500', { arrayOfNumberNoDefaultsExample: [1501] }, { withMarkdownDescription: '1501' }],
    ])('the default for %s applies when absent (404) and a given value replaces it (200)', async (_name, arraysOverride, params) => {
      const pk = uniqueProjectKey('h');
      await create(pk, draft({}, { ...arrays({ arrayOfIntExample: [5], arrayOfFloatExample: [10], arrayOfNumberNoDefaultsExample: [1500], arrayOfStringExample: ['test'] }), ...arraysOverride }));
      const bare = await head(pk);
      expect(bare.status).toBe(404);
      expectNoBody(bare);
      const given = await head(pk, params);
      expect(given.status).toBe(200);
      expectNoBody(given);
    });

    it('the fixture resource (ints 1, 2, 2) does not satisfy the bare HEAD (integerParameter defaults to 5)', async () => {
      const pk = uniqueProjectKey('h');
      await create(pk, draft());
      expect((await head(pk)).status).toBe(404);
      expect((await head(pk, { integerParameter: '2' })).status).toBe(200);
    });

    it('booleanParameter defaults to false: only published resources; true: only unpublished ones', async () => {
      const pk = uniqueProjectKey('h');
      await create(pk, matchingDefaults({ publish: false }));
      const bare = await head(pk);
      expect(bare.status).toBe(404);
      expectNoBody(bare);
      expect((await head(pk, { booleanParameter: 'false' })).status).toBe(404);
      const unpublished = await head(pk, { booleanParameter: 'true' });
      expect(unpublished.status).toBe(200);
      expectNoBody(unpublished);
      // A published one: the bare HEAD matches, booleanParameter=true still matches the unpublished one.
      const pk2 = uniqueProjectKey('h');
      await create(pk2, matchingDefaults());
      expect((await head(pk2)).status).toBe(200);
      expect((await head(pk2, { booleanParameter: 'true' })).status).toBe(404);
    });

    it('applies the other filters too (arrayOfString, arrayOfStringWithDescription, objectParameter)', async () => {
      const pk = uniqueProjectKey('h');
      await create(pk, matchingDefaults({}));
      await create(pk, draft({}, {
        arrayOfIntExample: [5],
        arrayOfFloatExample: [10],
        arrayOfNumberNoDefaultsExample: [1500],
        arrayOfStringExample: ['test', 'extra'],
      }));
      expect((await head(pk, 'arrayOfString=test&arrayOfString=extra')).status).toBe(200);
      expect((await head(pk, 'arrayOfString=test&arrayOfString=missing')).status).toBe(404);
      expect((await head(pk, 'arrayOfStringWithDescription=missing&arrayOfStringWithDescription=extra')).status).toBe(200);
      expect((await head(pk, 'arrayOfStringWithDescription=missing')).status).toBe(404);
      expect((await head(pk, { objectParameter: JSON.stringify({ version: 1 }) })).status).toBe(200);
      expect((await head(pk, { objectParameter: JSON.stringify({ version: 2 }) })).status).toBe(404);
    });

    it.each([
      ['booleanParameter', 'yes'],
      ['integerParameter', 'five'],
      ['floatParameter', 'ten'],
      ['withMarkdownDescription', 'x'],
      ['objectParameter', '{bad'],
    ])('%s=%p → 400 with no body', async (name, value) => {
      const res = await head(uniqueProjectKey('h'), { [name]: value });
      expect(res.status).toBe(400);
      expectNoBody(res);
    });

    it('agrees with GET: a project with matches answers 200, X-Total-Count of GET counts them', async () => {
      const pk = uniqueProjectKey('h');
      await create(pk, matchingDefaults());
      await create(pk, matchingDefaults());
      expect((await head(pk)).status).toBe(200);
      const get = await query(pk, { stringParameter: 'test', integerParameter: '5', floatParameter: '10', withMarkdownDescription: '1500' });
      expect(total(get)).toBe(2);
    });
  });
});

import type { Response } from 'supertest';
import { Database } from '../../src/database/database.js';
import { createTestApp, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { INT64_MAX, INT64_MIN, type ResourceBody } from '../support/fixtures.js';
import { createResource, queryPath as path } from '../support/resources.js';
import { expectErrorEnvelope, expectNoInternals } from '../support/expect-error.js';

/**
 * Black-box tests of GET /{projectKey}/resource/sorted-query-parameters (docs/rules.md#query-language): every operator against a seeded data set with known answers,
 * variables, precedence, 64-bit bounds, sort and paging, the commercetools paging pattern, injection-
 * shaped inputs and project isolation.
 */

type Params = Array<[string, string]>;

describe('GET /{projectKey}/resource/sorted-query-parameters', () => {
  let t: TestApp;
  /** The known data set, by name (the resource without a key is `nokey`). */
  const r: Record<string, ResourceBody> = {};
  /** Their GET-by-id texts, the exact representation results must have. */
  const texts: Record<string, string> = {};

  async function query(params: Params, pk = t.projectKey): Promise<Response> {
    const search = new URLSearchParams(params).toString();
    return t.http.get(`${path(pk)}${search ? `?${search}` : ''}`).set(await t.auth('view_test', { projectKey: pk }));
  }

  /** The names of the results, in order. */
  function names(res: Response): string[] {
    expect(res.status).toBe(200);
    return (res.body.results as ResourceBody[]).map((item) => nameOf(item));
  }

  function nameOf(item: ResourceBody): string {
    return Object.keys(r).find((name) => r[name].id === item.id) ?? `?${item.key ?? item.id}`;
  }

  const sorted = (list: string[]) => [...list].sort();
  const byId = (list: string[]) => [...list].sort((a, b) => (r[a].id < r[b].id ? -1 : 1));

  /** `raw`, when given, is sent as written instead of `body` (64-bit integers stay exact). */
  const create = (pk: string, body: object | undefined, raw?: string): Promise<ResourceBody> => createResource(t, pk, raw ?? body!);

  async function update(name: string, actions: unknown[]): Promise<void> {
    const res = await t.http.post(`/${t.projectKey}/resource/${r[name].id}`).set(await t.auth('manage_test')).send({ version: r[name].version, actions });
    expect(res.status).toBe(200);
    r[name] = res.body;
  }

  const arrays = (overrides: Record<string, unknown>) => ({
    arrayOfIntExample: [],
    arrayOfUniqueIntExample: [],
    arrayOfTwonumbersExample: [0, 1],
    arrayOfFloatExample: [],
    arrayOfNumberNoDefaultsExample: [],
    arrayOfStringExample: [],
    arrayOfObjectType: [],
    ...overrides,
  });

  beforeAll(async () => {
    t = await createTestApp();
    const pk = t.projectKey;
    const alpha = JSON.stringify({
      key: 'alpha',
      objectTypeProperty: arrays({
        arrayOfIntExample: ['@max@', 1, 5],
        arrayOfUniqueIntExample: [1],
        arrayOfFloatExample: [0.5, 10],
        arrayOfNumberNoDefaultsExample: [1500],
        arrayOfStringExample: ['test', 'red'],
        arrayOfObjectType: [{ integerExample: '@max@', integerExampleInt32: 1 }],
      }),
    }).replaceAll('"@max@"', INT64_MAX);
    r.alpha = await create(pk, undefined, alpha);
    r.bravo = await create(pk, { key: 'bravo', objectTypeProperty: arrays({ arrayOfIntExample: [2, 6], arrayOfStringExample: ['blue', 'red'], arrayOfObjectType: [{ integerExample: 6, integerExampleInt32: 2 }, { integerExample: 3, integerExampleInt32: 1 }] }) });
    r.charlie = await create(pk, { key: 'charlie', objectTypeProperty: arrays({}) });
    const nokey = JSON.stringify({ objectTypeProperty: arrays({ arrayOfIntExample: ['@min@'], arrayOfStringExample: ['green'], arrayOfObjectType: [{ integerExample: '@min@', integerExampleInt32: -5 }] }) }).replaceAll('"@min@"', INT64_MIN);
    r.nokey = await create(pk, undefined, nokey);
    r.delta = await create(pk, { key: 'delta', objectTypeProperty: arrays({ arrayOfIntExample: [10], arrayOfStringExample: ['Red'], arrayOfObjectType: [{ integerExample: 10, integerExampleInt32: 1 }] }) });
    r.echo = await create(pk, { key: 'echo', objectTypeProperty: arrays({ arrayOfStringExample: ["it's", 'quote"d', 'back\\slash', 'ü€ 😀', '; DROP TABLE resource; --'], arrayOfObjectType: [{ integerExample: 5, integerExampleInt32: 1 }, { integerExample: 7, integerExampleInt32: 0 }] }) });
    await update('bravo', [{ action: 'changeSomeProperty', someProperty: 'x' }, { action: 'unpublish' }]);
    await update('delta', [{ action: 'changeSomeProperty', someProperty: 'y' }, { action: 'importFooForSecondPropertyToUpdate', secondPropertyToUpdate: 'z' }]);
    await update('delta', [{ action: 'doSomeThing' }]);
    for (const name of Object.keys(r)) {
      const res = await t.http.get(`/${pk}/resource/${r[name].id}`).set(await t.auth('view_test'));
      expect(res.status).toBe(200);
      texts[name] = res.text;
      r[name] = res.body;
    }
    // Another project holds a resource that matches most predicates: it must never appear.
    await create(t.otherProjectKey, { key: 'alpha', objectTypeProperty: arrays({ arrayOfIntExample: [1, 5, 10], arrayOfStringExample: ['red', 'green'], arrayOfObjectType: [{ integerExample: 10, integerExampleInt32: 1 }] }) });
  });
  afterAll(async () => {
    await t.close();
  });

  describe('the answer', () => {
    it('without parameters: {limit: 20, offset: 0, count, total, results} sorted by id, each exactly as GET by id', async () => {
      const res = await query([]);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(Object.keys(res.body)).toEqual(['limit', 'offset', 'count', 'total', 'results']);
      expect(res.body).toMatchObject({ limit: 20, offset: 0, count: 6, total: 6 });
      expect(names(res)).toEqual(byId(Object.keys(r)));
      const compact = res.text;
      for (const name of Object.keys(r)) expect(compact).toContain(texts[name]);
      expect(res.text).toBe(`{"limit":20,"offset":0,"count":6,"total":6,"results":[${byId(Object.keys(r)).map((n) => texts[n]).join(',')}]}`);
    });

    it('keeps 64-bit integers exact in the results', async () => {
      const res = await query([['where', 'key = "alpha"']]);
      expect(res.text).toContain(`"arrayOfIntExample":[${INT64_MAX},1,5]`);
      expect(res.text).toContain(`"integerExample":${INT64_MAX}`);
    });

    it('accepts manage_test as well as view_test; no token → 401; another scope or project → 403', async () => {
      const manage = await t.http.get(path(t.projectKey)).set(await t.auth('manage_test'));
      expect(manage.status).toBe(200);
      expectErrorEnvelope(await t.http.get(path(t.projectKey)), 401, 'invalid_token');
      expectErrorEnvelope(await t.http.get(path(t.projectKey)).set(await t.auth('manage_products')), 403, 'insufficient_scope');
      expectErrorEnvelope(await t.http.get(path(t.projectKey)).set(await t.auth('view_test', { projectKey: t.otherProjectKey })), 403, 'insufficient_scope');
    });

    it('never shows another project\'s resources', async () => {
      const mine = await query([['where', 'key = "alpha"']]);
      expect(names(mine)).toEqual(['alpha']);
      expect(mine.body.total).toBe(1);
      const other = await query([['where', 'key = "alpha"']], t.otherProjectKey);
      expect(other.body.count).toBe(1);
      expect(other.body.results[0].id).not.toBe(r.alpha.id);
      const all = await query([['where', 'objectTypeProperty(arrayOfStringExample contains any ("red", "green"))'], ['limit', '500']]);
      expect(sorted(names(all))).toEqual(['alpha', 'bravo', 'nokey']);
    });
  });

  describe('operators (known answers)', () => {
    const CASES: Array<[string, string[] | (() => string[])]> = [
      ['key = "alpha"', ['alpha']],
      ['key != "alpha"', ['bravo', 'charlie', 'delta', 'echo']],
      ['key <> "alpha"', ['bravo', 'charlie', 'delta', 'echo']],
      ['key < "c"', ['alpha', 'bravo']],
      ['key <= "charlie"', ['alpha', 'bravo', 'charlie']],
      ['key > "charlie"', ['delta', 'echo']],
      ['key >= "delta"', ['delta', 'echo']],
      ['key in ("alpha", "echo", "zulu")', ['alpha', 'echo']],
      ['key not in ("alpha", "echo")', ['bravo', 'charlie', 'delta']],
      ['key is defined', ['alpha', 'bravo', 'charlie', 'delta', 'echo']],
      ['key is not defined', ['nokey']],
      ['someProperty is defined', ['bravo', 'delta']],
      ['someProperty = "y" and secondPropertyToUpdate = "z"', ['delta']],
      ['secondPropertyToUpdate is not defined', ['alpha', 'bravo', 'charlie', 'echo', 'nokey']],
      ['published = false', ['bravo']],
      ['published != false', ['alpha', 'charlie', 'delta', 'echo', 'nokey']],
      ['version = 2', ['bravo']],
      ['version >= 2', ['bravo', 'delta']],
      ['version > 2', ['delta']],
      ['version in (1, 3)', ['alpha', 'charlie', 'delta', 'echo', 'nokey']],
      ['version not in (1)', ['bravo', 'delta']],
      ['version = 9223372036854775807', []],
      ['version < -9223372036854775808', []],
      ['version is defined', ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'nokey']],
      ['createdAt > "2000-01-01T00:00:00Z"', ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'nokey']],
      ['createdAt > "2000-01-01"', ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'nokey']],
      ['createdAt < "2000-01-01T00:00:00.000+02:00"', []],
      ['lastModifiedAt > "2999-12-31T23:59:59.999Z"', []],
      ['objectTypeProperty(arrayOfStringExample = "red")', ['alpha', 'bravo']],
      ['objectTypeProperty(arrayOfStringExample = "Red")', ['delta']],
      ['objectTypeProperty(arrayOfStringExample contains any ("red", "green"))', ['alpha', 'bravo', 'nokey']],
      ['objectTypeProperty(arrayOfStringExample contains all ("red", "blue"))', ['bravo']],
      ['objectTypeProperty(arrayOfStringExample contains all ("red", "green"))', []],
      ['objectTypeProperty(arrayOfStringExample in ("blue", "Red"))', ['bravo', 'delta']],
      ['objectTypeProperty(arrayOfStringExample > "s")', ['alpha', 'echo']],
      ['objectTypeProperty(arrayOfStringExample = "it\'s")', ['echo']],
      ['objectTypeProperty(arrayOfStringExample = "quote\\"d")', ['echo']],
      ['objectTypeProperty(arrayOfStringExample = "back\\\\slash")', ['echo']],
      ['objectTypeProperty(arrayOfStringExample = "ü€ 😀")', ['echo']],
      ['objectTypeProperty(arrayOfStringExample = "; DROP TABLE resource; --")', ['echo']],
      ['objectTypeProperty(arrayOfStringExample is empty)', ['charlie']],
      ['objectTypeProperty(arrayOfIntExample > 5)', ['alpha', 'bravo', 'delta']],
      ['objectTypeProperty(arrayOfIntExample >= 10)', ['alpha', 'delta']],
      ['objectTypeProperty(arrayOfIntExample = 9223372036854775807)', ['alpha']],
      ['objectTypeProperty(arrayOfIntExample = 9223372036854775806)', []],
      ['objectTypeProperty(arrayOfIntExample > 9223372036854775806)', ['alpha']],
      ['objectTypeProperty(arrayOfIntExample < -9223372036854775807)', ['nokey']],
      ['objectTypeProperty(arrayOfIntExample = -9223372036854775808)', ['nokey']],
      ['objectTypeProperty(arrayOfIntExample != 1)', ['alpha', 'bravo', 'delta', 'nokey']],
      ['objectTypeProperty(arrayOfIntExample not in (1, 5, 9223372036854775807))', ['bravo', 'delta', 'nokey']],
      ['objectTypeProperty(arrayOfIntExample in (6, 10))', ['bravo', 'delta']],
      ['objectTypeProperty(arrayOfIntExample contains all (1, 5))', ['alpha']],
      ['objectTypeProperty(arrayOfIntExample is empty)', ['charlie', 'echo']],
      ['objectTypeProperty(arrayOfIntExample is not empty)', ['alpha', 'bravo', 'delta', 'nokey']],
      ['objectTypeProperty(arrayOfUniqueIntExample = 1)', ['alpha']],
      ['objectTypeProperty(arrayOfFloatExample = 10.0)', ['alpha']],
      ['objectTypeProperty(arrayOfFloatExample < 1)', ['alpha']],
      ['objectTypeProperty(arrayOfNumberNoDefaultsExample = 1500)', ['alpha']],
      ['objectTypeProperty(arrayOfTwonumbersExample = 1)', ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'nokey']],
      ['objectTypeProperty(arrayOfTwonumbersExample > 1)', []],
      ['objectTypeProperty(arrayOfObjectType(integerExample > 5 and integerExampleInt32 = 1))', ['alpha', 'delta']],
      ['objectTypeProperty(arrayOfObjectType(integerExample = 3 and integerExampleInt32 = 1))', ['bravo']],
      ['objectTypeProperty(arrayOfObjectType(integerExample = 6 and integerExampleInt32 = 1))', []],
      ['objectTypeProperty(arrayOfObjectType(integerExample = 9223372036854775807))', ['alpha']],
      ['objectTypeProperty(arrayOfObjectType(integerExample <= -9223372036854775808))', ['nokey']],
      ['objectTypeProperty(arrayOfObjectType(integerExampleInt32 in (0, 2)))', ['bravo', 'echo']],
      ['objectTypeProperty(arrayOfObjectType(not (integerExampleInt32 = 1)))', ['bravo', 'echo', 'nokey']],
      ['objectTypeProperty(arrayOfObjectType(integerExample is defined))', ['alpha', 'bravo', 'delta', 'echo', 'nokey']],
      ['objectTypeProperty(arrayOfObjectType is empty)', ['charlie']],
      ['objectTypeProperty(arrayOfObjectType is not empty and arrayOfStringExample = "red")', ['alpha', 'bravo']],
      ['objectTypeProperty is defined', ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'nokey']],
      ['objectTypeProperty is not defined', []],
      // Precedence: not > and > or; NOT is the exact complement (absent fields included).
      ['key = "alpha" or key = "bravo" and published = true', ['alpha']],
      ['(key = "alpha" or key = "bravo") and published = false', ['bravo']],
      ['key = "bravo" and published = false or key = "echo"', ['bravo', 'echo']],
      ['not (key = "alpha") and key is defined', ['bravo', 'charlie', 'delta', 'echo']],
      ['not (key = "alpha" or key = "bravo")', ['charlie', 'delta', 'echo', 'nokey']],
      ['not (key != "alpha")', ['alpha', 'nokey']],
      ['not (not (key = "alpha"))', ['alpha']],
      ['key IN ("alpha", "bravo") AnD published = TRUE', ['alpha']],
      ['id = "not-a-uuid"', []],
      [`id = "${'00000000-0000-0000-0000-000000000000'}"`, []],
    ];

    it.each(CASES)('%s', async (where, expected) => {
      const res = await query([['where', where], ['limit', '500']]);
      const want = typeof expected === 'function' ? expected() : expected;
      expect(sorted(names(res))).toEqual(sorted(want));
      expect(res.body.total).toBe(want.length);
      expectNoInternals(res);
    });

    it('id: =, in and ranges compare as the ids sort (UUID text order, case-insensitive input)', async () => {
      const ordered = byId(Object.keys(r));
      const third = r[ordered[2]].id;
      expect(names(await query([['where', `id = "${r.bravo.id.toUpperCase()}"`]]))).toEqual(['bravo']);
      expect(sorted(names(await query([['where', `id in ("${r.alpha.id}", "${r.echo.id}", "x")`]])))).toEqual(['alpha', 'echo']);
      expect(names(await query([['where', `id > "${third}"`]]))).toEqual(ordered.slice(3));
      expect(names(await query([['where', `id <= "${third}"`]]))).toEqual(ordered.slice(0, 3));
    });

    it('createdAt and lastModifiedAt compare as instants', async () => {
      const pivot = r.delta.lastModifiedAt;
      const expected = Object.keys(r).filter((n) => r[n].lastModifiedAt >= pivot);
      expect(expected).toContain('delta');
      expect(sorted(names(await query([['where', `lastModifiedAt >= "${pivot}"`]])))).toEqual(sorted(expected));
      const created = Object.keys(r).filter((n) => r[n].createdAt <= r.charlie.createdAt);
      expect(sorted(names(await query([['where', `createdAt <= "${r.charlie.createdAt}"`]])))).toEqual(sorted(created));
    });

    it('several where parameters are ANDed', async () => {
      const res = await query([['where', 'published = true'], ['where', 'key in ("alpha", "bravo")'], ['where', 'version = 1']]);
      expect(names(res)).toEqual(['alpha']);
    });
  });

  describe('input variables (var.<name>)', () => {
    it('a single value', async () => {
      expect(names(await query([['where', 'key = :k'], ['var.k', 'alpha']]))).toEqual(['alpha']);
    });

    it('a repeated variable is a list', async () => {
      const res = await query([['where', 'key in :ks'], ['var.ks', 'alpha'], ['var.ks', 'bravo']]);
      expect(sorted(names(res))).toEqual(['alpha', 'bravo']);
    });

    it('a one-element list is a list', async () => {
      expect(names(await query([['where', 'key in :ks'], ['var.ks', 'echo']]))).toEqual(['echo']);
    });

    it('is typed by where it stands: integers (exact over 64 bits), booleans, date-times, lists', async () => {
      expect(sorted(names(await query([['where', 'version >= :v and published = :p'], ['var.v', '2'], ['var.p', 'false']])))).toEqual(['bravo']);
      expect(names(await query([['where', 'objectTypeProperty(arrayOfIntExample = :n)'], ['var.n', INT64_MAX]]))).toEqual(['alpha']);
      expect(names(await query([['where', 'objectTypeProperty(arrayOfIntExample = :n)'], ['var.n', '9223372036854775806']]))).toEqual([]);
      expect(names(await query([['where', 'objectTypeProperty(arrayOfIntExample contains all :n)'], ['var.n', '1'], ['var.n', '5']]))).toEqual(['alpha']);
      expect(names(await query([['where', 'createdAt > :d'], ['var.d', '2999-01-01']]))).toEqual([]);
      expect(names(await query([['where', 'objectTypeProperty(arrayOfStringExample = :s)'], ['var.s', 'quote"d']]))).toEqual(['echo']);
      expect(names(await query([['where', 'key = :k and objectTypeProperty(arrayOfObjectType(integerExample = :i))'], ['var.k', 'alpha'], ['var.i', INT64_MAX]]))).toEqual(['alpha']);
    });

    it('unused variables are ignored', async () => {
      const res = await query([['where', 'key = "alpha"'], ['var.unused', 'x'], ['var.other', '1'], ['var.other', '2']]);
      expect(names(res)).toEqual(['alpha']);
    });

    it('an unbound variable → 400 InvalidInput naming it, with its position', async () => {
      const res = await query([['where', 'key = "alpha" or key = :missing']]);
      expectErrorEnvelope(res, 400, 'InvalidInput');
      expect(res.body.message).toBe('Malformed parameter: where: expected a value for the variable :missing (the query parameter var.missing is missing) (line 1, column 24)');
    });

    it('a repeated variable where one value is expected, or a value of the wrong type → 400', async () => {
      const twice = await query([['where', 'key = :k'], ['var.k', 'a'], ['var.k', 'b']]);
      expectErrorEnvelope(twice, 400, 'InvalidInput');
      expect(twice.body.message).toBe('Malformed parameter: where: expected one value for :k here, but var.k was given 2 times (line 1, column 7)');
      const wrong = await query([['where', 'version = :v'], ['var.v', '1.5']]);
      expectErrorEnvelope(wrong, 400, 'InvalidInput');
      expect(wrong.body.message).toBe('Malformed parameter: where: expected an integer in the signed 64-bit range for version but found :v = "1.5" (line 1, column 11)');
    });
  });

  describe('malformed where → 400 InvalidInput with the position', () => {
    const CASES: Array<[string, string]> = [
      ['colour = "red"', 'expected a field (id, key, version, createdAt, lastModifiedAt, published, someProperty, secondPropertyToUpdate, objectTypeProperty) but found unknown field "colour" (line 1, column 1)'],
      ['key = "a" and', 'expected a field (id, key, version, createdAt, lastModifiedAt, published, someProperty, secondPropertyToUpdate, objectTypeProperty) but found the end of the predicate (line 1, column 14)'],
      ['key = "a"\n  or version = "2"', 'expected an integer in the signed 64-bit range for version but found the string "2" (line 2, column 16)'],
      ['version = 9223372036854775808', 'expected an integer in the signed 64-bit range for version but found the number 9223372036854775808 (line 1, column 11)'],
      ['objectTypeProperty(arrayOfIntExample = 1.5)', 'expected an integer in the signed 64-bit range for arrayOfIntExample but found the number 1.5 (line 1, column 40)'],
      ['key contains any ("a")', 'expected an operator (=, !=, <>, <, >, <=, >=, in, not in, is defined) after key: "contains" applies to arrays (line 1, column 5)'],
      ['published = "yes"', 'expected true or false for published but found the string "yes" (line 1, column 13)'],
      ['createdAt > "2026-13-01"', 'expected a date-time string such as "2026-01-05T10:00:00.000Z" or a date "2026-01-05" for createdAt but found the string "2026-13-01" (line 1, column 13)'],
      ['', 'expected a field (id, key, version, createdAt, lastModifiedAt, published, someProperty, secondPropertyToUpdate, objectTypeProperty) but found the end of the predicate (line 1, column 1)'],
    ];

    it.each(CASES)('%j', async (where, message) => {
      const res = await query([['where', where]]);
      expectErrorEnvelope(res, 400, 'InvalidInput');
      expect(res.body.message).toBe(`Malformed parameter: where: ${message}`);
      expect(res.body.errors[0].message).toBe(res.body.message);
    });

    it('at most 10 where parameters; NUL characters are refused', async () => {
      const eleven: Params = Array.from({ length: 11 }, () => ['where', 'key is defined']);
      const tooMany = await query(eleven);
      expectErrorEnvelope(tooMany, 400, 'InvalidField');
      expect(tooMany.body.errors[0]).toMatchObject({ field: 'where', message: 'Malformed parameter: where: may be given at most 10 times.' });
      expect(names(await query(eleven.slice(1)))).toHaveLength(5);
      expectErrorEnvelope(await query([['where', 'key = "a\u0000"']]), 400, ['InvalidField', 'InvalidInput']);
    });

    it('an error in the second where is reported too', async () => {
      const res = await query([['where', 'key = "alpha"'], ['where', 'nope']]);
      expectErrorEnvelope(res, 400, 'InvalidInput');
      expect(res.body.message).toMatch(/^Malformed parameter: where: .*unknown field "nope" \(line 1, column 1\)$/);
    });
  });

  describe('sort', () => {
    it('<field> asc|desc; ties broken by id asc; absent values last in asc, first in desc', async () => {
      const keyed = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];
      expect(names(await query([['sort', 'key asc']]))).toEqual([...keyed, 'nokey']);
      expect(names(await query([['sort', 'key DESC']]))).toEqual(['nokey', ...[...keyed].reverse()]);
      const ones = byId(['alpha', 'charlie', 'echo', 'nokey']);
      expect(names(await query([['sort', 'version desc']]))).toEqual(['delta', 'bravo', ...ones]);
      expect(names(await query([['sort', 'version asc']]))).toEqual([...ones, 'bravo', 'delta']);
      expect(names(await query([['sort', 'published asc'], ['sort', 'key desc']]))).toEqual(['bravo', 'nokey', 'echo', 'delta', 'charlie', 'alpha']);
      expect(names(await query([['sort', 'id desc']]))).toEqual(byId(Object.keys(r)).reverse());
      expect(names(await query([['sort', '  someProperty   desc ']]))).toEqual([...byId(['alpha', 'charlie', 'echo', 'nokey']), 'delta', 'bravo']);
      const byCreated = Object.keys(r).sort((a, b) => (r[a].createdAt === r[b].createdAt ? (r[a].id < r[b].id ? -1 : 1) : r[a].createdAt < r[b].createdAt ? -1 : 1));
      expect(names(await query([['sort', 'createdAt asc']]))).toEqual(byCreated);
    });

    it.each([
      ['key', 'expected "<field> asc" or "<field> desc" (field one of id, key, version, createdAt, lastModifiedAt, published, someProperty, secondPropertyToUpdate) but found "key"'],
      ['colour asc', 'expected a field to sort by (id, key, version, createdAt, lastModifiedAt, published, someProperty, secondPropertyToUpdate) but found "colour"'],
      ['key up', 'expected asc or desc after key but found "up"'],
      ['objectTypeProperty asc', 'expected a field to sort by (id, key, version, createdAt, lastModifiedAt, published, someProperty, secondPropertyToUpdate) but found "objectTypeProperty"'],
      ['key asc; DROP TABLE resource', 'expected "<field> asc" or "<field> desc" (field one of id, key, version, createdAt, lastModifiedAt, published, someProperty, secondPropertyToUpdate) but found "key asc; DROP TABLE resource"'],
    ])('sort=%j → 400 Malformed parameter: sort', async (sort, reason) => {
      const res = await query([['sort', 'version asc'], ['sort', sort]]);
      expectErrorEnvelope(res, 400, 'InvalidField');
      expect(res.body.message).toBe(`Malformed parameter: sort: ${reason}.`);
      expect(res.body.errors[0].field).toBe('sort');
    });
  });

  describe('limit, offset, withTotal, expand', () => {
    it('limit and offset page through the id order; limit=0 only counts', async () => {
      const ordered = byId(Object.keys(r));
      const page = await query([['limit', '2'], ['offset', '4']]);
      expect(page.body).toMatchObject({ limit: 2, offset: 4, count: 2, total: 6 });
      expect(names(page)).toEqual(ordered.slice(4, 6));
      const zero = await query([['limit', '0']]);
      expect(zero.text).toBe('{"limit":0,"offset":0,"count":0,"total":6,"results":[]}');
      const past = await query([['offset', '10000']]);
      expect(past.body).toEqual({ limit: 20, offset: 10000, count: 0, total: 6, results: [] });
      const whole = await query([['limit', '3.0'], ['offset', '1.00']]);
      expect(whole.body).toMatchObject({ limit: 3, offset: 1, count: 3 });
      expect(names(whole)).toEqual(ordered.slice(1, 4));
      expect((await query([['limit', '500']])).body.limit).toBe(500);
    });

    it('withTotal=false leaves total out', async () => {
      const res = await query([['withTotal', 'false'], ['limit', '1']]);
      expect(Object.keys(res.body)).toEqual(['limit', 'offset', 'count', 'results']);
      expect((await query([['withTotal', 'true']])).body.total).toBe(6);
    });

    it.each([
      ['limit', '501', 'must be a whole number from 0 to 500'],
      ['limit', '-1', 'must be a whole number from 0 to 500'],
      ['limit', '5.5', 'must be a whole number from 0 to 500'],
      ['limit', 'abc', 'must be a whole number from 0 to 500'],
      ['limit', '', 'must be a whole number from 0 to 500'],
      ['offset', '10001', 'must be a whole number from 0 to 10000'],
      ['offset', '0.5', 'must be a whole number from 0 to 10000'],
      ['withTotal', 'yes', 'must be true or false'],
    ])('%s=%j → 400 InvalidField', async (name, value, reason) => {
      const res = await query([[name, value]]);
      expectErrorEnvelope(res, 400, 'InvalidField');
      expect(res.body.errors[0]).toMatchObject({ field: name, message: `Malformed parameter: ${name}: ${reason}.` });
    });

    it('expand: dotted identifiers with optional [*] are accepted and change nothing', async () => {
      const res = await query([['expand', 'objectTypeProperty.arrayOfObjectType[*]'], ['expand', 'a.b[*].c'], ['where', 'key = "alpha"']]);
      expect(names(res)).toEqual(['alpha']);
      expect(res.text).toContain(texts.alpha);
    });

    it.each(['a..b', 'a[0]', '.a', 'a.', 'a b', '1a', 'a[*]]', "a'; --"])('expand=%j → 400 Malformed parameter: expand', async (expand) => {
      const res = await query([['expand', expand]]);
      expectErrorEnvelope(res, 400, 'InvalidField');
      expect(res.body.message).toBe(`Malformed parameter: expand: expected a path of dotted identifiers, each optionally followed by [*] (such as "a.b[*].c"), but found ${JSON.stringify(expand)}.`);
    });
  });

  describe('paging', () => {
    let pk: string;
    const matches: string[] = [];

    beforeAll(async () => {
      // 57 matches and 30 others, all created at the same instant (every sort on createdAt ties).
      pk = uniqueProjectKey('pg');
      const db = t.app.get(Database);
      const rows = await db.query<{ id: string; match: boolean }>(
        `INSERT INTO resource (id, project_key, key, version, created_at, last_modified_at, created_by, last_modified_by, published, object_type_property)
         SELECT gen_random_uuid(), $1, 'page-' || g, 1 + g % 3, $2::timestamptz, $2::timestamptz, '{"clientId":"seed"}', '{"clientId":"seed"}', true,
                jsonb_build_object('arrayOfIntExample', jsonb_build_array(g), 'arrayOfUniqueIntExample', '[]'::jsonb,
                  'arrayOfTwonumbersExample', '[0, 1]'::jsonb, 'arrayOfFloatExample', '[]'::jsonb, 'arrayOfNumberNoDefaultsExample', '[]'::jsonb,
                  'arrayOfStringExample', CASE WHEN g <= 57 THEN '["page"]'::jsonb ELSE '["other"]'::jsonb END, 'arrayOfObjectType', '[]'::jsonb)
         FROM generate_series(1, 87) AS g
         RETURNING id, (object_type_property->'arrayOfStringExample' = '["page"]'::jsonb) AS match`,
        [pk, '2026-01-05T10:00:00.000Z'],
      );
      matches.push(...rows.filter((row) => row.match).map((row) => row.id));
      expect(matches).toHaveLength(57);
    });

    it('the commercetools pattern (sort=id asc, withTotal=false, limit=10, where=id > last) visits every match once', async () => {
      const seen: string[] = [];
      let last: string | undefined;
      let pages = 0;
      for (;;) {
        const params: Params = [['sort', 'id asc'], ['withTotal', 'false'], ['limit', '10'], ['where', 'objectTypeProperty(arrayOfStringExample contains any ("page"))']];
        if (last) params.push(['where', `id > "${last}"`]);
        const res = await query(params, pk);
        expect(res.status).toBe(200);
        expect(res.body.total).toBeUndefined();
        pages++;
        const ids = (res.body.results as ResourceBody[]).map((item) => item.id);
        expect(res.body.count).toBe(ids.length);
        seen.push(...ids);
        if (ids.length < 10) break;
        last = ids[ids.length - 1];
        expect(pages).toBeLessThan(10);
      }
      expect(pages).toBe(6);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual([...matches].sort());
    });

    it('limit/offset pages over a tied sort (createdAt) are disjoint and complete, in id order', async () => {
      const seen: string[] = [];
      for (let offset = 0; offset < 57; offset += 10) {
        const res = await query([['sort', 'createdAt asc'], ['limit', '10'], ['offset', String(offset)], ['where', 'objectTypeProperty(arrayOfStringExample = "page")']], pk);
        expect(res.body.total).toBe(57);
        seen.push(...(res.body.results as ResourceBody[]).map((item) => item.id));
      }
      expect(seen).toEqual([...matches].sort());
    });

    it('sort by version desc pages by version, then id', async () => {
      const res = await query([['sort', 'version desc'], ['limit', '500'], ['where', 'key in ("page-1", "page-2", "page-3", "page-4", "page-5", "page-6")']], pk);
      const versions = (res.body.results as ResourceBody[]).map((item) => item.version);
      expect(versions).toEqual([3, 3, 2, 2, 1, 1]);
      const results = res.body.results as ResourceBody[];
      for (let i = 1; i < results.length; i++) {
        if (results[i].version === results[i - 1].version) expect(results[i - 1].id < results[i].id).toBe(true);
      }
    });
  });

  describe('injection-shaped and hostile inputs: 400 or correct results, never 500, no data change', () => {
    const HOSTILE: string[] = [
      `key = "a' OR '1'='1"`,
      `key = "\\"; DROP TABLE resource; --"`,
      `key = "alpha" -- comment`,
      `key = "alpha"; DELETE FROM resource`,
      `key = "alpha" /* comment */`,
      `key = "alpha' ; --"`,
      `key = "$1" or key = "$2::text"`,
      `key = "\u202e\u0301\ufeff"`,
      `key = "${'x'.repeat(9990)}"`,
      `key = "${'x'.repeat(10_001)}"`,
      `key in (${Array.from({ length: 500 }, (_, i) => `"k${i}'"`).join(',')})`,
      `key in (${Array.from({ length: 501 }, (_, i) => `"k${i}"`).join(',')})`,
      `${'('.repeat(200)}key = "alpha"${')'.repeat(200)}`,
      `${'not ('.repeat(20)}key = "alpha"${')'.repeat(20)}`,
      `key = "alpha" ${'or key = "alpha" '.repeat(400)}`,
      `objectTypeProperty(arrayOfStringExample = "'); DROP TABLE resource; --")`,
      `objectTypeProperty(arrayOfFloatExample = ${'9'.repeat(99)}.5)`,
      `objectTypeProperty(arrayOfFloatExample = ${'9'.repeat(200)})`,
      `version = ${'9'.repeat(400)}`,
      `key = "\\u0000"`,
      `key = "\ud800"`,
      'key = "😀😀😀" or someProperty = "日本語"',
      'key = :k',
      ';',
      '"',
      '\\',
      '\u0000',
    ];

    it.each(HOSTILE.map((where, i) => [i, where.length > 60 ? `${where.slice(0, 60)}…` : where, where]))('#%s %s', async (_i, _shown, where) => {
      const res = await query([['where', where as string], ['var.k', "'; DROP TABLE resource; --"]]);
      expect([200, 400]).toContain(res.status);
      if (res.status === 400) expectErrorEnvelope(res, 400, ['InvalidInput', 'InvalidField']);
      else expect((res.body.results as ResourceBody[]).every((item) => ['alpha'].includes(nameOf(item)))).toBe(true);
      expectNoInternals(res);
    });

    it('after all of them every resource is still there, unchanged', async () => {
      const res = await query([['limit', '500']]);
      expect(res.text).toBe(`{"limit":500,"offset":0,"count":6,"total":6,"results":[${byId(Object.keys(r)).map((n) => texts[n]).join(',')}]}`);
    });

    it('hostile sort, limit and variables → 400, never 500', async () => {
      for (const params of [
        [['sort', 'key asc, id desc']],
        [['sort', "key asc'"]],
        [['limit', '1; DROP TABLE resource']],
        [['offset', '1 --']],
        [['withTotal', "true'"]],
        [['where', 'key = :k'], ['var.k', 'a\u0000b']],
        [['where', 'version = :v'], ['var.v', '1; DROP TABLE resource']],
        [['where', 'createdAt > :d'], ['var.d', "2026-01-01'::timestamptz; --"]],
      ] as Params[]) {
        const res = await query(params);
        expectErrorEnvelope(res, 400, ['InvalidInput', 'InvalidField']);
      }
    });
  });
});

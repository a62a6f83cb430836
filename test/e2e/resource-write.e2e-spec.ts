import type { Response } from 'supertest';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { arrays, draft, INT64_MAX, INT64_MIN, ARRAY_FIELDS } from '../support/fixtures.js';
import { newKey, resourcePath } from '../support/resources.js';

/**
 * Black-box tests of POST, PUT and PATCH /{projectKey}/resource (docs/api-guide.md#create, docs/rules.md#addressing-and-input).
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Method = 'post' | 'put' | 'patch';

describe('resource writes', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const path = () => resourcePath(t.projectKey);

  async function send(method: Method, body: unknown): Promise<Response> {
    return t.http[method](path()).set(await t.auth('manage_test')).send(body as object);
  }

  /** Sends `text` verbatim as the JSON body (64-bit integers and `1.0` stay as written). */
  async function sendRaw(method: Method, text: string): Promise<Response> {
    return t.http[method](path()).set(await t.auth('manage_test')).set('Content-Type', 'application/json').send(text);
  }

  /** JSON text of `value` where every string `"@name@"` is replaced by the raw number text `raw[name]`. */
  function jsonWith(value: unknown, raw: Record<string, string>): string {
    let text = JSON.stringify(value);
    for (const [name, number] of Object.entries(raw)) text = text.split(`"@${name}@"`).join(number);
    return text;
  }

  async function getById(id: string): Promise<Response> {
    return t.http.get(`${path()}/${id}`).set(await t.auth('view_test'));
  }

  function expectEnvelope(res: Response, status: number): void {
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body.statusCode).toBe(status);
    expect(typeof res.body.message).toBe('string');
    expect(Array.isArray(res.body.errors)).toBe(true);
    expect(res.body.errors.length).toBeGreaterThan(0);
    for (const error of res.body.errors) {
      expect(typeof error.code).toBe('string');
      expect(typeof error.message).toBe('string');
    }
  }

  /** A 400 whose errors include one with this code and field. */
  function expectViolation(res: Response, code: string, field: string): void {
    expectEnvelope(res, 400);
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ code, field })]));
  }

  /** A 400 whose errors are exactly one with this code and field. */
  function expectOnlyViolation(res: Response, code: string, field: string): void {
    expectEnvelope(res, 400);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatchObject({ code, field });
  }

  describe('POST /{projectKey}/resource', () => {
    it('creates a resource: 201, version 1, Location header, every server-managed field', async () => {
      const body = draft();
      const res = await send('post', body);
      expect(res.status).toBe(201);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body.id).toMatch(UUID);
      expect(res.headers.location).toBe(`/${t.projectKey}/resource/${res.body.id}`);
      expect(res.body.version).toBe(1);
      expect(res.body.objectTypeProperty).toEqual(body.objectTypeProperty);
      expect(res.body.createdAt).toMatch(ISO_MS_UTC);
      expect(res.body.lastModifiedAt).toMatch(ISO_MS_UTC);
      expect(res.body.lastModifiedAt).toBe(res.body.createdAt);
      expect(typeof res.body.createdBy.clientId).toBe('string');
      expect(typeof res.body.lastModifiedBy.clientId).toBe('string');
      expect(res.body.published).toBe(true);
      expect(res.body.images).toEqual([]);
    });

    it('omits absent optional fields and always includes images and published', async () => {
      const res = await send('post', draft());
      expect(res.status).toBe(201);
      for (const absent of ['key', 'someProperty', 'secondPropertyToUpdate']) {
        expect(res.body).not.toHaveProperty(absent);
      }
      expect(res.body.createdBy).not.toHaveProperty('customerId');
      expect(res.body.lastModifiedBy).not.toHaveProperty('customerId');
      expect(res.body).toHaveProperty('images', []);
      expect(res.body).toHaveProperty('published', true);
      // No nulls for absent fields either.
      expect(res.text).not.toContain('null');
      const read = await getById(res.body.id);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(res.body);
    });

    it('the resource is readable at the Location', async () => {
      const res = await send('post', draft({ key: newKey() }));
      expect(res.status).toBe(201);
      const read = await t.http.get(res.headers.location).set(await t.auth('view_test'));
      expect(read.status).toBe(200);
      expect(read.body).toEqual(res.body);
    });

    it('publish defaults to true; "publish": false creates an unpublished resource', async () => {
      const published = await send('post', draft());
      expect(published.status).toBe(201);
      expect(published.body.published).toBe(true);
      const unpublished = await send('post', draft({ publish: false }));
      expect(unpublished.status).toBe(201);
      expect(unpublished.body.published).toBe(false);
      expect((await getById(unpublished.body.id)).body.published).toBe(false);
      const explicit = await send('post', draft({ publish: true }));
      expect(explicit.status).toBe(201);
      expect(explicit.body.published).toBe(true);
    });

    it('a publish that is not a boolean → 400 InvalidField publish', async () => {
      expectOnlyViolation(await send('post', draft({ publish: 'yes' })), 'InvalidField', 'publish');
    });

    it('with a key no resource has: creates and keeps the key', async () => {
      const key = newKey();
      const res = await send('post', draft({ key }));
      expect(res.status).toBe(201);
      expect(res.body.key).toBe(key);
      expect(res.body.version).toBe(1);
      const byKey = await t.http.get(`${path()}/key=${key}`).set(await t.auth('view_test'));
      expect(byKey.status).toBe(200);
      expect(byKey.body.id).toBe(res.body.id);
    });

    it('ignores version on a draft that creates', async () => {
      const res = await send('post', draft({ key: newKey(), version: 7 }));
      expect(res.status).toBe(201);
      expect(res.body.version).toBe(1);
      const noKey = await send('post', draft({ version: 3 }));
      expect(noKey.status).toBe(201);
      expect(noKey.body.version).toBe(1);
    });

    it('with an existing key: updates that resource (objectTypeProperty replaced, version +1, 201, same Location)', async () => {
      const key = newKey();
      const first = await send('post', draft({ key }));
      expect(first.status).toBe(201);
      const replacement = arrays({ arrayOfIntExample: [42], arrayOfStringExample: ['replaced'] });
      const second = await send('post', { key, objectTypeProperty: replacement });
      expect(second.status).toBe(201);
      expect(second.body.id).toBe(first.body.id);
      expect(second.body.key).toBe(key);
      expect(second.body.version).toBe(2);
      expect(second.body.objectTypeProperty).toEqual(replacement);
      expect(second.body.createdAt).toBe(first.body.createdAt);
      expect(second.body.lastModifiedAt >= first.body.lastModifiedAt).toBe(true);
      expect(second.headers.location).toBe(`/${t.projectKey}/resource/${first.body.id}`);
      const read = await getById(first.body.id);
      expect(read.body.version).toBe(2);
      expect(read.body.objectTypeProperty).toEqual(replacement);
    });

    it('never creates a second resource with a taken key: the key stays unique', async () => {
      const key = newKey();
      const ids = new Set<string>();
      for (let i = 0; i < 3; i++) {
        const res = await send('post', draft({ key }, { arrayOfStringExample: [key, `n${i}`] }));
        expect(res.status).toBe(201);
        expect(res.body.version).toBe(i + 1);
        ids.add(res.body.id);
      }
      expect(ids.size).toBe(1);
      const merged = await t.http.get(path()).query({ stringParameter: key }).set(await t.auth('view_test'));
      expect(merged.status).toBe(200);
      expect(merged.headers['x-total-count']).toBe('1');
      expect(merged.body.arrayOfStringExample).toEqual([key, 'n2']);
    });

    it('concurrent creates with the same new key make one resource with distinct versions', async () => {
      const key = newKey('race');
      const auth = await t.auth('manage_test');
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => t.http.post(path()).set(auth).send(draft({ key }, { arrayOfIntExample: [i] }))),
      );
      for (const res of results) expect(res.status).toBe(201);
      expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
      expect(results.map((r) => r.body.version).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      const read = await t.http.get(`${path()}/key=${key}`).set(await t.auth('view_test'));
      expect(read.status).toBe(200);
      expect(read.body.version).toBe(10);
    });

    it('with an existing key and the matching version: updates', async () => {
      const key = newKey();
      await send('post', draft({ key }));
      const res = await send('post', draft({ key, version: 1 }, { arrayOfStringExample: ['v2'] }));
      expect(res.status).toBe(201);
      expect(res.body.version).toBe(2);
      expect(res.body.objectTypeProperty.arrayOfStringExample).toEqual(['v2']);
    });

    it('with an existing key and a stale version: 409 ConcurrentModification with currentVersion, nothing changed', async () => {
      const key = newKey();
      const created = await send('post', draft({ key }));
      await send('post', draft({ key }));
      const res = await send('post', draft({ key, version: 1 }, { arrayOfStringExample: ['lost'] }));
      expectEnvelope(res, 409);
      expect(res.body.errors[0]).toMatchObject({ code: 'ConcurrentModification', currentVersion: 2 });
      const read = await getById(created.body.id);
      expect(read.body.version).toBe(2);
      expect(read.body.objectTypeProperty.arrayOfStringExample).toEqual(['test', 'alpha']);
    });

    it('rejects unknown body fields with 400 InvalidField naming them', async () => {
      const res = await send('post', draft({ colour: 'red' }));
      expectOnlyViolation(res, 'InvalidField', 'colour');
      const idRes = await send('post', draft({ id: '00000000-0000-4000-8000-000000000000' }));
      expectOnlyViolation(idRes, 'InvalidField', 'id');
    });

    it.each([
      ['an array', '[]'],
      ['a string', '"draft"'],
      ['a number', '42'],
      ['null', 'null'],
      ['true', 'true'],
    ])('rejects a body that is %s with 400', async (_name, text) => {
      const res = await sendRaw('post', text);
      expectEnvelope(res, 400);
      expect(['InvalidField', 'InvalidInput', 'InvalidJsonInput', 'RequiredField']).toContain(res.body.errors[0].code);
    });

    it('rejects a missing body with 400', async () => {
      const res = await t.http.post(path()).set(await t.auth('manage_test'));
      expectEnvelope(res, 400);
    });

    it('rejects malformed JSON with 400 InvalidJsonInput and detailedErrorMessage', async () => {
      const res = await sendRaw('post', '{"objectTypeProperty": {');
      expectEnvelope(res, 400);
      expect(res.body.errors[0].code).toBe('InvalidJsonInput');
      expect(typeof res.body.errors[0].detailedErrorMessage).toBe('string');
    });
  });

  describe('POST /{projectKey}/resource (draft validation)', () => {
    it('missing objectTypeProperty → 400 RequiredField objectTypeProperty', async () => {
      expectOnlyViolation(await send('post', {}), 'RequiredField', 'objectTypeProperty');
      expectOnlyViolation(await send('post', { key: newKey() }), 'RequiredField', 'objectTypeProperty');
    });

    it('objectTypeProperty that is not an object → 400 InvalidField', async () => {
      expectOnlyViolation(await send('post', { objectTypeProperty: [1] }), 'InvalidField', 'objectTypeProperty');
      expectOnlyViolation(await send('post', { objectTypeProperty: 'x' }), 'InvalidField', 'objectTypeProperty');
    });

    it('all seven arrays are required: each missing one is listed as RequiredField with its path', async () => {
      const res = await send('post', { objectTypeProperty: {} });
      expectEnvelope(res, 400);
      const fields = ARRAY_FIELDS;
      expect(res.body.errors).toHaveLength(7);
      for (const field of fields) {
        expect(res.body.errors).toContainEqual(expect.objectContaining({ code: 'RequiredField', field: `objectTypeProperty.${field}` }));
      }
    });

    it.each(ARRAY_FIELDS)('missing %s alone → 400 RequiredField', async (field) => {
      const objectTypeProperty = arrays();
      delete objectTypeProperty[field];
      expectOnlyViolation(await send('post', { objectTypeProperty }), 'RequiredField', `objectTypeProperty.${field}`);
    });

    it.each(ARRAY_FIELDS)('%s that is not an array → 400 InvalidField', async (field) => {
      expectOnlyViolation(await send('post', draft({}, { [field]: 'nope' })), 'InvalidField', `objectTypeProperty.${field}`);
    });

    it('empty arrays are allowed except arrayOfTwonumbersExample', async () => {
      const res = await send('post', {
        objectTypeProperty: {
          arrayOfIntExample: [],
          arrayOfUniqueIntExample: [],
          arrayOfTwonumbersExample: [0, 0],
          arrayOfFloatExample: [],
          arrayOfNumberNoDefaultsExample: [],
          arrayOfStringExample: [],
          arrayOfObjectType: [],
        },
      });
      expect(res.status).toBe(201);
      expect(res.body.objectTypeProperty.arrayOfIntExample).toEqual([]);
      expect(res.body.objectTypeProperty.arrayOfObjectType).toEqual([]);
      expect(res.body.objectTypeProperty.arrayOfTwonumbersExample).toEqual([0, 0]);
    });

    it.each([
      ['empty', []],
      ['one number', [1]],
      ['three numbers', [1, 2, 3]],
    ])('arrayOfTwonumbersExample %s → 400 InvalidField', async (_name, value) => {
      const res = await send('post', draft({}, { arrayOfTwonumbersExample: value }));
      expectViolation(res, 'InvalidField', 'objectTypeProperty.arrayOfTwonumbersExample');
    });

    it('arrayOfTwonumbersExample with a non-number → 400 InvalidField at the element', async () => {
      const res = await send('post', draft({}, { arrayOfTwonumbersExample: [1, 'two'] }));
      expectOnlyViolation(res, 'InvalidField', 'objectTypeProperty.arrayOfTwonumbersExample[1]');
    });

    it('arrayOfTwonumbersExample accepts any two numbers (integers, decimals, negatives)', async () => {
      const res = await send('post', draft({}, { arrayOfTwonumbersExample: [-7, 3.25] }));
      expect(res.status).toBe(201);
      expect(res.body.objectTypeProperty.arrayOfTwonumbersExample).toEqual([-7, 3.25]);
    });

    it('duplicates are allowed in arrayOfIntExample', async () => {
      const res = await send('post', draft({}, { arrayOfIntExample: [3, 3, 3, -1, -1] }));
      expect(res.status).toBe(201);
      expect(res.body.objectTypeProperty.arrayOfIntExample).toEqual([3, 3, 3, -1, -1]);
    });

    it('duplicates are rejected in arrayOfUniqueIntExample (400 InvalidField)', async () => {
      const res = await send('post', draft({}, { arrayOfUniqueIntExample: [1, 2, 1] }));
      expectEnvelope(res, 400);
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors[0].code).toBe('InvalidField');
      expect(res.body.errors[0].field).toMatch(/^objectTypeProperty\.arrayOfUniqueIntExample(\[2\])?$/);
    });

    it('1 and 1.0 are the same integer: a duplicate in arrayOfUniqueIntExample', async () => {
      const text = jsonWith(draft({}, { arrayOfUniqueIntExample: [1, '@one@'] }), { one: '1.0' });
      const res = await sendRaw('post', text);
      expectEnvelope(res, 400);
      expect(res.body.errors[0].code).toBe('InvalidField');
      expect(res.body.errors[0].field).toMatch(/^objectTypeProperty\.arrayOfUniqueIntExample(\[1\])?$/);
    });

    it('64-bit extremes that differ only beyond double precision are not duplicates', async () => {
      const text = jsonWith(draft({}, { arrayOfUniqueIntExample: ['@a@', '@b@'] }), {
        a: INT64_MAX,
        b: '9223372036854775806',
      });
      const res = await sendRaw('post', text);
      expect(res.status).toBe(201);
      expect(res.text).toContain(`[${INT64_MAX},9223372036854775806]`);
    });

    it('a number with a zero fraction (1.0) counts as an integer in every integer field', async () => {
      const text = jsonWith(
        draft({}, {
          arrayOfIntExample: ['@one@'],
          arrayOfUniqueIntExample: ['@two@'],
          arrayOfObjectType: [{ integerExample: '@three@', integerExampleInt32: '@four@' }],
        }),
        { one: '1.0', two: '2.00', three: '3.0', four: '4.0' },
      );
      const res = await sendRaw('post', text);
      expect(res.status).toBe(201);
      expect(res.body.objectTypeProperty.arrayOfIntExample).toEqual([1]);
      expect(res.body.objectTypeProperty.arrayOfUniqueIntExample).toEqual([2]);
      expect(res.body.objectTypeProperty.arrayOfObjectType).toEqual([{ integerExample: 3, integerExampleInt32: 4 }]);
    });

    it.each([
      ['arrayOfIntExample', 1.5],
      ['arrayOfIntExample', '1'],
      ['arrayOfIntExample', true],
      ['arrayOfIntExample', null],
      ['arrayOfUniqueIntExample', 2.25],
      ['arrayOfFloatExample', '0.5'],
      ['arrayOfNumberNoDefaultsExample', {}],
      ['arrayOfStringExample', 5],
    ])('%s element %p → 400 InvalidField at [1]', async (field, value) => {
      const base = arrays()[field] as unknown[];
      const res = await send('post', draft({}, { [field]: [base[0], value] }));
      expectOnlyViolation(res, 'InvalidField', `objectTypeProperty.${field}[1]`);
    });

    it('decimal and integer numbers are accepted in arrayOfFloatExample and arrayOfNumberNoDefaultsExample', async () => {
      const res = await send('post', draft({}, { arrayOfFloatExample: [1, -2.5, 1e3], arrayOfNumberNoDefaultsExample: [0, 0.125] }));
      expect(res.status).toBe(201);
      expect(res.body.objectTypeProperty.arrayOfFloatExample).toEqual([1, -2.5, 1000]);
      expect(res.body.objectTypeProperty.arrayOfNumberNoDefaultsExample).toEqual([0, 0.125]);
    });

    it('signed 64-bit extremes are accepted and round-trip exactly (response, GET by id)', async () => {
      const text = jsonWith(
        draft({}, {
          arrayOfIntExample: ['@max@', '@min@'],
          arrayOfUniqueIntExample: ['@max@', '@min@'],
          arrayOfObjectType: [
            { integerExample: '@max@', integerExampleInt32: 1 },
            { integerExample: '@min@', integerExampleInt32: 2 },
          ],
        }),
        { max: INT64_MAX, min: INT64_MIN },
      );
      const res = await sendRaw('post', text);
      expect(res.status).toBe(201);
      const expected = [
        `"arrayOfIntExample":[${INT64_MAX},${INT64_MIN}]`,
        `"arrayOfUniqueIntExample":[${INT64_MAX},${INT64_MIN}]`,
        `{"integerExample":${INT64_MAX},"integerExampleInt32":1}`,
        `{"integerExample":${INT64_MIN},"integerExampleInt32":2}`,
      ];
      const compact = res.text.replace(/\s/g, '');
      for (const part of expected) expect(compact).toContain(part);
      const read = await getById(res.body.id);
      const readCompact = read.text.replace(/\s/g, '');
      for (const part of expected) expect(readCompact).toContain(part);
    });

    it.each([
      ['arrayOfIntExample', '9223372036854775808'],
      ['arrayOfIntExample', '-9223372036854775809'],
      ['arrayOfUniqueIntExample', '9223372036854775808'],
      ['arrayOfUniqueIntExample', '18446744073709551616'],
    ])('%s element %s (beyond 64 bits) → 400 InvalidField', async (field, big) => {
      const text = jsonWith(draft({}, { [field]: [1, '@big@'] }), { big });
      const res = await sendRaw('post', text);
      expectOnlyViolation(res, 'InvalidField', `objectTypeProperty.${field}[1]`);
    });

    it.each(['9223372036854775808', '-9223372036854775809', '1e30'])(
      'integerExample %s (outside 64 bits) → 400 InvalidField with its path',
      async (big) => {
        const text = jsonWith(
          draft({}, { arrayOfObjectType: [{ integerExample: 1, integerExampleInt32: 1 }, { integerExample: '@big@', integerExampleInt32: 1 }] }),
          { big },
        );
        const res = await sendRaw('post', text);
        expectOnlyViolation(res, 'InvalidField', 'objectTypeProperty.arrayOfObjectType[1].integerExample');
      },
    );

    it('integerExampleInt32 accepts the signed 32-bit extremes', async () => {
      const res = await send('post', draft({}, {
        arrayOfObjectType: [
          { integerExample: 0, integerExampleInt32: 2147483647 },
          { integerExample: 0, integerExampleInt32: -2147483648 },
        ],
      }));
      expect(res.status).toBe(201);
      expect(res.body.objectTypeProperty.arrayOfObjectType).toEqual([
        { integerExample: 0, integerExampleInt32: 2147483647 },
        { integerExample: 0, integerExampleInt32: -2147483648 },
      ]);
    });

    it.each([2147483648, -2147483649, 1.5, '7'])(
      'integerExampleInt32 %p → 400 InvalidField objectTypeProperty.arrayOfObjectType[1].integerExampleInt32',
      async (value) => {
        const res = await send('post', draft({}, {
          arrayOfObjectType: [{ integerExample: 1, integerExampleInt32: 1 }, { integerExample: 1, integerExampleInt32: value }],
        }));
        expectOnlyViolation(res, 'InvalidField', 'objectTypeProperty.arrayOfObjectType[1].integerExampleInt32');
      },
    );

    it('both members of an arrayOfObjectType item are required (RequiredField with the item path)', async () => {
      const res = await send('post', draft({}, { arrayOfObjectType: [{ integerExampleInt32: 1 }, { integerExample: 1 }] }));
      expectEnvelope(res, 400);
      expect(res.body.errors).toHaveLength(2);
      expect(res.body.errors).toContainEqual(
        expect.objectContaining({ code: 'RequiredField', field: 'objectTypeProperty.arrayOfObjectType[0].integerExample' }),
      );
      expect(res.body.errors).toContainEqual(
        expect.objectContaining({ code: 'RequiredField', field: 'objectTypeProperty.arrayOfObjectType[1].integerExampleInt32' }),
      );
    });

    it('an arrayOfObjectType item that is not an object → 400 InvalidField', async () => {
      const res = await send('post', draft({}, { arrayOfObjectType: [{ integerExample: 1, integerExampleInt32: 1 }, 5] }));
      expectOnlyViolation(res, 'InvalidField', 'objectTypeProperty.arrayOfObjectType[1]');
    });

    it('unknown members anywhere → 400 InvalidField with their path', async () => {
      expectOnlyViolation(await send('post', draft({ extra: 1 })), 'InvalidField', 'extra');
      expectOnlyViolation(await send('post', draft({}, { arrayOfBooleans: [true] })), 'InvalidField', 'objectTypeProperty.arrayOfBooleans');
      expectOnlyViolation(
        await send('post', draft({}, { arrayOfObjectType: [{ integerExample: 1, integerExampleInt32: 1, label: 'x' }] })),
        'InvalidField',
        'objectTypeProperty.arrayOfObjectType[0].label',
      );
    });

    it('lists every violation of a draft with its path', async () => {
      const res = await send('post', {
        key: 'x',
        publish: 'no',
        unknown: true,
        objectTypeProperty: arrays({
          arrayOfIntExample: [1, 'a'],
          arrayOfUniqueIntExample: [4, 4],
          arrayOfTwonumbersExample: [],
          arrayOfObjectType: [{ integerExample: 1, integerExampleInt32: 1 }, { integerExample: 1, integerExampleInt32: 2147483648 }],
        }),
      });
      expectEnvelope(res, 400);
      const fields = res.body.errors.map((e: { field: string }) => e.field);
      expect(fields).toEqual(
        expect.arrayContaining([
          'key',
          'publish',
          'unknown',
          'objectTypeProperty.arrayOfIntExample[1]',
          'objectTypeProperty.arrayOfTwonumbersExample',
          'objectTypeProperty.arrayOfObjectType[1].integerExampleInt32',
        ]),
      );
      expect(fields.some((f: string) => f.startsWith('objectTypeProperty.arrayOfUniqueIntExample'))).toBe(true);
      for (const error of res.body.errors) expect(error.code).toBe('InvalidField');
    });

    it('a failed validation writes nothing', async () => {
      const key = newKey();
      const res = await send('post', draft({ key }, { arrayOfTwonumbersExample: [] }));
      expect(res.status).toBe(400);
      const read = await t.http.get(`${path()}/key=${key}`).set(await t.auth('view_test'));
      expect(read.status).toBe(404);
    });
  });

  describe('POST /{projectKey}/resource (key format)', () => {
    it.each([
      ['two characters', 'ab'],
      ['every allowed character class', 'Az09_-'],
      ['256 characters', 'k'.repeat(256)],
    ])('accepts a key of %s', async (_name, key) => {
      const res = await send('post', draft({ key }));
      expect(res.status).toBe(201);
      expect(res.body.key).toBe(key);
    });

    it.each([
      ['one character', 'a'],
      ['257 characters', 'k'.repeat(257)],
      ['a dot', 'a.b'],
      ['a space', 'a b'],
      ['a slash', 'a/b'],
      ['a non-ASCII letter', 'schlüssel'],
      ['the empty string', ''],
    ])('rejects a key with %s: 400 InvalidField key', async (_name, key) => {
      expectOnlyViolation(await send('post', draft({ key })), 'InvalidField', 'key');
    });

    it('rejects a key that is not a string: 400 InvalidField key', async () => {
      expectOnlyViolation(await send('post', draft({ key: 12345 })), 'InvalidField', 'key');
    });
  });

  describe('PUT /{projectKey}/resource', () => {
    it('requires a key: 400 RequiredField key', async () => {
      expectOnlyViolation(await send('put', draft()), 'RequiredField', 'key');
    });

    it('creates when the key is new: 201, version 1, Location', async () => {
      const key = newKey();
      const res = await send('put', draft({ key }));
      expect(res.status).toBe(201);
      expect(res.body.version).toBe(1);
      expect(res.body.key).toBe(key);
      expect(res.body.published).toBe(true);
      expect(res.body.images).toEqual([]);
      expect(res.headers.location).toBe(`/${t.projectKey}/resource/${res.body.id}`);
    });

    it('ignores version when it creates', async () => {
      const res = await send('put', draft({ key: newKey(), version: 9 }));
      expect(res.status).toBe(201);
      expect(res.body.version).toBe(1);
    });

    it('overwrites the resource with that key: same id, version +1, objectTypeProperty replaced', async () => {
      const key = newKey();
      const first = await send('put', draft({ key }));
      const replacement = arrays({ arrayOfStringExample: ['overwritten'], arrayOfTwonumbersExample: [9, 9] });
      const second = await send('put', { key, objectTypeProperty: replacement });
      expect(second.status).toBe(201);
      expect(second.body.id).toBe(first.body.id);
      expect(second.body.version).toBe(2);
      expect(second.body.createdAt).toBe(first.body.createdAt);
      expect(second.body.objectTypeProperty).toEqual(replacement);
      expect(second.headers.location).toBe(`/${t.projectKey}/resource/${first.body.id}`);
      const read = await getById(first.body.id);
      expect(read.body.objectTypeProperty).toEqual(replacement);
      expect(read.body.version).toBe(2);
    });

    it('checks a given version when it overwrites: match → 201, stale → 409 with currentVersion', async () => {
      const key = newKey();
      await send('put', draft({ key }));
      const ok = await send('put', draft({ key, version: 1 }));
      expect(ok.status).toBe(201);
      expect(ok.body.version).toBe(2);
      const stale = await send('put', draft({ key, version: 1 }, { arrayOfStringExample: ['lost'] }));
      expectEnvelope(stale, 409);
      expect(stale.body.errors[0]).toMatchObject({ code: 'ConcurrentModification', currentVersion: 2 });
      const read = await t.http.get(`${path()}/key=${key}`).set(await t.auth('view_test'));
      expect(read.body.version).toBe(2);
      expect(read.body.objectTypeProperty.arrayOfStringExample).toEqual(['test', 'alpha']);
    });

    it('validates the draft like POST (unknown fields, paths, codes)', async () => {
      expectOnlyViolation(await send('put', draft({ key: newKey(), extra: 1 })), 'InvalidField', 'extra');
      expectOnlyViolation(
        await send('put', draft({ key: newKey() }, { arrayOfTwonumbersExample: [] })),
        'InvalidField',
        'objectTypeProperty.arrayOfTwonumbersExample',
      );
      expectOnlyViolation(await send('put', { key: newKey() }), 'RequiredField', 'objectTypeProperty');
      expectOnlyViolation(await send('put', draft({ key: 'k' })), 'InvalidField', 'key');
    });

    it('rejects a non-object body with 400', async () => {
      expectEnvelope(await sendRaw('put', '["key"]'), 400);
    });

    it('keeps 64-bit integers exact when it overwrites', async () => {
      const key = newKey();
      await send('put', draft({ key }));
      const text = jsonWith(draft({ key }, { arrayOfIntExample: ['@min@'] }), { min: INT64_MIN });
      const res = await sendRaw('put', text);
      expect(res.status).toBe(201);
      expect(res.text.replace(/\s/g, '')).toContain(`"arrayOfIntExample":[${INT64_MIN}]`);
    });
  });

  describe('PATCH /{projectKey}/resource', () => {
    it('requires a key: 400 RequiredField key', async () => {
      expectOnlyViolation(await send('patch', draft()), 'RequiredField', 'key');
    });

    it('the resource must exist: 404 ResourceNotFound', async () => {
      const key = newKey('missing');
      const res = await send('patch', draft({ key }));
      expectEnvelope(res, 404);
      expect(res.body.errors[0].code).toBe('ResourceNotFound');
      const read = await t.http.get(`${path()}/key=${key}`).set(await t.auth('view_test'));
      expect(read.status).toBe(404);
    });

    it('input validation comes before existence: invalid draft for a missing key → 400', async () => {
      const res = await send('patch', draft({ key: newKey('missing') }, { arrayOfIntExample: [0.5] }));
      expectOnlyViolation(res, 'InvalidField', 'objectTypeProperty.arrayOfIntExample[0]');
    });

    it('overwrites the existing resource: 201, same id, version +1, Location', async () => {
      const key = newKey();
      const created = await send('post', draft({ key }));
      const replacement = arrays({ arrayOfIntExample: [], arrayOfFloatExample: [3.5] });
      const res = await send('patch', { key, objectTypeProperty: replacement });
      expect(res.status).toBe(201);
      expect(res.body.id).toBe(created.body.id);
      expect(res.body.version).toBe(2);
      expect(res.body.objectTypeProperty).toEqual(replacement);
      expect(res.headers.location).toBe(`/${t.projectKey}/resource/${created.body.id}`);
      const read = await getById(created.body.id);
      expect(read.body.objectTypeProperty).toEqual(replacement);
    });

    it('checks a given version: match → 201, stale → 409 ConcurrentModification with currentVersion', async () => {
      const key = newKey();
      await send('post', draft({ key }));
      const ok = await send('patch', draft({ key, version: 1 }));
      expect(ok.status).toBe(201);
      expect(ok.body.version).toBe(2);
      const stale = await send('patch', draft({ key, version: 1 }));
      expectEnvelope(stale, 409);
      expect(stale.body.errors[0]).toMatchObject({ code: 'ConcurrentModification', currentVersion: 2 });
    });

    it('validates the draft: unknown fields → 400 InvalidField', async () => {
      const key = newKey();
      await send('post', draft({ key }));
      expectOnlyViolation(
        await send('patch', draft({ key }, { arrayOfObjectType: [{ integerExample: 1, integerExampleInt32: 1, x: 1 }] })),
        'InvalidField',
        'objectTypeProperty.arrayOfObjectType[0].x',
      );
    });
  });

  describe('version across collection writes', () => {
    it('every successful write adds exactly 1 (POST create, POST update, PUT, PATCH)', async () => {
      const key = newKey();
      const versions: number[] = [];
      versions.push((await send('post', draft({ key }))).body.version);
      versions.push((await send('post', draft({ key }))).body.version);
      versions.push((await send('put', draft({ key }))).body.version);
      versions.push((await send('patch', draft({ key }))).body.version);
      versions.push((await send('put', draft({ key, version: 4 }))).body.version);
      expect(versions).toEqual([1, 2, 3, 4, 5]);
    });

    it('a rejected write does not change the version', async () => {
      const key = newKey();
      await send('post', draft({ key }));
      expect((await send('put', draft({ key, version: 5 }))).status).toBe(409);
      expect((await send('patch', draft({ key }, { arrayOfTwonumbersExample: [1] }))).status).toBe(400);
      const read = await t.http.get(`${path()}/key=${key}`).set(await t.auth('view_test'));
      expect(read.body.version).toBe(1);
    });
  });
});

import { createTestApp, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { expectErrorEnvelope } from '../support/expect-error.js';
import { ARRAY_FIELDS, INT64_MAX } from '../support/fixtures.js';
import { OUT_OF_ORDER_PROPERTIES_EXAMPLE } from '../../src/complex-path/complex-path.dto.js';

/*
 * POST /{projectKey}/resource/artificially-complex/path/uri-parameter-one={uriParameterOne}/{uriParameterTwo}
 * (docs/api-guide.md#complex-path), black-box over HTTP: path decoding, the typed body,
 * records and their statuses, the echo and its form encoding. Also: CORS is off by default.
 */

/** A valid OutOfOrderPropertiesTestType: a copy of the OpenAPI document's example; override members per test. */
function body(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...structuredClone(OUT_OF_ORDER_PROPERTIES_EXAMPLE), ...overrides };
}

/** The body's strings in the API description's table order, as the echo lists them. */
function bodyStrings(b: Record<string, any>): string[] {
  return [
    b.id, b.version, b.key, b.createdAt, b.lastModifiedAt,
    b.createdBy.firstName, b.createdBy.lastName, b.lastModifiedBy.firstName, b.lastModifiedBy.lastName,
    b.custom, b.eigthProperty, b.ninthProperty, b.tenthProperty, b.eleventhPropery, b.twelthProperty,
    b.thirteenthProperty, b.fourteenthProperty, b.fifteenthProperty,
  ];
}

const REQUIRED = [
  'id', 'version', 'key', 'createdAt', 'lastModifiedAt', 'createdBy', 'lastModifiedBy', 'custom', 'eigthProperty', 'ninthProperty',
  'tenthProperty', 'eleventhPropery', 'twelthProperty', 'thirteenthProperty', 'fourteenthProperty', 'fifteenthProperty',
];

describe('POST /{projectKey}/resource/artificially-complex/path/uri-parameter-one={uriParameterOne}/{uriParameterTwo}', () => {
  let t: TestApp;
  beforeAll(async () => {
    // CORS explicitly off (the default), for the tests that check its absence.
    t = await createTestApp({ HTTP_CORS_ORIGINS: '' });
  });
  afterAll(() => t.close());

  /** `one` and `two` are written into the path as given (already encoded where a test wants it). */
  const url = (pk: string, one: string, two: string, query = '') =>
    `/${pk}/resource/artificially-complex/path/uri-parameter-one=${one}/${two}${query ? `?${query}` : ''}`;

  async function post(pk: string, one: string, two: string, query: string, payload: unknown, accept?: string) {
    const req = t.http.post(url(pk, one, two, query)).set(await t.auth('manage_test', { projectKey: pk }));
    if (accept !== undefined) req.set('Accept', accept);
    return typeof payload === 'string' ? req.set('Content-Type', 'application/json').send(payload) : req.send(payload as object);
  }

  const fresh = () => uniqueProjectKey('cp');

  describe('records and statuses', () => {
    it('a new record → 201 with the echo, its members in the API description\'s order', async () => {
      const pk = fresh();
      const res = await post(pk, 'one', 'two', 'queryParameterOne=1.5&queryParameterTwo=q2', body());
      expect(res.status).toBe(201);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(Object.keys(res.body)).toEqual([...ARRAY_FIELDS]);
      expect(res.body).toEqual({
        arrayOfIntExample: [],
        arrayOfUniqueIntExample: [],
        arrayOfTwonumbersExample: [1, 1],
        arrayOfFloatExample: [1.5],
        arrayOfNumberNoDefaultsExample: [],
        arrayOfStringExample: ['one', 'two', 'q2', ...bodyStrings(body())],
        arrayOfObjectType: [],
      });
    });

    it('the same id again → 200, the record replaced (revision 2, still one record)', async () => {
      const pk = fresh();
      await post(pk, 'one', 'two', '', body());
      const res = await post(pk, 'one', 'two', '', body({ custom: 'changed' }));
      expect(res.status).toBe(200);
      expect(res.body.arrayOfTwonumbersExample).toEqual([2, 1]);
      expect(res.body.arrayOfStringExample).toContain('changed');
      const third = await post(pk, 'one', 'two', '', body());
      expect(third.status).toBe(200);
      expect(third.body.arrayOfTwonumbersExample).toEqual([3, 1]);
    });

    it('another id under the same pair → 201, two records; another pair or project → its own count', async () => {
      const pk = fresh();
      await post(pk, 'one', 'two', '', body());
      const second = await post(pk, 'one', 'two', '', body({ id: 'record-2' }));
      expect(second.status).toBe(201);
      expect(second.body.arrayOfTwonumbersExample).toEqual([1, 2]);
      const otherPair = await post(pk, 'one', 'three', '', body());
      expect(otherPair.status).toBe(201);
      expect(otherPair.body.arrayOfTwonumbersExample).toEqual([1, 1]);
      const swapped = await post(pk, 'two', 'one', '', body());
      expect(swapped.status).toBe(201);
      const otherProject = await post(fresh(), 'one', 'two', '', body());
      expect(otherProject.status).toBe(201);
      expect(otherProject.body.arrayOfTwonumbersExample).toEqual([1, 1]);
    });

    it('concurrent writes of one new record: exactly one 201, the others 200 with distinct revisions', async () => {
      const pk = fresh();
      const answers = await Promise.all(Array.from({ length: 8 }, () => post(pk, 'c', 'd', '', body())));
      expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
      expect(answers.map((r) => r.body.arrayOfTwonumbersExample[0]).sort()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    });
  });

  describe('the echo', () => {
    it('without query parameters: no queryParameterTwo in the strings, arrayOfFloatExample empty', async () => {
      const res = await post(fresh(), 'one', 'two', '', body());
      expect(res.status).toBe(201);
      expect(res.body.arrayOfStringExample).toEqual(['one', 'two', ...bodyStrings(body())]);
      expect(res.body.arrayOfFloatExample).toEqual([]);
    });

    it.each([
      ['0', '0'],
      ['-0.25', '-0.25'],
      ['1e3', '1000'],
      ['42.0', '42'],
      [INT64_MAX, INT64_MAX],
    ])('queryParameterOne=%s → arrayOfFloatExample [%s]', async (sent, echoed) => {
      const res = await post(fresh(), 'a', 'b', `queryParameterOne=${sent}`, body());
      expect(res.status).toBe(201);
      expect(res.text.replace(/\s/g, '')).toContain(`"arrayOfFloatExample":[${echoed}]`);
    });

    it('queryParameterTwo is decoded (an empty value is a value)', async () => {
      const one = await post(fresh(), 'a', 'b', 'queryParameterTwo=hello%20w%C3%B6rld%26more', body());
      expect(one.body.arrayOfStringExample.slice(0, 3)).toEqual(['a', 'b', 'hello wörld&more']);
      const empty = await post(fresh(), 'a', 'b', 'queryParameterTwo=', body());
      expect(empty.body.arrayOfStringExample.slice(0, 3)).toEqual(['a', 'b', '']);
    });

    it('unknown query parameters are ignored', async () => {
      const res = await post(fresh(), 'a', 'b', 'other=1', body());
      expect(res.status).toBe(201);
      expect(res.body.arrayOfStringExample).toEqual(['a', 'b', ...bodyStrings(body())]);
    });
  });

  describe('path parameters', () => {
    it.each([
      ['an encoded slash', 'a%2Fb', 'c%2Fd', 'a/b', 'c/d'],
      ['= inside the value', 'x=y=z', '=', 'x=y=z', '='],
      ['percent-encoded UTF-8 and spaces', '%E2%82%AC%20euro', 'caf%C3%A9', '€ euro', 'café'],
      ['a literal + (not a space in a path)', 'a+b', 'c+d', 'a+b', 'c+d'],
      ['an encoded percent sign', '100%25', '%2525', '100%', '%25'],
      ['encoded ? and #', 'a%3Fb', 'c%23d', 'a?b', 'c#d'],
      ['sub-delimiters', "a;b,c!$&'()*", '~._-', "a;b,c!$&'()*", '~._-'],
      ['an encoded uri-parameter-one= inside', 'uri-parameter-one%3Dx', 'uri-parameter-one=y', 'uri-parameter-one=x', 'uri-parameter-one=y'],
    ])('%s: decoded as the echo shows', async (_label, one, two, decodedOne, decodedTwo) => {
      const res = await post(fresh(), one, two, '', body());
      expect(res.status).toBe(201);
      expect(res.body.arrayOfStringExample.slice(0, 2)).toEqual([decodedOne, decodedTwo]);
    });

    it('a record is stored under the decoded values: encoded and literal spellings name the same record', async () => {
      const pk = fresh();
      await post(pk, 'caf%C3%A9', 'x', '', body());
      const res = await post(pk, 'café', 'x', '', body());
      expect(res.status).toBe(200);
    });

    it.each([
      ['a NUL character', 'a%00', 'b', 'uriParameterOne'],
      ['201 characters', 'x'.repeat(201), 'b', 'uriParameterOne'],
    ])('%s → 400 InvalidField naming the parameter', async (_label, one, two, field) => {
      const res = await post(fresh(), one, two, '', body());
      expectErrorEnvelope(res, 400, 'InvalidField');
      expect(res.body.errors[0].field).toBe(field);
    });

    it('200 characters are accepted', async () => {
      const res = await post(fresh(), 'x'.repeat(200), 'y'.repeat(200), '', body({ id: 'z'.repeat(200) }));
      expect(res.status).toBe(201);
    });

    it('a malformed percent-encoding → 400 envelope', async () => {
      const res = await post(fresh(), '%zz', 'b', '', body());
      expectErrorEnvelope(res, 400, 'InvalidInput');
    });

    it.each([
      ['no uri-parameter-one= prefix', '/artificially-complex/path/one/two'],
      ['a differently cased prefix', '/artificially-complex/path/URI-PARAMETER-ONE=a/two'],
      ['a missing segment', '/artificially-complex/path/uri-parameter-one=a'],
      ['an extra segment', '/artificially-complex/path/uri-parameter-one=a/b/c'],
      ['an empty uriParameterOne', '/artificially-complex/path/uri-parameter-one=/b'],
      ['an empty uriParameterTwo', '/artificially-complex/path/uri-parameter-one=a/'],
    ])('%s → 404 ResourceNotFound', async (_label, rest) => {
      const pk = fresh();
      const res = await t.http.post(`/${pk}/resource${rest}`).set(await t.auth('manage_test', { projectKey: pk })).send(body());
      expectErrorEnvelope(res, 404, 'ResourceNotFound');
    });
  });

  describe('query parameters', () => {
    it.each([
      ['queryParameterOne=abc', 'queryParameterOne'],
      ['queryParameterOne=', 'queryParameterOne'],
      ['queryParameterOne=1e400', 'queryParameterOne'],
      ['queryParameterOne=1&queryParameterOne=2', 'queryParameterOne'],
      ['queryParameterTwo=a&queryParameterTwo=b', 'queryParameterTwo'],
    ])('%s → 400 InvalidField naming it', async (query, field) => {
      const res = await post(fresh(), 'a', 'b', query, body());
      expectErrorEnvelope(res, 400, 'InvalidField');
      expect(res.body.errors[0]).toMatchObject({ field });
      expect(res.body.errors[0].message).toMatch(new RegExp(`^Malformed parameter: ${field}: `));
    });
  });

  describe('the body (OutOfOrderPropertiesTestType)', () => {
    it.each(REQUIRED)('%s missing → 400 RequiredField', async (name) => {
      const { [name]: _omitted, ...rest } = body();
      const res = await post(fresh(), 'a', 'b', '', rest);
      expectErrorEnvelope(res, 400, 'RequiredField');
      expect(res.body.errors).toEqual([expect.objectContaining({ code: 'RequiredField', field: name })]);
    });

    it('an empty object → every field listed as RequiredField', async () => {
      const res = await post(fresh(), 'a', 'b', '', {});
      expectErrorEnvelope(res, 400, 'RequiredField');
      expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([...REQUIRED].sort());
    });

    it.each([
      ['id', 5, 'id'],
      ['version', 2, 'version'],
      ['custom', null, 'custom'],
      ['fifteenthProperty', ['x'], 'fifteenthProperty'],
      ['createdAt', 'yesterday', 'createdAt'],
      ['createdAt', '2026-01-31', 'createdAt'],
      ['createdAt', '2026-01-31T12:00:00', 'createdAt'],
      ['createdAt', '2026-13-01T00:00:00Z', 'createdAt'],
      ['lastModifiedAt', 1767182400000, 'lastModifiedAt'],
      ['createdBy', 'Ada Lovelace', 'createdBy'],
      ['createdBy', ['Ada', 'Lovelace'], 'createdBy'],
      ['createdBy', { firstName: 1, lastName: 'L' }, 'createdBy.firstName'],
      ['lastModifiedBy', { firstName: 'G', lastName: 'H', middleName: 'M' }, 'lastModifiedBy.middleName'],
      ['id', 'x'.repeat(201), 'id'],
    ])('%s = %j → 400 InvalidField at %s', async (name, value, field) => {
      const res = await post(fresh(), 'a', 'b', '', body({ [name]: value }));
      expectErrorEnvelope(res, 400, 'InvalidField');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
    });

    it('createdBy without lastName → 400 RequiredField at createdBy.lastName', async () => {
      const res = await post(fresh(), 'a', 'b', '', body({ createdBy: { firstName: 'Ada' } }));
      expectErrorEnvelope(res, 400, 'RequiredField');
      expect(res.body.errors[0].field).toBe('createdBy.lastName');
    });

    it('the usual spellings eighthProperty / eleventhProperty / twelfthProperty are unknown members (the API description spells them otherwise)', async () => {
      const res = await post(fresh(), 'a', 'b', '', body({ eighthProperty: 'x', eleventhProperty: 'y', twelfthProperty: 'z' }));
      expectErrorEnvelope(res, 400, 'InvalidField');
      expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['eighthProperty', 'eleventhProperty', 'twelfthProperty']);
      expect(res.body.errors[0].message).toMatch(/unknown field/);
    });

    it.each([
      ['a JSON array', '[]'],
      ['a JSON string', '"x"'],
      ['null', 'null'],
    ])('%s as the body → 400', async (_label, text) => {
      const res = await post(fresh(), 'a', 'b', '', text);
      expectErrorEnvelope(res, 400);
    });

    it('no body → 400', async () => {
      const pk = fresh();
      const res = await t.http.post(url(pk, 'a', 'b')).set(await t.auth('manage_test', { projectKey: pk }));
      expectErrorEnvelope(res, 400);
    });

    it('malformed JSON → 400 InvalidJsonInput', async () => {
      const res = await post(fresh(), 'a', 'b', '', '{"id": ');
      expectErrorEnvelope(res, 400, 'InvalidJsonInput');
    });

    it('a body over HTTP_BODY_LIMIT_BYTES → 413', async () => {
      const res = await post(fresh(), 'a', 'b', '', body({ custom: 'x'.repeat(1_100_000) }));
      expectErrorEnvelope(res, 413, 'PayloadTooLarge');
    });

    it('a form body → 415', async () => {
      const pk = fresh();
      const res = await t.http
        .post(url(pk, 'a', 'b'))
        .set(await t.auth('manage_test', { projectKey: pk }))
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send('id=1');
      expectErrorEnvelope(res, 415, 'UnsupportedMediaType');
    });

    it('nothing is stored on a 400: the next valid write creates the record (201)', async () => {
      const pk = fresh();
      await post(pk, 'a', 'b', '', body({ createdAt: 'bad' }));
      const res = await post(pk, 'a', 'b', '', body());
      expect(res.status).toBe(201);
    });
  });

  describe('form encoding (Accept prefers application/x-www-form-urlencoded) → 203', () => {
    it('answers the same echo form-encoded: repeated keys, an empty array as `name=`', async () => {
      const pk = fresh();
      const res = await post(pk, 'a%2Fb c', 'two', 'queryParameterOne=2.5&queryParameterTwo=x%26y', body(), 'application/x-www-form-urlencoded');
      expect(res.status).toBe(203);
      expect(res.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
      const text = res.text;
      expect(text.startsWith('arrayOfIntExample=&arrayOfUniqueIntExample=&arrayOfTwonumbersExample=1&arrayOfTwonumbersExample=1&arrayOfFloatExample=2.5&arrayOfNumberNoDefaultsExample=&arrayOfStringExample=a%2Fb+c&arrayOfStringExample=two&arrayOfStringExample=x%26y&')).toBe(true);
      expect(text.endsWith('&arrayOfObjectType=')).toBe(true);
      const parsed = new URLSearchParams(text);
      expect([...new Set(parsed.keys())]).toEqual([...ARRAY_FIELDS]);
      expect(parsed.getAll('arrayOfStringExample')).toEqual(['a/b c', 'two', 'x&y', ...bodyStrings(body())]);
      expect(parsed.getAll('arrayOfTwonumbersExample')).toEqual(['1', '1']);
      expect(parsed.getAll('arrayOfFloatExample')).toEqual(['2.5']);
      for (const empty of ['arrayOfIntExample', 'arrayOfUniqueIntExample', 'arrayOfNumberNoDefaultsExample', 'arrayOfObjectType']) {
        expect(parsed.getAll(empty)).toEqual(['']);
      }
    });

    it('parsed back, the form answer holds what the JSON answer holds', async () => {
      const pk = fresh();
      const json = await post(pk, 'p', 'q', 'queryParameterOne=7', body({ custom: 'ä ö ü = & + %' }));
      const form = await post(pk, 'p', 'q', 'queryParameterOne=7', body({ custom: 'ä ö ü = & + %' }), 'application/x-www-form-urlencoded');
      expect(form.status).toBe(203);
      const parsed = new URLSearchParams(form.text);
      expect(parsed.getAll('arrayOfStringExample')).toEqual(json.body.arrayOfStringExample);
      expect(parsed.getAll('arrayOfFloatExample').map(Number)).toEqual(json.body.arrayOfFloatExample);
      expect(parsed.getAll('arrayOfTwonumbersExample').map(Number)).toEqual([2, 1]);
    });

    it.each([
      ['application/x-www-form-urlencoded', 203],
      ['application/json;q=0.5, application/x-www-form-urlencoded', 203],
      ['application/x-www-form-urlencoded, application/json', 203],
      ['application/*, application/x-www-form-urlencoded', 203],
      ['application/x-www-form-urlencoded;q=0.9, */*;q=0.1', 203],
      ['APPLICATION/X-WWW-FORM-URLENCODED', 203],
      ['application/json, application/x-www-form-urlencoded', 201],
      ['application/x-www-form-urlencoded;q=0.5, application/json', 201],
      ['application/x-www-form-urlencoded;q=0', 201],
      ['*/*', 201],
      ['application/*', 201],
      ['text/html', 201],
      ['', 201],
    ])('Accept %p → %i', async (accept, status) => {
      const res = await post(fresh(), 'a', 'b', '', body(), accept);
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toMatch(status === 203 ? /^application\/x-www-form-urlencoded/ : /^application\/json/);
    });

    it('a replaced record answers 203 too, its revision in arrayOfTwonumbersExample', async () => {
      const pk = fresh();
      await post(pk, 'a', 'b', '', body());
      const res = await post(pk, 'a', 'b', '', body(), 'application/x-www-form-urlencoded');
      expect(res.status).toBe(203);
      expect(new URLSearchParams(res.text).getAll('arrayOfTwonumbersExample')).toEqual(['2', '1']);
    });

    it('errors stay JSON envelopes whatever Accept says', async () => {
      const res = await post(fresh(), 'a', 'b', '', {}, 'application/x-www-form-urlencoded');
      expectErrorEnvelope(res, 400, 'RequiredField');
    });
  });

  describe('access', () => {
    it('no token → 401, before the body is looked at', async () => {
      const res = await t.http.post(url(t.projectKey, 'a', 'b')).send({});
      expectErrorEnvelope(res, 401, 'invalid_token');
    });

    it('view_test only → 403 (manage_test required)', async () => {
      const res = await t.http.post(url(t.projectKey, 'a', 'b')).set(await t.auth('view_test')).send(body());
      expectErrorEnvelope(res, 403, 'insufficient_scope');
    });

    it('a token of another project → 403', async () => {
      const res = await t.http.post(url(t.projectKey, 'a', 'b')).set(await t.auth('manage_test', { projectKey: t.otherProjectKey })).send(body());
      expectErrorEnvelope(res, 403, 'insufficient_scope');
    });
  });

  describe('OpenAPI', () => {
    let doc: any;
    beforeAll(async () => {
      doc = (await t.http.get('/openapi.json')).body;
    });
    const operation = () => doc.paths['/{projectKey}/resource/artificially-complex/path/uri-parameter-one={uriParameterOne}/{uriParameterTwo}'].post;

    it('documents 200 and 201 as JSON ArrayTestType and 203 as form-encoded with its schema', () => {
      const { responses } = operation();
      expect(Object.keys(responses)).toEqual(expect.arrayContaining(['200', '201', '203', '400', '401', '403', '413', '415']));
      for (const status of ['200', '201']) expect(responses[status].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ArrayTestTypeDto' });
      const form = responses['203'].content['application/x-www-form-urlencoded'].schema;
      expect(Object.keys(form.properties)).toEqual([...ARRAY_FIELDS]);
      expect(responses['203'].content['application/json']).toBeUndefined();
    });

    it('documents the path and query parameters', () => {
      const parameters = operation().parameters.map((p: { in: string; name: string }) => `${p.in}:${p.name}`);
      expect(parameters).toEqual(expect.arrayContaining(['path:uriParameterOne', 'path:uriParameterTwo', 'query:queryParameterOne', 'query:queryParameterTwo']));
      const one = operation().parameters.find((p: { name: string }) => p.name === 'queryParameterOne');
      expect(one.schema.type).toBe('number');
    });

    it('documents the body with every field required, date-times and the nested names', () => {
      const schema = doc.components.schemas.OutOfOrderPropertiesTestTypeDto;
      expect([...schema.required].sort()).toEqual([...REQUIRED].sort());
      expect(schema.properties.createdAt).toMatchObject({ type: 'string', format: 'date-time' });
      expect(schema.properties.createdBy).toEqual({ $ref: '#/components/schemas/PersonNameDto' });
      expect([...doc.components.schemas.PersonNameDto.required].sort()).toEqual(['firstName', 'lastName']);
    });
  });

  describe('CORS off by default (no HTTP_CORS_ORIGINS)', () => {
    it('a preflight gets no CORS headers', async () => {
      const res = await t.http
        .options(`/${t.projectKey}/resource/namespace-action-with-headers`)
        .set('Origin', 'https://shop.example')
        .set('Access-Control-Request-Method', 'GET')
        .set('Access-Control-Request-Headers', 'test-header');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.headers['access-control-allow-methods']).toBeUndefined();
      expectErrorEnvelope(res, 404, 'ResourceNotFound');
    });

    it('an actual request with an Origin gets no Access-Control-Allow-Origin', async () => {
      const res = await t.http.get(`/${t.projectKey}/resource/namespace-action-with-example`).set(await t.auth('view_test')).set('Origin', 'https://shop.example');
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });
  });
});

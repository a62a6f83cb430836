import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Response } from 'supertest';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { arrays, draft } from '../support/fixtures.js';
import { expectErrorEnvelope as expectEnvelope } from '../support/expect-error.js';

/*
 * Platform-level errors (docs/rules.md#errors): the envelope, body parsing (malformed JSON, empty
 * body, media types, size), hostile input (deep nesting, huge numbers, NUL bytes), the host check and
 * the health endpoints. Every error body is exactly {statusCode, message, errors: [{code, message, …}]}
 * and never carries a stack trace, SQL text or a driver message.
 */


/** Any error answer: the exact envelope, JSON, no internals. */
function expectWellFormedError(res: Response): void {
  expect(res.status).toBeGreaterThanOrEqual(400);
  expectEnvelope(res, res.status);
}

/** A client error, never a 500: the status is 4xx and the body is the envelope. */
function expectClientError(res: Response): void {
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  expectWellFormedError(res);
}

const MISSING_ID = '00000000-0000-4000-8000-000000000000';

describe('request bodies', () => {
  let t: TestApp;
  let write: Record<string, string>;
  let existingId: string;
  beforeAll(async () => {
    t = await createTestApp();
    write = await t.auth('manage_test');
    const created = await t.http.post(`/${t.projectKey}/resource`).set(write).send(draft({ key: 'existing' }));
    expect(created.status).toBe(201);
    existingId = created.body.id;
  });
  afterAll(() => t.close());

  const raw = (method: 'post' | 'put' | 'patch', path: string, text: string, type = 'application/json') =>
    t.http[method](path).set(write).set('Content-Type', type).send(text);

  describe('malformed JSON → 400 InvalidJsonInput with detailedErrorMessage', () => {
    const MALFORMED = [
      ['truncated object', '{"objectTypeProperty": '],
      ['trailing comma', '{"objectTypeProperty": {},}'],
      ['single quotes', "{'key': 'abc'}"],
      ['bare word', 'hello'],
      ['unterminated string', '{"key": "abc'],
      ['long-digit number (lossless path), then garbage', '{"objectTypeProperty": {"arrayOfIntExample": [9223372036854775807,,]}}'],
      ['two documents', '{} {}'],
      ['NaN literal', '{"version": NaN}'],
    ];
    it.each(MALFORMED)('POST /{pk}/resource: %s', async (_name, text) => {
      const res = await raw('post', `/${t.projectKey}/resource`, text);
      expectEnvelope(res, 400, 'InvalidJsonInput');
      expect(typeof res.body.errors[0].detailedErrorMessage).toBe('string');
      expect(res.body.errors[0].detailedErrorMessage.length).toBeGreaterThan(0);
    });

    it.each([
      ['put', 'resource'],
      ['patch', 'resource'],
      ['post', `resource/${MISSING_ID}`],
    ] as const)('%s /{pk}/%s', async (method, rest) => {
      const res = await raw(method, `/${t.projectKey}/${rest}`, '{"version": 1, "actions": [');
      expectEnvelope(res, 400, 'InvalidJsonInput');
      expect(typeof res.body.errors[0].detailedErrorMessage).toBe('string');
    });

    it('accepts the +json and charset variants of the JSON media type', async () => {
      for (const type of ['application/json; charset=utf-8', 'application/merge-patch+json']) {
        const res = await raw('post', `/${t.projectKey}/resource`, '{"objectTypeProperty": ', type);
        expectEnvelope(res, 400, 'InvalidJsonInput');
      }
    });
  });

  describe('empty or non-object bodies → 400, never 500', () => {
    const VALIDATION = ['RequiredField', 'InvalidField', 'InvalidInput', 'InvalidJsonInput'];

    it('POST /{pk}/resource with a JSON Content-Type and no body', async () => {
      const res = await t.http.post(`/${t.projectKey}/resource`).set(write).set('Content-Type', 'application/json');
      expectEnvelope(res, 400, VALIDATION);
    });

    it('POST /{pk}/resource with Content-Length: 0', async () => {
      const res = await t.http.post(`/${t.projectKey}/resource`).set(write).set('Content-Type', 'application/json').set('Content-Length', '0').send('');
      expectEnvelope(res, 400, VALIDATION);
    });

    it.each([['whitespace', '   \n '], ['null', 'null'], ['array', '[]'], ['string', '"text"'], ['number', '42'], ['true', 'true'], ['empty object', '{}']])(
      'POST /{pk}/resource with a %s body',
      async (_name, text) => {
        const res = await raw('post', `/${t.projectKey}/resource`, text);
        expectEnvelope(res, 400, VALIDATION);
      },
    );

    it.each([['null', 'null'], ['array', '[]'], ['empty', '']])('POST /{pk}/resource/{id} with a %s body', async (_name, text) => {
      const res = await raw('post', `/${t.projectKey}/resource/${existingId}`, text);
      expectEnvelope(res, 400, VALIDATION);
    });

    it('PUT and PATCH /{pk}/resource without a body', async () => {
      for (const method of ['put', 'patch'] as const) {
        const res = await t.http[method](`/${t.projectKey}/resource`).set(write).set('Content-Type', 'application/json');
        expectEnvelope(res, 400, VALIDATION);
      }
    });
  });

  describe('unsupported media types → 415 UnsupportedMediaType', () => {
    it.each([
      ['text/plain', '{"objectTypeProperty": {}}'],
      ['application/xml', '<resource/>'],
      ['text/csv', 'a,b,c'],
      ['image/png', '\x89PNG\r\n\x1a\n'],
      ['application/x-www-form-urlencoded', 'objectTypeProperty=x'],
    ])('POST /{pk}/resource with Content-Type %s and a body', async (type, text) => {
      const res = await raw('post', `/${t.projectKey}/resource`, text, type);
      expectEnvelope(res, 415, 'UnsupportedMediaType');
    });

    it.each([
      ['put', 'resource'],
      ['patch', 'resource'],
      ['post', `resource/${MISSING_ID}`],
    ] as const)('%s /{pk}/%s with text/plain', async (method, rest) => {
      const res = await raw(method, `/${t.projectKey}/${rest}`, JSON.stringify(draft({ key: 'existing' })), 'text/plain');
      expectEnvelope(res, 415, 'UnsupportedMediaType');
    });
  });

  describe('hostile JSON: answered with a 4xx envelope (or accepted), never 500', () => {
    const DEPTH = 20_000;
    const nestedArrays = '['.repeat(DEPTH) + ']'.repeat(DEPTH);
    const nestedObjects = '{"a":'.repeat(DEPTH) + '1' + '}'.repeat(DEPTH);
    const withArrays = (member: string, text: string) => {
      const base = JSON.stringify(draft());
      return base.replace(/"arrayOfStringExample":\[[^\]]*\]/, () => `"${member}":${text}`);
    };

    it('a deeply nested array as the whole body', async () => {
      expectClientError(await raw('post', `/${t.projectKey}/resource`, nestedArrays));
    });

    it('a deeply nested array inside arrayOfStringExample (the rejected value is echoed back)', async () => {
      expectClientError(await raw('post', `/${t.projectKey}/resource`, withArrays('arrayOfStringExample', `[${nestedArrays}]`)));
    });

    it('a deeply nested object as an unknown draft member', async () => {
      const text = JSON.stringify(draft()).replace(/}$/, `,"unknown":${nestedObjects}}`);
      expectClientError(await raw('post', `/${t.projectKey}/resource`, text));
    });

    it('a deeply nested object as an update action', async () => {
      const text = `{"version":1,"actions":[{"action":"changeSomeProperty","someProperty":${nestedObjects}}]}`;
      expectClientError(await raw('post', `/${t.projectKey}/resource/${existingId}`, text));
    });

    it.each([
      ['arrayOfIntExample', '[1e400]'],
      ['arrayOfIntExample', '[123456789012345678901234567890]'],
      ['arrayOfIntExample', '[-9223372036854775809]'],
      ['arrayOfUniqueIntExample', '[9223372036854775808]'],
      ['arrayOfTwonumbersExample', '[1e400, -1e400]'],
      ['arrayOfObjectType', '[{"integerExample": 99999999999999999999999999, "integerExampleInt32": 1}]'],
      ['arrayOfObjectType', '[{"integerExample": 1, "integerExampleInt32": 9223372036854775807}]'],
    ])('out-of-range number in %s: %s → 400 InvalidField', async (member, value) => {
      const text = JSON.stringify(draft()).replace(new RegExp(`"${member}":\\[[^\\]]*\\]`), () => `"${member}":${value}`);
      // objectTypeProperty arrays of objects contain "]" only at the end of the member: sanity-check the replacement.
      expect(text).toContain(value);
      const res = await raw('post', `/${t.projectKey}/resource`, text);
      expectEnvelope(res, 400, 'InvalidField');
    });

    it.each([
      ['arrayOfFloatExample', '1e400', '[1e400]'],
      ['arrayOfFloatExample', 'a 400-digit integer', `[${'9'.repeat(400)}]`],
      ['arrayOfNumberNoDefaultsExample', 'a 1000-digit decimal', `[-${'1'.repeat(1000)}.5]`],
      ['arrayOfFloatExample', 'denormals and the largest double', '[1e-400, 4.9e-324, 1.7976931348623157e308]'],
    ])('huge or tiny number in %s (%s) → 201 or 400, never 500', async (member, _label, value) => {
      const text = JSON.stringify(draft()).replace(new RegExp(`"${member}":\\[[^\\]]*\\]`), () => `"${member}":${value}`);
      expect(text).toContain(value);
      const res = await raw('post', `/${t.projectKey}/resource`, text);
      if (res.status === 201) {
        expect(res.body.version).toBe(1);
      } else {
        expectEnvelope(res, 400, 'InvalidField');
      }
    });

    it('update version 1e400 → 400 InvalidField', async () => {
      const res = await raw('post', `/${t.projectKey}/resource/${existingId}`, '{"version": 1e400, "actions": []}');
      expectEnvelope(res, 400, 'InvalidField');
    });
  });

  describe('NUL bytes (PostgreSQL text and jsonb reject \\u0000): 4xx, never 500', () => {
    it('POST /{pk}/resource with "\\u0000" in arrayOfStringExample', async () => {
      const res = await t.http.post(`/${t.projectKey}/resource`).set(write).send(draft({}, { arrayOfStringExample: ['a\u0000b'] }));
      expectClientError(res);
    });

    it('PUT /{pk}/resource with "\\u0000" in arrayOfStringExample', async () => {
      const res = await t.http.put(`/${t.projectKey}/resource`).set(write).send(draft({ key: 'nul-put' }, { arrayOfStringExample: ['\u0000'] }));
      expectClientError(res);
    });

    it('POST /{pk}/resource/{id} changeSomeProperty with "\\u0000"', async () => {
      const res = await t.http
        .post(`/${t.projectKey}/resource/${existingId}`)
        .set(write)
        .send({ version: 1, actions: [{ action: 'changeSomeProperty', someProperty: 'x\u0000y' }] });
      expectClientError(res);
    });

    it('POST /{pk}/resource/{id} setObjectTypeProperty with "\\u0000"', async () => {
      const res = await t.http
        .post(`/${t.projectKey}/resource/${existingId}`)
        .set(write)
        .send({ version: 1, actions: [{ action: 'setObjectTypeProperty', objectTypeProperty: arrays({ arrayOfStringExample: ['\u0000'] }) }] });
      expectClientError(res);
    });

    it('a key with "\\u0000" → 400 InvalidField', async () => {
      const res = await t.http.post(`/${t.projectKey}/resource`).set(write).send(draft({ key: 'ab\u0000cd' }));
      expectEnvelope(res, 400, 'InvalidField');
    });

    it('GET /{pk}/resource/key=a%00b → 400 or 404, never 500', async () => {
      const res = await t.http.get(`/${t.projectKey}/resource/key=a%00b`).set(await t.auth('view_test'));
      expectClientError(res);
    });

    it('GET /{pk}/resource?stringParameter=a%00b → 200 or 4xx, never 500', async () => {
      const res = await t.http.get(`/${t.projectKey}/resource?stringParameter=a%00b`).set(await t.auth('view_test'));
      if (res.status !== 200) expectClientError(res);
      else expect(res.headers['x-total-count']).toBe('0');
    });

    it('GET /{pk}/resource?objectParameter=<JSON with \\u0000> → 200 or 4xx, never 500', async () => {
      const pattern = encodeURIComponent(JSON.stringify({ objectTypeProperty: { arrayOfStringExample: ['\u0000'] } }));
      const res = await t.http.get(`/${t.projectKey}/resource?objectParameter=${pattern}`).set(await t.auth('view_test'));
      if (res.status !== 200) expectClientError(res);
      else expect(res.headers['x-total-count']).toBe('0');
    });

    it('nothing was stored by the rejected NUL writes: the resource is still version 1 without someProperty', async () => {
      const res = await t.http.get(`/${t.projectKey}/resource/${existingId}`).set(await t.auth('view_test'));
      expect(res.status).toBe(200);
      expect(res.body.version).toBe(1);
      expect(res.body.someProperty).toBeUndefined();
    });
  });

  describe('hostile paths and parameters', () => {
    it('a malformed percent-encoding in the path → 4xx envelope', async () => {
      const res = await t.http.get(`/${t.projectKey}/resource/%E0%A4%A`).set(await t.auth('view_test'));
      expectClientError(res);
    });

    it("a key with SQL in it → 404 ResourceNotFound, no SQL text", async () => {
      const res = await t.http.get(`/${t.projectKey}/resource/key=${encodeURIComponent("x' OR '1'='1")}`).set(await t.auth('view_test'));
      expectClientError(res);
    });

    it.each([
      ['integerParameter', '99999999999999999999999'],
      ['integerParameter', '1.5'],
      ['floatParameter', '1e400'],
      ['floatParameter', 'abc'],
      ['unionParameter', 'not-a-date-nor-a-number'],
      ['objectParameter', '{"objectTypeProperty":'],
    ])('GET /{pk}/resource?%s=%s → 400 envelope', async (name, value) => {
      const res = await t.http.get(`/${t.projectKey}/resource?${name}=${encodeURIComponent(value)}`).set(await t.auth('view_test'));
      expectEnvelope(res, 400, ['InvalidField', 'InvalidInput', 'InvalidJsonInput']);
    });

    it('an invalid project key → 400 InvalidInput envelope', async () => {
      const res = await t.http.get(`/NOT_A_KEY/resource/${MISSING_ID}`).set(await t.auth('view_test'));
      expectClientError(res);
    });
  });
});

describe('body size limit (HTTP_BODY_LIMIT_BYTES=2048)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ HTTP_BODY_LIMIT_BYTES: '2048' });
  });
  afterAll(() => t.close());

  const bigDraft = () => JSON.stringify(draft({}, { arrayOfStringExample: ['x'.repeat(10 * 1024)] }));

  it('a 10 KB JSON body with Content-Length → 413 PayloadTooLarge', async () => {
    const text = bigDraft();
    expect(Buffer.byteLength(text)).toBeGreaterThan(10 * 1024);
    const res = await t.http.post(`/${t.projectKey}/resource`).set(await t.auth('manage_test')).set('Content-Type', 'application/json').send(text);
    expectEnvelope(res, 413, 'PayloadTooLarge');
  });

  it('a 10 KB JSON body sent chunked (no Content-Length) → 413 PayloadTooLarge', async () => {
    const server = t.app.getHttpServer();
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const headers = { ...(await t.auth('manage_test')), 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' };
    const answer = await new Promise<{ status: number; type: string; text: string }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: `/${t.projectKey}/resource`, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']), text }));
      });
      req.on('error', reject);
      const text = bigDraft();
      for (let i = 0; i < text.length; i += 1000) req.write(text.slice(i, i + 1000));
      req.end();
    });
    expect(answer.status).toBe(413);
    expect(answer.type).toMatch(/^application\/json/);
    const body = JSON.parse(answer.text);
    expect(Object.keys(body).sort()).toEqual(['errors', 'message', 'statusCode']);
    expect(body.errors[0].code).toBe('PayloadTooLarge');
  });

  it('a body under the limit is accepted', async () => {
    const res = await t.http.post(`/${t.projectKey}/resource`).set(await t.auth('manage_test')).send(draft());
    expect(res.status).toBe(201);
  });
});

describe('host check (API_DOMAIN=example.com, API_REGIONS=eu,us, API_CLOUD_PROVIDERS=gcp,aws)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ API_DOMAIN: 'example.com', API_REGIONS: 'eu,us', API_CLOUD_PROVIDERS: 'gcp,aws' });
  });
  afterAll(() => t.close());

  it.each(['api.eu.gcp.example.com', 'api.us.aws.example.com', 'api.eu.aws.example.com:443', 'API.EU.GCP.EXAMPLE.COM'])('Host %s is served', async (host) => {
    const res = await t.http.get(`/${t.projectKey}/resource/key=absent`).set('Host', host).set(await t.auth('view_test'));
    expectEnvelope(res, 404, 'ResourceNotFound');
  });

  it('Host api.eu.gcp.example.com reaches the resource routes (create, then read)', async () => {
    const host = 'api.eu.gcp.example.com';
    const created = await t.http.post(`/${t.projectKey}/resource`).set('Host', host).set(await t.auth('manage_test')).send(draft());
    expect(created.status).toBe(201);
    const read = await t.http.get(`/${t.projectKey}/resource/${created.body.id}`).set('Host', host).set(await t.auth('view_test'));
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(created.body.id);
  });

  it.each(['api.xx.gcp.example.com', 'api.eu.azure.example.com', 'localhost', '127.0.0.1', 'api.eu.gcp.example.org', 'api.eu.gcp.example.com.evil.com', 'x.api.eu.gcp.example.com'])(
    'Host %s → 421 MisdirectedRequest',
    async (host) => {
      const res = await t.http.get(`/${t.projectKey}/resource/key=absent`).set('Host', host).set(await t.auth('view_test'));
      expectEnvelope(res, 421, 'MisdirectedRequest');
    },
  );

  it('a request without a token on a wrong host → 421 as well', async () => {
    const res = await t.http.get(`/${t.projectKey}/resource`).set('Host', 'localhost');
    expectEnvelope(res, 421, 'MisdirectedRequest');
  });

  it.each(['localhost', 'api.xx.gcp.example.com', 'anything.internal'])('/health/live and /health/ready answer 200 on Host %s', async (host) => {
    const live = await t.http.get('/health/live').set('Host', host);
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: 'ok' });
    const ready = await t.http.get('/health/ready').set('Host', host);
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ok');
  });
});

describe('health', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('GET /health/live → 200 {status: "ok"} without a token', async () => {
    const res = await t.http.get('/health/live');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('GET /health/ready → 200 with status ok without a token', async () => {
    const res = await t.http.get('/health/ready');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
  });

  it('answers on any host when no host check is configured', async () => {
    const res = await t.http.get(`/${t.projectKey}/resource/key=absent`).set('Host', 'whatever.example').set(await t.auth('view_test'));
    expectEnvelope(res, 404, 'ResourceNotFound');
  });
});

describe('order of checks with a bad body (docs/rules.md#errors: 401 → 400 project key → 403 → input)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ HTTP_BODY_LIMIT_BYTES: '2048' });
  });
  afterAll(() => t.close());

  const bad = [
    ['malformed JSON', 'application/json', '{"objectTypeProperty": ', 'InvalidJsonInput', 400],
    ['an unsupported media type', 'text/plain', 'hello', 'UnsupportedMediaType', 415],
    ['a body over the limit', 'application/json', JSON.stringify({ pad: 'x'.repeat(10_000) }), 'PayloadTooLarge', 413],
  ] as const;

  it.each(bad)('%s without a token → 401 invalid_token', async (_case, type, body) => {
    const res = await t.http.post(`/${t.projectKey}/resource`).set('Content-Type', type).send(body);
    expectEnvelope(res, 401, 'invalid_token');
  });

  it.each(bad)('%s with a token and a malformed project key → 400 InvalidInput', async (_case, type, body) => {
    const res = await t.http.post('/Bad_Key/resource').set(await t.auth('manage_test')).set('Content-Type', type).send(body);
    expectEnvelope(res, 400, 'InvalidInput');
  });

  it.each(bad)('%s with a token lacking the scope → 403 insufficient_scope', async (_case, type, body) => {
    const res = await t.http.post(`/${t.projectKey}/resource`).set(await t.auth('view_test')).set('Content-Type', type).send(body);
    expectEnvelope(res, 403, 'insufficient_scope');
  });

  it.each(bad)('%s with the scope → its own 4xx (the input check comes last)', async (_case, type, body, code, status) => {
    const res = await t.http.post(`/${t.projectKey}/resource`).set(await t.auth('manage_test')).set('Content-Type', type).send(body);
    expectEnvelope(res, status, code);
  });
});

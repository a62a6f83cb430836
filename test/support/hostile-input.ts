import { request as httpRequest, type Agent } from 'node:http';
import fc from 'fast-check';
import { draft } from './fixtures.js';

/*
 * Generators of hostile input (fast-check) and the check every answer to it must pass, shared by the
 * fuzzing tests: any text (lone surrogates, NUL, quotes, SQL punctuation), header values, query values
 * with broken escapes, numbers past every range, JSON bodies with pollution keys and deep nesting.
 */

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: any;
}

export const ENVELOPE_MEMBERS = ['statusCode', 'message', 'errors', 'error', 'error_description'];
/** What an answer may never hold, even when it echoes the request: driver, ORM and stack details. */
export const INTERNALS = /QueryFailedError|syntax error at or near|bind message has|node_modules|\.[jt]s:\d+:\d+/;

/**
 * No 5xx; every 4xx (but HEAD's) is the error envelope; no header was split into the answer.
 * (expectErrorEnvelope's check for internals would trip on fuzzed input echoed back, such as a `where`
 * of `SELECT`: here only what no echo can produce counts as an internal.)
 */
export function expectSane(answer: Answer, method = 'GET'): void {
  if (answer.status >= 500) throw new Error(`answered ${answer.status}: ${answer.text.slice(0, 500)}`);
  expect(Object.keys(answer.headers).filter((name) => /injected/i.test(name))).toEqual([]);
  expect(answer.text).not.toMatch(INTERNALS);
  if (answer.status < 400 || method === 'HEAD') return;
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(Object.keys(answer.body).filter((member) => !ENVELOPE_MEMBERS.includes(member))).toEqual([]);
  expect(answer.body.statusCode).toBe(answer.status);
  expect(typeof answer.body.message).toBe('string');
  expect(answer.body.errors.length).toBeGreaterThan(0);
  for (const error of answer.body.errors) {
    expect(typeof error.code).toBe('string');
    expect(typeof error.message).toBe('string');
  }
}

/**
 * The same for the GraphQL route: a request GraphQL itself refuses (a document that does not parse or
 * validate, a limit) is a GraphQL-over-HTTP answer `{errors: [{message, extensions?}]}`; what the HTTP layer
 * refuses before GraphQL runs (no token, a body too large, another media type) is the error envelope.
 */
export function expectSaneGraphql(answer: Answer, method = 'POST'): void {
  if (answer.status < 400 || method === 'HEAD' || answer.body?.statusCode !== undefined) return expectSane(answer, method);
  if (answer.status >= 500) throw new Error(`answered ${answer.status}: ${answer.text.slice(0, 500)}`);
  expect(answer.text).not.toMatch(INTERNALS);
  expect(answer.headers['content-type']).toMatch(/^application\/(graphql-response\+)?json/);
  expect(answer.body.errors.length).toBeGreaterThan(0);
  for (const error of answer.body.errors) expect(typeof error.message).toBe('string');
}

/* ------------------------------------------------------------------ generators */

/** Characters a client can put in a header value: printable latin-1 and tab (Node refuses the rest). */
export const headerText = (maxLength = 60) =>
  fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).filter((c) => c !== 0x7f).map((c) => String.fromCharCode(c)), maxLength });

/** Any text: unicode (lone surrogates included), quotes, backslashes, NUL, SQL and JSON punctuation. */
export const anyText = (maxLength = 80) =>
  fc.oneof(
    fc.string({ unit: 'binary', maxLength }),
    fc.string({ unit: fc.constantFrom('"', "'", '\\', '\u0000', ';', '--', '/*', '$1', '::', '%', '(', ')', ',', ' ', 'a', '1', '.', '*', 'é', '😀', '\ud800', '\r\n'), maxLength: 20 }),
  );

/** A query value as sent: properly percent-encoded text, or raw bytes with broken escapes. */
export const queryValue = (text = anyText()) =>
  fc.oneof(
    { weight: 3, arbitrary: text.map((value) => encodeURIComponent(value.replace(/[\ud800-\udfff]/g, '\ufffd'))) },
    { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom('%', '%zz', '%ff', '%00', '%c3', '%ed%a0%80', '+', '=', '[', ']', ';', 'a', '%2e', '%2F'), maxLength: 10 }) },
  );

export const bigNumber = fc.oneof(
  fc.integer().map(String),
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String),
  fc.double().map(String),
  fc.constantFrom('1e400', '-1e400', '1e-400', `${'9'.repeat(400)}`, '0.1e1', '-0', '1.', '.5', '00', '0x10', 'NaN', 'Infinity', '1_000'),
);

export const WHERE_FIELDS = ['id', 'key', 'version', 'createdAt', 'lastModifiedAt', 'published', 'someProperty', 'secondPropertyToUpdate', 'nope', 'objectTypeProperty', 'images'];
export const ARRAY_FIELDS = ['arrayOfIntExample', 'arrayOfUniqueIntExample', 'arrayOfTwonumbersExample', 'arrayOfFloatExample', 'arrayOfNumberNoDefaultsExample', 'arrayOfStringExample', 'arrayOfObjectType'];
export const OPERATORS = ['=', '!=', '<>', '<', '>', '<=', '>=', 'in', 'not in', 'contains any', 'contains all', 'is empty', 'is not empty', 'is defined', 'is not defined', '==', '=>', 'like'];

/** `where` text: mostly grammatical (fields, operators, values, nesting, variables), with garbage mixed in. */
export const whereText = fc.letrec<{ value: string; predicate: string }>((tie) => ({
  value: fc.oneof(
    anyText(20).map((s) => `"${s.replace(/[\\"]/g, '\\$&')}"`),
    anyText(20).map((s) => JSON.stringify(s)),
    bigNumber,
    fc.constantFrom('true', 'false', ':v', ':w', ':missing', '"2026-01-01T00:00:00Z"', '"2026-02-30"', '"\\u0000"', '"unterminated'),
    fc.array(tie('value'), { maxLength: 4 }).map((values) => `(${values.join(', ')})`),
  ),
  predicate: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.tuple(fc.constantFrom(...WHERE_FIELDS, ...ARRAY_FIELDS, 'integerExample'), fc.constantFrom(...OPERATORS), tie('value')).map(([f, op, v]) => `${f} ${op} ${v}`),
    fc.tuple(tie('predicate'), fc.constantFrom('and', 'or', 'AND', 'Or', ''), tie('predicate')).map(([a, op, b]) => `${a} ${op} ${b}`),
    tie('predicate').map((p) => `not (${p})`),
    fc.tuple(fc.constantFrom('objectTypeProperty', 'arrayOfObjectType', 'key'), tie('predicate')).map(([f, p]) => `${f}(${p})`),
    fc.tuple(tie('predicate'), anyText(5)).map(([p, junk]) => `${p}${junk}`),
  ),
})).predicate;

export const filterExpression = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('key', 'published', 'version', 'nope', ...ARRAY_FIELDS.map((f) => `objectTypeProperty.${f}`), 'objectTypeProperty.arrayOfObjectType.integerExample'),
      fc.oneof(
        anyText(10).map((s) => JSON.stringify(s)),
        bigNumber,
        fc.constantFrom('missing', 'exists', 'true', 'false', 'range (1 to 5)', 'range (* to 3), (10 to *)', 'range (5 to 1)', 'range (a to b)', 'range ('),
        fc.array(bigNumber, { maxLength: 5 }).map((v) => v.join(',')),
      ),
      fc.constantFrom('', ' counting resources', ' as alias', ' counting resources as x y', ' as'),
    )
    .map(([path, values, suffix]) => `${path}:${values}${suffix}`),
  fc.constantFrom('key', 'objectTypeProperty.arrayOfIntExample', 'objectTypeProperty.arrayOfIntExample:range (0 to 10) as r'),
  anyText(40),
);

export const sortValue = fc.oneof(
  fc.tuple(fc.constantFrom('id', 'key', 'version', 'score', 'createdAt', 'nope', 'someProperty', 'KEY'), fc.constantFrom('asc', 'desc', 'DESC', '', 'up', 'asc, id desc')).map(([f, d]) => `${f} ${d}`),
  anyText(30),
);

/** A query string of `name=value` pairs as sent (names percent-encoded, values possibly broken). */
export function queryString(pairs: Array<[string, string]>): string {
  return pairs.map(([name, value]) => `${encodeURIComponent(name)}=${value}`).join('&');
}

/** An arbitrary path segment as sent: percent-encoded text (dots, slashes and all) or broken escapes. */
export const pathSegment = fc.oneof(
  anyText(40).map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '\ufffd'))),
  fc.constantFrom('..', '.', '%2e%2e', '..%2f..%2f..', '%00', '%', '%zz', 'key=', 'key=a', '%2F', 'a;b', '*', 'x'.repeat(300), 'é'),
  fc.uuid(),
);

/** A JSON body as raw text: any JSON value, a draft with one member replaced, pollution keys, deep nesting, huge numbers. */
export const jsonBody = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
  fc
    .tuple(fc.constantFrom('key', 'version', 'publish', 'someProperty', 'objectTypeProperty', ...ARRAY_FIELDS.map((f) => `objectTypeProperty.${f}`), 'extra'), fc.jsonValue({ maxDepth: 3 }))
    .map(([path, value]) => {
      const body: any = draft({ key: 'fuzz-key' });
      const [head, tail] = path.split('.');
      if (tail) body[head][tail] = value;
      else body[head] = value;
      return JSON.stringify(body);
    }),
  fc
    .tuple(fc.array(anyText(30), { maxLength: 3 }), fc.array(fc.oneof(fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }), fc.integer()), { maxLength: 3 }), fc.option(anyText(30)))
    .map(([strings, ints, key]) => {
      const body = draft(key === null ? {} : { key }, { arrayOfStringExample: strings });
      const text = JSON.stringify(body);
      return text.replace('"arrayOfIntExample":[1,2,2]', `"arrayOfIntExample":[${ints.join(',')}]`);
    }),
  fc.constantFrom(
    '{"__proto__":{"polluted":"yes"},"objectTypeProperty":{}}',
    '{"constructor":{"prototype":{"polluted":"yes"}}}',
    `{"objectTypeProperty":{"__proto__":{"polluted":"yes"},"arrayOfIntExample":[1]}}`,
    `{"version":1,"actions":[{"action":"__proto__","polluted":"yes"},{"action":"constructor"},{"action":"toString"}]}`,
    `{"objectTypeProperty":{"arrayOfIntExample":[${'9'.repeat(400)}]}}`,
    `{"objectTypeProperty":{"arrayOfFloatExample":[1e400]}}`,
    `{"objectTypeProperty":{"arrayOfStringExample":["\\u0000","\\ud800"]}}`,
    '{"a":1,"a":2}',
    '\ufeff{}',
    '',
    '{',
    'null',
  ),
  fc.integer({ min: 1, max: 20_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
  fc.integer({ min: 1, max: 20_000 }).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
);

export const updateBody = fc
  .tuple(
    fc.oneof(fc.constant('1'), bigNumber, fc.constant('"1"'), fc.constant('null')),
    fc.array(
      fc.tuple(
        fc.constantFrom('doSomeThing', 'changeSomeProperty', 'setKey', 'publish', 'unpublish', 'changeSecondPropertyToUpdate', 'nope', '', '__proto__'),
        fc.dictionary(fc.constantFrom('someProperty', 'key', 'secondPropertyToUpdate', 'value', '__proto__', 'constructor'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 }),
      ),
      { maxLength: 5 },
    ),
  )
  .map(([version, actions]) => `{"version":${version},"actions":${JSON.stringify(actions.map(([action, members]) => ({ ...members, action })))}}`);

export interface SendOptions {
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/**
 * One request over HTTP as written (node:http, so hostile paths and headers are sent as they are), with
 * `target.headers` unless `options.headers` overrides them; fails when no answer came within `timeoutMs`.
 */
export function sendRaw(target: { port: number; agent: Agent; headers: Record<string, string>; timeoutMs: number }, method: string, path: string, options: SendOptions = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...target.headers, ...options.headers };
    // A body always travels framed (node:http sends a GET's or HEAD's body unframed otherwise).
    if (options.body !== undefined && !Object.keys(headers).some((name) => /^(content-length|transfer-encoding)$/i.test(name))) {
      headers['Content-Length'] = String(Buffer.byteLength(options.body));
    }
    const req = httpRequest({ host: '127.0.0.1', port: target.port, method, path, agent: target.agent, headers, timeout: target.timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = text;
        }
        resolve({ status: res.statusCode!, headers: res.headers, text, body });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path.slice(0, 200)}: no answer within ${target.timeoutMs} ms`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

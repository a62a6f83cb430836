import { passableBackendHeaders, reservedAnswerHeader, reservedBackendHeader } from './http-headers.js';
import { backendUrl, rawQueryOf } from './backend-url.js';
import { jsonText, MAX_JSON_DEPTH } from './json-value.js';
import fc from 'fast-check';

describe('passableBackendHeaders', () => {
  it('drops hop-by-hop (also those named by Connection), framing and security-relevant headers; keeps the rest', () => {
    const passed = passableBackendHeaders(
      Object.entries({
        Connection: 'keep-alive, X-Hop',
        'X-Hop': 'secret',
        'Keep-Alive': 'timeout=5',
        'Transfer-Encoding': 'chunked',
        'Content-Length': '10',
        'Content-Type': 'text/html',
        'Content-Encoding': 'gzip',
        'Set-Cookie': 'a=b',
        'Strict-Transport-Security': 'max-age=1',
        'Access-Control-Allow-Origin': '*',
        'Access-Control-Allow-Credentials': 'true',
        'WWW-Authenticate': 'Basic',
        Location: '/x',
        Server: 'nginx',
        'X-Powered-By': 'php',
        'X-Forwarded-For': '10.0.0.1',
        'Cache-Control': 'max-age=60',
        ETag: '"abc"',
        'X-Request-Id': 'r1',
        'Content-Language': 'de',
      }),
    );
    expect(passed).toEqual({ 'cache-control': 'max-age=60', etag: '"abc"', 'x-request-id': 'r1', 'content-language': 'de' });
  });
});

describe('reserved headers', () => {
  it.each([
    ['Connection', 'is a hop-by-hop header'],
    ['content-length', 'is set by the server (answers are application/json)'],
    ['Access-Control-Max-Age', 'is set by the server (CORS is configured with HTTP_CORS_ORIGINS)'],
    ['Cache-Control', undefined],
    ['Set-Cookie', undefined],
  ])('a declared answer header %s: %p', (name, reason) => {
    expect(reservedAnswerHeader(name)).toBe(reason);
  });

  it.each([
    ['Authorization', false, undefined],
    ['Authorization', true, "would pass the caller's credentials to the backend"],
    ['Cookie', true, "would pass the caller's credentials to the backend"],
    ['Host', false, 'is set by the server'],
    ['Upgrade', true, 'is a hop-by-hop header'],
    ['Accept-Language', true, undefined],
    ['X-Client-Id', true, 'is set by the server (who calls: project key, client id, customer id)'],
    ['x-project-key', false, 'is set by the server (who calls: project key, client id, customer id)'],
    ['X-Customer-Id', true, 'is set by the server (who calls: project key, client id, customer id)'],
  ])('a backend header %s (copied: %p): %p', (name, copied, reason) => {
    expect(reservedBackendHeader(name, copied)).toBe(reason);
  });
});

describe('backendUrl', () => {
  it.each([
    ['https://b.example/api', undefined, '', 'https://b.example/api'],
    ['https://b.example/api', '/carts/1', '', 'https://b.example/api/carts/1'],
    ['https://b.example/api/', '/carts', '', 'https://b.example/api/carts'],
    ['https://b.example', '/', '', 'https://b.example/'],
    ['https://b.example/api', '//evil.example/x', '', 'https://b.example/api//evil.example/x'],
    ['https://b.example/api', '/a?b#c', '', 'https://b.example/api/a%3Fb%23c'],
    ['https://b.example/api', '/a/../b', '', 'https://b.example/api/b'],
    ['https://b.example/api?key=1', undefined, 'x=1&y=a%20b', 'https://b.example/api?key=1&x=1&y=a%20b'],
    ['https://b.example/api', '/x', 'q=1', 'https://b.example/api/x?q=1'],
    ['https://b.example/api?key=1&mode=a', undefined, 'key=2&x=1&mode=b&%6Bey=3&key', 'https://b.example/api?key=1&mode=a&x=1'],
    ['https://b.example/api?key=1', undefined, 'keys=2&&k%20ey=3', 'https://b.example/api?key=1&keys=2&k%20ey=3'],
  ])('%s + %p + %p → %s', (base, path, query, expected) => {
    expect(backendUrl(base, path, query)?.href).toBe(expected);
  });

  it.each(['/..', '/../secret', '/x/../../y', '/%2e%2e/secret', '/%2E%2E/secret', '/x/%2e./y', '/x%2fy', '/x%2F..%2Fy', '/x%5c..%5Cy', '/file%2ejson'])('Path-Header %p may not climb above the declared path', (path) => {
    expect(backendUrl('https://b.example/api', path, '')).toBeUndefined();
  });

  it('property: the backend host and the declared path prefix never change', () => {
    fc.assert(
      fc.property(fc.string().map((s) => `/${s}`), (path) => {
        const url = backendUrl('https://b.example/api', path, '');
        if (url) {
          expect(url.host).toBe('b.example');
          expect(url.pathname === '/api' || url.pathname.startsWith('/api/')).toBe(true);
        }
      }),
    );
  });

  it.each([
    ['/a/b', ''],
    ['/a?', ''],
    ['/a?x=1&y=%20', 'x=1&y=%20'],
  ])('rawQueryOf(%s) = %p', (url, query) => {
    expect(rawQueryOf(url)).toBe(query);
  });
});

describe('jsonText', () => {
  it.each([
    ['a string', 'x', '"x"'],
    ['null', null, 'null'],
    ['a bigint', { n: 9223372036854775807n }, '{"n":9223372036854775807}'],
    ['nested arrays', [[1], [2, [3]]], '[[1],[2,[3]]]'],
  ])('%s', (_label, value, text) => {
    expect(jsonText(value)).toEqual({ text });
  });

  it.each([
    ['Infinity', Infinity, 'numbers must be finite'],
    ['NaN', [NaN], 'numbers must be finite'],
    ['a NUL in a string', { a: 'x\u0000' }, 'strings must not contain NUL characters'],
    ['a NUL in a member name', { 'a\u0000': 1 }, 'member names must not contain NUL characters'],
    ['undefined', [undefined], 'a undefined is not a JSON value'],
    ['a Date', new Date(0), 'only arrays, objects, strings, numbers, booleans and null are JSON values'],
  ])('refuses %s', (_label, value, problem) => {
    expect(jsonText(value)).toEqual({ problem });
  });

  it(`refuses nesting deeper than ${MAX_JSON_DEPTH} levels, accepts ${MAX_JSON_DEPTH}`, () => {
    const nest = (depth: number): unknown => (depth === 0 ? 1 : [nest(depth - 1)]);
    expect(jsonText(nest(MAX_JSON_DEPTH))).toHaveProperty('text');
    expect(jsonText(nest(MAX_JSON_DEPTH + 1))).toHaveProperty('problem');
  });

  it('property: the text of any JSON value parses back to it', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const result = jsonText(value);
        expect('text' in result && JSON.parse(result.text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});

import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACTION_ENDPOINTS } from './action-declaration.js';
import { ActionsFileError, formatOf, loadActionsFile, parseActions, validateActions } from './actions-file.js';
import { DEFAULT_ACTIONS } from './default-actions.js';

/** The ACTIONS_FILE: parsing (JSON, YAML), validation with every problem named, the shipped defaults. */

function problemsOf(document: unknown): string[] {
  try {
    validateActions(document);
  } catch (error) {
    expect(error).toBeInstanceOf(ActionsFileError);
    return (error as ActionsFileError).problems;
  }
  throw new Error('accepted');
}

const entry = (handler: unknown, extra: Record<string, unknown> = {}) => ({ method: 'GET', path: 'namespace-action', handler, ...extra });

describe('validateActions', () => {
  it('accepts the shipped defaults: one declaration per endpoint', () => {
    const declarations = validateActions(DEFAULT_ACTIONS);
    expect(declarations.map((d) => `${d.method} ${d.path}`).sort()).toEqual(ACTION_ENDPOINTS.map((e) => `${e.method} ${e.path}`).sort());
  });

  it('normalises a declaration: upper-case method, path without prefix, default status, headers and store key', () => {
    const [stat, store, forward] = validateActions({
      actions: [
        { method: 'get', path: '/{projectKey}/resource/namespace-action-with-example', handler: { type: 'static', headers: { 'X-A': 'b' } } },
        { method: 'PUT', path: '/json-serializable-primitive-type', projects: ['shop-a', 'shop-a'], handler: { type: 'store' } },
        { method: 'GET', path: 'namespace-action', handler: { type: 'forward', url: 'https://b.example/x?y=1', forwardHeaders: ['Accept-Language'] } },
      ],
    });
    expect(stat).toEqual({ method: 'GET', path: 'namespace-action-with-example', handler: { type: 'static', status: 200, headers: { 'x-a': 'b' }, body: 'null' } });
    expect(store).toEqual({ method: 'PUT', path: 'json-serializable-primitive-type', projects: ['shop-a'], handler: { type: 'store', key: 'json-serializable-primitive-type' } });
    expect(forward.handler).toEqual({ type: 'forward', url: 'https://b.example/x?y=1', headers: {}, forwardHeaders: ['accept-language'] });
  });

  it('keeps a 64-bit integer of a static body exact', () => {
    const [declaration] = parseActions('{"actions":[{"method":"GET","path":"namespace-action","handler":{"type":"static","body":{"n":9223372036854775807}}}]}', 'json');
    expect(declaration.handler).toMatchObject({ body: '{"n":9223372036854775807}' });
  });

  it.each<[string, unknown, string]>([
    ['not an object', [], 'the file must hold an object with an "actions" array'],
    ['no actions array', { actions: {} }, 'actions: must be an array'],
    ['an unknown top-level member', { actions: [], extra: 1 }, 'extra: unknown member'],
    ['an entry that is not an object', { actions: [5] }, 'actions[0] (? ?): must be an object with method, path and handler'],
    ['no method', { actions: [{ path: 'namespace-action', handler: { type: 'store' } }] }, 'actions[0] (? namespace-action): method: required'],
    ['an unknown endpoint', { actions: [entry({ type: 'store' }, { path: 'elsewhere' })] }, 'actions[0] (GET elsewhere): method and path: no namespace-action endpoint is GET elsewhere'],
    ['a method the endpoint does not have', { actions: [entry({ type: 'store' }, { method: 'DELETE' })] }, 'no namespace-action endpoint is DELETE namespace-action'],
    ['an unknown member', { actions: [entry({ type: 'store' }, { name: 'x' })] }, 'actions[0] (GET namespace-action): name: unknown member'],
    ['empty projects', { actions: [entry({ type: 'store' }, { projects: [] })] }, 'projects: must be a non-empty array'],
    ['a bad project key', { actions: [entry({ type: 'store' }, { projects: ['Shop_A'] })] }, 'projects[0]: must be a project key'],
    ['no handler', { actions: [{ method: 'GET', path: 'namespace-action' }] }, 'handler: required, an object with a type'],
    ['an unknown handler type', { actions: [entry({ type: 'lambda' })] }, 'handler.type: must be one of static, store, forward'],
    ['a static status below 200', { actions: [entry({ type: 'static', status: 101 })] }, 'handler.status: must be an integer from 200 to 599'],
    ['a static 204', { actions: [entry({ type: 'static', status: 204 })] }, 'handler.status'],
    ['a static status as text', { actions: [entry({ type: 'static', status: '200' })] }, 'handler.status'],
    ['a hop-by-hop answer header', { actions: [entry({ type: 'static', headers: { Connection: 'close' } })] }, 'handler.headers.Connection: is a hop-by-hop header'],
    ['a Content-Type answer header', { actions: [entry({ type: 'static', headers: { 'content-type': 'text/html' } })] }, 'handler.headers.content-type: is set by the server'],
    ['a CORS answer header', { actions: [entry({ type: 'static', headers: { 'Access-Control-Allow-Origin': '*' } })] }, 'is set by the server (CORS'],
    ['a header value with a line break', { actions: [entry({ type: 'static', headers: { 'X-A': 'a\r\nSet-Cookie: x' } })] }, 'handler.headers.X-A: must have a string value'],
    ['a header name that is not a token', { actions: [entry({ type: 'static', headers: { 'X A': 'a' } })] }, 'handler.headers.X A: is not a valid header name'],
    ['a header given twice', { actions: [entry({ type: 'static', headers: { 'X-A': 'a', 'x-a': 'b' } })] }, 'is given twice'],
    ['a non-finite body number', { actions: [entry({ type: 'static', body: Infinity })] }, 'handler.body: numbers must be finite'],
    ['a bad store key', { actions: [entry({ type: 'store', key: 'a b' })] }, 'handler.key: must be 1 to 256 characters'],
    ['a forward without url', { actions: [entry({ type: 'forward' })] }, 'handler.url: required, an absolute http or https URL'],
    ['a forward to ftp', { actions: [entry({ type: 'forward', url: 'ftp://x/y' })] }, 'handler.url'],
    ['a forward URL with credentials', { actions: [entry({ type: 'forward', url: 'https://u:p@x/y' })] }, 'handler.url'],
    ['a forward URL with a fragment', { actions: [entry({ type: 'forward', url: 'https://x/y#z' })] }, 'handler.url'],
    ['a relative forward URL', { actions: [entry({ type: 'forward', url: '/y' })] }, 'handler.url'],
    ['a zero timeout', { actions: [entry({ type: 'forward', url: 'https://x', timeoutMs: 0 })] }, 'handler.timeoutMs: must be a whole number of milliseconds from 1 to 600000'],
    ['a fractional timeout', { actions: [entry({ type: 'forward', url: 'https://x', timeoutMs: 1.5 })] }, 'handler.timeoutMs'],
    ['a Host header to the backend', { actions: [entry({ type: 'forward', url: 'https://x', headers: { Host: 'y' } })] }, 'handler.headers.Host: is set by the server'],
    ['copying Authorization', { actions: [entry({ type: 'forward', url: 'https://x', forwardHeaders: ['Authorization'] })] }, "handler.forwardHeaders[0]: would pass the caller's credentials"],
    ['copying Cookie', { actions: [entry({ type: 'forward', url: 'https://x', forwardHeaders: ['cookie'] })] }, 'handler.forwardHeaders[0]'],
    ['copying a hop-by-hop header', { actions: [entry({ type: 'forward', url: 'https://x', forwardHeaders: ['TE'] })] }, 'handler.forwardHeaders[0]: is a hop-by-hop header'],
    ['forwardHeaders not an array', { actions: [entry({ type: 'forward', url: 'https://x', forwardHeaders: 'Accept' })] }, 'handler.forwardHeaders: must be an array'],
    ['an unknown handler member', { actions: [entry({ type: 'store', url: 'https://x' })] }, 'handler.url: unknown member'],
    [
      'two declarations for every project',
      { actions: [entry({ type: 'store' }), entry({ type: 'static' })] },
      'actions[1] (GET namespace-action): every project already has this endpoint declared by actions[0]',
    ],
    [
      'two declarations sharing a project',
      { actions: [entry({ type: 'store' }, { projects: ['a1', 'b2'] }), entry({ type: 'static' }, { projects: ['b2'] })] },
      'actions[1] (GET namespace-action): project b2 already has this endpoint declared by actions[0]',
    ],
  ])('refuses %s', (_label, document, expected) => {
    expect(problemsOf(document).join('\n')).toContain(expected);
  });

  it('allows one declaration for every project beside per-project ones for the same endpoint', () => {
    expect(validateActions({ actions: [entry({ type: 'store' }), entry({ type: 'static' }, { projects: ['a1'] })] })).toHaveLength(2);
  });

  it('lists every problem of every entry at once, naming each entry', () => {
    const problems = problemsOf({
      actions: [entry({ type: 'store' }), entry({ type: 'static', status: 1 }, { path: 'namespace-action-with-example' }), { method: 'PUT', path: 'x', handler: {} }],
    });
    expect(problems).toEqual([
      expect.stringMatching(/^actions\[1\] \(GET namespace-action-with-example\): handler\.status: /),
      expect.stringMatching(/^actions\[2\] \(PUT x\): method and path: /),
      expect.stringMatching(/^actions\[2\] \(PUT x\): handler\.type: /),
    ]);
  });

  it('property: any JSON value is accepted as a static body and kept exactly', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (value) => {
        const [declaration] = validateActions({ actions: [entry({ type: 'static', body: value })] });
        const text = (declaration.handler as { body: string }).body;
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});

describe('parseActions', () => {
  const yaml = `
actions:
  - method: GET
    path: namespace-action-with-example
    projects: [shop-a]
    handler:
      type: static
      status: 201
      body: { big: 9223372036854775807, small: 5, list: [1, "two"] }
`;

  it('reads YAML with exact 64-bit integers, like the same file as JSON', () => {
    const fromYaml = parseActions(yaml, 'yaml');
    const fromJson = parseActions(
      '{"actions":[{"method":"GET","path":"namespace-action-with-example","projects":["shop-a"],"handler":{"type":"static","status":201,"body":{"big":9223372036854775807,"small":5,"list":[1,"two"]}}}]}',
      'json',
    );
    expect(fromYaml).toEqual(fromJson);
    expect(fromYaml[0].handler).toMatchObject({ status: 201, body: '{"big":9223372036854775807,"small":5,"list":[1,"two"]}' });
  });

  it.each([
    ['json', '{"actions": [', /^not valid JSON: /],
    ['yaml', 'actions: [ {', /^not valid YAML: /],
    ['yaml', 'actions: []\nactions: []', /^not valid YAML: /],
  ] as const)('malformed %s → one problem naming the syntax', (format, text, expected) => {
    try {
      parseActions(text, format);
      throw new Error('accepted');
    } catch (error) {
      expect((error as ActionsFileError).problems).toEqual([expect.stringMatching(expected)]);
    }
  });

  it('refuses YAML values JSON has no form for', () => {
    expect(() => parseActions('actions:\n  - {method: GET, path: namespace-action, handler: {type: static, body: .inf}}', 'yaml')).toThrow(
      'handler.body: numbers must be finite',
    );
  });
});

describe('loadActionsFile', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'actions-spec-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['a.json', 'json'],
    ['a.YAML', 'yaml'],
    ['a.yml', 'yaml'],
    ['a.txt', undefined],
    ['a', undefined],
  ])('formatOf(%s) = %s', (file, format) => {
    expect(formatOf(file)).toBe(format);
  });

  it('prefixes every problem with the file name', () => {
    const file = join(dir, 'bad.yml');
    writeFileSync(file, 'actions:\n  - {method: GET, path: nope, handler: {type: store}}\n');
    expect(() => loadActionsFile(file)).toThrow(`${file}: actions[0] (GET nope): method and path: `);
  });

  it('a missing file names the error code', () => {
    expect(() => loadActionsFile(join(dir, 'none.json'))).toThrow(/none\.json: cannot be read \(ENOENT\)/);
  });

  it('loads a good file', () => {
    const file = join(dir, 'good.json');
    writeFileSync(file, JSON.stringify({ actions: [entry({ type: 'store', key: 'k' })] }));
    expect(loadActionsFile(file)).toEqual([{ method: 'GET', path: 'namespace-action', handler: { type: 'store', key: 'k' } }]);
  });
});

import { Agent } from 'node:http';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { createTestApp, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { listenOnFreePort } from '../support/listening-app.js';
import { draft } from '../support/fixtures.js';
import { declaring } from '../support/image-bytes.js';
import { anyText, bigNumber, expectSane, expectSaneGraphql, headerText, jsonBody, pathSegment, queryString, queryValue, sendRaw, updateBody, type Answer } from '../support/hostile-input.js';
import { SCOPE_NAMES } from '../../src/auth/scopes.js';

/*
 * Every route the server registers, hit with generated hostile input: its path parameters, the query
 * parameters and headers its OpenAPI operation declares and others it does not, bodies of every kind
 * (JSON, NDJSON, forms, bytes, images), with a token holding every scope of the project, a token of
 * another project, a garbage one or none. Every answer passes `expectSane` (no 5xx, the envelope on every
 * 4xx, nothing of the server's internals, no split header), and the server still serves afterwards.
 * `FUZZ_RUNS` sets the runs per route (`npm run fuzz` runs more), `FUZZ_SEED` explores other inputs.
 */

const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS ?? 15);
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_129);
const ANSWER_BOUND_MS = 10_000;
/** The GraphQL route answers what GraphQL refuses in its own format (expectSaneGraphql). */
const GRAPHQL_ROUTE = /\/graphql$/;
const ALL_SCOPES = SCOPE_NAMES.join(' ');

interface Operation {
  query: string[];
  headers: string[];
}

interface Request {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

/** Query parameters every route may meet, declared or not. */
const COMMON_QUERY = ['where', 'sort', 'limit', 'offset', 'withTotal', 'expand', 'version', 'key', 'staged', 'var.v', 'text.en', 'fuzzy', 'filter', 'facet', 'access_token', '__proto__'];
/** Headers every route may meet. */
const COMMON_HEADERS = ['Accept', 'If-None-Match', 'If-Match', 'Prefer', 'X-Correlation-ID', 'X-Request-Id', 'Last-Event-ID', 'Accept-Language', 'Origin', 'X-Forwarded-For'];
/** Routes the Swagger page registers (its HTML, assets and document). */
const DOCS_ROUTE = /^\/docs(\/|$)/;
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/x-ndjson',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'image/png',
  'text/plain',
  'application/octet-stream',
];

describe('every route, fuzzed', () => {
  let t: TestApp;
  let port: number;
  let agent: Agent;
  let tokens: { all: string; other: string };
  let seedId: string;
  const operations = new Map<string, Operation>();
  let answered = 0;
  let serverErrors = 0;

  beforeAll(async () => {
    t = await createTestApp({ IMAGES_WORKER_INTERVAL_MS: '3600000' });
    port = Number(new URL(await listenOnFreePort(t)).port);
    agent = new Agent({ keepAlive: true, maxSockets: 4 });
    tokens = {
      all: (await t.auth(ALL_SCOPES)).Authorization,
      other: (await t.auth(ALL_SCOPES, { projectKey: t.otherProjectKey })).Authorization,
    };
    const created = await t.http.post(`/${t.projectKey}/resource`).set({ Authorization: tokens.all }).send(draft({ key: 'seed' }));
    expect(created.status).toBe(201);
    seedId = created.body.id;
    const document = (await t.http.get('/openapi.json')).body as { paths: Record<string, Record<string, { parameters?: { in: string; name: string }[] }>> };
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const parameters = operation.parameters ?? [];
        operations.set(`${method.toUpperCase()} ${path}`, {
          query: parameters.filter((p) => p.in === 'query').map((p) => p.name),
          headers: parameters.filter((p) => p.in === 'header').map((p) => p.name),
        });
      }
    }
  });
  afterAll(async () => {
    agent.destroy();
    await t.close();
    process.stdout.write(`every route, fuzzed: ${answered} requests over ${routes().length} routes, ${serverErrors} answers of 5xx\n`);
  });

  /** The routes to fuzz: every registered one but HEAD twins of GETs (HEAD is fuzzed where declared). */
  function routes(): { method: string; path: string }[] {
    const seen = new Set<string>();
    return t.routes.filter((route) => {
      const key = `${route.method} ${route.path}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }

  /** A value for a path parameter: mostly one that reaches the handler, sometimes a hostile segment. */
  function parameterValue(name: string): fc.Arbitrary<string> {
    if (name === 'projectKey') return fc.oneof({ weight: 6, arbitrary: fc.constant(t.projectKey) }, { weight: 1, arbitrary: fc.constant(uniqueProjectKey()) }, { weight: 1, arbitrary: pathSegment });
    return fc.oneof(fc.constant(seedId), fc.constant(randomUUID()), fc.constant('key=seed'), fc.constant('1'), pathSegment);
  }

  function bodyFor(method: string): fc.Arbitrary<string | Buffer | undefined> {
    const bodies = fc.oneof(
      { weight: 4, arbitrary: jsonBody },
      { weight: 2, arbitrary: updateBody },
      { weight: 1, arbitrary: fc.array(jsonBody, { maxLength: 4 }).map((lines) => `${lines.join('\n')}\n`) },
      { weight: 1, arbitrary: fc.dictionary(anyText(10), anyText(20), { maxKeys: 4 }).map((form) => new URLSearchParams(form).toString()) },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 2_000 }).map((bytes) => Buffer.from(bytes)) },
      // A PNG header declaring any size over 1×1 pixels (building the pixels of 70,000 × 70,000 took seconds a request).
      { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 0, max: 70_000 }), fc.integer({ min: 0, max: 70_000 })).map(([w, h]) => declaring('image/png', w, h)) },
    );
    const none = fc.constant(undefined);
    return ['GET', 'HEAD', 'DELETE', 'OPTIONS'].includes(method) ? fc.oneof({ weight: 4, arbitrary: none }, { weight: 1, arbitrary: bodies }) : fc.oneof({ weight: 1, arbitrary: none }, { weight: 6, arbitrary: bodies });
  }

  function requestFor(route: { method: string; path: string }): fc.Arbitrary<Request> {
    const template = route.path.replace(/:(\w+)/g, '{$1}');
    const operation = operations.get(`${route.method} ${template}`) ?? { query: [], headers: [] };
    const names = [...template.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
    const wildcard = template.includes('*');
    const path = fc.tuple(...names.map(parameterValue), wildcard ? fc.array(pathSegment, { maxLength: 3 }) : fc.constant([] as string[])).map((values) => {
      let filled = template;
      names.forEach((name, i) => (filled = filled.replace(`{${name}}`, values[i] as string)));
      return filled.replace('*', (values[names.length] as string[]).join('/'));
    });
    const query = fc.array(fc.tuple(fc.constantFrom(...operation.query, ...COMMON_QUERY), queryValue(fc.oneof(anyText(30), bigNumber, fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v))))), { maxLength: 4 });
    const authorization = fc.oneof(
      { weight: 6, arbitrary: fc.constant(tokens.all) },
      { weight: 1, arbitrary: fc.constant(tokens.other) },
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: headerText(80).map((text) => `Bearer ${text}`) },
    );
    const headers = fc.tuple(
      authorization,
      fc.option(fc.oneof(fc.constantFrom(...CONTENT_TYPES), headerText(40))),
      fc.array(fc.tuple(fc.constantFrom(...operation.headers, ...COMMON_HEADERS), fc.oneof(headerText(), fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v).replace(/[^\x20-\x7e]/g, '')))), { maxLength: 3 }),
    );
    return fc.tuple(path, query, headers, bodyFor(route.method)).map(([filled, params, [auth, contentType, extra], body]) => {
      const all: Record<string, string> = {};
      if (auth !== undefined) all.Authorization = auth;
      if (contentType !== null) all['Content-Type'] = contentType;
      for (const [name, value] of extra) all[name] = value;
      return { method: route.method, path: params.length > 0 ? `${filled}?${queryString(params)}` : filled, headers: all, body };
    });
  }

  async function send(request: Request): Promise<Answer> {
    const answer = await sendRaw({ port, agent, headers: {}, timeoutMs: ANSWER_BOUND_MS }, request.method, request.path, { headers: request.headers, body: request.body });
    answered++;
    if (answer.status >= 500) serverErrors++;
    return answer;
  }

  it('reads the routes and their OpenAPI operations (not vacuous)', () => {
    const methodsAndPaths = routes().map((route) => `${route.method} ${route.path}`);
    expect(methodsAndPaths).toEqual(expect.arrayContaining(['POST /:projectKey/resource', 'POST /oauth/token', 'POST /:projectKey/api-clients', 'POST /:projectKey/subscriptions']));
    expect(routes().length).toBeGreaterThan(40);
    expect(operations.get('GET /{projectKey}/resource/sorted-query-parameters')?.query).toEqual(expect.arrayContaining(['where', 'sort', 'limit']));
  });

  it('answers every generated request without a 5xx, in the envelope, and keeps serving', async () => {
    const statuses = new Map<string, Set<number>>();
    for (const route of routes()) {
      const seen = new Set<number>();
      statuses.set(`${route.method} ${route.path}`, seen);
      await fc.assert(
        fc.asyncProperty(requestFor(route), async (request) => {
          const answer = await send(request);
          // The Swagger page's own routes (its files, its LICENSE) are the page library's: only no 5xx is theirs to keep.
          if (DOCS_ROUTE.test(route.path)) expect(answer.status).toBeLessThan(500);
          else if (GRAPHQL_ROUTE.test(route.path)) expectSaneGraphql(answer, request.method);
          else expectSane(answer, request.method);
          seen.add(answer.status);
        }),
        { numRuns: RUNS_PER_ROUTE, seed: SEED },
      );
    }
    expect(serverErrors).toBe(0);
    // The generators reach past authentication: most routes answered something other than 401 and 404.
    const reached = [...statuses.values()].filter((seen) => [...seen].some((status) => status !== 401 && status !== 404)).length;
    expect(reached).toBeGreaterThan(statuses.size * 0.8);
    expect((await t.http.get('/health/ready')).status).toBe(200);
    const seed = await t.http.get(`/${t.projectKey}/resource/${seedId}`).set({ Authorization: tokens.all });
    expect([200, 404]).toContain(seed.status);
    expect(Object.keys(Object.prototype)).toEqual([]);
  }, 20 * 60_000);
});

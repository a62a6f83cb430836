import { Agent } from 'node:http';
import fc from 'fast-check';
import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { listenOnFreePort } from '../support/listening-app.js';
import { draft } from '../support/fixtures.js';
import { anyText, bigNumber, expectSane, INTERNALS, sendRaw, type Answer } from '../support/hostile-input.js';

/*
 * POST and GET /{projectKey}/graphql with generated documents (docs/graphql.md#limits), sent with a token holding
 * every scope: random and hostile text, documents built from the schema's own names with hostile arguments, deep
 * nesting, thousands of aliases, fragment cycles and fragments that fan out, bad variables, bodies of the wrong
 * JSON shape and batches. No answer is a 5xx; each is GraphQL's `{data?, errors?}` (or the REST envelope for what
 * the HTTP layer refuses: 413, 415), none shows the server's internals, each comes within a bound, and the server
 * still serves afterwards. `FUZZ_RUNS` scales the runs (`npm run fuzz` runs more), `FUZZ_SEED` explores others.
 */

const RUNS = Math.max(5, Number(process.env.FUZZ_RUNS ?? 15) * 2);
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_129);
const ANSWER_BOUND_MS = 10_000;
const ALL_SCOPES = 'manage_test view_test view_messages view_audit_log';

/** Names a document may use: the schema's fields, arguments and types, and some it does not have. */
const FIELDS = ['resource', 'resources', 'message', 'messages', 'resourceVersions', 'versions', 'results', 'id', 'key', 'version', 'count', 'total', 'limit', 'offset',
  'objectTypeProperty', 'arrayOfIntExample', 'arrayOfFloatExample', 'arrayOfObjectType', 'integerExample', 'createdBy', 'clientId', 'images', 'type', 'resourceVersion',
  'modifiedBy', 'createResource', 'updateResource', 'deleteResource', '__typename', '__schema', '__type', 'types', 'fields', 'ofType', 'name', 'nope', '__proto__', 'constructor'];
const ARGUMENTS = ['id', 'key', 'where', 'sort', 'limit', 'offset', 'withTotal', 'version', 'actions', 'draft', 'name', 'if', '__proto__'];
const TYPES = ['Resource', 'Message', 'ResourceVersion', 'Query', 'Mutation', 'ResourceDraft', 'Long', 'Nope'];

const name = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...FIELDS) }, { weight: 1, arbitrary: fc.stringMatching(/^[_A-Za-z][_0-9A-Za-z]{0,12}$/) });

/** A GraphQL value literal: scalars past every range, hostile strings, variables, lists and objects. */
const value: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    bigNumber.filter((n) => /^-?\d+(\.\d+)?(e[-+]?\d+)?$/i.test(n)),
    anyText(40).map((text) => JSON.stringify(text)),
    fc.constantFrom('true', 'false', 'null', 'ENUM', '$v', '$l', '$nope', '"""block"""', '"unterminated'),
    fc.array(tie('value'), { maxLength: 3 }).map((items) => `[${items.join(', ')}]`),
    fc.array(fc.tuple(name, tie('value')), { maxLength: 3 }).map((members) => `{ ${members.map(([n, v]) => `${n}: ${v}`).join(', ')} }`),
  ),
})).value;

const argumentsText = fc.array(fc.tuple(fc.constantFrom(...ARGUMENTS), value), { maxLength: 3 }).map((args) => (args.length ? `(${args.map(([n, v]) => `${n}: ${v}`).join(', ')})` : ''));

/** A selection set built from the schema's names, with aliases, arguments, directives, fragments. */
const selection: fc.Arbitrary<string> = fc.letrec<{ set: string; item: string }>((tie) => ({
  set: fc.array(tie('item'), { minLength: 1, maxLength: 4 }).map((items) => `{ ${items.join(' ')} }`),
  item: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    name,
    fc.tuple(fc.option(name), name, argumentsText, fc.constantFrom('', ' @include(if: true)', ' @skip(if: $v)', ' @nope'), tie('set')).map(([alias, field, args, directive, set]) => `${alias ? `${alias}: ` : ''}${field}${args}${directive} ${set}`),
    fc.tuple(fc.constantFrom(...TYPES), tie('set')).map(([type, set]) => `... on ${type} ${set}`),
    fc.constantFrom('...F', '...G', '...Nope'),
  ),
})).set;

const variableDefinitions = fc.array(fc.tuple(fc.constantFrom('$v', '$l', '$id', '$d', '$x'), fc.constantFrom('Int', 'Long!', 'String', '[String!]', 'ResourceDraft!', 'Boolean', 'Nope', '[[Int]]')), { maxLength: 3 })
  .map((defs) => (defs.length ? `(${defs.map(([n, t]) => `${n}: ${t}`).join(', ')})` : ''));

/** A document of the schema's shape: operations and fragments, sometimes cyclic, sometimes fanning out. */
const schemaDocument = fc
  .tuple(
    fc.constantFrom('', 'query', 'query Q', 'mutation', 'mutation M', 'subscription', 'query Q'),
    variableDefinitions,
    selection,
    fc.option(fc.tuple(fc.constantFrom(...TYPES), selection, fc.constantFrom(...TYPES), selection)),
    fc.option(fc.tuple(fc.constantFrom('', 'query Q2', 'mutation'), selection)),
  )
  .map(([kind, vars, set, fragments, second]) => {
    const parts = [`${kind}${kind ? vars : ''} ${set}`];
    if (fragments) parts.push(`fragment F on ${fragments[0]} ${fragments[1]}`, `fragment G on ${fragments[2]} ${fragments[3]}`);
    if (second) parts.push(`${second[0]} ${second[1]}`);
    return parts.join('\n');
  });

/** Documents each limit is there for: deep nesting, many aliases, fragment cycles and fan-out, huge texts. */
const abusiveDocument = fc.oneof(
  fc.tuple(fc.integer({ min: 10, max: 5_000 }), fc.constantFrom('createdBy', 'resources', 'a', '__schema')).map(([n, field]) => `{ ${`${field} { `.repeat(n)}id${' }'.repeat(n)} }`),
  fc.integer({ min: 10, max: 5_000 }).map((n) => `{ ${'['.repeat(n)}`),
  fc.tuple(fc.integer({ min: 100, max: 6_000 }), fc.integer({ min: 0, max: 500 })).map(([n, limit]) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: resources(limit: ${limit}) { count }`).join(' ')} }`),
  fc.integer({ min: 100, max: 20_000 }).map((n) => `{ resources { results { ${Array.from({ length: n }, (_, i) => `a${i}: id`).join(' ')} } } }`),
  fc.integer({ min: 1, max: 40 }).map((n) => `{ resources { results { ...F0 } } } ${Array.from({ length: n }, (_, i) => `fragment F${i} on Resource { id ...F${(i + 1) % n} }`).join(' ')}`),
  fc.integer({ min: 2, max: 60 }).map((n) => `{ resources { results { ...F0 } } } ${Array.from({ length: n }, (_, i) => (i === n - 1 ? `fragment F${i} on Resource { id }` : `fragment F${i} on Resource { ...F${i + 1} ...F${i + 1} }`)).join(' ')}`),
  fc.integer({ min: 2, max: 40 }).map((n) => `{ resources { results { ...F0 } } } ${Array.from({ length: n }, (_, i) => `fragment F${i} on Resource { id: key ${i + 1 < n ? `...F${i + 1} ` : ''}versions { results { version } } }`).join(' ')}`),
  fc.integer({ min: 60_000, max: 200_000 }).map((n) => `{ resources { count } } #${'x'.repeat(n)}`),
  fc.integer({ min: 1_000, max: 30_000 }).map((n) => `{ resources { ${'count '.repeat(n)}} }`),
  fc.integer({ min: 10, max: 3_000 }).map((n) => `query (${Array.from({ length: n }, (_, i) => `$v${i}: Int`).join(', ')}) { resources { count } }`),
  fc.integer({ min: 10, max: 3_000 }).map((n) => `{ resource${Array.from({ length: 1 }, () => `(id: ${'['.repeat(n)}1${']'.repeat(n)})`).join('')} { id } }`),
  fc.integer({ min: 10, max: 3_000 }).map((n) => `{ resources @include(if: true)${' @include(if: true)'.repeat(n)} { count } }`),
);

/** Any text at all, or a document with a hostile piece spliced in. */
const document = fc.oneof(
  { weight: 4, arbitrary: schemaDocument },
  { weight: 3, arbitrary: abusiveDocument },
  { weight: 2, arbitrary: anyText(300) },
  { weight: 1, arbitrary: fc.tuple(schemaDocument, fc.nat(), anyText(20)).map(([doc, at, text]) => doc.slice(0, at % (doc.length + 1)) + text + doc.slice(at % (doc.length + 1))) },
);

/** Variables of every shape: the right ones, wrong types, values past every range, not an object at all. */
const variables = fc.oneof(
  fc.constant(undefined),
  fc.record({ v: fc.jsonValue({ maxDepth: 2 }), l: fc.oneof(fc.integer(), fc.double(), fc.constant(2 ** 60), fc.string()), id: fc.oneof(fc.uuid(), anyText(20)), d: fc.oneof(fc.constant(draft()), fc.jsonValue({ maxDepth: 3 })) }, { requiredKeys: [] }),
  fc.jsonValue({ maxDepth: 3 }),
  fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'v', 'l'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
);

/** A raw JSON number literal spliced in as a variable (past 64 bits, exponents, huge digit runs). */
const rawNumber = bigNumber.filter((n) => /^-?\d+(\.\d+)?(e[-+]?\d+)?$/i.test(n) && n.length < 500);

/** Predicates that run (on the resource and on the message), and a few that do not parse. */
const PREDICATES = ['key = "seed"', 'version >= 1', 'published = true', 'objectTypeProperty(arrayOfIntExample contains 1)', 'key in ("seed", "other")',
  'type = "ResourceCreated"', 'resourceVersion > 0', 'key is defined', 'someProperty = "x" or version > 2', 'key = ', 'nope = 1'];
const SORTS = ['key asc', 'version desc', 'createdAt desc', 'lastModifiedAt asc', 'id asc', 'nope asc'];

/**
 * Documents that pass validation: a root field of the schema (introspected from the server) with arguments of
 * the right types, their values drawn from the edges of each type (hostile text, 64-bit and past-range numbers
 * where the type allows them, predicates that run and ones that do not), and a selection of real fields a few
 * levels deep. These reach the resolvers, the services and the database, where the other documents mostly stop at
 * validation.
 */
function validDocuments(schema: GraphQLSchema): fc.Arbitrary<string> {
  const scalar = (typeName: string, argumentName: string): fc.Arbitrary<string> => {
    if (argumentName === 'where') return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...PREDICATES) }, { weight: 1, arbitrary: anyText(60) }).map((text) => JSON.stringify(text));
    if (argumentName === 'sort') return fc.constantFrom(...SORTS).map((text) => JSON.stringify(text));
    if (argumentName === 'id') return fc.oneof(fc.uuid(), anyText(40)).map((text) => JSON.stringify(text));
    if (argumentName === 'key') return fc.oneof(fc.constant('seed'), fc.stringMatching(/^[A-Za-z0-9_-]{2,20}$/), anyText(40)).map((text) => JSON.stringify(text));
    switch (typeName) {
      case 'Int':
        return fc.oneof(fc.integer({ min: -2, max: 600 }), fc.constantFrom(2_147_483_647, -2_147_483_648)).map(String);
      case 'Long':
        return fc.oneof(fc.integer({ min: -2, max: 5 }).map(String), fc.constantFrom('9223372036854775807', '-9223372036854775808', '9007199254740993'));
      case 'Float':
      case 'Number':
        return fc.oneof(fc.integer({ min: -1_000, max: 1_000 }).map(String), fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Number.isInteger(n) ? `${n}.0` : String(n))), fc.constantFrom('9007199254740993', '1e308'));
      case 'Boolean':
        return fc.boolean().map(String);
      default:
        return anyText(40).map((text) => JSON.stringify(text));
    }
  };
  const inputValue = (type: GraphQLInputType, argumentName: string, depth: number): fc.Arbitrary<string> => {
    if (isNonNullType(type)) return inputValue(type.ofType, argumentName, depth);
    if (isListType(type)) return fc.array(inputValue(type.ofType, argumentName, depth), { maxLength: depth > 2 ? 1 : 3 }).map((items) => `[${items.join(', ')}]`);
    if (isEnumType(type)) return fc.constantFrom(...type.getValues().map((v) => v.name));
    if (isInputObjectType(type)) {
      const fields = Object.values(type.getFields());
      if (depth > 3) return fc.constant('{}');
      const required = fields.filter((f) => isNonNullType(f.type));
      const optional = fields.filter((f) => !isNonNullType(f.type));
      return fc
        .tuple(fc.tuple(...required.map((f) => inputValue(f.type, f.name, depth + 1))), fc.subarray(optional, { maxLength: Math.min(3, optional.length) }).chain((chosen) => fc.tuple(fc.constant(chosen), fc.tuple(...chosen.map((f) => inputValue(f.type, f.name, depth + 1))))))
        .map(([requiredValues, [chosen, chosenValues]]) => `{ ${[...required.map((f, i) => `${f.name}: ${requiredValues[i]}`), ...chosen.map((f, i) => `${f.name}: ${chosenValues[i]}`)].join(', ')} }`);
    }
    return scalar(getNamedType(type).name, argumentName);
  };
  const argumentsOf = (field: GraphQLField<unknown, unknown>): fc.Arbitrary<string> => {
    const required = field.args.filter((a) => isNonNullType(a.type));
    const optional = field.args.filter((a) => !isNonNullType(a.type));
    return fc
      .subarray(optional)
      .chain((chosen) => fc.tuple(fc.constant([...required, ...chosen]), fc.tuple(...[...required, ...chosen].map((a) => inputValue(a.type, a.name, 0)))))
      .map(([args, values]) => (args.length ? `(${args.map((a, i) => `${a.name}: ${values[i]}`).join(', ')})` : ''));
  };
  const selectionOf = (type: GraphQLObjectType, depth: number): fc.Arbitrary<string> => {
    const fields = Object.values(type.getFields()).filter((f) => depth < 4 || isLeafType(getNamedType(f.type)));
    const item = fc.constantFrom(...fields).chain((field) => {
      const named = getNamedType(field.type);
      return fc.tuple(argumentsOf(field), isObjectType(named) ? selectionOf(named, depth + 1) : fc.constant('')).map(([args, set]) => `${field.name}${args} ${set}`);
    });
    return fc.array(item, { minLength: 1, maxLength: 4 }).map((items) => `{ ${items.map((text, i) => `f${i}: ${text}`).join(' ')} }`);
  };
  const operation = (kind: 'query' | 'mutation', root: GraphQLObjectType | null | undefined) =>
    root ? fc.constantFrom(...Object.values(root.getFields())).chain((field) => fc.tuple(argumentsOf(field), isObjectType(getNamedType(field.type)) ? selectionOf(getNamedType(field.type) as GraphQLObjectType, 1) : fc.constant(''))
      .map(([args, set]) => `${kind} { ${field.name}${args} ${set} }`)) : fc.constant('{ __typename }');
  return fc.oneof({ weight: 3, arbitrary: operation('query', schema.getQueryType()) }, { weight: 2, arbitrary: operation('mutation', schema.getMutationType()) });
}

interface Request {
  method: 'GET' | 'POST';
  path: string;
  contentType?: string;
  body?: string;
}

describe('GraphQL, fuzzed', () => {
  let t: TestApp;
  let port: number;
  let agent: Agent;
  let authorization: string;
  let answered = 0;
  let serverErrors = 0;
  const statuses = new Map<number, number>();

  beforeAll(async () => {
    t = await createTestApp();
    port = Number(new URL(await listenOnFreePort(t)).port);
    agent = new Agent({ keepAlive: true, maxSockets: 4 });
    authorization = (await t.auth(ALL_SCOPES)).Authorization;
    expect((await t.http.post(`/${t.projectKey}/resource`).set({ Authorization: authorization }).send(draft({ key: 'seed' }))).status).toBe(201);
  });
  afterAll(async () => {
    agent.destroy();
    await t.close();
    process.stdout.write(`GraphQL, fuzzed: ${answered} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}, ${serverErrors} answers of 5xx\n`);
  });

  const path = () => `/${t.projectKey}/graphql`;

  async function send(request: Request): Promise<Answer> {
    const headers: Record<string, string> = { Authorization: authorization };
    if (request.contentType) headers['Content-Type'] = request.contentType;
    const started = performance.now();
    const answer = await sendRaw({ port, agent, headers: {}, timeoutMs: ANSWER_BOUND_MS }, request.method, request.path, { headers, body: request.body });
    answered++;
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    if (answer.status >= 500) serverErrors++;
    expect(performance.now() - started).toBeLessThan(ANSWER_BOUND_MS);
    return answer;
  }

  /** GraphQL's answer, or the REST envelope for what the HTTP layer refuses before GraphQL sees it. */
  function expectGraphqlSane(answer: Answer, request: Request): void {
    if (answer.status >= 500) throw new Error(`answered ${answer.status} to ${JSON.stringify(request).slice(0, 300)}: ${answer.text.slice(0, 300)}`);
    expect(answer.text).not.toMatch(INTERNALS);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    if (answer.body && typeof answer.body === 'object' && 'statusCode' in answer.body) return expectSane(answer, request.method);
    expect([200, 400, 405]).toContain(answer.status);
    expect(Object.keys(answer.body).filter((member) => member !== 'data' && member !== 'errors')).toEqual([]);
    if (answer.status !== 200) {
      expect(answer.body.data).toBeUndefined();
      expect(answer.body.errors.length).toBeGreaterThan(0);
    }
    for (const error of answer.body.errors ?? []) {
      expect(typeof error.message).toBe('string');
      expect(typeof error.extensions.code).toBe('string');
      expect(error.extensions.code).not.toBe('General');
    }
  }

  const check = (request: Request) => send(request).then((answer) => expectGraphqlSane(answer, request));

  it('answers generated documents with any variables, over POST JSON, POST application/graphql and GET', async () => {
    const requests = fc.tuple(document, variables, fc.option(fc.constantFrom('Q', 'Q2', 'M', 'nope', '')), fc.constantFrom('json', 'graphql', 'get')).map(([query, vars, operationName, how]): Request => {
      if (how === 'graphql') return { method: 'POST', path: path(), contentType: 'application/graphql', body: query };
      if (how === 'get') {
        const params = new URLSearchParams({ query: query.replace(/[\ud800-\udfff]/g, '\ufffd').slice(0, 6_000) });
        if (vars !== undefined) params.set('variables', JSON.stringify(vars));
        if (operationName !== null) params.set('operationName', operationName);
        return { method: 'GET', path: `${path()}?${params}` };
      }
      return { method: 'POST', path: path(), contentType: 'application/json', body: JSON.stringify({ query, variables: vars, ...(operationName !== null ? { operationName } : {}) }) };
    });
    await fc.assert(fc.asyncProperty(requests, check), { numRuns: RUNS * 4, seed: SEED });
  }, 10 * 60_000);

  it('answers bodies of the wrong JSON shape, batches, and raw numbers past every range in variables', async () => {
    const bodies = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
      fc.array(fc.record({ query: fc.oneof(schemaDocument, fc.jsonValue({ maxDepth: 1 })) }), { minLength: 0, maxLength: 30 }).map((batch) => JSON.stringify(batch)),
      fc.record({ query: fc.jsonValue({ maxDepth: 2 }), variables: fc.jsonValue({ maxDepth: 2 }), operationName: fc.jsonValue({ maxDepth: 1 }) }, { requiredKeys: [] }).map((body) => JSON.stringify(body)),
      fc.tuple(rawNumber, fc.constantFrom('query ($l: Int) { resources(limit: $l) { count } }', 'mutation ($v: Long!) { deleteResource(key: "nope", version: $v) { id } }', 'query ($v: Long!) { resources { count } }'))
        .map(([n, query]) => `{"query":${JSON.stringify(query)},"variables":{"l":${n},"v":${n}}}`),
      fc.tuple(rawNumber, fc.constantFrom('arrayOfIntExample', 'arrayOfFloatExample', 'arrayOfTwonumbersExample', 'arrayOfNumberNoDefaultsExample'))
        .map(([n, field]) => `{"query":"mutation ($d: ResourceDraft!) { createResource(draft: $d) { id objectTypeProperty { ${field} } } }","variables":{"d":${JSON.stringify(draft()).replace(`"${field}":[`, `"${field}":[${n},`)}}}`),
      anyText(200),
      fc.constantFrom('', '{', '[', 'null', '"x"', '{"query":"{ resources { count } }"', '{"query":"{ resources { count } }","query":"{ x }"}', '{"__proto__":{"query":"{ resources { count } }"}}'),
    );
    const requests = fc.tuple(bodies, fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/graphql', 'text/plain')).map(([body, contentType]): Request => ({ method: 'POST', path: path(), contentType, body }));
    await fc.assert(fc.asyncProperty(requests, check), { numRuns: RUNS * 3, seed: SEED });
  }, 10 * 60_000);

  it('answers documents that pass validation, built from the introspected schema, with values at the edges of each type', async () => {
    const introspection = await send({ method: 'POST', path: path(), contentType: 'application/json', body: JSON.stringify({ query: getIntrospectionQuery() }) });
    expect(introspection.status).toBe(200);
    const schema = buildClientSchema(introspection.body.data as IntrospectionQuery);
    let executed = 0;
    const requests = validDocuments(schema).map((query): Request => ({ method: 'POST', path: path(), contentType: 'application/json', body: JSON.stringify({ query }) }));
    await fc.assert(
      fc.asyncProperty(requests, async (request) => {
        const answer = await send(request);
        expectGraphqlSane(answer, request);
        if (answer.status === 200 && answer.body.data) executed++;
      }),
      { numRuns: RUNS * 4, seed: SEED },
    );
    // Most of them ran: their errors, if any, come from the rules of the data, not from GraphQL's validation.
    expect(executed).toBeGreaterThan(RUNS * 2);
  }, 10 * 60_000);

  it('reached past the parser, and keeps serving afterwards', async () => {
    // Not vacuous: documents ran (200) and were refused (400) in the runs above.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(0);
    expect(serverErrors).toBe(0);
    const answer = await send({ method: 'POST', path: path(), contentType: 'application/json', body: JSON.stringify({ query: '{ resource(key: "seed") { key } }' }) });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: { resource: { key: 'seed' } } });
    expect((await t.http.get('/health/ready')).status).toBe(200);
    expect(Object.keys(Object.prototype)).toEqual([]);
  });
});

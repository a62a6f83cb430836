// GraphQL benchmark: what the GraphQL door costs against the REST route that answers the same data (docs/graphql.md).
//
//   [DATABASE_URL=postgres://postgres@127.0.0.1:5432/<your db>] [SERVICE_DIST=dist] node bench/graphql.mjs
//
// Without DATABASE_URL the script creates a database of its own on BENCH_PG_ADMIN_URL (default
// postgres://postgres@127.0.0.1:5432/postgres) and drops it at the end. It starts `node $SERVICE_DIST/src/main.js`
// (project `bench-gql`), seeds by SQL GQL_BENCH_COUNT (default 10,000) resources of about 1 KB with 64-bit
// integers, each at version 2 with its two version records, and measures with autocannon (GQL_BENCH_CONNECTIONS
// = 50 connections, GQL_BENCH_SECONDS = 10 s per run after GQL_BENCH_WARMUP = 3 s of warm-up), REST and
// GraphQL alternated (A B A B), one loaded at a time:
//
//   by id  REST     GET /bench-gql/resource/{id}, a random seeded id per request
//          GraphQL  POST /bench-gql/graphql `query ($id: String) { resource(id: $id) { …every field… } }`
//   page   REST     GET /bench-gql/resource/sorted-query-parameters?limit=100&offset={random multiple of 100 below 2,000}
//          GraphQL  `query ($offset: Int) { resources(limit: 100, offset: $offset) { … results { …every field…
//                   versions(limit: 1) { results { version modifiedAt modifiedBy { clientId } types } } } } }`
//
// Every field: the selection names each field of `Resource` (found by introspection, so it follows the schema),
// so both doors answer the whole resource. The same document text is sent each time with its variables, as a
// client does. Printed: req/s and p99 of each run, the server's CPU time per request, and the ratio of the
// GraphQL means to the REST means (goals: by id ≥ 0.7, page ≥ 0.5). GQL_BENCH_SCENARIOS=byId,page picks scenarios.
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import pg from 'pg';
import { OTP_JSON } from './payloads.mjs';
import { benchDatabase, cpuMs, envNumber, fetchToken, startService } from './service.mjs';

const SERVICE_DIST = process.env.SERVICE_DIST ?? 'dist';
const num = envNumber;
const SECONDS = num('GQL_BENCH_SECONDS', 10);
const WARMUP = num('GQL_BENCH_WARMUP', 3);
const CONNECTIONS = num('GQL_BENCH_CONNECTIONS', 50);
const COUNT = num('GQL_BENCH_COUNT', 10_000);
const SCENARIOS = (process.env.GQL_BENCH_SCENARIOS ?? 'byId,page').split(',').map((s) => s.trim()).filter(Boolean);
const PAGE_SIZE = 100;
const PAGES = 20;
const PROJECT = 'bench-gql';
const CLIENT = { projectKey: PROJECT, id: 'bench-gql-client', secret: 'bench-gql-secret-0123456789', scopes: `view_test:${PROJECT} view_audit_log:${PROJECT}` };
const GOALS = { byId: 0.7, page: 0.5 };

const log = (text) => process.stderr.write(`[graphql bench ${new Date().toISOString().slice(11, 19)}] ${text}\n`);
const round = (n, digits = 0) => (n === undefined ? undefined : Number(n.toFixed(digits)));

/** Resources at version 2, each with the records of its two versions (the second a SomePropertyChanged). */
async function seed(client) {
  const started = performance.now();
  await client.query(
    `WITH r AS (
       INSERT INTO resource (id, project_key, key, version, created_at, last_modified_at, created_by, last_modified_by, published,
                             object_type_property, some_property, message_sequence)
       SELECT gen_random_uuid(), $1, 'g' || i, 2, now() - make_interval(secs => i + 60), now() - make_interval(secs => i), '{"clientId":"seed"}',
              '{"clientId":"seed"}', true, $3::jsonb, 'v2', 2
       FROM generate_series(1, $2::int) AS i
       RETURNING id, key, created_at
     )
     INSERT INTO resource_version (resource_id, version, project_key, modified_at, modified_by, types, representation)
     SELECT r.id, s, $1, r.created_at + make_interval(secs => s), '{"clientId":"seed"}',
            ARRAY[CASE WHEN s = 1 THEN 'ResourceCreated' ELSE 'SomePropertyChanged' END],
            '{"id":"' || r.id || '","key":"' || r.key || '","version":' || s || ',"objectTypeProperty":' || $3 || '}'
     FROM r, generate_series(1, 2) AS s`,
    [PROJECT, COUNT, OTP_JSON],
  );
  await client.query('VACUUM ANALYZE resource, resource_version');
  log(`seeded ${COUNT} resources with two versions each in ${Math.round(performance.now() - started)} ms`);
  return (await client.query('SELECT id::text AS id FROM resource WHERE project_key = $1', [PROJECT])).rows.map((r) => r.id);
}

/** The selection of every field of `typeName`, nested objects included (by introspection). */
async function selectionOf(send, typeName) {
  const types = new Map();
  const query = `{ __schema { types { name fields { name args { name } type { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } }`;
  for (const type of (await send(query)).data.__schema.types) types.set(type.name, type);
  const named = (t) => (t.ofType ? named(t.ofType) : t);
  const select = (name) =>
    `{ ${types.get(name).fields.filter((f) => f.args.length === 0).map((f) => {
      const inner = named(f.type);
      return inner.kind === 'OBJECT' ? `${f.name} ${select(inner.name)}` : f.name;
    }).join(' ')} }`;
  return select(typeName);
}

function graphqlRequest(document, variables) {
  return {
    method: 'POST',
    path: `/${PROJECT}/graphql`,
    headers: { 'content-type': 'application/json' },
    setupRequest(req) {
      return { ...req, body: JSON.stringify({ query: document, variables: variables() }) };
    },
  };
}

function restRequest(path) {
  return { method: 'GET', setupRequest: (req) => ({ ...req, path: path() }) };
}

async function run(url, token, request, seconds) {
  return autocannon({ url, connections: CONNECTIONS, pipelining: 1, duration: seconds, timeout: 10, headers: { authorization: `Bearer ${token}` }, requests: [request] });
}

async function measure(service, token, name, doors) {
  const runs = [];
  for (const door of ['REST', 'GraphQL', 'REST', 'GraphQL']) {
    if (WARMUP > 0) await run(service.url, token, doors[door], WARMUP);
    const cpuBefore = cpuMs(service.child.pid);
    const result = await run(service.url, token, doors[door], SECONDS);
    const cpuUs = result.requests.total > 0 ? ((cpuMs(service.child.pid) - cpuBefore) * 1000) / result.requests.total : undefined;
    const failed = result.non2xx + result.errors + result.timeouts;
    runs.push({ door, perSecond: result.requests.average, p99Ms: result.latency.p99, failed, serverCpuPerRequestUs: cpuUs, bytesPerRequest: result.throughput.total / Math.max(1, result.requests.total) });
    log(`${name} ${door}: ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms, ${failed} failed, server CPU ${round(cpuUs)} µs per request`);
    await sleep(500);
  }
  const mean = (door, member) => runs.filter((r) => r.door === door).reduce((sum, r) => sum + r[member], 0) / 2;
  const means = Object.fromEntries(['REST', 'GraphQL'].map((door) => [door, { perSecond: mean(door, 'perSecond'), serverCpuPerRequestUs: mean(door, 'serverCpuPerRequestUs') }]));
  return { runs, means, ratio: means.GraphQL.perSecond / means.REST.perSecond };
}

/** Whether the two doors answer the same data for one request of each (GraphQL writes an absent member as null). */
function sameResources(rest, graphql) {
  const { versions, ...resource } = graphql;
  return JSON.stringify(rest) === JSON.stringify(resource, (_key, value) => (value === null ? undefined : value));
}

async function main() {
  let service;
  const database = await benchDatabase('bench_gql', log);
  const databaseUrl = database.url;
  try {
    service = await startService({ dist: SERVICE_DIST, databaseUrl, client: CLIENT });
    const token = await fetchToken(service.url, CLIENT);
    const dbClient = new pg.Client({ connectionString: databaseUrl });
    await dbClient.connect();
    let ids;
    try {
      await dbClient.query('DELETE FROM resource_version WHERE project_key = $1', [PROJECT]);
      await dbClient.query('DELETE FROM resource WHERE project_key = $1', [PROJECT]);
      ids = await seed(dbClient);
    } finally {
      await dbClient.end();
    }
    const get = async (path, init) => {
      const res = await fetch(`${service.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init?.headers } });
      const body = await res.json();
      if (res.status !== 200 || body.errors) throw new Error(`${path}: ${res.status} ${JSON.stringify(body).slice(0, 500)}`);
      return body;
    };
    const graphql = (query, variables) => get(`/${PROJECT}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
    const fields = await selectionOf(graphql, 'Resource');
    const version = '{ results { version modifiedAt modifiedBy { clientId } types } }';
    const byIdDocument = `query ($id: String) { resource(id: $id) ${fields} }`;
    const pageDocument = `query ($offset: Int) { resources(limit: ${PAGE_SIZE}, offset: $offset) { limit offset count total results ${fields.slice(0, -1)}versions(limit: 1) ${version} } } }`;
    log(`service at ${service.url}; GraphQL page document: ${pageDocument}`);

    // One request of each door, compared: the bench measures the same answers.
    const sample = ids[0];
    const one = await get(`/${PROJECT}/resource/${sample}`);
    const viaGraphql = (await graphql(byIdDocument, { id: sample })).data.resource;
    if (!sameResources(one, viaGraphql)) throw new Error(`the doors answer differently:\nREST    ${JSON.stringify(one)}\nGraphQL ${JSON.stringify(viaGraphql)}`);
    const page = (await graphql(pageDocument, { offset: 0 })).data.resources;
    if (page.count !== PAGE_SIZE || page.results.some((r) => r.versions?.results.length !== 1 || r.versions.results[0].version !== 2)) throw new Error('the GraphQL page lacks its last versions');

    const randomId = () => ids[Math.floor(Math.random() * ids.length)];
    const randomOffset = () => PAGE_SIZE * Math.floor(Math.random() * Math.min(PAGES, COUNT / PAGE_SIZE));
    const scenarios = {
      byId: { REST: restRequest(() => `/${PROJECT}/resource/${randomId()}`), GraphQL: graphqlRequest(byIdDocument, () => ({ id: randomId() })) },
      page: { REST: restRequest(() => `/${PROJECT}/resource/sorted-query-parameters?limit=${PAGE_SIZE}&offset=${randomOffset()}`), GraphQL: graphqlRequest(pageDocument, () => ({ offset: randomOffset() })) },
    };
    const results = {};
    for (const name of SCENARIOS) {
      if (!scenarios[name]) throw new Error(`GQL_BENCH_SCENARIOS: unknown scenario '${name}' (byId, page)`);
      results[name] = await measure(service, token, name, scenarios[name]);
    }

    const verdict = (ok) => (ok ? 'met' : 'MISSED');
    const labels = { byId: 'a resource by id', page: `a page of ${PAGE_SIZE} (GraphQL: with each one's last version)` };
    console.log(`\nGraphQL against REST, ${COUNT} resources of about 1 KB, ${CONNECTIONS} connections, ${SECONDS} s per run, REST and GraphQL alternated twice:`);
    for (const [name, r] of Object.entries(results)) {
      console.log(`  ${labels[name]}`);
      for (const door of ['REST', 'GraphQL']) {
        const m = r.means[door];
        const runs = r.runs.filter((x) => x.door === door).map((x) => `${Math.round(x.perSecond)}${x.failed ? ` (${x.failed} failed)` : ''}`).join(', ');
        console.log(`    ${door.padEnd(8)} ${Math.round(m.perSecond).toString().padStart(6)} req/s (runs ${runs})   server CPU ${Math.round(m.serverCpuPerRequestUs)} µs per request`);
      }
      console.log(`    ratio GraphQL / REST ${r.ratio.toFixed(2)} (goal ≥ ${GOALS[name]} → ${verdict(r.ratio >= GOALS[name])})`);
    }
    console.log(
      JSON.stringify({
        settings: { seconds: SECONDS, warmup: WARMUP, connections: CONNECTIONS, resources: COUNT },
        ...Object.fromEntries(Object.entries(results).map(([name, r]) => [name, {
          ratio: round(r.ratio, 3),
          goal: GOALS[name],
          runs: r.runs.map((x) => ({ ...x, perSecond: round(x.perSecond), serverCpuPerRequestUs: round(x.serverCpuPerRequestUs), bytesPerRequest: round(x.bytesPerRequest) })),
        }])),
      }),
    );
    if (Object.values(results).some((r) => r.runs.some((x) => x.failed > 0))) process.exitCode = 1;
  } finally {
    if (service) {
      service.child.kill('SIGTERM');
      await Promise.race([once(service.child, 'exit'), sleep(10_000)]);
    }
    await database.drop();
  }
}

await main();

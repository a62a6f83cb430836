// The baseline of `npm run bench`: the physical limit of this design on this machine.
//
// Plain node:http + pg, no framework, no auth, no validation beyond JSON.parse. It runs the very
// same SQL as the service's hot paths (imported from the built service, as named prepared
// statements, as the service does on PostgreSQL) on the same table with a pool of the same size, and
// answers the `json` column text with the service's status codes (200/201/404/409, Location on 201).
//
// Env: PORT (0 = any), DATABASE_URL (required), POOL_SIZE (default 10).
// Prints `listening <port>` on stdout once it accepts connections; SIGTERM/SIGINT stop it.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { RESOURCE_SQL } from '../dist/src/resource/resource.repository.js';

const SQL = RESOURCE_SQL;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ROUTE = /^\/([a-z0-9-]{2,36})\/resource(?:\/([^/?]+))?\/?(?:\?.*)?$/;
/** What the service stores for the bench client (`{clientId, customerId?}`). */
const MODIFIER = JSON.stringify({ clientId: 'bench-client' });
const BODY_LIMIT = 1_048_576;

if (!process.env.DATABASE_URL) {
  process.stderr.write('baseline-server: DATABASE_URL is required\n');
  process.exit(2);
}
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10) });
pool.on('error', (error) => process.stderr.write(`baseline-server: idle client error: ${error.message}\n`));

async function one(statement, values) {
  return (await pool.query({ name: statement.name, text: statement.text, values })).rows[0];
}

function send(res, status, body, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

function error(res, status, code, message, extra = {}) {
  send(res, status, JSON.stringify({ statusCode: status, message, errors: [{ code, message, ...extra }] }));
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > BODY_LIMIT) reject(Object.assign(new Error('body too large'), { status: 413 }));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function parseJson(req) {
  try {
    return JSON.parse(await readBody(req));
  } catch (e) {
    throw Object.assign(new Error(e.status === 413 ? 'The body is too large.' : 'The body is not valid JSON.'), { status: e.status ?? 400 });
  }
}

async function getById(res, projectKey, id) {
  const row = UUID.test(id) ? await one(SQL.byId, SQL.byId.values({ id, projectKey })) : undefined;
  if (row) send(res, 200, row.json);
  else error(res, 404, 'ResourceNotFound', `The resource with ID '${id}' was not found.`);
}

async function create(req, res, projectKey) {
  const body = await parseJson(req);
  if (body === null || typeof body !== 'object' || body.objectTypeProperty === undefined) {
    return error(res, 400, 'RequiredField', 'objectTypeProperty: a value is required.');
  }
  const key = body.key ?? null;
  const row = await one(SQL.upsert, SQL.upsert.values({
    id: randomUUID(),
    projectKey,
    key,
    by: MODIFIER,
    publish: body.publish ?? true,
    document: JSON.stringify(body.objectTypeProperty),
    expected: body.version ?? null,
    owner: null,
    publishGiven: body.publish !== undefined,
  }));
  if (row) return send(res, 201, row.json, { location: `/${projectKey}/resource/${row.id}` });
  const state = key === null ? undefined : await one(SQL.stateByKey, SQL.stateByKey.values({ projectKey, key }));
  if (!state) return error(res, 404, 'ResourceNotFound', 'The resource was not found.');
  error(res, 409, 'ConcurrentModification', `Object version mismatch. The current version is ${state.version}.`, { currentVersion: state.version });
}

async function update(req, res, projectKey, id) {
  const body = await parseJson(req);
  if (body === null || typeof body !== 'object' || !Number.isInteger(body.version) || !Array.isArray(body.actions)) {
    return error(res, 400, 'InvalidInput', 'The body must be a JSON object with version and actions.');
  }
  if (!UUID.test(id)) return error(res, 404, 'ResourceNotFound', `The resource with ID '${id}' was not found.`);
  // The bench sends changeSomeProperty only; the last one wins, as in the service.
  // Their messages as the service records them (docs/change-log-and-subscriptions.md#change-log): the old value from the row for the
  // first, from the action before for the others.
  let someProperty;
  const messages = [];
  for (const action of body.actions) {
    if (action?.action !== 'changeSomeProperty' || typeof action.someProperty !== 'string') {
      return error(res, 400, 'InvalidInput', 'The baseline knows only changeSomeProperty.');
    }
    const p = `"someProperty":${JSON.stringify(action.someProperty)}`;
    messages.push(someProperty === undefined ? { t: 'SomePropertyChanged', p, o: 'someProperty' } : { t: 'SomePropertyChanged', p: `${p},"oldSomeProperty":${JSON.stringify(someProperty)}` });
    someProperty = action.someProperty;
  }
  if (someProperty !== undefined) {
    const row = await one(SQL.update, SQL.update.values({
      id, projectKey, expected: body.version, by: MODIFIER,
      someSet: true, some: someProperty,
      secondSet: false, second: null,
      keySet: false, key: null,
      documentSet: false, document: null,
      published: null,
      publishImages: false,
      count: messages.length, messages: JSON.stringify(messages),
    }));
    if (row) return send(res, 200, row.json);
  }
  const state = await one(SQL.stateById, SQL.stateById.values({ id, projectKey }));
  if (!state) return error(res, 404, 'ResourceNotFound', `The resource with ID '${id}' was not found.`);
  if (state.version !== body.version) {
    return error(res, 409, 'ConcurrentModification', `Object version mismatch. The current version is ${state.version}.`, { currentVersion: state.version });
  }
  send(res, 200, state.json);
}

async function handle(req, res) {
  const match = ROUTE.exec(req.url ?? '');
  if (req.method === 'GET' && req.url === '/health/ready') return send(res, 200, '{"status":"ok"}');
  if (!match) return error(res, 404, 'ResourceNotFound', 'No such route.');
  const [, projectKey, id] = match;
  if (req.method === 'GET' && id) return getById(res, projectKey, decodeURIComponent(id));
  if (req.method === 'POST' && !id) return create(req, res, projectKey);
  if (req.method === 'POST' && id) return update(req, res, projectKey, decodeURIComponent(id));
  error(res, 405, 'MethodNotAllowed', 'Not supported by the baseline.');
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((e) => {
    if (res.headersSent) return res.destroy();
    if (e.status) return error(res, e.status, 'InvalidInput', e.message);
    process.stderr.write(`baseline-server: ${e.stack ?? e}\n`);
    error(res, 500, 'General', 'Internal error.');
  });
});
server.keepAliveTimeout = 65_000;

server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});

function stop() {
  server.close();
  server.closeAllConnections?.();
  pool.end().finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

// API extensions benchmark: what an extension costs the writes it is called for (docs/extensions.md).
//
//   [DATABASE_URL=postgres://postgres@127.0.0.1:5432/<your db>] [SERVICE_DIST=dist] node bench/extensions.mjs
//
// Without DATABASE_URL the script creates a database of its own on BENCH_PG_ADMIN_URL (default
// postgres://postgres@127.0.0.1:5432/postgres) and drops it at the end. It starts `node $SERVICE_DIST/src/main.js`
// (project `bench-ext`) and, in a child process of its own (so that it takes no CPU from autocannon), a
// node:http receiver on 127.0.0.1 playing the extensions: `/empty` answers `{"actions":[]}` at once, `/two`
// answers two update actions at once. Two kinds of write, each with autocannon (EXT_BENCH_CONNECTIONS = 32
// connections, EXT_BENCH_SECONDS = 10 s per run, after EXT_BENCH_WARMUP = 2 s of warm-up):
//
//   create  POST /bench-ext/resource (~1 KB, no key)
//   update  POST /bench-ext/resource/{id} {version, actions: [changeSomeProperty]} of resources created first
//           (EXT_BENCH_RESOURCES = 64 per connection); a request takes one no other request is updating and
//           keeps its version from the answer, so no update is a 409
//
// under four settings of the project's extensions, run in turn and then again in the same order (A B C D A B
// C D): none; one extension that applies and answers `{actions: []}` (empty); one that applies and answers two
// actions (two); one whose condition does not match the write (no match: never called). Printed: req/s and
// p99 of each run, the server's CPU time per write, and the ratios of the means to the runs without
// extensions (goals: empty and two ≥ 0.6; no match costs < 5 % more, as throughput and as CPU per write).
// EXT_BENCH_KINDS (default `create,update`) and EXT_BENCH_SETTINGS (default `none,empty,two,no match`; `none`
// always runs) pick a part, e.g. `EXT_BENCH_KINDS=update EXT_BENCH_SETTINGS='none,no match'` to compare the
// cost of a condition that does not match without the heavier settings' garbage in between.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import pg from 'pg';
import { CREATE_BODY } from './payloads.mjs';
import { cpuMs, fetchToken, startService } from './service.mjs';

const SELF = fileURLToPath(import.meta.url);
const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SERVICE_DIST = process.env.SERVICE_DIST ?? 'dist';
const num = (name, fallback) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name}: expected a number ≥ 0, got '${process.env[name]}'`);
  return value;
};
const SECONDS = num('EXT_BENCH_SECONDS', 10);
const WARMUP = num('EXT_BENCH_WARMUP', 2);
const CONNECTIONS = num('EXT_BENCH_CONNECTIONS', 32);
const PER_CONNECTION = num('EXT_BENCH_RESOURCES', 64);
const PROJECT = 'bench-ext';
const CLIENT = { projectKey: PROJECT, id: 'bench-ext-client', secret: 'bench-ext-secret-0123456789', scopes: `manage_test:${PROJECT} manage_extensions:${PROJECT}` };
const GOALS = { ratio: 0.6, noMatchPercent: 5 };
/** The members of `all` the variable names (all by default), in `all`'s order, and `always`. */
const list = (name, all, always) => {
  const picked = (process.env[name] ?? all.join(',')).split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = picked.filter((s) => !all.includes(s));
  if (unknown.length > 0) throw new Error(`${name}: unknown ${unknown.join(', ')}; one of ${all.join(', ')}`);
  return all.filter((s) => s === always || picked.includes(s));
};
const KINDS = list('EXT_BENCH_KINDS', ['create', 'update']);
const SETTINGS = list('EXT_BENCH_SETTINGS', ['none', 'empty', 'two', 'no match'], 'none');
const TWO_ACTIONS = JSON.stringify({
  actions: [
    { action: 'importFooForSecondPropertyToUpdate', secondPropertyToUpdate: 'set by the extension' },
    { action: 'doSomeThing' },
  ],
});

const log = (text) => process.stderr.write(`[extensions bench] ${text}\n`);
const round = (n, digits = 0) => (n === undefined ? undefined : Number(n.toFixed(digits)));

/* ------------------------------------------------------------------ the receiver (a child process) */

if (process.env.EXT_BENCH_ROLE === 'receiver') {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(req.url === '/two' ? TWO_ACTIONS : '{"actions":[]}');
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send({ url: `http://127.0.0.1:${server.address().port}` }));
  process.on('disconnect', () => process.exit(0));
} else {
  await main();
}

async function startReceiver() {
  const child = spawn(process.execPath, [SELF], { env: { PATH: process.env.PATH, HOME: process.env.HOME, EXT_BENCH_ROLE: 'receiver' }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const [message] = await once(child, 'message');
  return { child, url: message.url };
}

/* ------------------------------------------------------------------ the service's API */

function api(service, token) {
  const send = async (method, path, body) => {
    const res = await fetch(`${service.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
  return {
    send,
    /** The project's extensions set to `setting` (none, empty, two, no match). */
    async setExtensions(setting, receiverUrl) {
      for (const e of (await send('GET', `/${PROJECT}/extensions?limit=500`)).results) await send('DELETE', `/${PROJECT}/extensions/${e.id}?version=${e.version}`);
      if (setting === 'none') return;
      const path = setting === 'two' ? '/two' : '/empty';
      const condition = setting === 'no match' ? { condition: 'someProperty = "never set by this bench"' } : {};
      await send('POST', `/${PROJECT}/extensions`, {
        destination: { type: 'HTTP', url: `${receiverUrl}${path}` },
        triggers: [{ resourceTypeId: 'resource', actions: ['Create', 'Update'], ...condition }],
      });
    },
  };
}

/* ------------------------------------------------------------------ the runs */

/**
 * Updates of resources no other request is updating: each request takes a resource from the free ones and
 * gives it back with the version its answer carries. (autocannon's context lasts one request and its answer.)
 */
function updateRequest(free) {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    setupRequest(req, context) {
      const r = free.shift();
      context.current = r;
      return { ...req, path: `/${PROJECT}/resource/${r.id}`, body: `{"version":${r.version},"actions":[{"action":"changeSomeProperty","someProperty":"v${r.version}"}]}` };
    },
    onResponse(status, body, context) {
      const r = context.current;
      if (!r) return;
      context.current = undefined;
      const version = /"version":(\d+)/.exec(body);
      if (status === 200 && version) r.version = Number(version[1]);
      free.push(r);
    },
  };
}

async function run(service, token, kind, resources, seconds) {
  const request = kind === 'create' ? { method: 'POST', path: `/${PROJECT}/resource`, headers: { 'content-type': 'application/json' }, body: CREATE_BODY } : updateRequest(resources);
  return autocannon({ url: service.url, connections: CONNECTIONS, pipelining: 1, duration: seconds, timeout: 10, headers: { authorization: `Bearer ${token}` }, requests: [request] });
}

async function measure(service, token, client, receiverUrl, kind, resources) {
  const runs = [];
  for (const setting of [...SETTINGS, ...SETTINGS]) {
    await client.setExtensions(setting, receiverUrl);
    if (WARMUP > 0) await run(service, token, kind, resources, WARMUP);
    const cpuBefore = cpuMs(service.child.pid);
    const result = await run(service, token, kind, resources, SECONDS);
    const cpuUs = result.requests.total > 0 ? ((cpuMs(service.child.pid) - cpuBefore) * 1000) / result.requests.total : undefined;
    const failed = result.non2xx + result.errors + result.timeouts;
    runs.push({ setting, perSecond: result.requests.average, p99Ms: result.latency.p99, failed, serverCpuPerWriteUs: cpuUs });
    log(`${kind} with ${setting}: ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms, ${failed} failed, server CPU ${round(cpuUs)} µs per write`);
    await sleep(500);
  }
  const mean = (setting, member) => runs.filter((r) => r.setting === setting).reduce((sum, r) => sum + r[member], 0) / 2;
  const means = Object.fromEntries(SETTINGS.map((s) => [s, { perSecond: mean(s, 'perSecond'), serverCpuPerWriteUs: mean(s, 'serverCpuPerWriteUs') }]));
  const base = means.none;
  return {
    runs,
    means,
    ratios: { empty: means.empty?.perSecond / base.perSecond, two: means.two?.perSecond / base.perSecond, noMatch: means['no match']?.perSecond / base.perSecond },
    noMatchCpuPercent: ((means['no match']?.serverCpuPerWriteUs - base.serverCpuPerWriteUs) / base.serverCpuPerWriteUs) * 100,
  };
}

async function main() {
  let databaseUrl = process.env.DATABASE_URL;
  let ownDatabase;
  let service;
  let receiver;
  const admin = async (sql) => {
    const c = new pg.Client({ connectionString: ADMIN_URL });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  try {
    if (!databaseUrl) {
      ownDatabase = `bench_ext_${Date.now()}`;
      await admin(`CREATE DATABASE "${ownDatabase}"`);
      const url = new URL(ADMIN_URL);
      url.pathname = `/${ownDatabase}`;
      databaseUrl = url.toString();
    }
    receiver = await startReceiver();
    service = await startService({ dist: SERVICE_DIST, databaseUrl, client: CLIENT });
    const token = await fetchToken(service.url, CLIENT);
    const client = api(service, token);
    log(`service at ${service.url}, receiver at ${receiver.url}; creating ${CONNECTIONS * PER_CONNECTION} resources to update`);
    const resources = [];
    for (let i = 0; i < CONNECTIONS * PER_CONNECTION; i += 32) {
      resources.push(...(await Promise.all(Array.from({ length: 32 }, () => client.send('POST', `/${PROJECT}/resource`, CREATE_BODY)))).map((r) => ({ id: r.id, version: r.version })));
    }

    const results = {};
    for (const kind of KINDS) results[kind] = await measure(service, token, client, receiver.url, kind, resources);
    await client.setExtensions('none', receiver.url);

    const verdict = (ok) => (ok ? 'met' : 'MISSED');
    console.log(`\nAPI extensions, receiver on 127.0.0.1 answering at once, ${CONNECTIONS} connections, ${SECONDS} s per run, settings in turn twice:`);
    for (const [kind, r] of Object.entries(results)) {
      console.log(`  ${kind}`);
      for (const setting of SETTINGS) {
        const m = r.means[setting];
        const runs = r.runs.filter((x) => x.setting === setting).map((x) => `${Math.round(x.perSecond)}${x.failed ? ` (${x.failed} failed)` : ''}`).join(', ');
        console.log(`    ${setting.padEnd(9)} ${Math.round(m.perSecond).toString().padStart(6)} req/s (runs ${runs})   server CPU ${Math.round(m.serverCpuPerWriteUs)} µs per write`);
      }
      const fixed = (n, digits) => (Number.isNaN(n) ? 'n/a' : n.toFixed(digits));
      const noMatchMet = (1 - r.ratios.noMatch) * 100 < GOALS.noMatchPercent && r.noMatchCpuPercent < GOALS.noMatchPercent;
      console.log(
        `    ratios to none: empty ${fixed(r.ratios.empty, 2)}, two actions ${fixed(r.ratios.two, 2)} (goal ≥ ${GOALS.ratio} → ${verdict(r.ratios.empty >= GOALS.ratio && r.ratios.two >= GOALS.ratio)}); ` +
          `no match ${fixed(r.ratios.noMatch, 3)}, CPU per write ${r.noMatchCpuPercent >= 0 ? '+' : ''}${fixed(r.noMatchCpuPercent, 1)} % (goal < ${GOALS.noMatchPercent} % more, both → ${verdict(noMatchMet)})`,
      );
    }
    console.log(
      JSON.stringify({
        settings: { seconds: SECONDS, warmup: WARMUP, connections: CONNECTIONS },
        ...Object.fromEntries(Object.entries(results).map(([kind, r]) => [kind, {
          ratios: Object.fromEntries(Object.entries(r.ratios).map(([k, v]) => [k, round(v, 3)])),
          noMatchCpuPercent: round(r.noMatchCpuPercent, 1),
          runs: r.runs.map((x) => ({ ...x, perSecond: round(x.perSecond), serverCpuPerWriteUs: round(x.serverCpuPerWriteUs) })),
        }])),
      }),
    );
  } finally {
    if (service) {
      service.child.kill('SIGTERM');
      await Promise.race([once(service.child, 'exit'), sleep(10_000)]);
    }
    receiver?.child.kill('SIGTERM');
    if (ownDatabase) await admin(`DROP DATABASE IF EXISTS "${ownDatabase}" WITH (FORCE)`).catch((error) => log(`could not drop ${ownDatabase}: ${error.message}`));
  }
}

// Subscriptions benchmark: webhook delivery of the change log (docs/change-log-and-subscriptions.md#subscriptions).
//
//   [DATABASE_URL=postgres://postgres@127.0.0.1:5432/<your db>] [SERVICE_DIST=dist] node bench/subscriptions.mjs
//
// Without DATABASE_URL the script creates a database of its own on BENCH_PG_ADMIN_URL (default
// postgres://postgres@127.0.0.1:5432/postgres) and drops it at the end. It starts `node $SERVICE_DIST/src/main.js`
// (its migrations run at start-up; the dispatcher's settings are the defaults, or any SUBSCRIPTION_* variable
// set in this script's environment), project `bench-subs`, webhooks to node:http receivers on 127.0.0.1, and
// measures three things (the targets in parentheses):
//
//   1. latency     one subscription with `changes`; creates paced by a timer at SUBS_BENCH_RATE (200) writes/s
//                  for SUBS_BENCH_SECONDS (20); per write, the time from its HTTP response at the client to
//                  the receiver getting its notification: p50/p95/p99 and delivered/expected (p99 < 250 ms).
//   2. throughput  SUBS_BENCH_BACKLOG (20,000) creates are written while the dispatcher cannot queue them,
//                  then the queue drains: notifications accepted per second by the receiver (≥ 1,000/s), against
//                  a baseline in the same run: a plain node:http client (keep-alive, the same concurrency
//                  SUBS_BENCH_CONCURRENCY = 64, the same bodies, headers and HMAC signature) POSTing to the same
//                  kind of receiver (service ≥ 0.5 of the baseline).
//   3. write path  autocannon creates (SUBS_BENCH_CONNECTIONS = 32 connections, SUBS_BENCH_CREATE_SECONDS = 10 s
//                  per run) with 0 subscriptions and with 3 (`changes`, to a receiver answering 204), A B A B on
//                  the same service after SUBS_BENCH_WARMUP (2) s of warm-up: req/s and the drop (≤ 10 %), and
//                  per create the CPU time of the server, of PostgreSQL (when it runs on this machine) and of the
//                  receiver (from /proc), to tell where the subscriptions' cost lies.
//
// How the backlog of (2) is made. The dispatcher queues new messages only for subscriptions that exist
// (a new subscription starts with the writes after it), and retries a refused notification with back-off,
// so neither "write, then subscribe" nor "answer 503, then 204" gives a clean drain (the first queues
// nothing; the second measures retries spread by jitter, each notification with a failed attempt behind it).
// Instead the subscription exists and the script holds the row lock of `subscription_dispatch` (the one row
// whose lock, taken with SKIP LOCKED, lets one process queue at a time) in an open transaction while the
// backlog is written: to the service this is another replica holding the queuing turn. Nothing is queued
// meanwhile; on COMMIT the next poll queues the whole backlog, and the dispatcher drains it as it would a
// backlog after an outage of the destination. The rate is measured at the receiver from its first to its
// last notification; the time from the release to the first notification (queuing the backlog) is printed
// beside it.
//
// The receivers of (1) and (2) run in this process, as does the load of (1); the baseline client of (2)
// runs in a child process (like the service, a process of its own beside the receiver); in (3) the
// receiver runs in a child process so that it takes no CPU from autocannon in this one.
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { Agent, createServer, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import pg from 'pg';
import { CREATE_BODY } from './payloads.mjs';
import { cpuMs, cpuMsBetween, cpuSnapshot, fetchToken, procStat, startService } from './service.mjs';

const SELF = fileURLToPath(import.meta.url);
const ROLE = process.env.SUBS_BENCH_ROLE;
const DATABASE_URL = process.env.DATABASE_URL;
const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SERVICE_DIST = process.env.SERVICE_DIST ?? 'dist';
const num = (name, fallback) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name}: expected a number ≥ 0, got '${process.env[name]}'`);
  return value;
};
const SECONDS = num('SUBS_BENCH_SECONDS', 20);
const RATE = num('SUBS_BENCH_RATE', 200);
const BACKLOG = num('SUBS_BENCH_BACKLOG', 20_000);
const CONCURRENCY = num('SUBS_BENCH_CONCURRENCY', 64);
const CREATE_SECONDS = num('SUBS_BENCH_CREATE_SECONDS', 10);
const CONNECTIONS = num('SUBS_BENCH_CONNECTIONS', 32);
const WARMUP = num('SUBS_BENCH_WARMUP', 2);
/** How long to wait for the last notifications of (1), and for any progress of the drain of (2). */
const DELIVERY_WAIT_MS = 30_000;
/** The writes of (2) in flight at once. */
const BACKLOG_WRITERS = 32;
/** (1) is open-loop; this bounds the writes in flight should the service stall. */
const MAX_IN_FLIGHT = 500;
const PROJECT = 'bench-subs';
const CLIENT = {
  projectKey: PROJECT,
  id: 'bench-subs-client',
  secret: 'bench-subs-secret-0123456789',
  scopes: `manage_test:${PROJECT} manage_subscriptions:${PROJECT}`,
};
const GOALS = { p99Ms: 250, ratio: 0.5, perSecond: 1_000, dropPercent: 10 };

function log(message) {
  process.stderr.write(`[subscriptions-bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

const percentile = (sorted, p) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]);
const round = (x, digits = 0) => (Number.isFinite(x) ? Number(x.toFixed(digits)) : null);
const verdict = (ok) => (ok ? 'met' : 'NOT met');

/* ------------------------------------------------------------------ receivers */

/**
 * A webhook receiver on 127.0.0.1: `route(path, body)` answers the status of each POST (after reading the
 * whole body); long keep-alive so the senders keep their connections.
 */
async function startReceiver(route) {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      let status = 500;
      try {
        status = route(req.url, Buffer.concat(chunks).toString('utf8'), req.headers);
      } catch {}
      res.writeHead(status);
      res.end();
    });
  });
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 125_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Receivers' counters: the first and last notification, how many, per path. */
function counter() {
  return { count: 0, first: 0, last: 0 };
}
function count(c) {
  const now = performance.now();
  if (c.count++ === 0) c.first = now;
  c.last = now;
}
/** Notifications per second between the first and the last one received. */
const rateOf = (c) => (c.count > 1 ? ((c.count - 1) * 1000) / (c.last - c.first) : 0);

/** The test notification sent on create: `resource.typeId` is `subscription`. */
const isTestNotification = (body) => body.includes('"typeId":"subscription"');

/* ------------------------------------------------------------------ child roles */

/**
 * SUBS_BENCH_ROLE=sender: the baseline of (2). Gets {url, secret, concurrency, notifications: [{id, body}]}
 * over IPC and POSTs each body as the service's webhook transport does (content-type, webhook-id,
 * webhook-timestamp, a Standard Webhooks HMAC-SHA256 signature), `concurrency` at a time over a keep-alive
 * agent of as many sockets; answers {sent, failed, statuses}.
 */
async function runSender() {
  const [job] = await once(process, 'message');
  const agent = new Agent({ keepAlive: true, maxSockets: job.concurrency });
  const key = Buffer.from(job.secret.slice('whsec_'.length), 'base64');
  const target = new URL(job.url);
  const statuses = {};
  let next = 0;
  let failed = 0;
  const post = ({ id, body }) =>
    new Promise((resolve) => {
      const timestamp = Math.floor(Date.now() / 1000);
      const signature = `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
      const req = request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'webhook-id': id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': signature,
          },
        },
        (res) => {
          statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
          res.resume();
          res.on('end', resolve);
        },
      );
      req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
      req.on('error', () => {
        failed++;
        resolve();
      });
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: job.concurrency }, async () => {
      while (next < job.notifications.length) await post(job.notifications[next++]);
    }),
  );
  agent.destroy();
  process.send({ sent: job.notifications.length, failed, statuses }, () => process.exit(0));
}

/** SUBS_BENCH_ROLE=receiver: the receiver of (3), answering 204; counts per path, answered on any IPC message. */
async function runReceiver() {
  const counts = {};
  const receiver = await startReceiver((path) => {
    counts[path] = (counts[path] ?? 0) + 1;
    return 204;
  });
  process.on('message', (message) => {
    if (message === 'stop') receiver.close().then(() => process.exit(0));
    else process.send({ counts: { ...counts } });
  });
  process.on('disconnect', () => process.exit(0));
  process.send({ url: receiver.url });
}

/** A child of this script in `role`, with an IPC channel; resolves with it and its first message. */
async function startChild(role) {
  const child = spawn(process.execPath, [SELF], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SUBS_BENCH_ROLE: role },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}
const children = new Set();

/** The next IPC message of `child`, or an error when it exits first or after `ms`. */
function nextMessage(child, ms) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(reject, new Error(`no answer from the child within ${ms} ms`)), ms);
    const onMessage = (message) => done(resolve, message);
    const onExit = (code) => done(reject, new Error(`the child exited (${code})`));
    const done = (settle, value) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      settle(value);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

/* ------------------------------------------------------------------ the service's API */

function api(service, token) {
  const call = async (method, path, body) => {
    const res = await fetch(`${service.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body,
    });
    return { status: res.status, text: await res.text() };
  };
  return {
    call,
    async createResource() {
      const { status, text } = await call('POST', `/${PROJECT}/resource`, CREATE_BODY);
      if (status !== 201) throw new Error(`POST /${PROJECT}/resource: ${status} ${text.slice(0, 300)}`);
      return JSON.parse(text).id;
    },
    /** A subscription with `changes` of resources to `url`: {id, version, secret}. */
    async subscribe(url) {
      const body = JSON.stringify({ destination: { type: 'HTTP', url }, changes: [{ resourceTypeId: 'resource' }] });
      const { status, text } = await call('POST', `/${PROJECT}/subscriptions`, body);
      if (status !== 201) throw new Error(`POST /${PROJECT}/subscriptions: ${status} ${text.slice(0, 500)}`);
      const created = JSON.parse(text);
      return { id: created.id, version: created.version, secret: created.destination.secret };
    },
    async unsubscribe(subscription) {
      const { status, text } = await call('DELETE', `/${PROJECT}/subscriptions/${subscription.id}?version=${subscription.version}`);
      if (status !== 200) throw new Error(`DELETE subscription: ${status} ${text.slice(0, 300)}`);
    },
  };
}

/** Waits until `done()` or `stalled()` (no progress for DELIVERY_WAIT_MS) or `capMs`; bounded. */
async function waitFor(done, progress, capMs) {
  const deadline = Date.now() + capMs;
  let seen = progress();
  let movedAt = Date.now();
  while (!done() && Date.now() < deadline && Date.now() - movedAt < DELIVERY_WAIT_MS) {
    await sleep(50);
    const now = progress();
    if (now !== seen) {
      seen = now;
      movedAt = Date.now();
    }
  }
  return done();
}

/* ------------------------------------------------------------------ (1) latency */

async function measureLatency(client, receiver, routes) {
  const responseAt = new Map();
  const receivedAt = new Map();
  routes.set('/latency', (body) => {
    if (isTestNotification(body)) return 204;
    const id = JSON.parse(body).resource.id;
    if (!receivedAt.has(id)) receivedAt.set(id, performance.now());
    return 204;
  });
  const subscription = await client.subscribe(`${receiver.url}/latency`);
  const total = Math.round(RATE * SECONDS);
  let sent = 0;
  let inFlight = 0;
  let failed = 0;
  let firstError;
  const write = async () => {
    inFlight++;
    try {
      const id = await client.createResource();
      responseAt.set(id, performance.now());
    } catch (error) {
      failed++;
      firstError ??= error.message;
    } finally {
      inFlight--;
    }
  };
  log(`latency: ${total} creates at ${RATE}/s to one subscription (changes)`);
  const started = performance.now();
  const deadline = started + SECONDS * 2000 + 30_000;
  // Paced by the clock, not by the answers (open loop): every ~2 ms, the writes due by now are sent.
  while (sent < total && performance.now() < deadline) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * RATE) + 1);
    while (sent < due && inFlight < MAX_IN_FLIGHT) {
      sent++;
      write();
    }
    await sleep(2);
  }
  const sentSeconds = (performance.now() - started) / 1000;
  await waitFor(() => inFlight === 0, () => responseAt.size + failed, 60_000);
  await waitFor(() => [...responseAt.keys()].every((id) => receivedAt.has(id)), () => receivedAt.size, DELIVERY_WAIT_MS);
  await client.unsubscribe(subscription);
  routes.delete('/latency');
  const latencies = [];
  for (const [id, at] of responseAt) if (receivedAt.has(id)) latencies.push(receivedAt.get(id) - at);
  latencies.sort((a, b) => a - b);
  return {
    writes: sent,
    writesPerSecond: responseAt.size / sentSeconds,
    failed,
    firstError,
    expected: responseAt.size,
    delivered: latencies.length,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    max: latencies.at(-1),
  };
}

/* ------------------------------------------------------------------ (2) throughput */

async function measureThroughput(client, receiver, routes, databaseUrl) {
  const drain = counter();
  const notifications = [];
  routes.set('/drain', (body, headers) => {
    if (isTestNotification(body)) return 204;
    count(drain);
    notifications.push({ id: headers['webhook-id'], body });
    return 204;
  });
  const subscription = await client.subscribe(`${receiver.url}/drain`);
  const lock = new pg.Client({ connectionString: databaseUrl });
  await lock.connect();
  let released = 0;
  try {
    // Hold the queuing turn (see the top of this file): the dispatcher's SKIP LOCKED finds no row.
    await lock.query('BEGIN');
    await lock.query('SELECT 1 FROM subscription_dispatch WHERE id = 1 FOR UPDATE');
    log(`throughput: writing ${BACKLOG} creates while the queuing turn is held`);
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: BACKLOG_WRITERS }, async () => {
        while (next < BACKLOG) {
          next++;
          await client.createResource();
        }
      }),
    );
    log(`throughput: ${BACKLOG} creates in ${((performance.now() - started) / 1000).toFixed(1)} s; ${drain.count} notifications received meanwhile (expected 0); releasing`);
    released = performance.now();
    await lock.query('COMMIT');
  } finally {
    await lock.end().catch(() => {});
  }
  const complete = await waitFor(() => drain.count >= BACKLOG, () => drain.count, 600_000);
  if (!complete) log(`throughput: the drain stopped at ${drain.count} of ${BACKLOG} notifications`);
  await client.unsubscribe(subscription);
  routes.delete('/drain');
  const service = {
    received: drain.count,
    perSecond: rateOf(drain),
    queueMs: drain.count > 0 ? drain.first - released : NaN,
    drainSeconds: (drain.last - drain.first) / 1000,
  };

  // The baseline: the same bodies, headers and concurrency, from a plain node:http client in a child process.
  const baseline = counter();
  routes.set('/baseline', () => {
    count(baseline);
    return 204;
  });
  const bodyBytes = notifications.reduce((sum, n) => sum + Buffer.byteLength(n.body), 0) / Math.max(1, notifications.length);
  log(`throughput: baseline, ${notifications.length} notifications of ${Math.round(bodyBytes)} bytes (mean) by a plain node:http client, concurrency ${CONCURRENCY}`);
  const sender = await startChild('sender');
  sender.send({ url: `${receiver.url}/baseline`, secret: subscription.secret, concurrency: CONCURRENCY, notifications });
  const sent = await nextMessage(sender, 600_000);
  routes.delete('/baseline');
  if (sent.failed > 0 || baseline.count !== notifications.length) {
    throw new Error(`baseline: ${sent.failed} failed, ${baseline.count} of ${notifications.length} received, statuses ${JSON.stringify(sent.statuses)}`);
  }
  return { backlog: BACKLOG, bodyBytes, service, baseline: { received: baseline.count, perSecond: rateOf(baseline) } };
}

/* ------------------------------------------------------------------ (3) the write path */

function createRun(service, token, seconds) {
  return autocannon({
    url: service.url,
    connections: CONNECTIONS,
    pipelining: 1,
    duration: seconds,
    timeout: 10,
    headers: { authorization: `Bearer ${token}` },
    requests: [{ method: 'POST', path: `/${PROJECT}/resource`, headers: { 'content-type': 'application/json' }, body: CREATE_BODY }],
  });
}

/** The PID of the postmaster of the PostgreSQL at `databaseUrl` (the parent of a backend), if it runs on this machine. */
async function postmasterOf(databaseUrl) {
  const probe = new pg.Client({ connectionString: databaseUrl });
  await probe.connect();
  try {
    const { rows } = await probe.query('SELECT pg_backend_pid() AS pid');
    const ppid = procStat(rows[0].pid)?.[1];
    return ppid === undefined ? undefined : Number(ppid);
  } finally {
    await probe.end();
  }
}

async function measureWritePath(service, token, client, postmaster) {
  const receiverChild = await startChild('receiver');
  const { url } = await nextMessage(receiverChild, 10_000);
  const received = async () => {
    const answer = nextMessage(receiverChild, 10_000);
    receiverChild.send('count');
    return Object.values((await answer).counts).reduce((a, b) => a + b, 0);
  };
  try {
    if (WARMUP > 0) await createRun(service, token, WARMUP);
    const runs = [];
    for (const subscriptions of [0, 3, 0, 3]) {
      const subs = [];
      for (let i = 1; i <= subscriptions; i++) subs.push(await client.subscribe(`${url}/s${i}`));
      const before = await received();
      log(`write path: ${CREATE_SECONDS} s of creates, ${CONNECTIONS} connections, ${subscriptions} subscriptions`);
      // CPU time of the server, of PostgreSQL (all of it: other databases idle meanwhile) and of the receiver.
      const cpu = () => ({ server: cpuMs(service.child.pid), database: postmaster && cpuSnapshot(postmaster), receiver: cpuMs(receiverChild.pid) });
      const cpuBefore = cpu();
      const result = await createRun(service, token, CREATE_SECONDS);
      const cpuAfter = cpu();
      const perCreate = (ms) => (ms === undefined || Number.isNaN(ms) || result.requests.total === 0 ? undefined : Math.round((ms * 1000) / result.requests.total));
      const serverCpuUs = perCreate(cpuAfter.server - cpuBefore.server);
      const databaseCpuUs = perCreate(cpuBefore.database && cpuAfter.database ? cpuMsBetween(cpuBefore.database, cpuAfter.database) : undefined);
      const receiverCpuUs = perCreate(cpuAfter.receiver - cpuBefore.receiver);
      const notifications = (await received()) - before;
      for (const sub of subs) await client.unsubscribe(sub);
      const bad = result.non2xx + result.errors + result.timeouts;
      if (bad > 0) log(`write path: ${bad} non-2xx answers or errors in the run with ${subscriptions} subscriptions`);
      runs.push({
        subscriptions,
        perSecond: result.requests.average,
        p99Ms: result.latency.p99,
        failed: bad,
        notificationsDuring: notifications,
        cpuPerCreateUs: { server: serverCpuUs, database: databaseCpuUs, receiver: receiverCpuUs },
      });
      await sleep(1000);
    }
    const mean = (n) => runs.filter((r) => r.subscriptions === n).reduce((sum, r) => sum + r.perSecond, 0) / 2;
    const without = mean(0);
    const with3 = mean(3);
    return { runs, without, with3, dropPercent: ((without - with3) / without) * 100 };
  } finally {
    receiverChild.send('stop');
    await Promise.race([once(receiverChild, 'exit'), sleep(5_000)]);
  }
}

/* ------------------------------------------------------------------ main */

async function main() {
  let databaseUrl = DATABASE_URL;
  let ownDatabase;
  let service;
  let receiver;
  let cleaned;
  const cleanup = () =>
    (cleaned ??= (async () => {
      if (service) {
        service.child.kill('SIGTERM');
        await Promise.race([once(service.child, 'exit'), sleep(10_000)]);
        if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
      }
      for (const child of children) child.kill('SIGKILL');
      await receiver?.close().catch(() => {});
      if (ownDatabase) {
        const admin = new pg.Client({ connectionString: ADMIN_URL });
        try {
          await admin.connect();
          await admin.query(`DROP DATABASE IF EXISTS "${ownDatabase}" WITH (FORCE)`);
          log(`dropped database ${ownDatabase}`);
        } catch (error) {
          log(`could not drop database ${ownDatabase}: ${error.message}`);
        } finally {
          await admin.end().catch(() => {});
        }
      }
    })());
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => cleanup().finally(() => process.exit(130)));

  try {
    if (!databaseUrl) {
      ownDatabase = `bench_subs_${Date.now()}`;
      const admin = new pg.Client({ connectionString: ADMIN_URL });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE "${ownDatabase}"`);
      } finally {
        await admin.end();
      }
      const url = new URL(ADMIN_URL);
      url.pathname = `/${ownDatabase}`;
      databaseUrl = url.toString();
      log(`created database ${ownDatabase}`);
    }
    // The dispatcher's settings: the service's defaults unless set in this script's environment.
    const settings = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('SUBSCRIPTION_')));
    service = await startService({ dist: SERVICE_DIST, databaseUrl, client: CLIENT, env: settings });
    log(`service ready at ${service.url} (${SERVICE_DIST})${Object.keys(settings).length ? `, ${JSON.stringify(settings)}` : ''}`);
    const token = await fetchToken(service.url, CLIENT);
    const client = api(service, token);

    const routes = new Map();
    receiver = await startReceiver((path, body, headers) => (routes.get(path) ?? (() => 404))(body, headers));

    const latency = await measureLatency(client, receiver, routes);
    console.log(
      `\n1. delivery latency, ${latency.writes} creates at ${RATE}/s (achieved ${latency.writesPerSecond.toFixed(0)}/s, ${latency.failed} failed), one subscription (changes), loopback webhook:`,
    );
    console.log(
      `   p50 ${latency.p50.toFixed(1)} ms   p95 ${latency.p95.toFixed(1)} ms   p99 ${latency.p99.toFixed(1)} ms   max ${latency.max?.toFixed(1)} ms   delivered ${latency.delivered}/${latency.expected}` +
        `   (goal p99 < ${GOALS.p99Ms} ms → ${verdict(latency.p99 < GOALS.p99Ms && latency.delivered === latency.expected)})`,
    );
    if (latency.firstError) console.log(`   first failed write: ${latency.firstError}`);

    const throughput = await measureThroughput(client, receiver, routes, databaseUrl);
    const ratio = throughput.service.perSecond / throughput.baseline.perSecond;
    console.log(`\n2. sustained throughput, a backlog of ${BACKLOG} change notifications (${Math.round(throughput.bodyBytes)} bytes each, mean) to a loopback webhook:`);
    console.log(
      `   service  ${Math.round(throughput.service.perSecond).toString().padStart(7)} notifications/s   (${throughput.service.received} in ${throughput.service.drainSeconds.toFixed(1)} s; queuing the backlog took ${throughput.service.queueMs.toFixed(0)} ms before the first)`,
    );
    console.log(`   baseline ${Math.round(throughput.baseline.perSecond).toString().padStart(7)} notifications/s   (plain node:http client, keep-alive, concurrency ${CONCURRENCY}, same bodies and headers)`);
    console.log(
      `   ratio ${ratio.toFixed(2)}   (goals: ≥ ${GOALS.ratio} of the baseline → ${verdict(ratio >= GOALS.ratio)}; ≥ ${GOALS.perSecond} notifications/s → ${verdict(throughput.service.perSecond >= GOALS.perSecond)})`,
    );

    const writePath = await measureWritePath(service, token, client, await postmasterOf(databaseUrl));
    console.log(`\n3. write path, POST /${PROJECT}/resource (~1 KB, no key), ${CONNECTIONS} connections, ${CREATE_SECONDS} s per run, A B A B:`);
    for (const run of writePath.runs) {
      console.log(
        `   ${run.subscriptions} subscriptions  ${Math.round(run.perSecond).toString().padStart(6)} req/s   p99 ${run.p99Ms} ms   ${run.failed} failed` +
          `   CPU per create: server ${run.cpuPerCreateUs.server ?? '-'} µs, PostgreSQL ${run.cpuPerCreateUs.database ?? '-'} µs, receiver ${run.cpuPerCreateUs.receiver ?? '-'} µs` +
          (run.subscriptions ? `   ${run.notificationsDuring} notifications received during the run` : ''),
      );
    }
    console.log(
      `   mean: 0 subscriptions ${Math.round(writePath.without)} req/s, 3 subscriptions ${Math.round(writePath.with3)} req/s, drop ${writePath.dropPercent.toFixed(1)} %` +
        `   (goal ≤ ${GOALS.dropPercent} % lower → ${verdict(writePath.dropPercent <= GOALS.dropPercent)})`,
    );

    console.log(
      JSON.stringify({
        settings: { seconds: SECONDS, rate: RATE, backlog: BACKLOG, concurrency: CONCURRENCY, createSeconds: CREATE_SECONDS, connections: CONNECTIONS, service: settings },
        latency: {
          writes: latency.writes,
          writesPerSecond: round(latency.writesPerSecond),
          failedWrites: latency.failed,
          delivered: latency.delivered,
          expected: latency.expected,
          p50Ms: round(latency.p50, 1),
          p95Ms: round(latency.p95, 1),
          p99Ms: round(latency.p99, 1),
          maxMs: round(latency.max, 1),
        },
        throughput: {
          backlog: BACKLOG,
          bodyBytes: round(throughput.bodyBytes),
          received: throughput.service.received,
          servicePerSecond: round(throughput.service.perSecond),
          queueMs: round(throughput.service.queueMs),
          baselinePerSecond: round(throughput.baseline.perSecond),
          ratio: round(ratio, 3),
        },
        writePath: {
          withoutPerSecond: round(writePath.without),
          with3PerSecond: round(writePath.with3),
          dropPercent: round(writePath.dropPercent, 1),
          runs: writePath.runs.map((r) => ({ ...r, perSecond: round(r.perSecond) })),
        },
        goals: {
          latencyP99: latency.p99 < GOALS.p99Ms && latency.delivered === latency.expected,
          throughputRatio: ratio >= GOALS.ratio,
          throughputPerSecond: throughput.service.perSecond >= GOALS.perSecond,
          writePathDrop: writePath.dropPercent <= GOALS.dropPercent,
        },
      }),
    );
  } finally {
    await cleanup();
  }
}

if (ROLE === 'sender') await runSender();
else if (ROLE === 'receiver') await runReceiver();
else await main();

// Requests without a token, costing another project nothing: a project's GET by id latency alone, then
// while 4 connections send 600 KB bodies of nested arrays without a token to a protected route, as fast
// as the server answers them. Target: the GET's p90 under the flood within twice its idle p90.
//   BENCH_PG_URL=postgres://postgres@127.0.0.1:5432/bench node bench/strangers.mjs   (a database of its own: it is migrated)
//   STRANGERS_SECONDS (default 8) per phase; SERVICE_DIST another build to compare (default dist).
import { request } from 'node:http';
import { isMainModule, startService, stopService, fetchToken } from './service.mjs';
import { CREATE_BODY, PROJECT } from './payloads.mjs';

const SECONDS = Number(process.env.STRANGERS_SECONDS ?? 8);
const FLOODERS = 4;
const BODY = Buffer.from(`${'['.repeat(300_000)}${']'.repeat(300_000)}`);
const CLIENT = { projectKey: PROJECT, id: 'strangers-bench', secret: 'strangers-bench-secret', scopes: `manage_test:${PROJECT} view_test:${PROJECT}` };

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

/** One request; resolves with its status once the answer ended (or the connection closed). */
function send(url, { method, path, headers, body }) {
  return new Promise((resolve) => {
    const req = request(`${url}${path}`, { method, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
      res.on('error', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

/** GETs one after another for `seconds`: their latencies in ms, sorted. */
async function latencies(url, path, token, seconds) {
  const times = [];
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    const started = process.hrtime.bigint();
    const status = await send(url, { method: 'GET', path, headers: { authorization: `Bearer ${token}` } });
    if (status !== 200) throw new Error(`GET answered ${status}`);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return times.sort((a, b) => a - b);
}

async function main() {
  const databaseUrl = process.env.BENCH_PG_URL;
  if (!databaseUrl) throw new Error('BENCH_PG_URL: a PostgreSQL database of its own for this bench');
  const service = await startService({ dist: process.env.SERVICE_DIST ?? 'dist', databaseUrl, client: CLIENT });
  try {
    const token = await fetchToken(service.url, CLIENT);
    const created = await fetch(`${service.url}/${PROJECT}/resource`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: CREATE_BODY });
    const { id } = await created.json();
    const path = `/${PROJECT}/resource/${id}`;
    const idle = await latencies(service.url, path, token, SECONDS);
    let flooding = true;
    let refused = 0;
    const flood = Array.from({ length: FLOODERS }, async () => {
      while (flooding) {
        const status = await send(service.url, { method: 'POST', path: `/other-${PROJECT}/resource`, headers: { 'content-type': 'application/json', 'content-length': String(BODY.length) }, body: BODY });
        if (status === 401 || status === 429) refused++;
      }
    });
    const loaded = await latencies(service.url, path, token, SECONDS);
    flooding = false;
    await Promise.all(flood);
    const row = (name, t) => `${name.padEnd(18)} n=${String(t.length).padStart(5)}  p50 ${percentile(t, 50).toFixed(2)} ms  p90 ${percentile(t, 90).toFixed(2)} ms  p99 ${percentile(t, 99).toFixed(2)} ms`;
    console.log(row('GET idle', idle));
    console.log(row(`GET, ${FLOODERS} strangers`, loaded));
    console.log(`strangers refused: ${refused} (401/429); p90 ratio loaded/idle ${(percentile(loaded, 90) / percentile(idle, 90)).toFixed(2)} (target ≤ 2)`);
  } finally {
    await stopService(service);
  }
}

if (isMainModule(import.meta.url)) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

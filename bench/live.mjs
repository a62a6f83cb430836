// Live changes benchmark (docs/live-changes.md): N open text/event-stream streams on one project and a steady
// write load on it.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/<db> [SERVICE_DIST=dist] node bench/live.mjs
//
// Starts `node $SERVICE_DIST/src/main.js` (project `bench-live`), then:
//   1. memory   RSS and V8 heap used (from /metrics) before and after opening LIVE_BENCH_STREAMS (1,000) idle
//               streams: bytes per idle stream.
//   2. writes   LIVE_BENCH_WRITERS (16) writers create resources back to back for LIVE_BENCH_SECONDS (10) s,
//               with no stream open, then with the N streams open: creates/s of each and their ratio (≥ 0.8).
//   3. latency  during the run with streams, per create, the time from its HTTP response at the writer to its
//               message arriving on each of LIVE_BENCH_SAMPLED (20) streams spread over the N (the others are
//               read, not parsed): p50/p99 (< 250 ms) and messages received/expected on the sampled streams.
import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { CREATE_BODY } from './payloads.mjs';
import { cpuMs, fetchToken, startService, stopService } from './service.mjs';

const STREAMS = Number(process.env.LIVE_BENCH_STREAMS ?? 1_000);
const WRITERS = Number(process.env.LIVE_BENCH_WRITERS ?? 16);
const SECONDS = Number(process.env.LIVE_BENCH_SECONDS ?? 10);
const SAMPLED = Number(process.env.LIVE_BENCH_SAMPLED ?? 20);
const SERVICE_DIST = process.env.SERVICE_DIST ?? 'dist';
const METRICS_TOKEN = 'bench-live-metrics-token-0123456789';
const CLIENT = { projectKey: 'bench-live', id: 'bench-live-client', secret: 'bench-live-secret-0123456789', scopes: 'manage_test:bench-live view_messages:bench-live' };
const log = (text) => console.log(`[live] ${text}`);

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('DATABASE_URL is required (npm run bench gives one)');
const service = await startService({
  dist: SERVICE_DIST,
  databaseUrl,
  client: CLIENT,
  env: {
    // The server's own LIVE_* settings given to the bench (LIVE_WINDOW_INTERVAL_MS…) pass through.
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('LIVE_') && !name.startsWith('LIVE_BENCH_'))),
    METRICS_TOKEN,
    LIVE_MAX_STREAMS: String(STREAMS + 10),
    LIVE_MAX_STREAMS_PER_PROJECT: String(STREAMS + 10),
  },
});
const token = await fetchToken(service.url, CLIENT);
const agent = new Agent({ keepAlive: true, maxSockets: WRITERS });
const streamAgent = new Agent({ keepAlive: false, maxSockets: Infinity });

async function metric(name) {
  const text = await (await fetch(`${service.url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
}

/** Opens a stream; `onMessage(key, receivedAt)` for sampled ones. */
function openStream(onMessage) {
  return new Promise((resolve, reject) => {
    const req = request(`${service.url}/${CLIENT.projectKey}/messages`, { agent: streamAgent, headers: { Accept: 'text/event-stream', Authorization: `Bearer ${token}` } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream: ${res.statusCode}`));
      resolve(req);
      // Not sampled: read and dropped, not decoded (a client of its own would do its work on its own machine).
      if (!onMessage) return void res.resume();
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block.split('\n').find((l) => l.startsWith('data: '));
          if (data && block.includes('event: message')) onMessage(JSON.parse(data.slice(6)).resourceUserProvidedIdentifiers.key, performance.now());
        }
      });
    });
    req.on('error', reject);
    req.end();
  });
}

function create(key) {
  return new Promise((resolve) => {
    const body = `{"key":${JSON.stringify(key)},${CREATE_BODY.slice(1)}`;
    const req = request(`${service.url}/${CLIENT.projectKey}/resource`, { method: 'POST', agent, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

/**
 * WRITERS writers for SECONDS: creates/s, per key the time its answer arrived, and the CPU time (ms per
 * second) the server process and this process (the writers and the stream readers) spent meanwhile.
 */
async function writeLoad(label) {
  const answered = new Map();
  const serverBefore = cpuMs(service.child.pid);
  const clientBefore = process.cpuUsage();
  const stopAt = performance.now() + SECONDS * 1000;
  let ok = 0;
  let failed = 0;
  let n = 0;
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (performance.now() < stopAt) {
        const key = `${label}-${n++}`;
        const status = await create(key);
        if (status === 201) {
          ok++;
          answered.set(key, performance.now());
        } else failed++;
      }
    }),
  );
  const client = process.cpuUsage(clientBefore);
  const cpu = { server: (cpuMs(service.child.pid) - serverBefore) / SECONDS, client: (client.user + client.system) / 1000 / SECONDS };
  return { perSecond: ok / SECONDS, ok, failed, answered, cpu };
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
try {
  // Warm-up.
  await writeLoad('warm');
  const without = await writeLoad('plain');
  const cpuText = ({ cpu }) => `CPU ms/s: server ${cpu.server.toFixed(0)}, bench ${cpu.client.toFixed(0)}`;
  log(`no stream: ${without.perSecond.toFixed(0)} creates/s (${without.failed} failed); ${cpuText(without)}`);

  const rssBefore = await metric('process_resident_memory_bytes');
  const heapBefore = await metric('nodejs_heap_size_used_bytes');
  const received = new Map();
  const streams = [];
  // Sampled: every (N / SAMPLED)th stream, so that the first and the last ones opened are measured alike.
  const every = Math.max(1, Math.floor(STREAMS / SAMPLED));
  for (let i = 0; i < STREAMS; i++) {
    const sampled = i % every === 0 && i / every < SAMPLED;
    streams.push(await openStream(sampled ? (key, at) => received.set(`${i / every}|${key}`, at) : undefined));
  }
  await sleep(2_000);
  const rssAfter = await metric('process_resident_memory_bytes');
  const heapAfter = await metric('nodejs_heap_size_used_bytes');
  log(`open streams: ${await metric('live_streams_open')}`);
  console.log(`\n1. memory of ${STREAMS} idle streams: RSS +${((rssAfter - rssBefore) / 1_048_576).toFixed(1)} MiB (${((rssAfter - rssBefore) / STREAMS / 1024).toFixed(1)} KiB/stream), ` +
    `heap used +${((heapAfter - heapBefore) / 1_048_576).toFixed(1)} MiB (${((heapAfter - heapBefore) / STREAMS / 1024).toFixed(1)} KiB/stream)`);

  const withStreams = await writeLoad('live');
  log(`${STREAMS} streams: ${withStreams.perSecond.toFixed(0)} creates/s (${withStreams.failed} failed); ${cpuText(withStreams)}`);
  await sleep(2_000);
  const ratio = withStreams.perSecond / without.perSecond;
  console.log(`2. writes: ${without.perSecond.toFixed(0)}/s without streams, ${withStreams.perSecond.toFixed(0)}/s with ${STREAMS} open: ratio ${ratio.toFixed(2)} (goal ≥ 0.8 → ${ratio >= 0.8 ? 'met' : 'NOT met'})`);
  const latencies = [];
  let got = 0;
  for (let i = 0; i < SAMPLED; i++) {
    for (const [key, at] of withStreams.answered) {
      const arrived = received.get(`${i}|${key}`);
      if (arrived !== undefined) {
        got++;
        latencies.push(Math.max(0, arrived - at));
      }
    }
  }
  latencies.sort((a, b) => a - b);
  const expected = withStreams.answered.size * SAMPLED;
  console.log(`3. commit to event on ${SAMPLED} of ${STREAMS} streams: p50 ${percentile(latencies, 50)?.toFixed(1)} ms, p99 ${percentile(latencies, 99)?.toFixed(1)} ms, ` +
    `max ${latencies.at(-1)?.toFixed(1)} ms; received ${got}/${expected} (goal p99 < 250 ms → ${percentile(latencies, 99) < 250 && got === expected ? 'met' : 'NOT met'})`);
  for (const s of streams) s.destroy();
} finally {
  await stopService(service);
}

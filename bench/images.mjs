// Image upload benchmark: POST /{projectKey}/resource/images.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/<your db> [SERVICE_DIST=dist] node bench/images.mjs
//   (without DATABASE_URL: the embedded database in a temporary DATA_DIR)
//
// Starts `node $SERVICE_DIST/src/main.js` (RATE_LIMIT_PER_MINUTE=0, LOG_LEVEL=warn, a bootstrap client with
// manage_products), creates IMAGES_BENCH_RESOURCES resources (one per connection, so uploads do not queue on
// one row), gets a token, then:
//   1. memory (first, on a fresh process): the server's resident set (VmRSS from /proc, sampled every
//      10 ms) while 20, then 40 concurrent 5 MB uploads run (3 rounds each), after one warm-up upload;
//      printed as idle RSS, peak RSS and peak − idle.
//   2. throughput: 100 KB and 5 MB PNGs, IMAGES_BENCH_DURATION seconds each (default 10) with
//      IMAGES_BENCH_CONNECTIONS concurrent uploads (default 8): requests/s, MB/s, latency p50/p95/p99.
//      Every request sends different bytes (a nonce in a tEXt chunk), so each is stored, not deduplicated;
//      each connection rotates over 25 resources, so a resource collects a realistic number of images.
//   3. on PostgreSQL, the baseline of the same run: PostgreSQL's own insert of the same bytes, from a plain
//      `pg` client with as many connections, into a scratch table whose `bytea` column is stored as
//      `image_blob`'s is (EXTERNAL: not compressed), for the same time; each upload's line shows its ratio to
//      it (goal for 5 MB: ≥ 0.8). The baseline runs after the service's uploads of the same size.
// The server reads and stores at most IMAGES_UPLOAD_CONCURRENCY (default 4) uploads at once; the others
// wait in the network buffers. The bound checked: peak − idle ≤ IMAGES_UPLOAD_CONCURRENCY × 6 × 5 MB
// (a body, the pg message that carries it, and transient copies), the same at 20 and 40 concurrent, plus
// what the server's young generation may hold beyond V8's default one: 2 × (semi-space − 16 MB), 32 MB
// with `--max-semi-space-size=32` (scripts/server-env.mjs; the last such flag in SERVICE_NODE_FLAGS wins).
import { spawn } from 'node:child_process';
import { SERVER_ENV } from '../scripts/server-env.mjs';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { crc32, deflateSync } from 'node:zlib';
import { Agent, request } from 'node:http';
import pg from 'pg';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const DATABASE_URL = process.env.DATABASE_URL;
const SERVICE_DIST = process.env.SERVICE_DIST ?? 'dist';
const DURATION_S = Number(process.env.IMAGES_BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.IMAGES_BENCH_CONNECTIONS ?? 8);
const UPLOAD_CONCURRENCY = Number(process.env.IMAGES_UPLOAD_CONCURRENCY ?? 4);
const RESOURCES = Math.max(CONNECTIONS * 25, 200);
const PROJECT = 'bench-images';
const CLIENT_ID = 'bench-images-client';
const CLIENT_SECRET = 'bench-images-secret-0123456789';
const MB = 1_048_576;

function log(message) {
  process.stderr.write(`[images-bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/* ------------------------------------------------------------------------------------------ images */

function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/**
 * A valid 64×64 grayscale PNG of exactly `size` bytes: the rest is a tEXt chunk whose first 16 bytes of
 * text are a nonce, rewritten (with the chunk's CRC) for every request.
 */
function pngTemplate(size) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(64, 0);
  ihdr.writeUInt32BE(64, 4);
  ihdr[8] = 8;
  const raw = Buffer.alloc(65 * 64, 0x80);
  for (let y = 0; y < 64; y++) raw[y * 65] = 0;
  const head = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw))]);
  const end = chunk('IEND', Buffer.alloc(0));
  const keyword = Buffer.from('Comment\0', 'latin1');
  const text = Buffer.concat([keyword, Buffer.alloc(size - head.length - end.length - 12 - keyword.length, 'x')]);
  const bytes = Buffer.concat([head, chunk('tEXt', text), end]);
  const textStart = head.length + 8; // chunk data
  return {
    size: bytes.length,
    /** A fresh copy with a new nonce and a correct CRC. */
    next() {
      const copy = Buffer.from(bytes);
      randomBytes(8).toString('hex').split('').forEach((c, i) => (copy[textStart + keyword.length + i] = c.charCodeAt(0)));
      copy.writeUInt32BE(crc32(copy.subarray(head.length + 4, head.length + 8 + text.length)), head.length + 8 + text.length);
      return copy;
    },
  };
}

/* ------------------------------------------------------------------------------------------ server */

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The server's `--max-semi-space-size` (MB): SERVICE_NODE_FLAGS' last one, else SERVER_ENV's, else V8's 16. */
function semiSpaceMb() {
  const flags = `${SERVER_ENV.NODE_OPTIONS ?? ''} ${process.env.SERVICE_NODE_FLAGS ?? ''}`;
  const values = [...flags.matchAll(/--max-semi-space-size=(\d+)/g)].map((match) => Number(match[1]));
  return values.at(-1) ?? 16;
}

async function startService() {
  const port = await freePort();
  const dataDir = DATABASE_URL ? undefined : mkdtempSync(join(tmpdir(), 'images-bench-'));
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...SERVER_ENV,
    PORT: String(port),
    HOST: '127.0.0.1',
    ...(DATABASE_URL ? { DATABASE_URL } : { DATA_DIR: dataDir }),
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'warn',
    AUTH_DEMO_CLIENT: 'false',
    IMAGES_UPLOAD_CONCURRENCY: String(UPLOAD_CONCURRENCY),
    BOOTSTRAP_PROJECT_KEY: PROJECT,
    BOOTSTRAP_CLIENT_ID: CLIENT_ID,
    BOOTSTRAP_CLIENT_SECRET: CLIENT_SECRET,
    BOOTSTRAP_SCOPES: `manage_test:${PROJECT} view_test:${PROJECT} manage_products:${PROJECT}`,
  };
  // SERVICE_NODE_FLAGS: flags for the server's node, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` for a profile.
  const flags = (process.env.SERVICE_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...flags, join(SERVICE_DIST, 'src', 'main.js')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (c) => (output = (output + c.toString()).slice(-8000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited before ready:\n${output}`);
    try {
      const res = await fetch(`${url}/health/ready`);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {}
    if (Date.now() > deadline) throw new Error(`service not ready:\n${output}`);
    await sleep(50);
  }
  return {
    url,
    child,
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024;
}

/* ------------------------------------------------------------------------------------------ requests */

const agent = new Agent({ keepAlive: true, maxSockets: 256 });

function upload(base, token, sku, bytes) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      `${base}/${PROJECT}/resource/images?sku=${encodeURIComponent(sku)}`,
      { method: 'POST', agent, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'image/png', 'Content-Length': bytes.length } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - started }));
      },
    );
    req.on('error', reject);
    req.end(bytes);
  });
}

function percentile(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}

async function throughput(base, token, skus, template, label) {
  // Warm-up: a few uploads per connection.
  await Promise.all(skus.slice(0, CONNECTIONS).map((sku) => upload(base, token, sku, template.next())));
  const latencies = [];
  const failures = {};
  const stopAt = performance.now() + DURATION_S * 1000;
  const started = performance.now();
  await Promise.all(
    skus.slice(0, CONNECTIONS).map(async (_sku, connection) => {
      for (let n = 0; performance.now() < stopAt; n++) {
        const sku = skus[(connection + n * CONNECTIONS) % skus.length];
        const { status, ms } = await upload(base, token, sku, template.next());
        if (status === 200) latencies.push(ms);
        else failures[status] = (failures[status] ?? 0) + 1;
      }
    }),
  );
  return rates(label, latencies, (performance.now() - started) / 1000, template.size, { failures });
}

/** A throughput run's figures (logged): requests/s, MB/s and latency percentiles of `latencies` (ms). */
function rates(label, latencies, seconds, size, extra = {}) {
  latencies.sort((a, b) => a - b);
  const result = {
    scenario: label,
    connections: CONNECTIONS,
    requests: latencies.length,
    reqPerSec: +(latencies.length / seconds).toFixed(1),
    mbPerSec: +((latencies.length * size) / MB / seconds).toFixed(1),
    p50ms: +percentile(latencies, 50).toFixed(1),
    p95ms: +percentile(latencies, 95).toFixed(1),
    p99ms: +percentile(latencies, 99).toFixed(1),
    ...extra,
  };
  log(JSON.stringify(result));
  return result;
}

/**
 * PostgreSQL's own insert of the same bytes: CONNECTIONS plain clients, each inserting `template.next()` into
 * a scratch table (a `bytea` column stored EXTERNAL, as `image_blob`'s) in a loop for DURATION_S seconds.
 */
async function plainInsert(template, label) {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: CONNECTIONS });
  const table = `bench_plain_blob_${randomBytes(4).toString('hex')}`;
  try {
    await pool.query(`CREATE TABLE ${table} (id bigserial PRIMARY KEY, data bytea NOT NULL)`);
    await pool.query(`ALTER TABLE ${table} ALTER COLUMN data SET STORAGE EXTERNAL`);
    const insert = (bytes) => pool.query(`INSERT INTO ${table} (data) VALUES ($1)`, [bytes]);
    await Promise.all(Array.from({ length: CONNECTIONS }, () => insert(template.next())));
    const latencies = [];
    const stopAt = performance.now() + DURATION_S * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < stopAt) {
          const bytes = template.next();
          const begun = performance.now();
          await insert(bytes);
          latencies.push(performance.now() - begun);
        }
      }),
    );
    return rates(label, latencies, (performance.now() - started) / 1000, template.size);
  } finally {
    await pool.query(`DROP TABLE IF EXISTS ${table}`).catch(() => {});
    await pool.end();
  }
}

async function memory(base, token, skus, template, pid, concurrent) {
  await sleep(500);
  const idle = rssMb(pid);
  let peak = idle;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, rssMb(pid));
      await sleep(10);
    }
  })();
  const statuses = {};
  const started = performance.now();
  for (let round = 0; round < 3; round++) {
    const bodies = skus.slice(0, concurrent).map(() => template.next());
    const answers = await Promise.all(skus.slice(0, concurrent).map((sku, i) => upload(base, token, sku, bodies[i])));
    for (const { status } of answers) statuses[status] = (statuses[status] ?? 0) + 1;
  }
  const seconds = (performance.now() - started) / 1000;
  sampling = false;
  await sampler;
  const result = {
    scenario: `${concurrent} concurrent 5 MB uploads × 3 rounds`,
    statuses,
    seconds: +seconds.toFixed(1),
    idleRssMb: +idle.toFixed(0),
    peakRssMb: +peak.toFixed(0),
    growthMb: +(peak - idle).toFixed(0),
  };
  log(JSON.stringify(result));
  return result;
}

/* ------------------------------------------------------------------------------------------ main */

async function main() {
  log(`starting ${SERVICE_DIST}/src/main.js on ${DATABASE_URL ? 'PostgreSQL' : 'the embedded database'}`);
  const service = await startService();
  try {
    const tokenRes = await fetch(`${service.url}/oauth/token`, {
      method: 'POST',
      headers: { Authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    const token = (await tokenRes.json()).access_token;
    if (!token) throw new Error(`no token: ${tokenRes.status}`);
    const run = randomBytes(4).toString('hex');
    const skus = [];
    for (let i = 0; i < RESOURCES; i++) {
      const key = `img-${run}-${i}`;
      const res = await fetch(`${service.url}/${PROJECT}/resource`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          key,
          objectTypeProperty: {
            arrayOfIntExample: [],
            arrayOfUniqueIntExample: [],
            arrayOfTwonumbersExample: [0, 1],
            arrayOfFloatExample: [],
            arrayOfNumberNoDefaultsExample: [],
            arrayOfStringExample: [],
            arrayOfObjectType: [],
          },
        }),
      });
      if (res.status !== 201) throw new Error(`seeding answered ${res.status}: ${await res.text()}`);
      skus.push(key);
    }
    const small = pngTemplate(100 * 1024);
    const large = pngTemplate(5 * MB);
    await upload(service.url, token, skus[0], small.next());
    await upload(service.url, token, skus[0], large.next());
    const at20 = await memory(service.url, token, skus, large, service.child.pid, 20);
    const at40 = await memory(service.url, token, skus, large, service.child.pid, 40);
    const uploads = [];
    for (const [template, size] of [[small, '100 KB'], [large, '5 MB']]) {
      const uploaded = await throughput(service.url, token, skus, template, `upload ${size} PNG`);
      if (DATABASE_URL) {
        const plain = await plainInsert(template, `plain bytea insert ${size}`);
        uploaded.ratioToPlain = +(uploaded.mbPerSec / plain.mbPerSec).toFixed(2);
        uploads.push(uploaded, plain);
      } else {
        uploads.push(uploaded);
      }
    }
    const results = [...uploads, at20, at40];
    const young = 2 * Math.max(0, semiSpaceMb() - 16);
    const bound = UPLOAD_CONCURRENCY * 6 * 5 + young;
    const verdict = {
      boundMb: bound,
      within: at20.growthMb <= bound && at40.growthMb <= bound,
      note: `peak − idle RSS must stay ≤ IMAGES_UPLOAD_CONCURRENCY (${UPLOAD_CONCURRENCY}) × 6 × 5 MB + ${young} MB (the young generation beyond V8's default) at 20 and at 40 concurrent uploads`,
    };
    console.log(JSON.stringify({ database: DATABASE_URL ? 'postgres' : 'embedded', results, memoryBound: verdict }, null, 2));
    console.log('\nscenario                                   req/s     MB/s   p50 ms   p95 ms   p99 ms   ratio');
    for (const r of uploads) {
      const ratio = r.ratioToPlain === undefined ? '' : `${r.ratioToPlain}`.padStart(7);
      console.log(`${r.scenario.padEnd(40)} ${String(r.reqPerSec).padStart(7)} ${String(r.mbPerSec).padStart(8)} ${String(r.p50ms).padStart(8)} ${String(r.p95ms).padStart(8)} ${String(r.p99ms).padStart(8)} ${ratio}`);
    }
    for (const r of [at20, at40]) console.log(`${r.scenario}: RSS idle ${r.idleRssMb} MB, peak ${r.peakRssMb} MB (+${r.growthMb} MB)`);
    console.log(`memory bound ${bound} MB: ${verdict.within ? 'kept' : 'EXCEEDED'}`);
    if (!verdict.within) process.exitCode = 1;
  } finally {
    await service.stop();
    agent.destroy();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

// The embedded database's memory at rest: a real server (`node dist/src/main.js`, the environment of `npm start`)
// on a new DATA_DIR, started twice. For each start: the peak RSS while it starts (sampled every 20 ms from /proc),
// and ten seconds after it answered ready, its RSS, the memory outside V8's heap (`nodejs_external_memory_bytes`:
// the embedded database's WebAssembly memory, mostly), V8's heap used and reserved, and the mapped files.
// Goals: under 400 MB while a first start runs, under 250 MB at rest.
//
//   node scripts/build.mjs && node bench/embedded-memory.mjs
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { SERVER_ENV } from '../scripts/server-env.mjs';
import { freePort } from './service.mjs';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const METRICS_TOKEN = 'embedded-memory-metrics-token-0123456789';
const MB = 1_048_576;
const dataDir = mkdtempSync(join(tmpdir(), 'embedded-memory-'));

function rssMb(pid) {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
  } catch {
    return 0;
  }
}

/** Anonymous and file-backed resident memory (MB), from smaps_rollup. */
function residentKinds(pid) {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(rollup)[1]);
  return { anonymousMb: Math.round(kb('Anonymous') / 1024), filesMb: Math.round((kb('Rss') - kb('Anonymous')) / 1024) };
}

async function start(label) {
  const port = await freePort();
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, ...SERVER_ENV, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, METRICS_TOKEN, LOG_LEVEL: 'warn' };
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'src', 'main.js')], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const started = Date.now();
  let peak = 0;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${label}: the server exited (${child.exitCode})`);
    peak = Math.max(peak, rssMb(child.pid));
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health/ready`);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {}
    await sleep(20);
  }
  const readyMs = Date.now() - started;
  for (let i = 0; i < 50; i++) {
    peak = Math.max(peak, rssMb(child.pid));
    await sleep(20);
  }
  await sleep(9_000);
  const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const metric = (name) => Math.round(Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1]) / MB);
  console.log(
    JSON.stringify({
      start: label,
      readyMs,
      peakRssMb: Math.round(peak),
      restRssMb: Math.round(rssMb(child.pid)),
      externalMb: metric('nodejs_external_memory_bytes'),
      heapUsedMb: metric('nodejs_heap_size_used_bytes'),
      heapTotalMb: metric('nodejs_heap_size_total_bytes'),
      ...residentKinds(child.pid),
    }),
  );
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}

try {
  await start('first (a new data directory)');
  await start('again (the same directory)');
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

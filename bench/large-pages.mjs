// One project's large pages at once: LARGE_PAGES_CONCURRENCY (12) requests for pages of about
// LARGE_PAGES_MB (60) MB each, against a real server process on the embedded database (DATA_DIR) or, with
// DATABASE_URL, on PostgreSQL. Prints the server's RSS idle and at its peak (sampled every 20 ms from
// /proc) and the answers' status codes. The goal: the peak stays under 600 MB.
// LARGE_PAGES_ENDPOINT picks the answer: `query` (default), a page of GET …/resource/sorted-query-parameters;
// `merge`, GET …/resource, whose merged arrays are one JSON document of that size.
//
//   node scripts/build.mjs && node bench/large-pages.mjs
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/large_pages node bench/large-pages.mjs
import { readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetchToken, startService, stopService } from './service.mjs';

const CONCURRENCY = Number(process.env.LARGE_PAGES_CONCURRENCY ?? 12);
const PAGE_MB = Number(process.env.LARGE_PAGES_MB ?? 60);
/** Resources of about 0.9 MB (90 strings of 10,000 characters), under the 1 MiB body limit. */
const STRINGS = Array.from({ length: 90 }, (_, i) => `${String(i).padStart(4, '0')}${'x'.repeat(9_996)}`);
const RESOURCE_MB = 0.9;
const COUNT = Math.ceil(PAGE_MB / RESOURCE_MB);
const ENDPOINT = process.env.LARGE_PAGES_ENDPOINT ?? 'query';
const PATHS = { query: 'resource/sorted-query-parameters', merge: 'resource' };
if (!PATHS[ENDPOINT]) throw new Error(`LARGE_PAGES_ENDPOINT: query or merge, not ${ENDPOINT}`);
const client = { projectKey: 'large-pages', id: 'large-pages-client', secret: 'large-pages-secret-0123456789', scopes: 'manage_test:large-pages view_test:large-pages' };

function rssMb(pid) {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : 0;
}

const databaseUrl = process.env.DATABASE_URL;
const dataDir = databaseUrl ? undefined : mkdtempSync(join(tmpdir(), 'large-pages-'));
const env = { HTTP_MAX_RESPONSE_BYTES: String(64 * 1_048_576), ...(dataDir ? { DATA_DIR: dataDir } : {}) };
const service = await startService({ dist: process.env.SERVICE_DIST ?? 'dist', databaseUrl, client, env });
try {
  const token = await fetchToken(service.url, client);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const example = { arrayOfStringExample: STRINGS };
  for (let i = 0; i < COUNT; i++) {
    const res = await fetch(`${service.url}/${client.projectKey}/resource`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ key: `page-${String(i).padStart(3, '0')}`, objectTypeProperty: objectType(example) }),
    });
    if (res.status !== 201) throw new Error(`create ${i}: ${res.status} ${await res.text()}`);
  }
  await new Promise((r) => setTimeout(r, 2_000));
  const idle = rssMb(service.child.pid);
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(service.child.pid))), 20);
  const started = performance.now();
  const statuses = await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      const res = await fetch(`${service.url}/${client.projectKey}/${PATHS[ENDPOINT]}?limit=${Math.min(COUNT, 500)}&sort=key%20asc`, { headers });
      const body = await res.arrayBuffer();
      return { status: res.status, mb: body.byteLength / 1_048_576 };
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await new Promise((r) => setTimeout(r, 500));
  clearInterval(sampler);
  const counts = {};
  for (const { status } of statuses) counts[status] = (counts[status] ?? 0) + 1;
  const page = statuses.find((s) => s.status === 200);
  console.log(
    JSON.stringify({
      database: databaseUrl ? 'PostgreSQL' : 'embedded',
      endpoint: PATHS[ENDPOINT],
      concurrency: CONCURRENCY,
      pageMb: page ? Number(page.mb.toFixed(1)) : undefined,
      statuses: counts,
      seconds: Number(seconds.toFixed(1)),
      rssIdleMb: Math.round(idle),
      rssPeakMb: Math.round(peak),
      goalPeakMb: 600,
    }),
  );
} finally {
  await stopService(service);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}

/** The API description's ArrayTestType example with `overrides`. */
function objectType(overrides) {
  return {
    arrayOfIntExample: [1, 2, 2],
    arrayOfUniqueIntExample: [1, 2, 3],
    arrayOfTwonumbersExample: [1.5, 2.5],
    arrayOfFloatExample: [0.5, 10],
    arrayOfNumberNoDefaultsExample: [1500],
    arrayOfStringExample: ['test', 'alpha'],
    arrayOfObjectType: [{ integerExample: 1, integerExampleInt32: 2 }],
    ...overrides,
  };
}

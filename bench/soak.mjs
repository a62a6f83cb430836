// Soak: a mixed load for SOAK_DURATION seconds (default 300) against the built service on PostgreSQL.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/<your db> npm run soak
//
// Starts `node dist/src/main.js` on that database (migrations run at start-up), creates SOAK_RESOURCES
// resources (default 2,000) through the API in project `soak`, then runs one autocannon instance per
// operation at the same time, on loopback:
//   read     GET  /soak/resource/{id}                                  random seeded resource
//   create   POST /soak/resource                                        a new resource (unique key)
//   update   GET then POST /soak/resource/{id} with the version read    409 when another update won (both counted)
//   query    GET  /soak/resource/sorted-query-parameters?where=…        a predicate with a variable
//   search   GET  /soak/resource/searchApiPattern?text.en=…&facet=…     text + a terms facet
//   upload   POST /soak/resource/images?sku=…                           a 1×1 PNG to a seeded resource
// It samples the service's RSS every 10 s and prints, per operation: requests, answers by status class,
// p50/p99 latency; then RSS at start (after seeding and a 10 s warm-up) and at the end. It exits 1 when
// any answer is a 5xx or a connection error occurred. Not part of CI (5 minutes of load).
import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fetchToken, startService } from './service.mjs';

const DATABASE_URL = process.env.DATABASE_URL;
const DURATION = Number(process.env.SOAK_DURATION ?? 300);
const RESOURCES = Number(process.env.SOAK_RESOURCES ?? 2_000);
const PROJECT = 'soak';
const CLIENT = {
  projectKey: PROJECT,
  id: 'soak-client',
  secret: 'soak-secret-0123456789abcdef',
  scopes: `manage_test:${PROJECT} view_test:${PROJECT} manage_products:${PROJECT}`,
};
/** Connections per operation: reads dominate, as in most APIs. */
const CONNECTIONS = { read: 8, create: 2, update: 2, query: 2, search: 2, upload: 1 };
const WORDS = ['harbor', 'lantern', 'meadow', 'copper', 'willow', 'falcon', 'granite', 'orchard', 'river', 'summit', 'velvet', 'ember'];
// A 1×1 PNG.
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f6a3c40000000049454e44ae426082', 'hex');

if (!DATABASE_URL) {
  console.error('Set DATABASE_URL to a PostgreSQL database you created (createdb …).');
  process.exit(2);
}

const log = (message) => process.stderr.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
const pick = (list) => list[Math.floor(Math.random() * list.length)];
const sentence = (n) => Array.from({ length: n }, () => pick(WORDS)).join(' ');
let serial = 0;
const draft = (key) => ({
  key,
  objectTypeProperty: {
    arrayOfIntExample: [Math.floor(Math.random() * 1000), 7],
    arrayOfUniqueIntExample: [1, 2, 3],
    arrayOfTwonumbersExample: [1.5, 2.5],
    arrayOfFloatExample: [Math.random() * 100],
    arrayOfNumberNoDefaultsExample: [1500],
    arrayOfStringExample: [sentence(3), sentence(2)],
    arrayOfObjectType: [{ integerExample: Math.floor(Math.random() * 1e9), integerExampleInt32: 7 }],
  },
});

function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024);
}

async function seed(url, auth) {
  const ids = [];
  const keys = [];
  const started = performance.now();
  for (let i = 0; i < RESOURCES; i += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, RESOURCES - i) }, async (_, j) => {
        const key = `seed-${Date.now().toString(36)}-${i + j}`;
        const res = await fetch(`${url}/${PROJECT}/resource`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify(draft(key)),
        });
        if (res.status !== 201) throw new Error(`seed: ${res.status} ${await res.text()}`);
        return { id: (await res.json()).id, key };
      }),
    );
    for (const r of batch) {
      ids.push(r.id);
      keys.push(r.key);
    }
  }
  log(`seeded ${RESOURCES} resources in ${Math.round(performance.now() - started)} ms`);
  return { ids, keys };
}

function scenarios(auth, { ids, keys }) {
  const json = { ...auth, 'content-type': 'application/json' };
  const where = encodeURIComponent('objectTypeProperty(arrayOfIntExample contains any :n) and version >= 1');
  return {
    read: { requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: `/${PROJECT}/resource/${pick(ids)}` }) }] },
    create: {
      requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, path: `/${PROJECT}/resource`, headers: json, body: JSON.stringify(draft(`soak-${process.pid}-${++serial}`)) }) }],
    },
    update: {
      requests: [
        {
          method: 'GET',
          setupRequest: (req, context) => {
            context.id = pick(ids);
            return { ...req, path: `/${PROJECT}/resource/${context.id}` };
          },
          onResponse: (status, body, context) => {
            context.version = status === 200 ? JSON.parse(body).version : 1;
          },
        },
        {
          method: 'POST',
          setupRequest: (req, context) => ({
            ...req,
            path: `/${PROJECT}/resource/${context.id}`,
            headers: json,
            body: JSON.stringify({ version: context.version, actions: [{ action: 'changeSomeProperty', someProperty: sentence(4) }] }),
          }),
        },
      ],
    },
    query: {
      requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: `/${PROJECT}/resource/sorted-query-parameters?where=${where}&var.n=${Math.floor(Math.random() * 1000)}&limit=20&sort=version+desc` }) }],
    },
    search: {
      requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: `/${PROJECT}/resource/searchApiPattern?text.en=${pick(WORDS)}&facet=objectTypeProperty.arrayOfIntExample&limit=20` }) }],
    },
    upload: {
      requests: [
        {
          method: 'POST',
          setupRequest: (req) => ({ ...req, path: `/${PROJECT}/resource/images?sku=${encodeURIComponent(pick(keys))}&filename=soak.png`, headers: { ...auth, 'content-type': 'image/png' }, body: PNG }),
        },
      ],
    },
  };
}

function run(url, auth, name, scenario) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      { url, connections: CONNECTIONS[name], duration: DURATION, headers: auth, timeout: 30, ...scenario },
      (error, result) => (error ? reject(error) : resolve({ name, result })),
    );
    instance.on('error', reject);
  });
}

let service;
try {
  service = await startService({ dist: 'dist', databaseUrl: DATABASE_URL, client: CLIENT, env: { LOG_LEVEL: 'warn' } });
  log(`service ready at ${service.url}, pid ${service.child.pid}`);
  const auth = { authorization: `Bearer ${await fetchToken(service.url, CLIENT)}` };
  const seeded = await seed(service.url, auth);
  const all = scenarios(auth, seeded);
  log('warm-up 10 s');
  const warm = { ...all.read, duration: 10 };
  await new Promise((resolve) => autocannon({ url: service.url, connections: 4, headers: auth, ...warm }, resolve));
  const rssStart = rssMb(service.child.pid);
  const samples = [rssStart];
  const sampler = setInterval(() => samples.push(rssMb(service.child.pid)), 10_000);
  log(`mixed load for ${DURATION} s; RSS ${rssStart} MB`);
  const results = await Promise.all(Object.entries(all).map(([name, scenario]) => run(service.url, auth, name, scenario)));
  clearInterval(sampler);
  const rssEnd = rssMb(service.child.pid);
  const ready = await fetch(`${service.url}/health/ready`);

  let failures = 0;
  console.log(`\nsoak: ${DURATION} s of mixed load on PostgreSQL, ${RESOURCES} seeded resources, connections ${JSON.stringify(CONNECTIONS)}`);
  console.log('operation   requests     2xx     4xx   5xx  errors  timeouts   p50 ms   p99 ms');
  for (const { name, result } of results) {
    const fivexx = result['5xx'];
    failures += fivexx + result.errors + result.timeouts;
    console.log(
      `${name.padEnd(10)} ${String(result.requests.total).padStart(9)} ${String(result['2xx']).padStart(7)} ${String(result['4xx']).padStart(7)} ${String(fivexx).padStart(5)} ${String(result.errors).padStart(7)} ${String(result.timeouts).padStart(9)} ${String(result.latency.p50).padStart(8)} ${String(result.latency.p99).padStart(8)}`,
    );
    const codes = Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => `${code}×${count}`).join(' ');
    if (codes) console.log(`           status codes: ${codes}`);
  }
  console.log(`RSS: ${rssStart} MB at start, ${rssEnd} MB at the end (min ${Math.min(...samples)}, max ${Math.max(...samples)} over ${samples.length} samples)`);
  console.log(`/health/ready after the load: ${ready.status}`);
  console.log(failures === 0 ? 'result: no 5xx, no connection errors' : `result: ${failures} 5xx answers, errors or timeouts`);
  process.exitCode = failures === 0 && ready.status === 200 ? 0 : 1;
} finally {
  if (service) {
    service.child.kill('SIGTERM');
    await Promise.race([new Promise((r) => service.child.once('exit', r)), sleep(15_000)]);
    if (service.child.exitCode === null) service.child.kill('SIGKILL');
  }
}

// The endpoint scenarios of `npm run bench` after the hot paths of run.mjs: query predicates
// (bench/query.mjs), search (bench/search.mjs), the change log (bench/change-log.mjs), image uploads (bench/images.mjs), bulk export and import (bench/bulk.mjs), subscriptions (bench/subscriptions.mjs), live changes (bench/live.mjs), API extensions (bench/extensions.mjs) and GraphQL against REST (bench/graphql.mjs). Each runs against
// a fresh database on a PostgreSQL server (BENCH_PG_ADMIN_URL, default the local one at 127.0.0.1:5432)
// that this script creates and drops; BENCH_ENDPOINTS=query,search,change-log,images,bulk,subscriptions,live,extensions,graphql picks scenarios.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SCRIPTS = (process.env.BENCH_ENDPOINTS ?? 'query,search,change-log,images,bulk,subscriptions,live,extensions,graphql').split(',').map((s) => s.trim()).filter(Boolean);

async function admin(sql) {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

let failed = 0;
for (const name of SCRIPTS) {
  const database = `bench_${name}_${Date.now()}`;
  await admin(`CREATE DATABASE "${database}"`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  console.log(`\n==== bench/${name}.mjs (database ${database}) ====`);
  const run = spawnSync(process.execPath, [join(BENCH_DIR, `${name}.mjs`)], {
    stdio: 'inherit',
    env: { ...process.env, DATABASE_URL: url.toString() },
  });
  if (run.status !== 0) failed++;
  await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
}
process.exit(failed === 0 ? 0 : 1);

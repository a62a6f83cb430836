// What a create and an update cost PostgreSQL, part by part: the service's own statements (a lone create,
// `resource_upsert`; a lone changeSomeProperty update, `resource_update`) run from a few connections against a
// migrated scratch database, with one part of the write taken away at a time (an index dropped, a piece of the
// search trigger or of the statement left out), then put back. The figure is the CPU time the connections'
// PostgreSQL backends spent (`/proc/<pid>/schedstat`), divided by the statements: it leaves out the round trip,
// the client and the background processes (WAL writer, checkpointer, autovacuum); it is less skewed by other work
// on the machine than a rate, not immune (hence the paired runs and medians below). The entries a run left in the GIN
// indexes' pending lists are merged inside its window, so each run pays for its own.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/scratch node bench/write-cost.mjs
//
// The database must be migrated (`node dist/src/migrate-cli.js`) and on this machine (the backends' /proc).
// Variables: WRITE_COST_STATEMENTS (per run, default 2000), WRITE_COST_CONNECTIONS (4), WRITE_COST_ROUNDS (2:
// every variant runs once per round, paired with a run of the whole write just before it), WRITE_COST_ONLY (variant names,
// comma-separated; `whole` always runs), WRITE_COST_BATCH (1: lone writes; n: `createMany` / `updateMany` statements
// of n writes each, as concurrent writes are written together, figures per write). The creates go to project `wcost` and are deleted after each run; the
// updates change `someProperty` of the 10,000 resources of project `bench` (seeded as `npm run bench` seeds them).
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { OTP_JSON, seed } from './payloads.mjs';
import { RESOURCE_SQL } from '../dist/src/resource/resource.repository.js';

const URL = process.env.DATABASE_URL;
if (!URL) throw new Error('DATABASE_URL: a migrated scratch database on this machine');
const STATEMENTS = Number(process.env.WRITE_COST_STATEMENTS ?? 2000);
const CONNECTIONS = Number(process.env.WRITE_COST_CONNECTIONS ?? 4);
const ROUNDS = Number(process.env.WRITE_COST_ROUNDS ?? 2);
const WARMUP = 20;
const BATCH = Number(process.env.WRITE_COST_BATCH ?? 1);
const ONLY = process.env.WRITE_COST_ONLY?.split(',');
const CREATE_PROJECT = 'wcost';
const BY = JSON.stringify({ clientId: 'write-cost' });

const admin = new pg.Client({ connectionString: URL });
await admin.connect();
const q = async (sql, values) => (await admin.query(sql, values)).rows;

/** The statement texts, with a part of the change log taken out when a variant says so. */
const statements = (edit = (text) => text) => ({
  create: { name: `wc_create_${Math.random().toString(36).slice(2)}`, text: edit((BATCH > 1 ? RESOURCE_SQL.createMany : RESOURCE_SQL.upsert).text) },
  update: { name: `wc_update_${Math.random().toString(36).slice(2)}`, text: edit((BATCH > 1 ? RESOURCE_SQL.updateMany : RESOURCE_SQL.update).text) },
});
const withoutCte = (name) => (text) => {
  const edited = text.replace(new RegExp(`, ${name} AS \\((?:[^()]|\\((?:[^()]|\\((?:[^()]|\\([^()]*\\))*\\))*\\))*\\)`), '');
  if (edited === text) throw new Error(`no CTE ${name} in the statement`);
  return edited;
};

const indexDef = async (name) => (await q('SELECT pg_get_indexdef($1::regclass) AS def', [name]))[0].def;
const dropIndex = (name) => async () => {
  const def = await indexDef(name);
  await q(`DROP INDEX "${name}"`);
  return async () => q(def);
};
const functionDef = async (fn) => (await q(`SELECT pg_get_functiondef($1::regproc) AS def`, [fn]))[0].def;
/** The search triggers' functions with `from` replaced by `to` where they hold it (the pieces a variant leaves out). */
const editFunctions = (functions, ...pairs) => async () => {
  const undo = [];
  for (const fn of functions) {
    const def = await functionDef(fn);
    let edited = def;
    for (const [from, to] of pairs) edited = edited.replaceAll(from, to);
    if (edited === def) continue;
    await q(edited);
    undo.push(def);
  }
  if (undo.length === 0) throw new Error(`no search trigger function holds ${pairs.map(([from]) => from).join(', ')}`);
  return async () => {
    for (const def of undo) await q(def);
  };
};
const toggleTrigger = (table, trigger) => async () => {
  await q(`ALTER TABLE "${table}" DISABLE TRIGGER "${trigger}"`);
  return async () => q(`ALTER TABLE "${table}" ENABLE TRIGGER "${trigger}"`);
};

const resourceIndexes = (await q(`SELECT indexname FROM pg_indexes WHERE tablename = 'resource' AND indexname NOT IN ('resource_pkey', 'resource_project_key_key_unique') ORDER BY indexname`)).map((r) => r.indexname);
const searchIndexes = (await q(`SELECT indexname FROM pg_indexes WHERE tablename IN (SELECT 'resource_search_' || config FROM search_language UNION ALL SELECT 'resource_search_values') AND indexname NOT LIKE '%pkey' ORDER BY indexname`)).map((r) => r.indexname);

/**
 * The search index's pieces, left out one at a time: in the row-level trigger of migration 1763700000016, or in
 * statement-level triggers (`search_index_inserted`, `search_index_updated`) on a database that tries them.
 */
const statementLevel = (await q(`SELECT 1 FROM pg_proc WHERE proname = 'search_index_inserted'`)).length > 0;
const SEARCH_FUNCTIONS = statementLevel ? ['search_index_inserted', 'search_index_updated'] : ['search_index_resource'];
const searchTriggers = (await q(`SELECT tgname FROM pg_trigger WHERE tgrelid = 'resource'::regclass AND tgname LIKE 'resource_search%'`)).map((r) => r.tgname);
const SEARCH_VARIANTS = [
  {
    name: '- search trigger (all of it)',
    apply: async () => {
      for (const t of searchTriggers) await q(`ALTER TABLE resource DISABLE TRIGGER "${t}"`);
      return async () => {
        for (const t of searchTriggers) await q(`ALTER TABLE resource ENABLE TRIGGER "${t}"`);
      };
    },
  },
  {
    name: "- search trigger's work (an empty trigger fires)",
    apply: async () => {
      const defs = await Promise.all(SEARCH_FUNCTIONS.map(functionDef));
      for (const fn of SEARCH_FUNCTIONS) await q(`CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$`);
      return async () => {
        for (const def of defs) await q(def);
      };
    },
  },
  {
    name: '- values row (and its 3 indexes)',
    apply: statementLevel
      ? editFunctions(
        SEARCH_FUNCTIONS,
        ['FROM "inserted" n\n      UNION ALL', 'FROM "inserted" n WHERE false\n      UNION ALL'],
        ['WHERE n."object_type_property" IS DISTINCT FROM o."object_type_property"\n      UNION ALL', 'WHERE false\n      UNION ALL'],
      )
      : editFunctions(SEARCH_FUNCTIONS, [`IF TG_OP = 'INSERT' OR NEW."object_type_property"`, `IF false AND NEW."object_type_property"`]),
  },
  {
    name: '- vector rows and vocabulary',
    apply: statementLevel
      ? editFunctions(SEARCH_FUNCTIONS, ['"search_language" l\n', '"search_language" l WHERE false\n'], ['"search_language" l WHERE NOT (', '"search_language" l WHERE false AND NOT ('])
      : editFunctions(SEARCH_FUNCTIONS, [`FROM "search_language" l`, `FROM "search_language" l WHERE false`]),
  },
  {
    name: '- vocabulary',
    apply: editFunctions(SEARCH_FUNCTIONS, [`WHERE written."config" = 'simple'`, `WHERE false AND written."config" = 'simple'`]),
  },
];

/** Each variant: a name, a change to the database (returns its undo) and/or to the statements. */
const VARIANTS = [
  { name: 'whole' },
  ...resourceIndexes.map((i) => ({ name: `- index ${i}`, apply: dropIndex(i) })),
  ...SEARCH_VARIANTS,
  ...searchIndexes.map((i) => ({ name: `- index ${i}`, apply: dropIndex(i) })),
  { name: '- message row', statements: statements(withoutCte('logged_messages')) },
  { name: '- representation in ResourceCreated', statements: statements((t) => t.replace(`'"representation":' || w.json`, `''`)) },
  { name: '- index message_project_created_idx', apply: dropIndex('message_project_created_idx') },
  { name: '- index message_created_brin', apply: dropIndex('message_created_brin') },
  { name: '- live-changes NOTIFY trigger', apply: toggleTrigger('message', 'message_live_notify') },
  { name: '- version row', statements: statements(withoutCte('logged_version')) },
  { name: '- index resource_version_modified_brin', apply: dropIndex('resource_version_modified_brin') },
].filter((v) => v.name === 'whole' || !ONLY || ONLY.some((o) => v.name.includes(o)));

const GIN_INDEXES = `SELECT i.indexrelid::regclass::text AS index FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
  WHERE a.amname = 'gin' AND c.relkind = 'i'`;

/** CPU time of a backend so far, in ns (the first field of schedstat). */
const cpu = (pid) => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);

async function connections() {
  const clients = [];
  for (let i = 0; i < CONNECTIONS; i++) {
    const c = new pg.Client({ connectionString: URL });
    await c.connect();
    c.pid = (await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    clients.push(c);
  }
  return clients;
}

const ids = (await q(`SELECT count(*)::int AS n FROM resource WHERE project_key = 'bench'`))[0].n >= 10_000
  ? (await q(`SELECT id::text AS id FROM resource WHERE project_key = 'bench' AND key ~ '^k[0-9]+$' ORDER BY key LIMIT 10000`)).map((r) => r.id)
  : (await seed(admin)).map((r) => r.id);
let cursor = 0;

/** Runs STATEMENTS of `kind` over the connections; µs of backend CPU per statement. */
async function run(kind, statement) {
  const clients = await connections();
  try {
    const versions = kind === 'update'
      ? new Map((await q(`SELECT id::text AS id, version FROM resource WHERE id = ANY($1::uuid[])`, [ids])).map((r) => [r.id, r.version]))
      : undefined;
    const create = () => ({ id: crypto.randomUUID(), projectKey: CREATE_PROJECT, key: null, by: BY, publish: true, document: OTP_JSON, expected: null, owner: null, publishGiven: false });
    const update = () => {
      const id = ids[cursor++ % ids.length];
      const some = `value-${cursor}`;
      return {
        id, projectKey: 'bench', expected: versions.get(id), by: BY,
        someSet: true, some, secondSet: false, second: null, keySet: false, key: null, documentSet: false, document: null,
        published: null, publishImages: false, count: 1,
        messages: JSON.stringify([{ t: 'SomePropertyChanged', p: `"someProperty":${JSON.stringify(some)}`, o: 'someProperty' }]),
      };
    };
    /** One statement's values: a lone write's, or BATCH writes' as the arrays of `createMany` / `updateMany`. */
    const values = () => {
      const one = kind === 'create' ? RESOURCE_SQL.upsert : RESOURCE_SQL.update;
      if (BATCH === 1) return one.values(kind === 'create' ? create() : update());
      const many = kind === 'create' ? RESOURCE_SQL.createMany : RESOURCE_SQL.updateMany;
      const writes = Array.from({ length: BATCH }, kind === 'create' ? create : update);
      const column = (p) => (p === 'projectKey' ? writes[0].projectKey : p === 'ids' ? writes.map((w) => w.id) : p === 'documents' ? writes.map((w) => w.document) : writes.map((w) => w[p]));
      return many.values(Object.fromEntries(many.parameters.map((p) => [p, column(p)])));
    };
    // Warm-up outside the count: the statement's and the trigger's plans are made and cached, the caches filled.
    await Promise.all(clients.map(async (c) => {
      for (let i = 0; i < WARMUP; i++) await c.query({ ...statement, values: values() });
    }));
    const before = clients.map((c) => cpu(c.pid));
    let left = STATEMENTS / BATCH;
    let written = 0;
    await Promise.all(clients.map(async (c) => {
      while (left-- > 0) {
        const { rowCount } = await c.query({ ...statement, values: values() });
        written += rowCount;
      }
    }));
    // What the GIN indexes deferred (entries waiting in their pending lists) is merged inside the window: each
    // run pays for the entries it added, not for whatever list happened to fill up during it.
    for (const { index } of await q(GIN_INDEXES)) await clients[0].query('SELECT gin_clean_pending_list($1::regclass)', [index]);
    const spent = clients.reduce((sum, c, i) => sum + cpu(c.pid) - before[i], 0);
    if (written !== STATEMENTS) throw new Error(`${kind}: ${written} of ${STATEMENTS} statements wrote`);
    return spent / STATEMENTS / 1000;
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
}

/** What the previous run left is cleaned before the next one's window: its creates, dead rows, GIN pending lists. */
async function tidy() {
  await q(`DELETE FROM resource WHERE project_key = $1`, [CREATE_PROJECT]);
  await q(`DELETE FROM message WHERE project_key = $1`, [CREATE_PROJECT]);
  await q(`DELETE FROM resource_version WHERE project_key = $1`, [CREATE_PROJECT]);
  await q(`VACUUM resource, resource_search, message, resource_version, search_word`);
}

const languages = (await q(`SELECT string_agg(config, ', ' ORDER BY config) AS l FROM search_language`))[0].l;
const settings = Object.fromEntries(await Promise.all(['server_version', 'fsync', 'synchronous_commit', 'shared_buffers'].map(async (s) => [s, (await q(`SHOW ${s}`))[0][s]])));
console.error(`languages indexed: ${languages}; ${JSON.stringify(settings)}; ${STATEMENTS} writes${BATCH > 1 ? ` (${BATCH} a statement)` : ''} × ${CONNECTIONS} connections × ${ROUNDS} rounds`);

/** One run of each kind with `variant` in place; µs per write by kind. */
async function measure(variant) {
  const undo = variant.apply ? await variant.apply() : undefined;
  try {
    const s = variant.statements ?? statements();
    const us = {};
    for (const kind of ['create', 'update']) {
      await tidy();
      us[kind] = await run(kind, s[kind]);
    }
    return us;
  } finally {
    await undo?.();
  }
}

// Paired runs: every variant runs right after a run of the whole write, and what it saves is the difference of
// the pair; the table shows the median over the rounds (the machine's other work shifts both runs of a pair alike).
const wholeRuns = { create: [], update: [] };
const saved = new Map(VARIANTS.filter((v) => v.name !== 'whole').map((v) => [v.name, { create: [], update: [] }]));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
for (let round = 0; round < ROUNDS; round++) {
  for (const variant of VARIANTS.filter((v) => v.name !== 'whole')) {
    const whole = await measure({ name: 'whole' });
    const without = await measure(variant);
    for (const kind of ['create', 'update']) {
      wholeRuns[kind].push(whole[kind]);
      saved.get(variant.name)[kind].push(whole[kind] - without[kind]);
    }
    console.error(`round ${round + 1} ${variant.name}: create ${whole.create.toFixed(0)} → ${without.create.toFixed(0)} µs, update ${whole.update.toFixed(0)} → ${without.update.toFixed(0)} µs`);
  }
  if (saved.size === 0) {
    const whole = await measure({ name: 'whole' });
    for (const kind of ['create', 'update']) wholeRuns[kind].push(whole[kind]);
    console.error(`round ${round + 1} whole: create ${whole.create.toFixed(0)} µs, update ${whole.update.toFixed(0)} µs`);
  }
}
await tidy();

const range = (xs) => `${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))}`;
console.log(`| µs of PostgreSQL per ${BATCH > 1 ? `write (${BATCH} a statement)` : 'statement'} | create | update |\n|---|---|---|`);
console.log(`| whole (median; range) | ${Math.round(median(wholeRuns.create))} (${range(wholeRuns.create)}) | ${Math.round(median(wholeRuns.update))} (${range(wholeRuns.update)}) |`);
for (const [name, r] of saved) console.log(`| ${name}: saves (median; range) | ${Math.round(median(r.create))} (${range(r.create)}) | ${Math.round(median(r.update))} (${range(r.update)}) |`);
await admin.end();

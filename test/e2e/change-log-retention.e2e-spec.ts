import pg from 'pg';
import { Database } from '../../src/database/database.js';
import { RETENTION_BATCH, RETENTION_LOCK_ID } from '../../src/change-log/retention.repository.js';
import { RetentionWorker } from '../../src/change-log/retention.worker.js';
import { createTestApp, onPostgres, type TestApp } from '../support/test-app.js';
import { sleep } from '../support/timing.js';

/*
 * The change log's retention (docs/change-log-and-subscriptions.md#change-log): messages older than MESSAGES_RETENTION_DAYS and versions
 * older than HISTORY_RETENTION_DAYS are deleted in the background, in batches, by one server process at a
 * time; younger rows stay. The job runs every second here (CHANGE_LOG_RETENTION_INTERVAL_SECONDS=1).
 */

/** Polls `check` until it holds; fails after `ms`. */
async function waitFor(check: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`not true after ${ms} ms`);
    await sleep(200);
  }
}

const RESOURCE = 'f0000000-0000-4000-8000-00000000000f';
const OLD_MESSAGES = 2 * RETENTION_BATCH + 500;
const OLD_VERSIONS = RETENTION_BATCH + 200;

describe('change log retention', () => {
  let t: TestApp;
  let db: Database;

  beforeAll(async () => {
    t = await createTestApp({ CHANGE_LOG_RETENTION_INTERVAL_SECONDS: '1', MESSAGES_RETENTION_DAYS: '15', HISTORY_RETENTION_DAYS: '90' });
    db = t.app.get(Database);
  });
  afterAll(() => t.close());

  /** Messages of the resource written `days` ago (a second apart), numbered from `first`. */
  async function insertMessages(count: number, days: number, first: number, resource = RESOURCE): Promise<void> {
    await db.query(
      `INSERT INTO message (id, project_key, resource_id, resource_version, sequence_number, type, created_at, created_by, payload)
       SELECT gen_random_uuid(), $1, $2::uuid, g, g, 'SomeThingDone', now() - make_interval(days => $3) - g * interval '1 second', '{"clientId":"c"}', ''
       FROM generate_series($4::integer, $4::integer + $5::integer - 1) g`,
      [t.projectKey, resource, days, first, count],
    );
  }

  async function insertVersions(count: number, days: number, first: number): Promise<void> {
    await db.query(
      `INSERT INTO resource_version (resource_id, version, project_key, modified_at, modified_by, types, representation)
       SELECT $1::uuid, g, $2, now() - make_interval(days => $3) - g * interval '1 second', '{"clientId":"c"}', ARRAY['SomeThingDone'], '{}'
       FROM generate_series($4::integer, $4::integer + $5::integer - 1) g`,
      [RESOURCE, t.projectKey, days, first, count],
    );
  }

  const count = async (table: 'message' | 'resource_version') =>
    (await db.one<{ n: number }>(`SELECT count(*)::integer AS n FROM ${table} WHERE project_key = $1`, [t.projectKey]))!.n;

  it('deletes the expired messages and versions in batches, and keeps the younger ones', async () => {
    await insertMessages(OLD_MESSAGES, 16, 1);
    await insertMessages(3, 14, OLD_MESSAGES + 1);
    await insertVersions(OLD_VERSIONS, 91, 1);
    await insertVersions(2, 89, OLD_VERSIONS + 1);
    await waitFor(async () => (await count('message')) === 3 && (await count('resource_version')) === 2, 60_000);

    const messages = await t.http.get(`/${t.projectKey}/messages`).set(await t.auth('view_messages'));
    expect(messages.body).toMatchObject({ total: 3 });
    expect(messages.body.results.map((m: { sequenceNumber: number }) => m.sequenceNumber).sort()).toEqual([OLD_MESSAGES + 1, OLD_MESSAGES + 2, OLD_MESSAGES + 3]);
    const versions = await t.http.get(`/${t.projectKey}/resource/${RESOURCE}/versions`).set(await t.auth('view_audit_log'));
    expect(versions.body).toMatchObject({ total: 2, results: [{ version: OLD_VERSIONS + 2 }, { version: OLD_VERSIONS + 1 }] });
  }, 90_000);

  it('a round deletes every expired row, batch after batch, and reports how many', async () => {
    await insertMessages(RETENTION_BATCH + 1, 30, 10_001);
    const worker = t.app.get(RetentionWorker);
    // The background round may take some of them first; together they delete all.
    const deleted = await worker.sweep();
    expect(deleted.messages).toBeLessThanOrEqual(RETENTION_BATCH + 1);
    await waitFor(async () => (await count('message')) === 3, 30_000);
  }, 60_000);

  // PostgreSQL only: the lock is held by another session, and the embedded database has one session.
  if (onPostgres) it('skips the round while another server process holds the retention lock (PostgreSQL)', async () => {
    const other = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await other.connect();
    try {
      await other.query('SELECT pg_advisory_lock($1)', [RETENTION_LOCK_ID]);
      await insertMessages(10, 20, 20_001);
      const deleted = await t.app.get(RetentionWorker).sweep();
      expect(deleted).toEqual({ messages: 0, versions: 0 });
      expect(await count('message')).toBe(13);
      await other.query('SELECT pg_advisory_unlock($1)', [RETENTION_LOCK_ID]);
      await waitFor(async () => (await count('message')) === 3, 30_000);
    } finally {
      await other.end();
    }
  }, 60_000);

  it("prunes the subscriptions' stream positions of resources whose messages are all gone, and keeps the others", async () => {
    const [gone, kept] = ['f0000000-0000-4000-8000-0000000000a1', 'f0000000-0000-4000-8000-0000000000a2'];
    await insertMessages(5, 20, 1, gone);
    await insertMessages(2, 20, 1, kept);
    await insertMessages(1, 1, 3, kept);
    const subscription = (await db.one<{ id: string }>(
      `INSERT INTO subscription (id, project_key, destination, format)
       VALUES (gen_random_uuid(), $1, '{"type":"HTTP","url":"http://127.0.0.1:9/"}', '{"type":"Platform"}') RETURNING id`,
      [t.projectKey],
    ))!.id;
    const positions = async () =>
      (await db.query<{ resource_id: string; last_sequence: number }>(
        'SELECT resource_id, last_sequence FROM subscription_progress WHERE subscription_id = $1 ORDER BY resource_id',
        [subscription],
      ));
    try {
      await db.query('INSERT INTO subscription_progress (subscription_id, resource_id, last_sequence) VALUES ($1, $2, 5), ($1, $3, 3)', [subscription, gone, kept]);
      await t.app.get(RetentionWorker).sweep();
      await waitFor(async () => (await positions()).length === 1, 30_000);
      expect(await positions()).toEqual([{ resource_id: kept, last_sequence: 3 }]);
    } finally {
      await db.query('DELETE FROM subscription WHERE id = $1', [subscription]);
      await db.query('DELETE FROM message WHERE resource_id = $1', [kept]);
    }
  }, 60_000);
});

import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Database } from '../../src/database/database.js';
import { DispatchDatabase } from '../../src/subscriptions/dispatch-database.js';
import { MESSAGE_JSON } from '../../src/query-language/message.catalogue.js';
import { BEGIN_QUEUING, FAN_OUT } from '../../src/subscriptions/notification-queue.repository.js';
import { createTestApp, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { draft } from '../support/fixtures.js';
import { sleep, until } from '../support/timing.js';
import { type ReceivedWebhook, verifyStandardWebhook, WebhookReceiver } from '../support/webhook-receiver.js';

/*
 * Delivery of the change log to webhooks (docs/change-log-and-subscriptions.md#subscriptions): the payloads of both formats exactly, the
 * Standard Webhooks signature, filters, order per resource, retries, health, and a message committed
 * late. Short intervals through the settings; timings are never asserted.
 */

const NS = 'org.resource-api';
const METRICS_TOKEN = 'subscriptions-metrics-token';

describe('subscription delivery to webhooks', () => {
  let t: TestApp;
  let db: Database;
  let receiver: WebhookReceiver;
  let manage: Record<string, string>;
  let writer: Record<string, string>;
  let pk: string;
  /** Status per path, after the test notification (which every path accepts). */
  const answers = new Map<string, () => number | Promise<number>>();

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    receiver.respond = (r) => ((r.json?.data ?? r.json)?.resource?.typeId === 'subscription' ? 204 : (answers.get(r.path)?.() ?? 204));
    t = await createTestApp({
      SUBSCRIPTION_POLL_INTERVAL_MS: '50',
      SUBSCRIPTION_SWEEP_INTERVAL_MS: '300',
      SUBSCRIPTION_RETRY_BASE_MS: '100',
      SUBSCRIPTION_RETRY_MAX_MS: '400',
      SUBSCRIPTION_DELIVERY_TIMEOUT_MS: '2000',
      METRICS_TOKEN: METRICS_TOKEN,
    });
    db = t.app.get(Database);
    pk = t.projectKey;
    manage = await t.auth('manage_subscriptions');
    writer = await t.auth('manage_test');
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  async function subscribe(path: string, body: Record<string, unknown>, project = pk, header = manage): Promise<{ id: string; secret: string }> {
    const res = await t.http.post(`/${project}/subscriptions`).set(header).send({ destination: { type: 'HTTP', url: receiver.url(path) }, ...body });
    expect(res.status).toBe(201);
    return { id: res.body.id, secret: res.body.destination.secret };
  }

  /** Notifications (not test notifications) that reached `path`. */
  const at = (path: string) => receiver.at(path).filter((r) => (r.json?.data ?? r.json)?.resource?.typeId !== 'subscription');

  const received = (path: string, count: number) => until(`${count} notifications at ${path}`, () => at(path).length >= count && at(path));

  async function createResource(key?: string): Promise<any> {
    const res = await t.http.post(`/${pk}/resource`).set(writer).send(draft(key ? { key } : {}));
    expect(res.status).toBe(201);
    return res.body;
  }
  async function update(id: string, version: number, actions: unknown[]): Promise<any> {
    const res = await t.http.post(`/${pk}/resource/${id}`).set(writer).send({ version, actions });
    expect(res.status).toBe(200);
    return res.body;
  }
  async function remove(id: string, version: number): Promise<void> {
    expect((await t.http.delete(`/${pk}/resource/${id}`).query({ version }).set(writer)).status).toBe(200);
  }

  /** The resource's messages as the API shows them, and their change ids, from the change log. */
  async function messagesOf(resourceId: string): Promise<Array<{ json: any; changeId: string; id: string }>> {
    const rows = await db.query<{ json: string; changeId: string; id: string }>(
      `SELECT ${MESSAGE_JSON} AS json, m.change_id AS "changeId", m.id FROM message m WHERE m.resource_id = $1 ORDER BY m.sequence_number`,
      [resourceId],
    );
    return rows.map((r) => ({ ...r, json: JSON.parse(r.json) }));
  }

  const health = async (id: string) => (await t.http.get(`/${pk}/subscriptions/${id}/health`).set(manage)).body;

  it('Platform message notifications are the message plus notificationType and projectKey, signed, with webhook-id = the message id', async () => {
    const sub = await subscribe('/platform-messages', { messages: [{ resourceTypeId: 'resource' }] });
    const created = await createResource('pm-1');
    const updated = await update(created.id, 1, [{ action: 'changeSomeProperty', someProperty: 'x' }, { action: 'doSomeThing' }]);
    await remove(created.id, updated.version);
    const got = await received('/platform-messages', 4);
    const messages = await messagesOf(created.id);
    expect(messages.map((m) => m.json.type)).toEqual(['ResourceCreated', 'SomePropertyChanged', 'SomeThingDone', 'ResourceDeleted']);
    expect(got.map((r) => r.json)).toEqual(messages.map((m) => ({ notificationType: 'Message', projectKey: pk, ...m.json })));
    for (const [i, r] of got.entries()) {
      expect(r.headers['webhook-id']).toBe(messages[i].id);
      expect(r.headers['content-type']).toBe('application/json');
      expect(verifyStandardWebhook(sub.secret, r)).toBe(true);
    }
    expect(got[0].json.representation).toMatchObject({ id: created.id, key: 'pm-1', version: 1 });
  });

  it('Platform change notifications: one per write, Created/Updated/Deleted with version, oldVersion and modifiedAt; webhook-id = the change id', async () => {
    const sub = await subscribe('/platform-changes', { changes: [{ resourceTypeId: 'resource' }] });
    const created = await createResource('pc-1');
    const updated = await update(created.id, 1, [{ action: 'changeSomeProperty', someProperty: 'y' }, { action: 'setKey', key: 'pc-2' }]);
    await remove(created.id, updated.version);
    const got = await received('/platform-changes', 3);
    await sleep(300);
    expect(at('/platform-changes')).toHaveLength(3);
    const messages = await messagesOf(created.id);
    const changeIds = [...new Set(messages.map((m) => m.changeId))];
    const resource = { typeId: 'resource', id: created.id };
    expect(got.map((r) => r.json)).toEqual([
      { notificationType: 'ResourceCreated', projectKey: pk, resource, resourceUserProvidedIdentifiers: { key: 'pc-1' }, version: 1, modifiedAt: messages[0].json.createdAt },
      { notificationType: 'ResourceUpdated', projectKey: pk, resource, resourceUserProvidedIdentifiers: { key: 'pc-2' }, version: 2, oldVersion: 1, modifiedAt: messages[1].json.createdAt },
      { notificationType: 'ResourceDeleted', projectKey: pk, resource, resourceUserProvidedIdentifiers: { key: 'pc-2' }, version: 2, modifiedAt: messages[3].json.createdAt },
    ]);
    expect(got.map((r) => r.headers['webhook-id'])).toEqual(changeIds);
    for (const r of got) expect(verifyStandardWebhook(sub.secret, r)).toBe(true);
  });

  it('CloudEvents 1.0 structured: the documented envelope around the Platform payload, as application/cloudevents+json', async () => {
    const sub = await subscribe('/cloudevents', {
      messages: [{ resourceTypeId: 'resource', types: ['ResourceCreated'] }],
      changes: [{ resourceTypeId: 'resource' }],
      format: { type: 'CloudEvents', cloudEventsVersion: '1.0' },
    });
    const created = await createResource();
    const got = await received('/cloudevents', 2);
    const [message] = await messagesOf(created.id);
    for (const r of got) {
      expect(r.headers['content-type']).toBe('application/cloudevents+json');
      expect(verifyStandardWebhook(sub.secret, r)).toBe(true);
      expect(r.headers['webhook-id']).toBe(r.json.id);
    }
    expect(got[0].json).toEqual({
      specversion: '1.0',
      id: message.id,
      type: `${NS}.resource.message.ResourceCreated`,
      source: `/${pk}/resource`,
      subject: created.id,
      time: message.json.createdAt,
      sequence: '0000000000000000001',
      dataref: `/${pk}/messages/${message.id}`,
      data: { notificationType: 'Message', projectKey: pk, ...message.json },
    });
    expect(got[1].json).toEqual({
      specversion: '1.0',
      id: message.changeId,
      type: `${NS}.resource.change.Created`,
      source: `/${pk}/resource`,
      subject: created.id,
      time: message.json.createdAt,
      sequence: '0000000000000000001',
      data: {
        notificationType: 'ResourceCreated',
        projectKey: pk,
        resource: { typeId: 'resource', id: created.id },
        resourceUserProvidedIdentifiers: {},
        version: 1,
        modifiedAt: message.json.createdAt,
      },
    });
  });

  it('delivers only the message types named, and nothing of another project', async () => {
    await subscribe('/filtered', { messages: [{ resourceTypeId: 'resource', types: ['ResourceDeleted', 'KeySet'] }] });
    const otherHeader = await t.auth('manage_test', { projectKey: t.otherProjectKey });
    const foreign = await t.http.post(`/${t.otherProjectKey}/resource`).set(otherHeader).send(draft());
    expect(foreign.status).toBe(201);
    const created = await createResource();
    const updated = await update(created.id, 1, [{ action: 'changeSomeProperty', someProperty: 'z' }, { action: 'setKey', key: 'filtered-1' }]);
    await remove(created.id, updated.version);
    const got = await received('/filtered', 2);
    await sleep(300);
    expect(at('/filtered').map((r) => [r.json.type, r.json.resource.id])).toEqual([
      ['KeySet', created.id],
      ['ResourceDeleted', created.id],
    ]);
    expect(got[0].json).toMatchObject({ key: 'filtered-1' });
  });

  it('keeps the order per resource while the receiver fails and recovers; a retry carries the same id', async () => {
    let failures = 6;
    answers.set('/flaky', () => (failures-- > 0 ? 500 : 204));
    await subscribe('/flaky', { messages: [{ resourceTypeId: 'resource' }] });
    const resources = await Promise.all([1, 2, 3, 4].map(() => createResource()));
    await Promise.all(
      resources.map(async (r) => {
        let version = 1;
        for (let i = 0; i < 4; i++) version = (await update(r.id, version, [{ action: 'changeSomeProperty', someProperty: `v${i}` }])).version;
      }),
    );
    await received('/flaky', 20);
    const byResource = new Map<string, number[]>();
    for (const r of at('/flaky')) byResource.set(r.json.resource.id, [...(byResource.get(r.json.resource.id) ?? []), r.json.sequenceNumber]);
    for (const r of resources) expect(byResource.get(r.id)).toEqual([1, 2, 3, 4, 5]);
    const refused = receiver.attempts.filter((a) => a.path === '/flaky' && a.status === 500);
    expect(refused.length).toBe(6);
    const acceptedIds = new Set(at('/flaky').map((r) => r.headers['webhook-id']));
    for (const a of refused) expect(acceptedIds.has(a.headers['webhook-id'])).toBe(true);
  });

  it('health: TemporaryError while the receiver answers 503, Healthy once it accepts again', async () => {
    let status = 503;
    answers.set('/down', () => status);
    const sub = await subscribe('/down', { changes: [{ resourceTypeId: 'resource' }] });
    expect(await health(sub.id)).toEqual({ status: 'Healthy', pending: 0 });
    await createResource();
    const failing = await until('TemporaryError', async () => {
      const h = await health(sub.id);
      return h.status === 'TemporaryError' && h;
    });
    expect(failing.pending).toBe(1);
    expect(failing.oldestPendingAt).toMatch(/Z$/);
    expect(failing.lastError.message).toBe('answered HTTP 503');
    status = 204;
    const healthy = await until('Healthy', async () => {
      const h = await health(sub.id);
      // Every answer on the way keeps the error and, once the queue is empty, shows the delivery that emptied it.
      expect(h.lastError?.message).toMatch(/HTTP 503/);
      if (h.pending === 0) expect(h.lastDeliveredAt).toMatch(/Z$/);
      return h.status === 'Healthy' && h;
    });
    expect(healthy.pending).toBe(0);
    expect(healthy.oldestPendingAt).toBeUndefined();
    expect(healthy.lastError.message).toBe('answered HTTP 503');
  });

  it('health: lastError says "could not connect" when the destination closes the connection, never what the client library said', async () => {
    let closing = false;
    const closer = createHttpServer((req, res) => {
      if (closing) return req.socket.destroy();
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    await new Promise<void>((resolve) => closer.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(closer.address() as AddressInfo).port}/closing`;
      const res = await t.http.post(`/${pk}/subscriptions`).set(manage).send({ destination: { type: 'HTTP', url }, changes: [{ resourceTypeId: 'resource' }] });
      expect(res.status).toBe(201);
      closing = true;
      await createResource();
      const h = await until('TemporaryError', async () => {
        const now = await health(res.body.id);
        return now.status === 'TemporaryError' && now.lastError && now;
      });
      expect(h.lastError.message).toBe('could not connect');
    } finally {
      closer.closeAllConnections();
      await new Promise((resolve) => closer.close(resolve));
    }
  });

  it('health: once a notification was delivered, every answer shows lastDeliveredAt, also the first with pending 0', async () => {
    // A project of its own with ten subscriptions whose receivers answer after 0 to 90 ms: their first
    // deliveries end at different moments, each the first that makes its subscription's queue empty.
    const project = uniqueProjectKey('health');
    const header = await t.auth('manage_subscriptions', { projectKey: project });
    const paths = Array.from({ length: 10 }, (_, i) => `/health-${project}-${i}`);
    for (const [i, path] of paths.entries()) answers.set(path, () => sleep(10 * i).then(() => 204));
    const subs = [];
    for (const path of paths) subs.push({ path, ...(await subscribe(path, { changes: [{ resourceTypeId: 'resource' }] }, project, header)) });
    const answered: Array<{ path: string; receivedBefore: number; body: any }> = [];
    const watch = async (sub: { path: string; id: string }) => {
      for (let done = 0; done < 5; ) {
        // Counted before the request: when the receiver had the notification by then and the answer shows an
        // empty queue, the delivery was over before the answer's reads.
        const receivedBefore = at(sub.path).length;
        const res = await t.http.get(`/${project}/subscriptions/${sub.id}/health`).set(header);
        expect(res.status).toBe(200);
        answered.push({ path: sub.path, receivedBefore, body: res.body });
        if (res.body.lastDeliveredAt && res.body.pending === 0) done++;
      }
    };
    const watching = Promise.all(subs.map(watch));
    const created = await t.http.post(`/${project}/resource`).set(await t.auth('manage_test', { projectKey: project })).send(draft());
    expect(created.status).toBe(201);
    await watching;
    // Every answer after the delivery with an empty queue: for each subscription at least the last four.
    const emptied = answered.filter((a) => a.receivedBefore > 0 && a.body.pending === 0);
    for (const path of paths) expect(emptied.filter((a) => a.path === path).length).toBeGreaterThanOrEqual(4);
    expect(emptied.filter((a) => !a.body.lastDeliveredAt)).toEqual([]);
    for (const a of emptied) expect(a.body).toMatchObject({ status: 'Healthy', lastDeliveredAt: expect.stringMatching(/Z$/) });
  });

  it.each([404, 401])('health: ConfigurationError when the receiver answers %i', async (code) => {
    answers.set(`/refusing-${code}`, () => code);
    const sub = await subscribe(`/refusing-${code}`, { changes: [{ resourceTypeId: 'resource' }] });
    await createResource();
    const h = await until('ConfigurationError', async () => {
      const now = await health(sub.id);
      return now.status === 'ConfigurationError' && now;
    });
    expect(h.pending).toBe(1);
    expect(h.lastError.message).toBe(`answered HTTP ${code}`);
  });

  it('delivers messages committed late (their createdAt 20 s and 55 s before the dispatcher\'s position)', async () => {
    await subscribe('/late', { messages: [{ resourceTypeId: 'resource' }] });
    const created = await createResource();
    await received('/late', 1);
    // What a slow transaction leaves: the next message of the resource, stamped 20 s ago, visible only now.
    const id = randomUUID();
    await db.query(
      `INSERT INTO message (id, project_key, resource_id, resource_version, sequence_number, resource_key, type, created_at, created_by, payload)
       VALUES ($1, $2, $3, 2, 2, NULL, 'SomeThingDone', now() - interval '20 seconds', '{"clientId":"late"}', '')`,
      [id, pk, created.id],
    );
    const got = await received('/late', 2);
    expect(got[1].json).toMatchObject({ id, type: 'SomeThingDone', sequenceNumber: 2 });
    // Near the end of the lookback (60 s): the oldest slice of a sweep's pass finds it.
    const older = randomUUID();
    await db.query(
      `INSERT INTO message (id, project_key, resource_id, resource_version, sequence_number, resource_key, type, created_at, created_by, payload)
       VALUES ($1, $2, $3, 3, 3, NULL, 'SomeThingDone', now() - interval '55 seconds', '{"clientId":"late"}', '')`,
      [older, pk, created.id],
    );
    const all = await received('/late', 3);
    expect(all[2].json).toMatchObject({ id: older, type: 'SomeThingDone', sequenceNumber: 3 });
  });

  it('/metrics counts deliveries and failures by transport, the pending notifications and the delivery latency', async () => {
    const scrape = () => t.http.get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
    // The pending gauge is counted by the dispatcher every 2 s: the two refusing receivers' notifications show within that.
    const pendingIn = (text: string) => Number(/^subscription_notifications_pending (\d+)$/m.exec(text)?.[1]);
    const res = await until('the pending gauge', async () => {
      const now = await scrape();
      return pendingIn(now.text) >= 2 && now;
    });
    expect(res.status).toBe(200);
    const value = (pattern: RegExp) => Number(pattern.exec(res.text)?.[1]);
    expect(value(/^subscription_notifications_delivered_total\{transport="HTTP"\} (\d+)$/m)).toBeGreaterThan(20);
    expect(value(/^subscription_notifications_failed_total\{transport="HTTP",kind="TemporaryError"\} (\d+)$/m)).toBeGreaterThanOrEqual(6);
    expect(value(/^subscription_notifications_failed_total\{transport="HTTP",kind="ConfigurationError"\} (\d+)$/m)).toBeGreaterThanOrEqual(2);
    expect(value(/^subscription_notifications_pending (\d+)$/m)).toBeGreaterThanOrEqual(2);
    expect(value(/^subscription_delivery_latency_seconds_count\{transport="HTTP"\} (\d+)$/m)).toBeGreaterThan(20);
  });

  it('drops a notification whose message is past MESSAGES_RETENTION_DAYS (15 by default), delivered or not', async () => {
    answers.set('/expired', () => 500);
    const sub = await subscribe('/expired', { changes: [{ resourceTypeId: 'resource' }] });
    // The sweep runs every 300 ms here and may drop it before a health read could see it pending: the
    // insert itself shows it was queued (its receiver answers 500, so only the sweep removes it).
    const queued = await db.query(
      `INSERT INTO subscription_notification (subscription_id, resource_id, ordinal, id, type, sequence_number, created_at, payload)
       VALUES ($1, $2, 3, $3, 'change.Created', 1, now() - interval '16 days', '{}') RETURNING 1`,
      [sub.id, randomUUID(), randomUUID()],
    );
    expect(queued).toHaveLength(1);
    await until('the expired notification dropped', async () => (await health(sub.id)).pending === 0);
  });

  it('a deleted subscription receives nothing more', async () => {
    const sub = await subscribe('/deleted', { changes: [{ resourceTypeId: 'resource' }] });
    expect((await t.http.delete(`/${pk}/subscriptions/${sub.id}`).query({ version: 1 }).set(manage)).status).toBe(200);
    await createResource();
    await sleep(500);
    expect(at('/deleted')).toHaveLength(0);
  });

  it("queuing looks up each stream's progress by its key, never by reading the progress table", async () => {
    // Thousands of streams, with statistics, and a scan reaching back to the start. The lookup is a lateral
    // subquery with LIMIT 1 so that the planner cannot turn it into a join: written as a plain join, on the
    // subscriptions bench's data (about 4,000 streams) it became a merge join reading the whole table each round.
    const sub = await subscribe('/plan', { changes: [{ resourceTypeId: 'resource' }] });
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`INSERT INTO subscription_progress (subscription_id, resource_id, last_sequence)
                          SELECT $1, gen_random_uuid(), 1 FROM generate_series(1, 5000)`, [sub.id]);
      await client.query('ANALYZE subscription_progress');
      await client.query(BEGIN_QUEUING.replace(/^BEGIN;/, ''));
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${FAN_OUT}`, [new Date(0), null, null, new Date(), null, false]);
      const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
      // An index scan of the progress table, bounded by the stream's resource (by its own index or the key's).
      expect(plan).toMatch(/Index Scan using subscription_progress_\w+ on subscription_progress p .*\n\s+Index Cond: \(+(subscription_id = s\w*\.id\) AND \()?resource_id = \w+\.resource_id\)/);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it("the dispatcher's statements commit without waiting for the disk on PostgreSQL; the API's writes wait for it", async () => {
    const dispatch = t.app.get(DispatchDatabase);
    const setting = async (on: Database) => (await on.one<{ synchronous_commit: string }>('SHOW synchronous_commit'))!.synchronous_commit;
    if (process.env.DATABASE_URL) {
      expect(dispatch).not.toBe(db);
      expect(await setting(dispatch)).toBe('off');
      expect(await setting(db)).toBe('on');
    } else {
      // The embedded database is one session: the dispatcher shares it, durable like every write.
      expect(dispatch).toBe(db);
    }
  });
});

export type { ReceivedWebhook };

import { randomUUID } from 'node:crypto';
import { Database } from '../../src/database/database.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { draft } from '../support/fixtures.js';
import { sleep, until } from '../support/timing.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/*
 * The dispatcher's position is a horizon (src/subscriptions/notification-queue.repository.ts, lockPosition):
 * it never passes the start of a transaction still running, so a message such a transaction commits late is
 * queued by the next scan, not only by the sweep. The sweep is made too slow here to reach the message during
 * the test (a pass every 10 minutes, 5 ms of the change log per poll), and the transaction stays open longer
 * than the 1 s the scan used to look back, while other writes go on. PostgreSQL only: the embedded database
 * runs one transaction at a time.
 */

describe('subscription queuing behind a transaction still running', () => {
  let t: TestApp;
  let db: Database;
  let receiver: WebhookReceiver;
  let writer: Record<string, string>;
  let pk: string;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await createTestApp({ SUBSCRIPTION_POLL_INTERVAL_MS: '50', SUBSCRIPTION_SWEEP_INTERVAL_MS: '600000' });
    db = t.app.get(Database);
    pk = t.projectKey;
    writer = await t.auth('manage_test');
    const res = await t.http
      .post(`/${pk}/subscriptions`)
      .set(await t.auth('manage_subscriptions'))
      .send({ destination: { type: 'HTTP', url: receiver.url('/horizon') }, messages: [{ resourceTypeId: 'resource' }] });
    expect(res.status).toBe(201);
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const notifications = () => receiver.at('/horizon').map((r) => r.json).filter((json) => json?.notificationType === 'Message');

  const position = async () => (await db.query<{ scannedTo: Date }>('SELECT scanned_to AS "scannedTo" FROM subscription_dispatch WHERE id = 1'))[0].scannedTo;

  async function createResource(): Promise<{ id: string }> {
    const res = await t.http.post(`/${pk}/resource`).set(writer).send(draft());
    expect(res.status).toBe(201);
    return res.body;
  }

  it('holds the position at the start of an open transaction, and queues its message once it commits', async () => {
    const resource = await createResource();
    await until('the ResourceCreated notification', () => notifications().some((n) => n.resource.id === resource.id));

    const slow = await db.pool.connect();
    try {
      await slow.query('BEGIN');
      const { rows } = await slow.query<{ started: Date }>('SELECT now() AS started');
      const started = rows[0].started;
      // What a slow write leaves: the resource's next message, stamped with its transaction's start.
      const id = randomUUID();
      await slow.query(
        `INSERT INTO message (id, project_key, resource_id, resource_version, sequence_number, resource_key, type, created_at, created_by, payload)
         VALUES ($1, $2, $3, 2, 2, NULL, 'SomeThingDone', now(), '{"clientId":"slow"}', '')`,
        [id, pk, resource.id],
      );
      // Other writes go on and are delivered meanwhile, for more than a second.
      const others: string[] = [];
      const until2500 = Date.now() + 2_500;
      while (Date.now() < until2500) {
        others.push((await createResource()).id);
        await sleep(100);
      }
      await until('the other writes', () => others.every((o) => notifications().some((n) => n.resource.id === o)));
      expect((await position()).getTime()).toBeLessThanOrEqual(started.getTime());
      expect(notifications().filter((n) => n.resource.id === resource.id)).toHaveLength(1);

      await slow.query('COMMIT');
      const late = await until('the late message', () => notifications().find((n) => n.id === id));
      expect(late).toMatchObject({ type: 'SomeThingDone', sequenceNumber: 2, resource: { typeId: 'resource', id: resource.id } });
      // Once it is committed, the position moves on.
      await until('the position to pass the transaction', async () => (await position()).getTime() > started.getTime());
    } finally {
      await slow.query('ROLLBACK').catch(() => undefined);
      slow.release();
    }
  });
});

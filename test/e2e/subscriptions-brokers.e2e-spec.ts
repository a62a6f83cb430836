import { randomBytes } from 'node:crypto';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { connect as amqpConnect, type Channel, type ChannelModel, type ConsumeMessage } from 'amqplib';
import { connect as natsConnect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, type JetStreamManager, type StoredMsg } from '@nats-io/jetstream';
import { Database } from '../../src/database/database.js';
import { MESSAGE_JSON } from '../../src/query-language/message.catalogue.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { expectErrorEnvelope as expectError } from '../support/expect-error.js';
import { draft } from '../support/fixtures.js';
import { until } from '../support/timing.js';

/*
 * Delivery to RabbitMQ and NATS JetStream (docs/change-log-and-subscriptions.md#subscriptions), against the machine's real brokers
 * (RABBITMQ_URL, NATS_URL; scripts/test-prerequisites.sh starts them). Each run makes its own exchange,
 * queue and stream, and deletes them after.
 */

const RABBITMQ = process.env.RABBITMQ_URL ?? 'amqp://127.0.0.1:5672';
const NATS = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const NS = 'org.resource-api';
const run = randomBytes(4).toString('hex');
/** The broker URI with the machine's guest credentials. */
const withCredentials = (uri: string, user = 'guest', pass = 'guest') => {
  const url = new URL(uri);
  url.username = user;
  url.password = pass;
  return url.toString().replace(/\/$/, '');
};

describe('subscription delivery to brokers', () => {
  let t: TestApp;
  let db: Database;
  let manage: Record<string, string>;
  let writer: Record<string, string>;
  let pk: string;

  beforeAll(async () => {
    t = await createTestApp({ SUBSCRIPTION_POLL_INTERVAL_MS: '50', SUBSCRIPTION_RETRY_BASE_MS: '100', SUBSCRIPTION_RETRY_MAX_MS: '400', SUBSCRIPTION_DELIVERY_TIMEOUT_MS: '3000' });
    db = t.app.get(Database);
    pk = t.projectKey;
    manage = await t.auth('manage_subscriptions');
    writer = await t.auth('manage_test');
  });
  afterAll(() => t.close());

  async function createResource(): Promise<any> {
    const res = await t.http.post(`/${pk}/resource`).set(writer).send(draft());
    expect(res.status).toBe(201);
    return res.body;
  }
  async function firstMessage(resourceId: string): Promise<{ json: any; id: string; changeId: string }> {
    const row = await db.one<{ json: string; id: string; changeId: string }>(
      `SELECT ${MESSAGE_JSON} AS json, m.id, m.change_id AS "changeId" FROM message m WHERE m.resource_id = $1 AND m.sequence_number = 1`,
      [resourceId],
    );
    return { ...row!, json: JSON.parse(row!.json) };
  }
  const health = async (id: string) => (await t.http.get(`/${pk}/subscriptions/${id}/health`).set(manage)).body;
  const subscribe = (destination: Record<string, unknown>, extra: Record<string, unknown>) =>
    t.http.post(`/${pk}/subscriptions`).set(manage).send({ destination, ...extra });

  describe('RabbitMQ', () => {
    let broker: ChannelModel;
    let channel: Channel;
    const exchanges: string[] = [];
    const consumed = new Map<string, ConsumeMessage[]>();

    /** A fresh fanout exchange with a queue bound to it, consumed into `consumed`. */
    async function exchangeWithQueue(name: string): Promise<string> {
      const exchange = `subs-test-${run}-${name}`;
      await channel.assertExchange(exchange, 'fanout', { durable: false });
      exchanges.push(exchange);
      const { queue } = await channel.assertQueue('', { exclusive: true });
      await channel.bindQueue(queue, exchange, '');
      consumed.set(exchange, []);
      await channel.consume(queue, (m) => m && consumed.get(exchange)!.push(m), { noAck: true });
      return exchange;
    }
    const received = (exchange: string, count: number) => until(`${count} messages on ${exchange}`, () => consumed.get(exchange)!.length >= count && consumed.get(exchange)!);

    beforeAll(async () => {
      broker = await amqpConnect(withCredentials(RABBITMQ));
      channel = await broker.createChannel();
    });
    afterAll(async () => {
      for (const exchange of exchanges) await channel.deleteExchange(exchange).catch(() => undefined);
      await broker.close();
    });

    it('publishes persistent messages with messageId = the notification id, Platform format; the URI\'s password is never answered', async () => {
      const exchange = await exchangeWithQueue('platform');
      const uri = withCredentials(RABBITMQ);
      const res = await subscribe({ type: 'RabbitMQ', uri, exchange, routingKey: 'resources' }, { messages: [{ resourceTypeId: 'resource' }] });
      expect(res.status).toBe(201);
      expect(res.body.destination).toEqual({ type: 'RabbitMQ', uri: withCredentials(RABBITMQ, 'guest', ''), exchange, routingKey: 'resources' });
      expect(JSON.stringify(res.body)).not.toContain(':guest@');
      const read = await t.http.get(`/${pk}/subscriptions/${res.body.id}`).set(manage);
      expect(JSON.stringify(read.body)).not.toContain(':guest@');
      const [test] = await received(exchange, 1);
      expect(JSON.parse(test.content.toString())).toEqual({ notificationType: 'ResourceCreated', projectKey: pk, resource: { typeId: 'subscription', id: res.body.id } });
      const created = await createResource();
      const [, got] = await received(exchange, 2);
      const message = await firstMessage(created.id);
      expect(JSON.parse(got.content.toString())).toEqual({ notificationType: 'Message', projectKey: pk, ...message.json });
      expect(got.properties).toMatchObject({ messageId: message.id, deliveryMode: 2, contentType: 'application/json' });
      expect(got.fields.routingKey).toBe('resources');
    });

    it('publishes CloudEvents change notifications as application/cloudevents+json', async () => {
      const exchange = await exchangeWithQueue('cloudevents');
      const res = await subscribe({ type: 'RabbitMQ', uri: withCredentials(RABBITMQ), exchange }, { changes: [{ resourceTypeId: 'resource' }], format: { type: 'CloudEvents' } });
      expect(res.status).toBe(201);
      const created = await createResource();
      const [, got] = await received(exchange, 2);
      const message = await firstMessage(created.id);
      expect(got.properties).toMatchObject({ messageId: message.changeId, deliveryMode: 2, contentType: 'application/cloudevents+json' });
      expect(JSON.parse(got.content.toString())).toEqual({
        specversion: '1.0',
        id: message.changeId,
        type: `${NS}.resource.change.Created`,
        source: `/${pk}/resource`,
        subject: created.id,
        time: message.json.createdAt,
        sequence: '0000000000000000001',
        data: { notificationType: 'ResourceCreated', projectKey: pk, resource: { typeId: 'resource', id: created.id }, resourceUserProvidedIdentifiers: {}, version: 1, modifiedAt: message.json.createdAt },
      });
    });

    it('refuses an unknown exchange and refused credentials on create (400 in the server\'s words, nothing stored)', async () => {
      const unknown = await subscribe({ type: 'RabbitMQ', uri: withCredentials(RABBITMQ), exchange: `subs-test-${run}-missing` }, { changes: [{ resourceTypeId: 'resource' }] });
      expectError(unknown, 400, 'InvalidInput');
      expect(unknown.body.errors[0].message).toBe('destination: the test notification was not accepted: the exchange does not exist.');
      const exchange = await exchangeWithQueue('login');
      const login = await subscribe({ type: 'RabbitMQ', uri: withCredentials(RABBITMQ, 'guest', 'wrong-secret'), exchange }, { changes: [{ resourceTypeId: 'resource' }] });
      expectError(login, 400, 'InvalidInput');
      expect(login.body.errors[0].message).toBe('destination: the test notification was not accepted: the broker refused the credentials.');
      expect((await t.http.get(`/${pk}/subscriptions`).set(manage)).body.results.map((s: any) => s.destination.exchange)).not.toContain(exchange);
    });

    it('health: ConfigurationError once the exchange is gone', async () => {
      const exchange = await exchangeWithQueue('deleted');
      const res = await subscribe({ type: 'RabbitMQ', uri: withCredentials(RABBITMQ), exchange }, { changes: [{ resourceTypeId: 'resource' }] });
      expect(res.status).toBe(201);
      await channel.deleteExchange(exchange);
      await createResource();
      const h = await until('ConfigurationError', async () => {
        const now = await health(res.body.id);
        return now.status === 'ConfigurationError' && now;
      });
      expect(h.pending).toBe(1);
      expect(h.lastError.message).toBe('the exchange does not exist');
    });
  });

  describe('NATS JetStream', () => {
    let nc: NatsConnection;
    let jsm: JetStreamManager;
    // One stream per subscription: a stream deduplicates by Nats-Msg-Id, and two subscriptions' notifications
    // of one message share that id.
    const streamOf = (name: string) => `SUBS_TEST_${run}_${name.toUpperCase()}`;
    const subject = (name: string) => `subs-test.${run}.${name}`;
    const stored = async (count: number, name: string): Promise<StoredMsg[]> =>
      until(`${count} messages on ${subject(name)}`, async () => {
        const stream = streamOf(name);
        const all: StoredMsg[] = [];
        const info = await jsm.streams.info(stream);
        for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
          const m = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
          if (m && m.subject === subject(name)) all.push(m);
        }
        return all.length >= count && all;
      });

    beforeAll(async () => {
      nc = await natsConnect({ servers: NATS });
      jsm = await jetstreamManager(nc);
      for (const name of ['platform', 'ce']) await jsm.streams.add({ name: streamOf(name), subjects: [subject(name)] });
    });
    afterAll(async () => {
      for (const name of ['platform', 'ce']) await jsm.streams.delete(streamOf(name)).catch(() => undefined);
      await nc.drain();
    });

    it('publishes to the stream with Nats-Msg-Id = the notification id, Platform and CloudEvents', async () => {
      const platform = await subscribe({ type: 'NATS', url: NATS, subject: subject('platform') }, { messages: [{ resourceTypeId: 'resource' }] });
      expect(platform.status).toBe(201);
      expect(platform.body.destination).toEqual({ type: 'NATS', url: NATS, subject: subject('platform') });
      const ce = await subscribe({ type: 'NATS', url: NATS, subject: subject('ce') }, { messages: [{ resourceTypeId: 'resource' }], format: { type: 'CloudEvents' } });
      expect(ce.status).toBe(201);
      const created = await createResource();
      const message = await firstMessage(created.id);
      const [test, got] = await stored(2, 'platform');
      expect(test.json()).toEqual({ notificationType: 'ResourceCreated', projectKey: pk, resource: { typeId: 'subscription', id: platform.body.id } });
      expect(got.json()).toEqual({ notificationType: 'Message', projectKey: pk, ...message.json });
      expect(got.header.get('Nats-Msg-Id')).toBe(message.id);
      expect(got.header.get('Content-Type')).toBe('application/json');
      const [, event] = await stored(2, 'ce');
      expect(event.header.get('Nats-Msg-Id')).toBe(message.id);
      expect(event.header.get('Content-Type')).toBe('application/cloudevents+json');
      expect(event.json()).toEqual({
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
    });

    it('refuses a subject no stream captures (400); health ConfigurationError once the stream is gone', async () => {
      const nowhere = await subscribe({ type: 'NATS', url: NATS, subject: `nowhere.${run}` }, { changes: [{ resourceTypeId: 'resource' }] });
      expectError(nowhere, 400, 'InvalidInput');
      expect(nowhere.body.errors[0].message).toBe('destination: the test notification was not accepted: no stream captures the subject.');
      const other = `SUBS_TEST_${run}_GONE`;
      await jsm.streams.add({ name: other, subjects: [`subs-gone.${run}`] });
      const res = await subscribe({ type: 'NATS', url: NATS, subject: `subs-gone.${run}` }, { changes: [{ resourceTypeId: 'resource' }] });
      expect(res.status).toBe(201);
      await jsm.streams.delete(other);
      await createResource();
      const h = await until('ConfigurationError', async () => {
        const now = await health(res.body.id);
        return now.status === 'ConfigurationError' && now;
      });
      expect(h.lastError.message).toBe('no stream captures the subject');
    });
  });

  it.each([
    ['RabbitMQ', (port: number) => ({ type: 'RabbitMQ', uri: `amqp://guest:guest@127.0.0.1:${port}`, exchange: 'resources' })],
    ['NATS', (port: number) => ({ type: 'NATS', url: `nats://127.0.0.1:${port}`, subject: 'resources.changed' })],
  ])('a %s broker that is not there → 400 "could not connect", not what the client library said', async (_type, destination) => {
    const closed = createNetServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const res = await subscribe(destination(port), { changes: [{ resourceTypeId: 'resource' }] });
    expectError(res, 400, 'InvalidInput');
    expect(res.body.errors[0].message).toBe('destination: the test notification was not accepted: could not connect.');
  });
});

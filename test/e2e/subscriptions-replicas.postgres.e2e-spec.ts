import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { connect as amqpConnect, type Channel, type ChannelModel } from 'amqplib';
import { connect as natsConnect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { draft } from '../support/fixtures.js';
import { authHeader, bootstrapEnv, call, freePort, ServerProcess, sleep } from '../support/server-process.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/*
 * Order and completeness under faults (docs/change-log-and-subscriptions.md#subscriptions), for each transport at once: two
 * server processes on one PostgreSQL take 2,000 writes over 50 resources, with three subscriptions (a
 * webhook, RabbitMQ, NATS JetStream). Meanwhile the webhook receiver answers 500 and then too slowly for a
 * while, each broker is unreachable for a while (a proxy in front of the machine's real broker cuts every
 * connection and refuses new ones; the broker itself keeps serving the other tests), and one server
 * process is killed with SIGKILL and started again. Afterwards each destination has every (resource,
 * sequence number) at least once, and never one before all earlier ones of its resource; the duplicate
 * counts are printed. PostgreSQL only: an embedded data directory serves one process.
 */

const TIMEOUT_MS = 300_000;
const RESOURCES = 50;
/** Update rounds after the creates: 50 creates + 50 × 39 updates = 2,000 writes. */
const ROUNDS = 39;
const OUTAGE_MS = 4_000;
const RABBITMQ_PORT = 5672;
const NATS_PORT = 4222;
const run = randomBytes(4).toString('hex');
const CLIENT = { projectKey: `subs-${run}`, clientId: `subs-client-${run}`, clientSecret: `subs-replicas-secret-${run}` };
const PROJECT = CLIENT.projectKey;
const EXCHANGE = `subs-faults-${run}`;
const STREAM = `SUBS_FAULTS_${run}`;
const SUBJECT = `subs-faults.${run}`;

/** A notification as a destination got it: its resource and sequence number (test notifications left out). */
interface Delivered {
  resource: string;
  sequence: number;
}

function messageOf(json: any): Delivered | undefined {
  return json?.notificationType === 'Message' ? { resource: json.resource.id, sequence: json.sequenceNumber } : undefined;
}

describe('subscription delivery by two server processes under faults: webhook, RabbitMQ, NATS', () => {
  const children: ServerProcess[] = [];
  const delivered: Record<'webhook' | 'RabbitMQ' | 'NATS', Delivered[]> = { webhook: [], RabbitMQ: [], NATS: [] };
  let receiver: WebhookReceiver;
  let webhookFault: 'none' | 'error' | 'slow' = 'none';
  /** Webhook attempts answered 500 or after the delivery timeout. */
  let webhookFailed = 0;
  let rabbitProxy: TcpProxy;
  let natsProxy: TcpProxy;
  let broker: ChannelModel;
  let channel: Channel;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let nextStreamSeq = 1;
  const env = () => ({
    ...bootstrapEnv(CLIENT),
    BOOTSTRAP_SCOPES: `manage_test:${PROJECT} manage_subscriptions:${PROJECT}`,
    DATABASE_URL: process.env.DATABASE_URL,
    LOG_LEVEL: 'warn',
    SUBSCRIPTION_POLL_INTERVAL_MS: '50',
    SUBSCRIPTION_RETRY_BASE_MS: '100',
    SUBSCRIPTION_RETRY_MAX_MS: '1000',
    SUBSCRIPTION_DELIVERY_TIMEOUT_MS: '2000',
  });
  const start = async (name: string) => {
    const server = new ServerProcess(name, await freePort(), env());
    children.push(server);
    await server.waitReady();
    return server;
  };

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    receiver.respond = async (r) => {
      if (r.json?.resource?.typeId === 'subscription' || webhookFault === 'none') {
        const message = messageOf(r.json);
        if (message) delivered.webhook.push(message);
        return 204;
      }
      webhookFailed++;
      if (webhookFault === 'error') return 500;
      await sleep(2_500); // past the delivery timeout: the server gives up on this attempt
      return 204;
    };
    rabbitProxy = await TcpProxy.start(RABBITMQ_PORT);
    natsProxy = await TcpProxy.start(NATS_PORT);
    broker = await amqpConnect(`amqp://guest:guest@127.0.0.1:${RABBITMQ_PORT}`);
    channel = await broker.createChannel();
    await channel.assertExchange(EXCHANGE, 'fanout', { durable: false });
    const { queue } = await channel.assertQueue('', { exclusive: true });
    await channel.bindQueue(queue, EXCHANGE, '');
    await channel.consume(queue, (m) => {
      const message = m && messageOf(JSON.parse(m.content.toString()));
      if (message) delivered.RabbitMQ.push(message);
    }, { noAck: true });
    nc = await natsConnect({ servers: `nats://127.0.0.1:${NATS_PORT}` });
    jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: STREAM, subjects: [SUBJECT] });
  }, TIMEOUT_MS);
  afterAll(async () => {
    await Promise.all(children.map((c) => c.stop()));
    await receiver.close();
    await channel?.deleteExchange(EXCHANGE).catch(() => undefined);
    await broker?.close();
    await jsm?.streams.delete(STREAM).catch(() => undefined);
    await nc?.drain();
    await rabbitProxy?.close();
    await natsProxy?.close();
  }, TIMEOUT_MS);

  /** Reads the stream's messages not read yet (in stream order) into `delivered.NATS`. */
  async function readStream(): Promise<void> {
    const { state } = await jsm.streams.info(STREAM);
    for (; nextStreamSeq <= state.last_seq; nextStreamSeq++) {
      const m = await jsm.streams.getMessage(STREAM, { seq: nextStreamSeq }).catch(() => null);
      const message = m && messageOf(m.json());
      if (message) delivered.NATS.push(message);
    }
  }

  /** For a moment `ms` long: `cut`, then `restore`; resolves once restored. */
  const outage = (cut: () => void, restore: () => void, ms: number) => {
    cut();
    return sleep(ms).then(restore);
  };

  it('every destination gets every message at least once and in order per resource', async () => {
    const t0 = Date.now();
    const a = await start('A');
    let b = await start('B');
    const auth = await authHeader(a, CLIENT);
    for (const destination of [
      { type: 'HTTP', url: receiver.url('/faults') },
      { type: 'RabbitMQ', uri: `amqp://guest:guest@127.0.0.1:${rabbitProxy.port}`, exchange: EXCHANGE },
      { type: 'NATS', url: `nats://127.0.0.1:${natsProxy.port}`, subject: SUBJECT },
    ]) {
      const sub = await call(a, 'POST', `/${PROJECT}/subscriptions`, auth, { destination, messages: [{ resourceTypeId: 'resource' }] });
      expect({ type: destination.type, status: sub.status }).toEqual({ type: destination.type, status: 201 });
    }

    const ids: string[] = [];
    for (let i = 0; i < RESOURCES; i++) {
      const created = await call(i % 2 ? b : a, 'POST', `/${PROJECT}/resource`, auth, draft());
      expect(created.status).toBe(201);
      ids.push(created.body.id);
    }
    const versions = new Map(ids.map((id) => [id, 1]));
    const faults: Promise<void>[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (round === 3) {
        webhookFault = 'error';
        faults.push(sleep(OUTAGE_MS / 2).then(() => (webhookFault = 'slow')).then(() => sleep(OUTAGE_MS / 2)).then(() => void (webhookFault = 'none')));
      }
      if (round === 8) faults.push(outage(() => rabbitProxy.cut(), () => rabbitProxy.restore(), OUTAGE_MS));
      if (round === 19) {
        b.child.kill('SIGKILL');
        await b.exited;
        b = await start('B2');
      }
      if (round === 25) faults.push(outage(() => natsProxy.cut(), () => natsProxy.restore(), OUTAGE_MS));
      await Promise.all(
        ids.map(async (id, i) => {
          const server = (i + round) % 2 ? b : a;
          const res = await call(server, 'POST', `/${PROJECT}/resource/${id}`, auth, { version: versions.get(id), actions: [{ action: 'changeSomeProperty', someProperty: `r${round}` }] });
          expect(res.status).toBe(200);
          versions.set(id, res.body.version);
        }),
      );
    }
    await Promise.all(faults);
    const written = Date.now();

    // What the change log holds for the project: every (resource, sequence number) a destination must get.
    const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    const expected = new Set(
      (await db.query<{ pair: string }>(`SELECT resource_id || ':' || sequence_number AS pair FROM message WHERE project_key = $1`, [PROJECT])).rows.map((r) => r.pair),
    );
    await db.end();
    expect(expected.size).toBeGreaterThanOrEqual(RESOURCES * (1 + ROUNDS));

    const missing = (list: Delivered[]) => {
      const got = new Set(list.map((d) => `${d.resource}:${d.sequence}`));
      return [...expected].filter((pair) => !got.has(pair));
    };
    const end = Date.now() + 180_000;
    for (;;) {
      await readStream();
      if (Object.values(delivered).every((list) => missing(list).length === 0) || Date.now() > end) break;
      await sleep(250);
    }

    const report: string[] = [];
    for (const [transport, list] of Object.entries(delivered)) {
      expect({ transport, missing: missing(list).slice(0, 5) }).toEqual({ transport, missing: [] });
      // At least once, in order: a message never arrives before every earlier one of its resource did.
      const seen = new Map<string, Set<number>>();
      const early: string[] = [];
      for (const { resource, sequence } of list) {
        const before = seen.get(resource) ?? new Set<number>();
        for (let s = 1; s < sequence; s++) if (!before.has(s)) early.push(`${resource}:${sequence} before ${s}`);
        before.add(sequence);
        seen.set(resource, before);
      }
      expect({ transport, early: early.slice(0, 5) }).toEqual({ transport, early: [] });
      report.push(`${transport} ${list.length} deliveries (${list.length - expected.size} duplicates)`);
    }
    // The faults were felt: refused and timed-out webhook attempts, broker connections cut or refused.
    expect({ webhookFailures: webhookFailed > 0, rabbitMQ: rabbitProxy.failed > 0, nats: natsProxy.failed > 0 }).toEqual({ webhookFailures: true, rabbitMQ: true, nats: true });
    // eslint-disable-next-line no-console
    console.log(
      `subscriptions under faults: ${expected.size} messages; ${report.join(', ')}; ` +
        `webhook attempts refused or too slow ${webhookFailed}, broker connections cut or refused: RabbitMQ ${rabbitProxy.failed}, NATS ${natsProxy.failed}; ` +
        `start-ups and writes ${written - t0} ms, the rest delivered ${Date.now() - written} ms after the last write`,
    );
    for (const child of children) expect(child.output).not.toMatch(/unhandled|uncaught|"level":(50|60)/i);
  }, TIMEOUT_MS);
});

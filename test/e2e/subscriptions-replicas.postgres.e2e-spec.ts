import { randomBytes } from 'node:crypto';
import { draft } from '../support/fixtures.js';
import { authHeader, bootstrapEnv, call, freePort, ServerProcess, sleep } from '../support/server-process.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/*
 * Two server processes on one PostgreSQL deliver one subscription's notifications together (CONTRACT.md §12
 * "Delivery"): writes go through both, the receiver refuses everything for a while, and one process is
 * killed with SIGKILL mid-way and started again. Afterwards the receiver has every (resource, sequence
 * number) at least once, and never one before all earlier ones of its resource.
 */

const TIMEOUT_MS = 240_000;
const RESOURCES = 16;
const UPDATES = 12;
const run = randomBytes(4).toString('hex');
const CLIENT = { projectKey: `subs-${run}`, clientId: `subs-client-${run}`, clientSecret: `subs-replicas-secret-${run}` };
const PROJECT = CLIENT.projectKey;

describe('subscription delivery by two server processes, one killed mid-way', () => {
  const children: ServerProcess[] = [];
  let receiver: WebhookReceiver;
  let refuseUntil = 0;
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
    receiver.respond = (r) => (r.json?.resource?.typeId === 'subscription' || Date.now() > refuseUntil ? 204 : 500);
  }, TIMEOUT_MS);
  afterAll(async () => {
    await Promise.all(children.map((c) => c.stop()));
    await receiver.close();
  }, TIMEOUT_MS);

  it('delivers every message at least once and in order per resource', async () => {
    const t0 = Date.now();
    const a = await start('A');
    let b = await start('B');
    const auth = await authHeader(a, CLIENT);
    const sub = await call(a, 'POST', `/${PROJECT}/subscriptions`, auth, { destination: { type: 'HTTP', url: receiver.url('/replicas') }, messages: [{ resourceTypeId: 'resource' }] });
    expect(sub.status).toBe(201);

    refuseUntil = Date.now() + 3_000;
    const ids: string[] = [];
    for (let i = 0; i < RESOURCES; i++) {
      const created = await call(i % 2 ? b : a, 'POST', `/${PROJECT}/resource`, auth, draft());
      expect(created.status).toBe(201);
      ids.push(created.body.id);
    }
    const versions = new Map(ids.map((id) => [id, 1]));
    for (let round = 0; round < UPDATES; round++) {
      if (round === UPDATES / 2) {
        b.child.kill('SIGKILL');
        await b.exited;
        b = await start('B2');
      }
      await Promise.all(
        ids.map(async (id, i) => {
          const server = (i + round) % 2 ? b : a;
          const res = await call(server, 'POST', `/${PROJECT}/resource/${id}`, auth, { version: versions.get(id), actions: [{ action: 'changeSomeProperty', someProperty: `r${round}` }] });
          expect(res.status).toBe(200);
          versions.set(id, res.body.version);
        }),
      );
    }

    const written = Date.now();
    const expected = RESOURCES * (1 + UPDATES);
    const deliveries = () => receiver.at('/replicas').filter((r) => r.json?.notificationType === 'Message');
    const distinct = () => new Set(deliveries().map((r) => `${r.json.resource.id}:${r.json.sequenceNumber}`)).size;
    const end = Date.now() + 120_000;
    while (distinct() < expected && Date.now() < end) await sleep(200);
    expect(distinct()).toBe(expected);

    const seen = new Map<string, Set<number>>();
    for (const r of deliveries()) {
      const id: string = r.json.resource.id;
      const sequence: number = r.json.sequenceNumber;
      const before = seen.get(id) ?? new Set<number>();
      for (let s = 1; s < sequence; s++) expect({ id, sequence, missing: s, has: before.has(s) }).toEqual({ id, sequence, missing: s, has: true });
      before.add(sequence);
      seen.set(id, before);
    }
    // eslint-disable-next-line no-console
    console.log(
      `subscriptions-replicas: ${deliveries().length} deliveries of ${expected} messages, ${deliveries().length - expected} duplicates; ` +
        `start-ups and writes ${written - t0} ms, the rest delivered ${Date.now() - written} ms after the last write`,
    );
    for (const child of children) expect(child.output).not.toMatch(/unhandled|uncaught|"level":(50|60)/i);
  }, TIMEOUT_MS);
});

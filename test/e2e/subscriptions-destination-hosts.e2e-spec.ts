import { createServer, type Server } from 'node:net';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { expectErrorEnvelope as expectError } from '../support/expect-error.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/*
 * SUBSCRIPTION_DESTINATION_HOSTS (read when OUTBOUND_DESTINATION_HOSTS is unset): with a list, a destination outside it is refused with
 * 400 InvalidInput before any connection, on create and on changeDestination, whatever the transport; a
 * destination inside it is tested and stored as usual. Another app than subscriptions.e2e-spec.ts's: the
 * setting is read at start-up.
 */

describe('SUBSCRIPTION_DESTINATION_HOSTS=127.0.0.1/32', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  /** A TCP listener on 127.0.0.2, outside the list, that counts the connections it gets (none may come). */
  let probe: Server;
  let connections = 0;
  let probePort: number;
  let manage: Record<string, string>;
  const base = () => `/${t.projectKey}/subscriptions`;
  const count = async () => (await t.http.get(base()).set(manage)).body.total as number;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    probe = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.2', resolve));
    probePort = (probe.address() as { port: number }).port;
    t = await createTestApp({ SUBSCRIPTION_DESTINATION_HOSTS: '127.0.0.1/32', SUBSCRIPTION_DELIVERY_TIMEOUT_MS: '2000' });
    manage = await t.auth('manage_subscriptions');
  });
  afterAll(async () => {
    await t?.close();
    await receiver.close();
    await new Promise((resolve) => probe.close(resolve));
  });

  it('a webhook on an address inside the list is tested and stored (201)', async () => {
    const res = await t.http.post(base()).set(manage).send({ destination: { type: 'HTTP', url: receiver.url('/inside') }, messages: [{ resourceTypeId: 'resource' }] });
    expect(res.status).toBe(201);
    expect(receiver.received.map((r) => r.path)).toContain('/inside');
  });

  it.each([
    ['HTTP', { type: 'HTTP', url: 'http://192.0.2.10:8080/hook' }],
    ['RabbitMQ', { type: 'RabbitMQ', uri: 'amqp://guest:guest@192.0.2.10:5672', exchange: 'resources' }],
    ['NATS', { type: 'NATS', url: 'nats://192.0.2.10:4222', subject: 'resources.changed' }],
  ])('a %s destination outside the list → 400 InvalidInput "host not allowed"; nothing stored', async (_type, destination) => {
    const before = await count();
    const res = await t.http.post(base()).set(manage).send({ destination, messages: [{ resourceTypeId: 'resource' }] });
    expectError(res, 400, 'InvalidInput');
    expect(res.body.message).toBe('destination: host not allowed.');
    expect(await count()).toBe(before);
  });

  it('changeDestination to a host outside the list → 400, the subscription unchanged', async () => {
    const created = await t.http.post(base()).set(manage).send({ destination: { type: 'HTTP', url: receiver.url('/kept') }, messages: [{ resourceTypeId: 'resource' }] });
    expect(created.status).toBe(201);
    const res = await t.http.post(`${base()}/${created.body.id}`).set(manage).send({
      version: 1,
      actions: [{ action: 'changeDestination', destination: { type: 'HTTP', url: 'https://192.0.2.11/x' } }],
    });
    expectError(res, 400, 'InvalidInput');
    expect(res.body.message).toBe('destination: host not allowed.');
    const now = (await t.http.get(`${base()}/${created.body.id}`).set(manage)).body;
    expect({ version: now.version, url: now.destination.url }).toEqual({ version: 1, url: receiver.url('/kept') });
  });

  it('a listening host outside the list gets no connection; a link-local address is refused as well', async () => {
    const outside = await t.http.post(base()).set(manage).send({ destination: { type: 'HTTP', url: `http://127.0.0.2:${probePort}/hook` }, messages: [{ resourceTypeId: 'resource' }] });
    expectError(outside, 400, 'InvalidInput');
    expect(outside.body.message).toBe('destination: host not allowed.');
    expect(connections).toBe(0);
    const linkLocal = await t.http.post(base()).set(manage).send({ destination: { type: 'HTTP', url: 'http://169.254.169.254/latest' }, messages: [{ resourceTypeId: 'resource' }] });
    expectError(linkLocal, 400, 'InvalidInput');
    expect(linkLocal.body.message).toBe('destination: host not allowed.');
  });
});

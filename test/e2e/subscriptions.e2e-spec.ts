import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { expectErrorEnvelope as expectError } from '../support/expect-error.js';
import { verifyStandardWebhook, WebhookReceiver } from '../support/webhook-receiver.js';

/*
 * /{projectKey}/subscriptions (docs/change-log-and-subscriptions.md#subscriptions): create, read, update actions, delete; validation, the
 * 50 limit, scopes, isolation between projects, the webhook secret shown once, destinations refused
 * before anything is stored. A real webhook receiver on loopback gets the test notifications.
 */

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const MASKED = /^whsec_\*\*\*\*[A-Za-z0-9+/=]{4}$/;

describe('/{projectKey}/subscriptions', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let manage: Record<string, string>;
  let pk: string;
  const base = () => `/${pk}/subscriptions`;
  const draft = (extra: Record<string, unknown> = {}) => ({
    destination: { type: 'HTTP', url: receiver.url('/hook') },
    messages: [{ resourceTypeId: 'resource' }],
    ...extra,
  });
  const create = async (extra: Record<string, unknown> = {}) => {
    const res = await t.http.post(base()).set(manage).send(draft(extra));
    expect(res.status).toBe(201);
    return res.body;
  };
  const total = async () => (await t.http.get(base()).set(manage)).body.total as number;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await createTestApp({ SUBSCRIPTION_DELIVERY_TIMEOUT_MS: '2000' });
    pk = t.projectKey;
    manage = await t.auth('manage_subscriptions');
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });
  beforeEach(() => {
    receiver.respond = () => 204;
  });

  describe('POST /{projectKey}/subscriptions', () => {
    it('answers 201 with the subscription and its secret, after the destination accepted a signed test notification', async () => {
      const before = receiver.received.length;
      const res = await t.http.post(base()).set(manage).send(draft({ key: 'indexer', changes: [{ resourceTypeId: 'resource' }] }));
      expect(res.status).toBe(201);
      expect(Object.keys(res.body)).toEqual(['id', 'version', 'key', 'destination', 'messages', 'changes', 'format', 'createdAt', 'lastModifiedAt']);
      expect(res.body).toMatchObject({
        version: 1,
        key: 'indexer',
        destination: { type: 'HTTP', url: receiver.url('/hook') },
        messages: [{ resourceTypeId: 'resource' }],
        changes: [{ resourceTypeId: 'resource' }],
        format: { type: 'Platform' },
      });
      expect(res.body.destination.secret).toMatch(SECRET);
      expect(res.body.createdAt).toMatch(ISO);
      const test = receiver.received.slice(before);
      expect(test).toHaveLength(1);
      expect(test[0].json).toEqual({ notificationType: 'ResourceCreated', projectKey: pk, resource: { typeId: 'subscription', id: res.body.id } });
      expect(test[0].headers['content-type']).toBe('application/json');
      expect(verifyStandardWebhook(res.body.destination.secret, test[0])).toBe(true);
    });

    it('sends the test notification as a CloudEvent in that format', async () => {
      const before = receiver.received.length;
      const body = await create({ format: { type: 'CloudEvents', cloudEventsVersion: '1.0' } });
      expect(body.format).toEqual({ type: 'CloudEvents', cloudEventsVersion: '1.0' });
      const [test] = receiver.received.slice(before);
      expect(test.headers['content-type']).toBe('application/cloudevents+json');
      expect(test.json).toMatchObject({
        specversion: '1.0',
        id: test.headers['webhook-id'],
        subject: body.id,
        data: { notificationType: 'ResourceCreated', projectKey: pk, resource: { typeId: 'subscription', id: body.id } },
      });
      expect(verifyStandardWebhook(body.destination.secret, test)).toBe(true);
    });

    it.each([
      ['no destination', { messages: [{ resourceTypeId: 'resource' }] }, 'destination'],
      ['an unknown destination type', { destination: { type: 'SQS', url: 'http://x' }, messages: [{ resourceTypeId: 'resource' }] }, 'destination.type'],
      ['an HTTP destination without url', { destination: { type: 'HTTP' }, messages: [{ resourceTypeId: 'resource' }] }, 'destination.url'],
      ['a URL that is not http(s)', { destination: { type: 'HTTP', url: 'ftp://example.com/' }, messages: [{ resourceTypeId: 'resource' }] }, 'destination.url'],
      ['neither messages nor changes', { destination: { type: 'HTTP', url: 'http://example.com/' } }, 'messages'],
      ['both empty', { destination: { type: 'HTTP', url: 'http://example.com/' }, messages: [], changes: [] }, 'messages'],
      ['an unknown message type', { destination: { type: 'HTTP', url: 'http://example.com/' }, messages: [{ resourceTypeId: 'resource', types: ['Nope'] }] }, 'messages[0].types[0]'],
      ['another resource type', { destination: { type: 'HTTP', url: 'http://example.com/' }, changes: [{ resourceTypeId: 'product' }] }, 'changes[0].resourceTypeId'],
      ['a bad key', { key: 'a b', destination: { type: 'HTTP', url: 'http://example.com/' }, changes: [{ resourceTypeId: 'resource' }] }, 'key'],
      ['an unknown format', { destination: { type: 'HTTP', url: 'http://example.com/' }, changes: [{ resourceTypeId: 'resource' }], format: { type: 'Xml' } }, 'format.type'],
      ['an unknown member', { destination: { type: 'HTTP', url: 'http://example.com/' }, changes: [{ resourceTypeId: 'resource' }], extra: 1 }, 'extra'],
    ])('refuses %s with 400 naming the field, storing nothing', async (_name, body, field) => {
      const before = await total();
      const res = await t.http.post(base()).set(manage).send(body);
      expectError(res, 400);
      expect(JSON.stringify(res.body.errors)).toContain(field);
      expect(await total()).toBe(before);
    });

    describe('a destination that does not accept the test notification → 400 InvalidInput with one reason of a fixed list; nothing stored', () => {
      /** The whole message: the reason and nothing a library or the operating system said. */
      const REFUSED = /^destination: the test notification was not accepted: (could not connect|TLS failed|timed out|answered HTTP \d{3})\.$/;
      const LEAKS = /ECONN|EPIPE|ENOTFOUND|EHOST|socket|SSL|error:|other side|\/|\d+\.\d+\.\d+\.\d+|\bat\b/;
      /** Plain TCP listeners on loopback: one closing each connection at once, one never answering. */
      const servers: NetServer[] = [];
      const sockets: Socket[] = [];
      const listen = async (onConnection: (socket: Socket) => void): Promise<number> => {
        const server = createNetServer((socket) => {
          sockets.push(socket);
          onConnection(socket);
        });
        servers.push(server);
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        return (server.address() as AddressInfo).port;
      };
      afterAll(async () => {
        for (const socket of sockets) socket.destroy();
        await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
      });

      const refusedWith = async (url: string, reason: string) => {
        const before = await total();
        const res = await t.http.post(base()).set(manage).send(draft({ destination: { type: 'HTTP', url } }));
        expectError(res, 400, 'InvalidInput');
        for (const message of [res.body.message, res.body.errors[0].message]) {
          expect(message).toMatch(REFUSED);
          expect(message).toBe(`destination: the test notification was not accepted: ${reason}.`);
          expect(message.slice('destination: '.length)).not.toMatch(LEAKS);
        }
        expect(await total()).toBe(before);
      };

      it('answered HTTP <status>: a 5xx, a redirect (not followed)', async () => {
        receiver.respond = () => 500;
        await refusedWith(receiver.url('/hook'), 'answered HTTP 500');
        receiver.respond = () => 302;
        await refusedWith(receiver.url('/hook'), 'answered HTTP 302');
      });

      it('could not connect: a closed port', async () => {
        const port = await listen(() => undefined);
        await new Promise((resolve) => servers.pop()!.close(resolve));
        await refusedWith(`http://127.0.0.1:${port}/hook`, 'could not connect');
      });

      it('could not connect: a server that closes the connection', async () => {
        const port = await listen((socket) => socket.destroy());
        await refusedWith(`http://127.0.0.1:${port}/hook`, 'could not connect');
      });

      it('TLS failed: https:// to a plain-HTTP receiver', async () => {
        await refusedWith(receiver.url('/hook').replace(/^http:/, 'https:'), 'TLS failed');
      });

      it('timed out: a server that never answers (SUBSCRIPTION_DELIVERY_TIMEOUT_MS, 2 s here)', async () => {
        const port = await listen((socket) => socket.resume());
        await refusedWith(`http://127.0.0.1:${port}/hook`, 'timed out');
      });
    });

    describe('a link-local or unspecified destination → 400 "host not allowed" before any connection, under every spelling; nothing stored', () => {
      it.each([
        'http://169.254.169.254/latest/meta-data',
        'http://0251.0376.0251.0376/x',
        'http://2852039166/x',
        'http://[fe80::1]:8080/hook',
        'http://[::ffff:169.254.1.1]/hook',
        'http://[::ffff:a9fe:a9fe]/x',
        'http://[::ffff:0:a9fe:a9fe]/x',
        'http://[::a9fe:a9fe]/x',
        'http://[::169.254.169.254]/x',
        'http://[64:ff9b::a9fe:a9fe]/x',
        'http://[0064:FF9B::A9FE:A9FE]/x',
        'http://[2002:a9fe:a9fe::]/x',
        'http://0.0.0.0:8080/x',
        'http://[::]:8080/x',
      ])('HTTP %s', async (url) => {
        const before = await total();
        const res = await t.http.post(base()).set(manage).send(draft({ destination: { type: 'HTTP', url } }));
        expectError(res, 400, 'InvalidInput');
        expect(res.body.errors[0].message).toBe('destination: host not allowed.');
        expect(await total()).toBe(before);
      });

      it.each([
        ['RabbitMQ', { type: 'RabbitMQ', uri: 'amqp://guest:guest@[64:ff9b::a9fe:a9fe]:5672', exchange: 'resources' }],
        ['RabbitMQ', { type: 'RabbitMQ', uri: 'amqp://0xa9fea9fe', exchange: 'resources' }],
        ['NATS', { type: 'NATS', url: 'nats://[2002:a9fe:a9fe::]:4222', subject: 'resources.changed' }],
        ['NATS', { type: 'NATS', url: 'tls://[::ffff:169.254.169.254]:4222', subject: 'resources.changed' }],
      ])('%s %j', async (_type, destination) => {
        const before = await total();
        const res = await t.http.post(base()).set(manage).send({ destination, messages: [{ resourceTypeId: 'resource' }] });
        expectError(res, 400, 'InvalidInput');
        expect(res.body.errors[0].message).toBe('destination: host not allowed.');
        expect(await total()).toBe(before);
      });
    });

    it('refuses a taken key with DuplicateField', async () => {
      await create({ key: 'taken-key' });
      const res = await t.http.post(base()).set(manage).send(draft({ key: 'taken-key' }));
      expectError(res, 400, 'DuplicateField');
      expect(res.body.errors[0]).toMatchObject({ field: 'key', duplicateValue: 'taken-key' });
    });

    it('allows 50 subscriptions per project; the 51st is 400 MaxResourceLimitExceeded', async () => {
      const project = `${pk}-limit`;
      const header = await t.auth('manage_subscriptions', { projectKey: project });
      const path = `/${project}/subscriptions`;
      await Promise.all(Array.from({ length: 50 }, () => t.http.post(path).set(header).send(draft()).expect(201)));
      const res = await t.http.post(path).set(header).send(draft());
      expectError(res, 400, 'MaxResourceLimitExceeded');
      expect((await t.http.get(path).set(header)).body.total).toBe(50);
    });
  });

  describe('GET /{projectKey}/subscriptions[/…]', () => {
    it('answers the subscription by id and by key with the secret masked; the list pages', async () => {
      const created = await create({ key: 'read-me' });
      const byId = await t.http.get(`${base()}/${created.id}`).set(manage);
      expect(byId.status).toBe(200);
      expect(byId.body.destination.secret).toMatch(MASKED);
      expect(byId.body.destination.secret.slice(-4)).toBe(created.destination.secret.slice(-4));
      expect({ ...byId.body, destination: undefined }).toEqual({ ...created, destination: undefined });
      const byKey = await t.http.get(`${base()}/key=read-me`).set(manage);
      expect(byKey.body).toEqual(byId.body);
      const page = await t.http.get(base()).query({ limit: 1, offset: 0 }).set(manage);
      expect(page.body).toMatchObject({ limit: 1, offset: 0, count: 1 });
      expect(page.body.total).toBeGreaterThanOrEqual(2);
      expect(JSON.stringify((await t.http.get(base()).query({ limit: 500 }).set(manage)).body)).not.toMatch(/whsec_[A-Za-z0-9+/]{8}/);
    });

    it('answers 404 for an unknown id or key', async () => {
      expectError(await t.http.get(`${base()}/00000000-0000-4000-8000-000000000000`).set(manage), 404, 'ResourceNotFound');
      expectError(await t.http.get(`${base()}/not-a-uuid`).set(manage), 404, 'ResourceNotFound');
      expectError(await t.http.delete(`${base()}/not-a-uuid`).query({ version: 1 }).set(manage), 404, 'ResourceNotFound');
      expectError(await t.http.post(`${base()}/not-a-uuid`).set(manage).send({ version: 1, actions: [{ action: 'setKey' }] }), 404, 'ResourceNotFound');
      expectError(await t.http.get(`${base()}/not-a-uuid/health`).set(manage), 404, 'ResourceNotFound');
      expectError(await t.http.get(`${base()}/key=nobody`).set(manage), 404, 'ResourceNotFound');
    });
  });

  describe('POST /{projectKey}/subscriptions/{id}', () => {
    it('applies setKey, setMessages, setChanges and setFormat, +1 version, the secret stays masked', async () => {
      const created = await create();
      const res = await t.http.post(`${base()}/${created.id}`).set(manage).send({
        version: 1,
        actions: [
          { action: 'setKey', key: 'renamed' },
          { action: 'setMessages', messages: [{ resourceTypeId: 'resource', types: ['ResourceDeleted'] }] },
          { action: 'setChanges', changes: [{ resourceTypeId: 'resource' }] },
          { action: 'setFormat', format: { type: 'CloudEvents' } },
        ],
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        version: 2,
        key: 'renamed',
        messages: [{ resourceTypeId: 'resource', types: ['ResourceDeleted'] }],
        changes: [{ resourceTypeId: 'resource' }],
        format: { type: 'CloudEvents', cloudEventsVersion: '1.0' },
      });
      expect(res.body.destination.secret).toMatch(MASKED);
      const unkeyed = await t.http.post(`${base()}/${created.id}`).set(manage).send({ version: 2, actions: [{ action: 'setKey' }] });
      expect(unkeyed.body.key).toBeUndefined();
    });

    it('changeDestination tests the new destination and answers a new secret, once', async () => {
      const created = await create();
      const before = receiver.received.length;
      const res = await t.http.post(`${base()}/${created.id}`).set(manage).send({
        version: 1,
        actions: [{ action: 'changeDestination', destination: { type: 'HTTP', url: receiver.url('/other') } }],
      });
      expect(res.status).toBe(200);
      expect(res.body.destination.url).toBe(receiver.url('/other'));
      expect(res.body.destination.secret).toMatch(SECRET);
      expect(res.body.destination.secret).not.toBe(created.destination.secret);
      const [test] = receiver.received.slice(before);
      expect(test.path).toBe('/other');
      expect(verifyStandardWebhook(res.body.destination.secret, test)).toBe(true);
      expect((await t.http.get(`${base()}/${created.id}`).set(manage)).body.destination.secret).toMatch(MASKED);
    });

    it('a refused new destination changes nothing', async () => {
      const created = await create();
      receiver.respond = () => 404;
      const res = await t.http.post(`${base()}/${created.id}`).set(manage).send({
        version: 1,
        actions: [{ action: 'changeDestination', destination: { type: 'HTTP', url: receiver.url('/gone') } }],
      });
      expectError(res, 400, 'InvalidInput');
      expect(res.body.errors[0].message).toMatch(/HTTP 404/);
      const now = (await t.http.get(`${base()}/${created.id}`).set(manage)).body;
      expect(now.version).toBe(1);
      expect(now.destination.url).toBe(receiver.url('/hook'));
    });

    it('answers 409 with the current version on a mismatch, 400 when nothing would be subscribed, 400 on an unknown action', async () => {
      const created = await create();
      const stale = await t.http.post(`${base()}/${created.id}`).set(manage).send({ version: 7, actions: [{ action: 'setKey', key: 'x1' }] });
      expectError(stale, 409, 'ConcurrentModification');
      expect(stale.body.errors[0].currentVersion).toBe(1);
      const empty = await t.http.post(`${base()}/${created.id}`).set(manage).send({ version: 1, actions: [{ action: 'setMessages', messages: [] }] });
      expectError(empty, 400, 'InvalidInput');
      const unknown = await t.http.post(`${base()}/${created.id}`).set(manage).send({ version: 1, actions: [{ action: 'explode' }] });
      expectError(unknown, 400);
      expect((await t.http.get(`${base()}/${created.id}`).set(manage)).body.version).toBe(1);
    });
  });

  describe('DELETE /{projectKey}/subscriptions/{id}', () => {
    it('needs the current version: 409 otherwise, then 200 with the subscription, then 404', async () => {
      const created = await create();
      expectError(await t.http.delete(`${base()}/${created.id}`).query({ version: 2 }).set(manage), 409, 'ConcurrentModification');
      expectError(await t.http.delete(`${base()}/${created.id}`).set(manage), 400);
      const res = await t.http.delete(`${base()}/${created.id}`).query({ version: 1 }).set(manage);
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(created.id);
      expect(res.body.destination.secret).toMatch(MASKED);
      expectError(await t.http.get(`${base()}/${created.id}`).set(manage), 404, 'ResourceNotFound');
    });
  });

  describe('access', () => {
    it('reads with view_subscriptions; writes need manage_subscriptions; other scopes are 403; no token 401', async () => {
      const created = await create();
      const view = await t.auth('view_subscriptions');
      expect((await t.http.get(`${base()}/${created.id}`).set(view)).status).toBe(200);
      expect((await t.http.get(`${base()}/${created.id}/health`).set(view)).status).toBe(200);
      expect((await t.http.get(base()).set(view)).status).toBe(200);
      expectError(await t.http.post(base()).set(view).send(draft()), 403, 'insufficient_scope');
      expectError(await t.http.delete(`${base()}/${created.id}`).query({ version: 1 }).set(view), 403, 'insufficient_scope');
      const other = await t.auth('manage_test view_messages');
      expectError(await t.http.get(base()).set(other), 403, 'insufficient_scope');
      expectError(await t.http.get(base()), 401, 'invalid_token');
    });

    it('keeps projects apart: another project\'s subscription is 404 and not listed', async () => {
      const created = await create({ key: 'mine' });
      const otherHeader = await t.auth('manage_subscriptions', { projectKey: t.otherProjectKey });
      const other = `/${t.otherProjectKey}/subscriptions`;
      expectError(await t.http.get(`${other}/${created.id}`).set(otherHeader), 404);
      expectError(await t.http.get(`${other}/key=mine`).set(otherHeader), 404);
      expectError(await t.http.get(`${other}/${created.id}/health`).set(otherHeader), 404);
      expectError(await t.http.delete(`${other}/${created.id}`).query({ version: 1 }).set(otherHeader), 404);
      expectError(await t.http.post(`${other}/${created.id}`).set(otherHeader).send({ version: 1, actions: [{ action: 'setKey', key: 'stolen' }] }), 404);
      expect((await t.http.get(other).set(otherHeader)).body.total).toBe(0);
      expectError(await t.http.get(`${base()}/${created.id}`).set(otherHeader), 403, 'insufficient_scope');
    });
  });
});

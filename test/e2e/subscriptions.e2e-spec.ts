import { createTestApp, TestApp } from '../support/test-app.js';
import { expectErrorEnvelope as expectError } from '../support/expect-error.js';
import { verifyStandardWebhook, WebhookReceiver } from '../support/webhook-receiver.js';

/*
 * /{projectKey}/subscriptions (CONTRACT.md §12): create, read, update actions, delete; validation, the
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

    it('refuses a destination that does not accept the test notification with 400 InvalidInput naming the failure; nothing is stored', async () => {
      const before = await total();
      receiver.respond = () => 500;
      const failing = await t.http.post(base()).set(manage).send(draft());
      expectError(failing, 400, 'InvalidInput');
      expect(failing.body.errors[0].message).toMatch(/test notification.*HTTP 500/);
      receiver.respond = () => 302;
      const redirect = await t.http.post(base()).set(manage).send(draft());
      expectError(redirect, 400, 'InvalidInput');
      expect(redirect.body.errors[0].message).toMatch(/HTTP 302.*redirects are not followed/);
      const closed = await t.http.post(base()).set(manage).send(draft({ destination: { type: 'HTTP', url: 'http://127.0.0.1:2/hook' } }));
      expectError(closed, 400, 'InvalidInput');
      expect(closed.body.errors[0].message).toMatch(/ECONNREFUSED/);
      expect(await total()).toBe(before);
    });

    it('refuses a link-local destination before connecting, by address or by a name resolving to one', async () => {
      const before = await total();
      for (const url of ['http://169.254.169.254/latest/meta-data', 'http://[fe80::1]:8080/hook', 'http://[::ffff:169.254.1.1]/hook']) {
        const res = await t.http.post(base()).set(manage).send(draft({ destination: { type: 'HTTP', url } }));
        expectError(res, 400, 'InvalidInput');
        expect(res.body.errors[0].message).toMatch(/not allowed/);
      }
      expect(await total()).toBe(before);
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

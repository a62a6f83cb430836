import { createTestApp, type TestApp } from '../support/test-app.js';
import { arrays, draft, INT64_MAX, type ResourceBody } from '../support/fixtures.js';
import { newKey, resourcePath } from '../support/resources.js';
import { png } from '../support/image-bytes.js';
import { deadline, sleep } from '../support/timing.js';
import { MESSAGE_TYPES } from '../../src/query-language/message.catalogue.js';

/**
 * The change log as every write records it (docs/change-log-and-subscriptions.md#change-log): each cause of the table produces exactly its
 * messages, in order, with their payloads, sequence numbers and the version's record; refused, failed
 * and empty writes record nothing; each version's snapshot is what GET by id answered right after it.
 * Read back through GET /messages and GET /resource/{id}/versions, as a client would.
 */

interface Message {
  id: string;
  version: number;
  sequenceNumber: number;
  resource: { typeId: string; id: string };
  resourceVersion: number;
  resourceUserProvidedIdentifiers: { key?: string };
  type: string;
  createdAt: string;
  lastModifiedAt: string;
  createdBy: { clientId: string; customerId?: string };
  lastModifiedBy: { clientId: string; customerId?: string };
  [member: string]: unknown;
}

describe('the change log of every write', () => {
  let t: TestApp;
  let pk: string;

  beforeAll(async () => {
    t = await createTestApp({ IMAGES_WORKER_INTERVAL_MS: '20' });
    pk = t.projectKey;
  });
  afterAll(async () => {
    await t.close();
  });

  const path = (id = '') => resourcePath(pk, id);
  const manage = () => t.auth('manage_test');

  /** The resource's messages, oldest first, as GET /messages answers them (text kept for exact payloads). */
  async function messagesOf(id: string): Promise<{ messages: Message[]; text: string }> {
    const res = await t.http
      .get(`/${pk}/messages`)
      .query({ where: `resource(id = "${id}")`, sort: 'sequenceNumber asc', limit: 500 })
      .set(await t.auth('view_messages'));
    expect(res.status).toBe(200);
    return { messages: res.body.results as Message[], text: res.text };
  }

  async function versionsOf(id: string): Promise<{ version: number; types: string[]; modifiedAt: string; modifiedBy: unknown }[]> {
    const res = await t.http.get(`${path(id)}/versions`).query({ limit: 500 }).set(await t.auth('view_audit_log'));
    expect(res.status).toBe(200);
    return res.body.results;
  }

  async function snapshot(id: string, version: number): Promise<string> {
    const res = await t.http.get(`${path(id)}/versions/${version}`).set(await t.auth('view_test')).buffer(true);
    expect(res.status).toBe(200);
    return res.text;
  }

  async function readText(id: string): Promise<string> {
    const res = await t.http.get(path(id)).set(await t.auth('view_test')).buffer(true);
    expect(res.status).toBe(200);
    return res.text;
  }

  async function create(body: object = draft({ key: newKey() })): Promise<ResourceBody> {
    const res = await t.http.post(path()).set(await manage()).send(body);
    expect(res.status).toBe(201);
    return res.body as ResourceBody;
  }

  /** The messages' types and payloads (the members beyond the common ones), in order. */
  const update = async (id: string, version: number, actions: object[]) => t.http.post(path(id)).set(await manage()).send({ version, actions });
  const upload = async (key: string, headers: Record<string, string> = {}) =>
    t.http
      .post(`/${pk}/resource/images`)
      .query({ sku: key, filename: 'pic.png' })
      .set({ ...(await t.auth('manage_products')), ...headers })
      .set('Content-Type', 'image/png')
      .send(png());
  const payloads = (messages: Message[]) =>
    messages.map(({ id, version, sequenceNumber, resource, resourceVersion, resourceUserProvidedIdentifiers, createdAt, lastModifiedAt, createdBy, lastModifiedBy, ...rest }) => rest);

  describe('create', () => {
    it('POST without key: one ResourceCreated carrying the representation; version 1 recorded', async () => {
      const created = await create(draft());
      const after = await readText(created.id);
      const { messages } = await messagesOf(created.id);
      expect(messages).toHaveLength(1);
      const [m] = messages;
      expect(m).toMatchObject({
        version: 1,
        sequenceNumber: 1,
        resource: { typeId: 'resource', id: created.id },
        resourceVersion: 1,
        resourceUserProvidedIdentifiers: {},
        type: 'ResourceCreated',
        createdAt: created.lastModifiedAt,
        lastModifiedAt: created.lastModifiedAt,
        createdBy: created.createdBy,
        lastModifiedBy: created.createdBy,
      });
      expect(m.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(m.representation).toEqual(JSON.parse(after));
      expect(await versionsOf(created.id)).toEqual([{ version: 1, modifiedAt: created.lastModifiedAt, modifiedBy: created.createdBy, types: ['ResourceCreated'] }]);
      expect(await snapshot(created.id, 1)).toBe(after);
    });

    it('PUT of a new key: ResourceCreated with the key; 64-bit integers exact in the payload and the snapshot', async () => {
      const key = newKey('put');
      const body = `{"key":"${key}","objectTypeProperty":${JSON.stringify(arrays()).replace('"arrayOfIntExample":[', `"arrayOfIntExample":[${INT64_MAX},`)}}`;
      const res = await t.http.put(path()).set(await manage()).set('Content-Type', 'application/json').send(body);
      expect(res.status).toBe(201);
      const id = res.body.id as string;
      const { messages, text } = await messagesOf(id);
      expect(messages.map((m) => [m.type, m.resourceUserProvidedIdentifiers.key])).toEqual([['ResourceCreated', key]]);
      expect(text).toContain(`"arrayOfIntExample":[${INT64_MAX},`);
      expect(await snapshot(id, 1)).toContain(`"arrayOfIntExample":[${INT64_MAX},`);
    });
  });

  describe('overwrite by key', () => {
    it('POST, PUT and PATCH of an existing key: ObjectTypePropertySet, then ResourcePublished/Unpublished only when the flag changed', async () => {
      const key = newKey('ow');
      const created = await create(draft({ key }));
      const snapshots = [await readText(created.id)];
      const writes: [string, object][] = [
        ['post', draft({ key }, { arrayOfStringExample: ['two'] })],
        ['put', draft({ key, publish: false }, { arrayOfStringExample: ['three'] })],
        ['patch', draft({ key, publish: false }, { arrayOfStringExample: ['four'] })],
        ['patch', draft({ key, publish: true }, { arrayOfStringExample: ['five'] })],
      ];
      for (const [method, body] of writes) {
        const res = await t.http[method as 'post' | 'put' | 'patch'](path()).set(await manage()).send(body);
        expect(res.status).toBeLessThan(300);
        snapshots.push(await readText(created.id));
      }
      const { messages } = await messagesOf(created.id);
      expect(messages.map((m) => [m.sequenceNumber, m.resourceVersion, m.type])).toEqual([
        [1, 1, 'ResourceCreated'],
        [2, 2, 'ObjectTypePropertySet'],
        [3, 3, 'ObjectTypePropertySet'],
        [4, 3, 'ResourceUnpublished'],
        [5, 4, 'ObjectTypePropertySet'],
        [6, 5, 'ObjectTypePropertySet'],
        [7, 5, 'ResourcePublished'],
      ]);
      expect((messages[1].objectTypeProperty as { arrayOfStringExample: string[] }).arrayOfStringExample).toEqual(['two']);
      expect((messages[5].objectTypeProperty as { arrayOfStringExample: string[] }).arrayOfStringExample).toEqual(['five']);
      expect(payloads([messages[3]])).toEqual([{ type: 'ResourceUnpublished' }]);
      // All messages of one write share createdAt, the version's lastModifiedAt.
      expect(messages[3].createdAt).toBe(messages[2].createdAt);
      expect((await versionsOf(created.id)).map((v) => [v.version, v.types])).toEqual([
        [5, ['ObjectTypePropertySet', 'ResourcePublished']],
        [4, ['ObjectTypePropertySet']],
        [3, ['ObjectTypePropertySet', 'ResourceUnpublished']],
        [2, ['ObjectTypePropertySet']],
        [1, ['ResourceCreated']],
      ]);
      for (const [i, text] of snapshots.entries()) expect(await snapshot(created.id, i + 1)).toBe(text);
    });
  });

  describe('update actions', () => {
    it('one message per action in action order, with new and old values', async () => {
      const created = await create(draft({ key: newKey('ua') }));
      const oldKey = created.key!;
      const res = await update(created.id, 1, [
        { action: 'doSomeThing' },
        { action: 'changeSomeProperty', someProperty: 'first' },
        { action: 'changeSomeProperty', someProperty: 'second' },
        { action: 'importFooForSecondPropertyToUpdate', secondPropertyToUpdate: 'imported' },
        { action: 'setKey', key: 'renamed-' + oldKey },
        { action: 'setKey' },
        { action: 'setObjectTypeProperty', objectTypeProperty: arrays({ arrayOfStringExample: ['set'] }) },
        { action: 'unpublish' },
        { action: 'publish' },
      ]);
      expect(res.status).toBe(200);
      const second = await update(created.id, 2, [{ action: 'changeSomeProperty', someProperty: 'third' }, { action: 'setKey', key: 'again-' + oldKey }]);
      expect(second.status).toBe(200);
      const { messages } = await messagesOf(created.id);
      expect(messages.map((m) => m.sequenceNumber)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
      expect(messages.slice(1).map((m) => m.resourceVersion)).toEqual([2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3]);
      expect(payloads(messages.slice(1))).toEqual([
        { type: 'SomeThingDone' },
        { type: 'SomePropertyChanged', someProperty: 'first' },
        { type: 'SomePropertyChanged', someProperty: 'second', oldSomeProperty: 'first' },
        { type: 'SecondPropertyToUpdateImported', secondPropertyToUpdate: 'imported' },
        { type: 'KeySet', key: 'renamed-' + oldKey, oldKey },
        { type: 'KeySet', oldKey: 'renamed-' + oldKey },
        { type: 'ObjectTypePropertySet', objectTypeProperty: arrays({ arrayOfStringExample: ['set'] }) },
        { type: 'ResourceUnpublished' },
        { type: 'ResourcePublished' },
        { type: 'SomePropertyChanged', someProperty: 'third', oldSomeProperty: 'second' },
        { type: 'KeySet', key: 'again-' + oldKey },
      ]);
      // The key the resource has after the write.
      expect(messages[9].resourceUserProvidedIdentifiers).toEqual({});
      expect(messages[11].resourceUserProvidedIdentifiers).toEqual({ key: 'again-' + oldKey });
      expect((await versionsOf(created.id))[1].types).toEqual([
        'SomeThingDone',
        'SomePropertyChanged',
        'SomePropertyChanged',
        'SecondPropertyToUpdateImported',
        'KeySet',
        'KeySet',
        'ObjectTypePropertySet',
        'ResourceUnpublished',
        'ResourcePublished',
      ]);
      expect(await snapshot(created.id, 3)).toBe(await readText(created.id));
    });

    it('records nothing for an empty action list, a 400, a 404, a 409, or a taken key (a write that fails inside its statement)', async () => {
      const other = await create(draft({ key: newKey('taken') }));
      const created = await create(draft({ key: newKey('nothing') }));
      const auth = await manage();
      expect((await t.http.post(path(created.id)).set(auth).send({ version: 1, actions: [] })).status).toBe(200);
      expect((await t.http.post(path(created.id)).set(auth).send({ version: 1, actions: [{ action: 'nope' }] })).status).toBe(400);
      expect((await t.http.post(path(created.id)).set(auth).send({ version: 7, actions: [{ action: 'doSomeThing' }] })).status).toBe(409);
      expect((await t.http.post(path(created.id)).set(auth).send({ version: 1, actions: [{ action: 'changeSomeProperty', someProperty: 'x' }, { action: 'setKey', key: other.key }] })).status).toBe(400);
      expect((await t.http.post(path('3f2504e0-4f89-41d3-9a0c-0305e82c3301')).set(auth).send({ version: 1, actions: [{ action: 'doSomeThing' }] })).status).toBe(404);
      expect((await t.http.put(path()).set(auth).send(draft({ key: created.key, version: 5 }))).status).toBe(409);
      expect((await t.http.patch(path()).set(auth).send(draft({ key: newKey('absent') }))).status).toBe(404);
      expect((await t.http.delete(path(created.id)).query({ version: 4 }).set(auth)).status).toBe(409);
      expect((await messagesOf(created.id)).messages.map((m) => m.type)).toEqual(['ResourceCreated']);
      expect((await versionsOf(created.id)).map((v) => v.version)).toEqual([1]);
      expect((await t.http.get(`${path(created.id)}/versions/2`).set(await t.auth('view_test'))).status).toBe(404);
    });
  });

  describe('images', () => {
    it('an attach by the 200 path: ImageAdded with the image, a new version', async () => {
      const created = await create(draft({ key: newKey('img') }));
      const res = await upload(created.key!);
      expect(res.status).toBe(200);
      const image = (res.body as ResourceBody).images[0];
      const { messages } = await messagesOf(created.id);
      expect(payloads(messages)).toEqual([expect.objectContaining({ type: 'ResourceCreated' }), { type: 'ImageAdded', image }]);
      expect(messages[1]).toMatchObject({ sequenceNumber: 2, resourceVersion: 2 });
      expect((await versionsOf(created.id))[0]).toMatchObject({ version: 2, types: ['ImageAdded'] });
      expect(await snapshot(created.id, 2)).toBe(await readText(created.id));
    });

    it('an attach by the 202 job: ImageAdded when the worker attaches', async () => {
      const created = await create(draft({ key: newKey('job') }));
      const res = await upload(created.key!, { Prefer: 'respond-async' });
      expect(res.status).toBe(202);
      const timeout = deadline(20_000);
      let types: string[] = [];
      while (types.length < 2) {
        types = (await messagesOf(created.id)).messages.map((m) => m.type);
        if (await Promise.race([timeout.then(() => true), sleep(50).then(() => false)])) break;
      }
      expect(types).toEqual(['ResourceCreated', 'ImageAdded']);
      const { messages } = await messagesOf(created.id);
      const attached = JSON.parse(await readText(created.id)) as ResourceBody;
      expect(messages[1]).toMatchObject({ resourceVersion: 2, image: attached.images[0] });
    });
  });

  describe('delete', () => {
    it('ResourceDeleted at the deleted version + 1; no new version; the history still answers', async () => {
      const created = await create(draft({ key: newKey('del') }));
      const before = await readText(created.id);
      const res = await t.http.delete(path(created.id)).query({ version: 1 }).set(await manage());
      expect(res.status).toBe(200);
      expect((await t.http.get(path(created.id)).set(await t.auth('view_test'))).status).toBe(404);
      const { messages } = await messagesOf(created.id);
      expect(payloads(messages).map((m) => m.type)).toEqual(['ResourceCreated', 'ResourceDeleted']);
      expect(messages[1]).toMatchObject({ sequenceNumber: 2, resourceVersion: 2, resourceUserProvidedIdentifiers: { key: created.key } });
      expect(payloads([messages[1]])).toEqual([{ type: 'ResourceDeleted' }]);
      expect((await versionsOf(created.id)).map((v) => v.version)).toEqual([1]);
      expect(await snapshot(created.id, 1)).toBe(before);
    });
  });

  describe('the message types', () => {
    it('a write of each kind records every type of the message catalogue, and no other', async () => {
      const created = await create(draft({ key: newKey('all') }));
      const overwritten = await t.http.put(path()).set(await manage()).send(draft({ key: created.key }, { arrayOfIntExample: [7] }));
      expect(overwritten.status).toBeLessThan(300);
      expect((await upload(created.key!)).status).toBe(200);
      // One action of each kind; their order does not matter here.
      const actions = [
        { action: 'doSomeThing' },
        { action: 'changeSomeProperty', someProperty: 'a' },
        { action: 'importFooForSecondPropertyToUpdate', secondPropertyToUpdate: 'b' },
        { action: 'setKey', key: newKey('renamed') },
        { action: 'setObjectTypeProperty', objectTypeProperty: arrays() },
        { action: 'unpublish' },
        { action: 'publish' },
      ];
      expect((await update(created.id, 3, actions)).status).toBe(200);
      expect((await t.http.delete(path(created.id)).query({ version: 4 }).set(await manage())).status).toBe(200);
      const types = new Set((await messagesOf(created.id)).messages.map((m) => m.type));
      expect([...types].sort()).toEqual([...MESSAGE_TYPES].sort());
    });
  });
});

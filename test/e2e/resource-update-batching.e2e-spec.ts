import type { Response } from 'supertest';
import { Database, type Statement } from '../../src/database/database.js';
import { createTestApp, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { mapLimit } from '../support/map-limit.js';
import { arrays, draft, INT64_MAX, type ResourceBody } from '../support/fixtures.js';
import { newKey, resourcePath } from '../support/resources.js';
import { basic } from '../support/auth.js';
import { expectErrorEnvelope } from '../support/expect-error.js';
import { searchVectorIn } from '../../src/database/migrations/1763700000005-search.js';
import { SEARCH_VALUE_COLUMNS } from '../../src/database/migrations/1763700000007-search-values.js';

/*
 * POST /{projectKey}/resource/{id} (update actions) under concurrency: updates of one project that arrive
 * together are written together (ResourceRepository.update, a Coalescer into one statement, never two of
 * one resource in a statement), yet each answers as if written alone: its own fields, version, client,
 * messages (with the old values of its own row) and version record. A batch one update of which fails
 * (a taken key) is run again update by update, so only that update fails. Read back through the API.
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
  createdBy: Modifier;
  lastModifiedBy: Modifier;
  [member: string]: unknown;
}

interface Modifier {
  clientId: string;
  customerId?: string;
}

interface Client {
  modifier: Modifier;
  authorization: string;
}

type Action = { action: string; [member: string]: unknown };

/** One update as sent, what the API guide says it does, and its answer. */
interface Update {
  id: string;
  /** The resource before the update (as GET answered it). */
  before: ResourceBody;
  client: Client;
  version: number;
  /** The body as JSON text (64-bit integers written out exactly). */
  text: string;
  /** The resource's fields after the update, but version, lastModifiedAt and lastModifiedBy. */
  after: Record<string, unknown>;
  /** The update's messages: type and payload, in action order. */
  messages: Record<string, unknown>[];
  /** A 64-bit integer the update writes into arrayOfIntExample[0] (as text), if any. */
  big?: string;
  res?: Response;
}

/** An observed update statement: which project, which resources, by how many clients, and whether it failed. */
interface Observed {
  kind: 'many' | 'single';
  project: string;
  ids: string[];
  modifiers: number;
  outcome?: 'ok' | 'failed';
  code?: string;
}

/** The messages' types and payloads (the members beyond the common ones). */
const payloads = (messages: Message[]) =>
  messages.map(({ id, version, sequenceNumber, resource, resourceVersion, resourceUserProvidedIdentifiers, createdAt, lastModifiedAt, createdBy, lastModifiedBy, ...rest }) => rest);

/** Without the members whose value is undefined. */
const compact = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** A distinct 64-bit integer per n, near the top of the range (JavaScript numbers cannot hold it exactly). */
const bigInt = (n: number) => (BigInt(INT64_MAX) - BigInt(n)).toString();

/** An objectTypeProperty whose first integer is the placeholder for a 64-bit integer written into the text. */
const bigDocument = (n: number) => arrays({ arrayOfIntExample: ['@big@', n], arrayOfStringExample: [`doc-${n}`, 'é 😀 "q"'] });

/**
 * What `actions` do to `before` as the API guide says (docs/api-guide.md#update-with-actions): the fields after the write and
 * one message per action, with the old values (`oldSomeProperty`, `oldKey`) before that action.
 */
function plan(before: ResourceBody, client: Client, actions: Action[], big?: string): Update {
  const after: Record<string, unknown> = { ...before };
  delete after.version;
  delete after.lastModifiedAt;
  delete after.lastModifiedBy;
  const messages: Record<string, unknown>[] = [];
  const withBig = (doc: unknown) => {
    const copy = structuredClone(doc) as Record<string, unknown[]>;
    if (copy.arrayOfIntExample?.[0] === '@big@') copy.arrayOfIntExample[0] = Number(big);
    return copy;
  };
  for (const a of actions) {
    switch (a.action) {
      case 'doSomeThing':
        messages.push({ type: 'SomeThingDone' });
        break;
      case 'changeSomeProperty':
        messages.push(compact({ type: 'SomePropertyChanged', someProperty: a.someProperty, oldSomeProperty: after.someProperty }));
        after.someProperty = a.someProperty;
        break;
      case 'importFooForSecondPropertyToUpdate':
        messages.push({ type: 'SecondPropertyToUpdateImported', secondPropertyToUpdate: a.secondPropertyToUpdate });
        after.secondPropertyToUpdate = a.secondPropertyToUpdate;
        break;
      case 'setKey':
        messages.push(compact({ type: 'KeySet', key: a.key, oldKey: after.key }));
        if (a.key === undefined) delete after.key;
        else after.key = a.key;
        break;
      case 'setObjectTypeProperty':
        messages.push({ type: 'ObjectTypePropertySet', objectTypeProperty: withBig(a.objectTypeProperty) });
        after.objectTypeProperty = withBig(a.objectTypeProperty);
        break;
      case 'publish':
        messages.push({ type: 'ResourcePublished' });
        after.published = true;
        break;
      case 'unpublish':
        messages.push({ type: 'ResourceUnpublished' });
        after.published = false;
        break;
      default:
        throw new Error(`unknown action ${a.action}`);
    }
  }
  const text = JSON.stringify({ version: before.version, actions }).replace('"@big@"', big ?? '"@big@"');
  return { id: before.id, before, client, version: before.version, text, after, messages, big };
}

/**
 * The i-th update of a burst, varied: each single action, and lists of several (the same field set twice,
 * a key set then removed, the flag changed back and forth), some with a 64-bit integer.
 */
function variedUpdate(i: number, before: ResourceBody, client: Client): Update {
  const flip: Action = before.published ? { action: 'unpublish' } : { action: 'publish' };
  switch (i % 8) {
    case 0:
      return plan(before, client, [{ action: 'changeSomeProperty', someProperty: `some-${i}` }]);
    case 1:
      return plan(before, client, [{ action: 'importFooForSecondPropertyToUpdate', secondPropertyToUpdate: `second-${i}` }]);
    case 2:
      return plan(before, client, [{ action: 'setKey', key: newKey(`set-${i}`) }]);
    case 3:
      return plan(before, client, [{ action: 'setObjectTypeProperty', objectTypeProperty: bigDocument(i) }], bigInt(i));
    case 4:
      return plan(before, client, [flip]);
    case 5:
      return plan(before, client, [
        { action: 'changeSomeProperty', someProperty: `first-${i}` },
        { action: 'changeSomeProperty', someProperty: `then-${i}` },
        { action: 'setKey', key: newKey(`multi-${i}`) },
        { action: 'importFooForSecondPropertyToUpdate', secondPropertyToUpdate: `imported-${i}` },
        { action: 'unpublish' },
        { action: 'publish' },
        { action: 'doSomeThing' },
      ]);
    case 6:
      return plan(before, client, [{ action: 'setKey', key: newKey(`gone-${i}`) }, { action: 'setKey' }]);
    default:
      return plan(
        before,
        client,
        [{ action: 'setObjectTypeProperty', objectTypeProperty: bigDocument(i) }, { action: 'changeSomeProperty', someProperty: `both-${i}` }, flip],
        bigInt(i),
      );
  }
}

describe('concurrent updates (written together per project)', () => {
  let t: TestApp;
  const statements: Observed[] = [];
  let restoreQuery: () => void;

  beforeAll(async () => {
    t = await createTestApp();
    // Watch (not change) the update statements: which resources each one carried, and whether it failed.
    const db = t.app.get(Database);
    const query = db.query;
    db.query = function (this: Database, statement: Statement | string, values?: unknown[], project?: string) {
      let observed: Observed | undefined;
      if (typeof statement !== 'string' && statement.name === 'resource_update_many') {
        observed = { kind: 'many', project: values![0] as string, ids: [...(values![1] as string[])], modifiers: new Set(values![3] as string[]).size };
      } else if (typeof statement !== 'string' && statement.name === 'resource_update') {
        observed = { kind: 'single', project: values![1] as string, ids: [values![0] as string], modifiers: 1 };
      }
      const result = query.call(this, statement, values, project);
      if (observed) {
        const o = observed;
        statements.push(o);
        result.then(
          () => (o.outcome = 'ok'),
          (error: { code?: string }) => {
            o.outcome = 'failed';
            o.code = error?.code;
          },
        );
      }
      return result;
    } as Database['query'];
    restoreQuery = () => Reflect.deleteProperty(db, 'query');
  });
  afterAll(async () => {
    restoreQuery?.();
    await t?.close();
  });

  /** A new API client of project `pk` with manage_test (through the API) and a bearer token of its own. */
  async function newClient(pk: string): Promise<Client> {
    const created = await t.http
      .post(`/${pk}/api-clients`)
      .set(await t.auth('manage_api_clients manage_test', { projectKey: pk }))
      .send({ name: 'update batching', scope: `manage_test:${pk}` });
    expect(created.status).toBe(201);
    const token = await t.http.post('/oauth/token').set('Authorization', basic(created.body.id, created.body.secret)).type('form').send('grant_type=client_credentials');
    expect(token.status).toBe(200);
    return { modifier: { clientId: created.body.id }, authorization: `Bearer ${token.body.access_token}` };
  }

  /** Creates `count` resources in groups of 10; `extra(i)` adds a key or `publish` to the i-th draft. */
  async function createMany(pk: string, count: number, extra: (i: number) => Record<string, unknown> = () => ({})): Promise<ResourceBody[]> {
    const auth = await t.auth('manage_test', { projectKey: pk });
    const created: ResourceBody[] = [];
    for (let start = 0; start < count; start += 10) {
      const group = await Promise.all(
        Array.from({ length: Math.min(10, count - start) }, (_, n) =>
          t.http.post(resourcePath(pk)).set(auth).send(draft(extra(start + n), { arrayOfStringExample: [`created-${start + n}`] })),
        ),
      );
      for (const res of group) {
        expect(res.status).toBe(201);
        created.push(res.body as ResourceBody);
      }
    }
    return created;
  }

  /** Sends every update at once (Promise.all), each with its client's token; keeps each answer with its update. */
  async function fire(pk: string, updates: Update[]): Promise<void> {
    const answers = await Promise.all(
      updates.map((u) => t.http.post(resourcePath(pk, u.id)).set('Authorization', u.client.authorization).set('Content-Type', 'application/json').send(u.text)),
    );
    answers.forEach((res, i) => (updates[i].res = res));
  }

  async function getById(pk: string, id: string): Promise<Response> {
    return t.http.get(resourcePath(pk, id)).set(await t.auth('view_test', { projectKey: pk })).buffer(true);
  }

  /** Every message of project `pk`, by sequence number (then id), page by page; and the pages' text. */
  async function projectMessages(pk: string): Promise<{ messages: Message[]; text: string }> {
    const messages: Message[] = [];
    let text = '';
    for (let offset = 0; ; offset += 200) {
      const res = await t.http
        .get(`/${pk}/messages`)
        .query({ limit: 200, offset, sort: 'sequenceNumber asc', withTotal: 'true' })
        .set(await t.auth('view_messages', { projectKey: pk }));
      expect(res.status).toBe(200);
      messages.push(...(res.body.results as Message[]));
      text += res.text;
      if (res.body.results.length === 0 || messages.length >= res.body.total) {
        expect(messages).toHaveLength(res.body.total);
        return { messages, text };
      }
    }
  }

  /** The messages of each resource, in sequence order. */
  function byResource(messages: Message[]): Map<string, Message[]> {
    const map = new Map<string, Message[]>();
    for (const m of messages) map.set(m.resource.id, [...(map.get(m.resource.id) ?? []), m]);
    for (const list of map.values()) list.sort((a, b) => a.sequenceNumber - b.sequenceNumber);
    return map;
  }

  async function versionsOf(pk: string, id: string): Promise<{ version: number; types: string[]; modifiedAt: string; modifiedBy: Modifier }[]> {
    const res = await t.http.get(`${resourcePath(pk, id)}/versions`).query({ limit: 500 }).set(await t.auth('view_audit_log', { projectKey: pk }));
    expect(res.status).toBe(200);
    return res.body.results;
  }

  /** The answer of a 200 update: exactly the planned fields, the next version, the sender as lastModifiedBy. */
  function expectWritten(u: Update): void {
    expect({ id: u.id, status: u.res!.status }).toEqual({ id: u.id, status: 200 });
    const body = u.res!.body as Record<string, unknown>;
    const expected = compact({ ...u.after, version: u.version + 1, lastModifiedBy: u.client.modifier, lastModifiedAt: body.lastModifiedAt });
    expect(Object.keys(body).sort()).toEqual(Object.keys(expected).sort());
    expect(body).toEqual(expected);
    expect((body.lastModifiedAt as string) > u.before.lastModifiedAt).toBe(true);
    if (u.big) expect(u.res!.text).toContain(`"arrayOfIntExample":[${u.big},`);
  }

  /** The update's messages: after `previous` earlier ones, its own, in action order, at its version. */
  function expectMessages(u: Update, own: Message[], previous: number): void {
    const version = u.version + 1;
    const body = u.res!.body as ResourceBody;
    expect(own.slice(previous).map((m) => [m.sequenceNumber, m.resourceVersion])).toEqual(u.messages.map((_, n) => [previous + n + 1, version]));
    expect(payloads(own.slice(previous))).toEqual(u.messages);
    for (const m of own.slice(previous)) {
      expect(m).toMatchObject({
        version: 1,
        resource: { typeId: 'resource', id: u.id },
        resourceUserProvidedIdentifiers: body.key === undefined ? {} : { key: body.key },
        createdAt: body.lastModifiedAt,
        lastModifiedAt: body.lastModifiedAt,
        createdBy: u.client.modifier,
        lastModifiedBy: u.client.modifier,
      });
      if (body.key === undefined) expect(m.resourceUserProvidedIdentifiers).toEqual({});
    }
  }

  /** The resource is as it was created: same body, one message, one version. */
  async function expectUntouched(pk: string, before: ResourceBody, messages: Message[] | undefined): Promise<void> {
    const read = await getById(pk, before.id);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(before);
    expect((messages ?? []).map((m) => m.type)).toEqual(['ResourceCreated']);
    expect((await versionsOf(pk, before.id)).map((v) => v.version)).toEqual([1]);
  }

  /** The statements of `pk` observed since `since`. */
  const observedSince = (since: number, pk: string) => statements.slice(since).filter((s) => s.project === pk);

  /** Every statement of several updates carried 2..50 of them, never one resource twice. */
  function expectWellFormedBatches(observed: Observed[]): void {
    for (const s of observed.filter((x) => x.kind === 'many')) {
      expect(s.ids.length).toBeGreaterThan(1);
      expect(s.ids.length).toBeLessThanOrEqual(50);
      expect(new Set(s.ids).size).toBe(s.ids.length);
    }
  }

  describe('100 updates of 100 resources at once by two clients', () => {
    const COUNT = 100;
    let pk: string;
    let clients: Client[];
    let created: ResourceBody[];
    let updates: Update[];
    let observed: Observed[];

    beforeAll(async () => {
      pk = uniqueProjectKey('upd');
      clients = [await newClient(pk), await newClient(pk)];
      // Some with a key (so that setKey has an old key), some unpublished (so that publish changes the flag).
      created = await createMany(pk, COUNT, (i) => ({ ...(i % 3 === 0 ? { key: newKey(`orig-${i}`) } : {}), ...(i % 5 === 0 ? { publish: false } : {}) }));
      // Clients alternate from one update to the next, and swap every 8, so that every kind of update is sent by both.
      updates = created.map((r, i) => variedUpdate(i, r, clients[(i + Math.floor(i / 8)) % 2]));
      const since = statements.length;
      await fire(pk, updates);
      observed = observedSince(since, pk);
    });

    it('answers every update 200 with version 2 and exactly the fields its actions give (64-bit integers exact)', () => {
      for (const u of updates) expectWritten(u);
      expect(updates.filter((u) => u.big)).toHaveLength(25);
    });

    it('search sees every update at once: its key, its document\'s values, its flag; its search rows are its texts\' and values\' now', async () => {
      const auth = await t.auth('view_test', { projectKey: pk });
      const found = async (query: Record<string, string | number>) => {
        const res = await t.http.get(`/${pk}/resource/searchApiPattern`).query({ staged: 'true', limit: 500, ...query }).set(auth);
        expect(res.status).toBe(200);
        return (res.body.results as Array<{ id: string }>).map((r) => r.id).sort();
      };
      await mapLimit(updates, 8, async (u) => {
        const after = u.res!.body as ResourceBody;
        if (after.key !== undefined) expect(await found({ 'filter.query': `key:"${after.key}"` })).toEqual([u.id]);
        if (u.big !== undefined) expect(await found({ 'filter.query': `objectTypeProperty.arrayOfIntExample:${u.big}` })).toEqual([u.id]);
      });
      const published = updates.filter((u) => (u.res!.body as ResourceBody).published).map((u) => u.id).sort();
      expect(await found({ staged: 'false' })).toEqual(published);
      expect(published.length).toBeGreaterThan(0);
      expect(published.length).toBeLessThan(COUNT);
      // Every search row is its resource's now: the vectors from its texts, the values from its document.
      const stale = await t.app.get(Database).query<{ id: string; config: string }>(
        `SELECT r.id, s.config FROM resource r JOIN resource_search s ON s.resource_id = r.id
         WHERE r.project_key = $1 AND (s.published <> r.published OR s.key IS DISTINCT FROM r.key
           OR (s.config = 'values' AND (${SEARCH_VALUE_COLUMNS.map((c) => `s.${c.column} IS DISTINCT FROM ${c.of('r.')}`).join(' OR ')}))
           OR (s.config <> 'values' AND s.vector IS DISTINCT FROM ${searchVectorIn('s.config::regconfig', 'r.')}))`,
        [pk],
      );
      expect(stale).toEqual([]);
      // A values row and a vector row per indexed language, for each resource.
      const [rows] = await t.app.get(Database).query<{ n: number; languages: number }>(
        `SELECT (SELECT count(*)::int FROM resource_search s JOIN resource r ON r.id = s.resource_id WHERE r.project_key = $1) AS n,
                (SELECT count(*)::int FROM search_language) AS languages`,
        [pk],
      );
      expect(rows.n).toBe(COUNT * (1 + rows.languages));
    });

    it('each answer is what GET by id answers afterwards; the keys set are found by key', async () => {
      await mapLimit(updates, 8, async (u) => {
        const read = await getById(pk, u.id);
        expect(read.status).toBe(200);
        expect(read.text).toBe(u.res!.text);
        const key = u.res!.body.key as string | undefined;
        if (key) {
          const byKey = await t.http.get(`${resourcePath(pk)}/key=${key}`).set(await t.auth('view_test', { projectKey: pk }));
          expect(byKey.status).toBe(200);
          expect(byKey.body.id).toBe(u.id);
        }
        // An old key that the update replaced or removed is free.
        if (u.before.key && u.before.key !== key) {
          const old = await t.http.get(`${resourcePath(pk)}/key=${u.before.key}`).set(await t.auth('view_test', { projectKey: pk }));
          expectErrorEnvelope(old, 404, 'ResourceNotFound');
        }
      });
    });

    it('lastModifiedBy names the client that sent the update, createdBy the creator', () => {
      for (const u of updates) {
        expect(u.res!.body.lastModifiedBy).toEqual(u.client.modifier);
        expect(u.res!.body.createdBy).toEqual(u.before.createdBy);
      }
      expect(new Set(updates.map((u) => u.res!.body.lastModifiedBy.clientId)).size).toBe(2);
    });

    it('each resource has its ResourceCreated, then its own messages in action order (sequence 2…, version 2, old values)', async () => {
      const { messages, text } = await projectMessages(pk);
      expect(messages).toHaveLength(COUNT + updates.reduce((sum, u) => sum + u.messages.length, 0));
      expect(new Set(messages.map((m) => m.id)).size).toBe(messages.length);
      const own = byResource(messages);
      expect(own.size).toBe(COUNT);
      for (const u of updates) {
        const list = own.get(u.id)!;
        expect(list[0]).toMatchObject({ sequenceNumber: 1, resourceVersion: 1, type: 'ResourceCreated' });
        expectMessages(u, list, 1);
        expect(list).toHaveLength(1 + u.messages.length);
        // The 64-bit integer of each ObjectTypePropertySet is exact in the message's text.
        if (u.big) expect(text).toContain(`"arrayOfIntExample":[${u.big},`);
      }
      // The documented old values did come from the rows: of keys given at create, and of a field set by an earlier action.
      const oldKeys = updates.filter((u) => u.messages.some((m) => m.type === 'KeySet' && m.oldKey !== undefined && m.oldKey === u.before.key));
      expect(oldKeys.length).toBeGreaterThan(3);
      expect(updates.some((u) => u.messages.some((m) => m.oldSomeProperty !== undefined))).toBe(true);
    });

    it('each resource has version 2 in its history, by the sender, with its message types; its snapshot is the answer', async () => {
      await mapLimit(updates, 8, async (u) => {
        const body = u.res!.body as ResourceBody;
        expect(await versionsOf(pk, u.id)).toEqual([
          { version: 2, modifiedAt: body.lastModifiedAt, modifiedBy: u.client.modifier, types: u.messages.map((m) => m.type) },
          { version: 1, modifiedAt: u.before.createdAt, modifiedBy: u.before.createdBy, types: ['ResourceCreated'] },
        ]);
        const snapshot = await t.http.get(`${resourcePath(pk, u.id)}/versions/2`).set(await t.auth('view_test', { projectKey: pk })).buffer(true);
        expect(snapshot.status).toBe(200);
        expect(snapshot.text).toBe(u.res!.text);
      });
    });

    it('the updates were written together: statements of 2..50 distinct resources (of both clients), 100 updates in all', () => {
      expectWellFormedBatches(observed);
      const many = observed.filter((s) => s.kind === 'many');
      expect(many.length).toBeGreaterThan(0);
      expect(observed.every((s) => s.outcome === 'ok')).toBe(true);
      expect(observed.reduce((sum, s) => sum + s.ids.length, 0)).toBe(COUNT);
      expect(observed.flatMap((s) => s.ids).sort()).toEqual(updates.map((u) => u.id).sort());
      expect(observed.length).toBeLessThan(COUNT);
      expect(Math.max(...many.map((s) => s.modifiers))).toBe(2);
    });

    // Last: it writes version 3 of some of the resources above.
    it('a second burst: oldSomeProperty and oldKey come from each resource\'s own row, written by the first', async () => {
      const second = updates.slice(0, 60).map((u, i) =>
        plan(u.res!.body as ResourceBody, clients[i % 2], [
          { action: 'changeSomeProperty', someProperty: `again-${i}` },
          { action: 'setKey', key: newKey(`again-${i}`) },
        ]),
      );
      const since = statements.length;
      await fire(pk, second);
      for (const u of second) expectWritten(u);
      const own = byResource((await projectMessages(pk)).messages);
      for (const [i, u] of second.entries()) {
        const list = own.get(u.id)!;
        expectMessages(u, list, 1 + updates[i].messages.length);
        expect(list).toHaveLength(1 + updates[i].messages.length + 2);
      }
      // Old values of both kinds were there to be mixed up: several resources had each.
      expect(second.filter((u) => u.messages[0].oldSomeProperty !== undefined).length).toBeGreaterThan(10);
      expect(second.filter((u) => u.messages[1].oldKey !== undefined).length).toBeGreaterThan(10);
      const mine = observedSince(since, pk);
      expectWellFormedBatches(mine);
      expect(mine.some((s) => s.kind === 'many')).toBe(true);
      expect(mine.reduce((sum, s) => sum + s.ids.length, 0)).toBe(second.length);
    });
  });

  it('a taken key among 40 valid concurrent updates: that one 400 DuplicateField and unchanged, the others written', async () => {
    const pk = uniqueProjectKey('upd');
    const clients = [await newClient(pk), await newClient(pk)];
    const taken = newKey('taken');
    const [holder] = await createMany(pk, 1, () => ({ key: taken }));
    const VALID = 40;
    const BAD = 20;
    let batchedAndFailed = 0;
    // Whether the bad update finds its project's statements busy (and waits to go in a batch) is up to timing:
    // on PostgreSQL about every other round. Each round has fresh resources; rounds end once it was.
    for (let round = 0; round < 10 && batchedAndFailed === 0; round++) {
      const created = await createMany(pk, VALID + 1, (i) => (i % 4 === 0 ? { key: newKey(`r${round}-${i}`) } : {}));
      const updates = created.map((r, i) =>
        i === BAD
          ? plan(r, clients[0], [{ action: 'changeSomeProperty', someProperty: 'must-not-stick' }, { action: 'setKey', key: taken }])
          : variedUpdate(i, r, clients[i % 2]),
      );
      const bad = updates[BAD];
      const since = statements.length;
      await fire(pk, updates);

      expectErrorEnvelope(bad.res!, 400, 'DuplicateField');
      expect(bad.res!.body.errors[0]).toMatchObject({ code: 'DuplicateField', field: 'key', duplicateValue: taken });
      const { messages } = await projectMessages(pk);
      const own = byResource(messages);
      await expectUntouched(pk, bad.before, own.get(bad.id));
      for (const u of updates.filter((x) => x !== bad)) {
        expectWritten(u);
        const read = await getById(pk, u.id);
        expect(read.text).toBe(u.res!.text);
        // Written once: a batch run again update by update recorded each update's messages once.
        expect(own.get(u.id)).toHaveLength(1 + u.messages.length);
        expectMessages(u, own.get(u.id)!, 1);
      }
      await expectUntouched(pk, holder, own.get(holder.id));

      const mine = observedSince(since, pk);
      expectWellFormedBatches(mine);
      // The bad update was never in a statement that succeeded.
      expect(mine.filter((s) => s.ids.includes(bad.id) && s.outcome === 'ok')).toEqual([]);
      const failed = mine.filter((s) => s.outcome === 'failed');
      for (const f of failed) {
        expect(f.ids).toContain(bad.id);
        expect(f.code).toBe('23505');
      }
      for (const f of failed.filter((s) => s.kind === 'many')) {
        batchedAndFailed++;
        // Each update of the failed batch ran again alone, afterwards.
        const after = mine.slice(mine.indexOf(f) + 1);
        for (const id of f.ids) expect(after.some((s) => s.kind === 'single' && s.ids[0] === id)).toBe(true);
      }
    }
    // In at least one round the taken key was in a statement of several updates, which failed and was run again.
    expect(batchedAndFailed).toBeGreaterThan(0);
  }, 120_000);

  describe('updates of one resource among updates of others, all at once', () => {
    it('20 updates of one resource with the same version (among 20 of other resources): one 200, nineteen 409 with currentVersion 2', async () => {
      const pk = uniqueProjectKey('upd');
      const client = await newClient(pk);
      const [target, ...others] = await createMany(pk, 21);
      const contested = Array.from({ length: 20 }, (_, i) => plan(target, client, [{ action: 'changeSomeProperty', someProperty: `w${i}` }]));
      const rest = others.map((r, i) => variedUpdate(i, r, client));
      // Interleaved: contested, other, contested, other, …
      const all = contested.flatMap((u, i) => [u, rest[i]]);
      const since = statements.length;
      await fire(pk, all);

      const winners = contested.filter((u) => u.res!.status === 200);
      expect(winners).toHaveLength(1);
      for (const u of contested.filter((x) => x !== winners[0])) {
        expectErrorEnvelope(u.res!, 409, 'ConcurrentModification');
        expect(u.res!.body.errors[0].currentVersion).toBe(2);
      }
      const [winner] = winners;
      expectWritten(winner);
      expect((await getById(pk, target.id)).text).toBe(winner.res!.text);
      for (const u of rest) expectWritten(u);

      const own = byResource((await projectMessages(pk)).messages);
      expect(own.get(target.id)).toHaveLength(2);
      expectMessages(winner, own.get(target.id)!, 1);
      for (const u of rest) {
        expect(own.get(u.id)).toHaveLength(1 + u.messages.length);
        expectMessages(u, own.get(u.id)!, 1);
      }
      expect((await versionsOf(pk, target.id)).map((v) => [v.version, v.types])).toEqual([
        [2, ['SomePropertyChanged']],
        [1, ['ResourceCreated']],
      ]);
      const mine = observedSince(since, pk);
      expectWellFormedBatches(mine);
      expect(mine.some((s) => s.kind === 'many')).toBe(true);
      // Every update reached a statement (the losers too: their version is checked there).
      expect(mine.reduce((sum, s) => sum + s.ids.length, 0)).toBe(all.length);
    });

    it('30 updates of 10 resources (3 each, same version) among 10 of other resources: one winner per resource, its messages alone', async () => {
      const pk = uniqueProjectKey('upd');
      const clients = [await newClient(pk), await newClient(pk), await newClient(pk)];
      const created = await createMany(pk, 20, (i) => (i % 2 === 0 ? { key: newKey(`c-${i}`) } : {}));
      const contestedResources = created.slice(0, 10);
      const others = created.slice(10);
      // Per resource three different updates by three clients: a property, a key, a document with a 64-bit integer.
      const round = (c: number) =>
        contestedResources.map((r, i) =>
          c === 0
            ? plan(r, clients[0], [{ action: 'changeSomeProperty', someProperty: `a-${i}` }])
            : c === 1
              ? plan(r, clients[1], [{ action: 'setKey', key: newKey(`b-${i}`) }, { action: 'doSomeThing' }])
              : plan(r, clients[2], [{ action: 'setObjectTypeProperty', objectTypeProperty: bigDocument(i) }, { action: 'unpublish' }], bigInt(i)),
        );
      const contested = [round(0), round(1), round(2)];
      const rest = others.map((r, i) => variedUpdate(i + 3, r, clients[i % 3]));
      const all = [...contested[0], ...rest.slice(0, 5), ...contested[1], ...rest.slice(5), ...contested[2]];
      const since = statements.length;
      await fire(pk, all);

      const own = byResource((await projectMessages(pk)).messages);
      for (const [i, r] of contestedResources.entries()) {
        const three = contested.map((c) => c[i]);
        const winners = three.filter((u) => u.res!.status === 200);
        expect({ id: r.id, winners: winners.length }).toEqual({ id: r.id, winners: 1 });
        for (const u of three.filter((x) => x !== winners[0])) {
          expectErrorEnvelope(u.res!, 409, 'ConcurrentModification');
          expect(u.res!.body.errors[0].currentVersion).toBe(2);
        }
        const [winner] = winners;
        expectWritten(winner);
        expect((await getById(pk, r.id)).text).toBe(winner.res!.text);
        expect(own.get(r.id)).toHaveLength(1 + winner.messages.length);
        expectMessages(winner, own.get(r.id)!, 1);
        const versions = await versionsOf(pk, r.id);
        expect(versions.map((v) => [v.version, v.modifiedBy, v.types])).toEqual([
          [2, winner.client.modifier, winner.messages.map((m) => m.type)],
          [1, r.createdBy, ['ResourceCreated']],
        ]);
        // A losing setKey took no key.
        const loserKey = three[1] !== winner ? (three[1].after.key as string) : undefined;
        if (loserKey) {
          const byKey = await t.http.get(`${resourcePath(pk)}/key=${loserKey}`).set(await t.auth('view_test', { projectKey: pk }));
          expectErrorEnvelope(byKey, 404, 'ResourceNotFound');
        }
      }
      for (const u of rest) {
        expectWritten(u);
        expect(own.get(u.id)).toHaveLength(1 + u.messages.length);
        expectMessages(u, own.get(u.id)!, 1);
      }
      const mine = observedSince(since, pk);
      expectWellFormedBatches(mine);
      expect(mine.some((s) => s.kind === 'many')).toBe(true);
      expect(mine.reduce((sum, s) => sum + s.ids.length, 0)).toBe(all.length);
    });

    it('10 workers retrying one resource on 409 while 10 others update their own: every update lands, messages chained', async () => {
      const pk = uniqueProjectKey('upd');
      const clients = [await newClient(pk), await newClient(pk)];
      const [target, ...others] = await createMany(pk, 11);
      const WORKERS = 10;
      const landed: { worker: number; version: number; someProperty: string; by: Modifier }[] = [];
      let conflicts = 0;
      const worker = async (w: number) => {
        const client = clients[w % 2];
        let version = 1;
        for (let attempt = 0; ; attempt++) {
          expect(attempt).toBeLessThan(100);
          const res = await t.http
            .post(resourcePath(pk, target.id))
            .set('Authorization', client.authorization)
            .send({ version, actions: [{ action: 'changeSomeProperty', someProperty: `worker-${w}` }] });
          if (res.status === 409) {
            expect(res.body.errors[0].code).toBe('ConcurrentModification');
            expect(res.body.errors[0].currentVersion).toBeGreaterThan(version);
            version = res.body.errors[0].currentVersion;
            conflicts++;
            continue;
          }
          expect(res.status).toBe(200);
          expect(res.body).toMatchObject({ version: version + 1, someProperty: `worker-${w}`, lastModifiedBy: client.modifier });
          landed.push({ worker: w, version: res.body.version, someProperty: `worker-${w}`, by: client.modifier });
          return;
        }
      };
      const rest = others.map((r, i) => variedUpdate(i, r, clients[i % 2]));
      const since = statements.length;
      const [, ...restAnswers] = await Promise.all([
        Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w))),
        ...rest.map((u) => t.http.post(resourcePath(pk, u.id)).set('Authorization', u.client.authorization).set('Content-Type', 'application/json').send(u.text)),
      ]);
      restAnswers.forEach((res, i) => (rest[i].res = res as Response));

      expect(conflicts).toBeGreaterThan(0);
      expect(landed.map((l) => l.version).sort((a, b) => a - b)).toEqual(Array.from({ length: WORKERS }, (_, i) => i + 2));
      const final = await getById(pk, target.id);
      expect(final.body.version).toBe(1 + landed.length);
      const last = landed.find((l) => l.version === 1 + WORKERS)!;
      expect(final.body).toMatchObject({ someProperty: last.someProperty, lastModifiedBy: last.by });

      const own = byResource((await projectMessages(pk)).messages);
      const chain = own.get(target.id)!;
      expect(chain).toHaveLength(1 + WORKERS);
      expect(chain.map((m) => [m.sequenceNumber, m.resourceVersion])).toEqual(Array.from({ length: 1 + WORKERS }, (_, i) => [i + 1, i + 1]));
      // Each message names the value the previous write left: the old value is the row's, under its lock.
      const ordered = [...landed].sort((a, b) => a.version - b.version);
      expect(payloads(chain.slice(1))).toEqual(
        ordered.map((l, i) => compact({ type: 'SomePropertyChanged', someProperty: l.someProperty, oldSomeProperty: i === 0 ? undefined : ordered[i - 1].someProperty })),
      );
      chain.slice(1).forEach((m, i) => expect(m.createdBy).toEqual(ordered[i].by));
      expect((await versionsOf(pk, target.id)).map((v) => v.version)).toEqual(Array.from({ length: 1 + WORKERS }, (_, i) => 1 + WORKERS - i));

      for (const u of rest) {
        expectWritten(u);
        expect(own.get(u.id)).toHaveLength(1 + u.messages.length);
        expectMessages(u, own.get(u.id)!, 1);
      }
      expectWellFormedBatches(observedSince(since, pk));
    });
  });

  it('updates of two projects at once stay in their own project (the same new key in both; an id of the other project is 404)', async () => {
    const projects = [uniqueProjectKey('upd'), uniqueProjectKey('upd')];
    const clients = [await newClient(projects[0]), await newClient(projects[1])];
    const PER_PROJECT = 30;
    const created = [await createMany(projects[0], PER_PROJECT), await createMany(projects[1], PER_PROJECT)];
    const sharedKey = (i: number) => `shared-${projects[0]}-${i}`;
    const perProject = created.map((list, p) =>
      list.map((r, i) =>
        plan(r, clients[p], [
          { action: 'setKey', key: sharedKey(i) },
          { action: 'changeSomeProperty', someProperty: `${projects[p]}-${i}` },
        ]),
      ),
    );
    // Two updates sent to the first project with ids of the second: not found there, whatever the batch.
    const strays = created[1].slice(0, 2).map((r) => plan(r, clients[0], [{ action: 'changeSomeProperty', someProperty: 'stray' }]));
    const order: { p: number; u: Update }[] = [];
    for (let i = 0; i < PER_PROJECT; i++) {
      order.push({ p: 0, u: perProject[0][i] }, { p: 1, u: perProject[1][i] });
      if (i === 10 || i === 20) order.push({ p: 0, u: strays[i === 10 ? 0 : 1] });
    }
    const since = statements.length;
    const answers = await Promise.all(
      order.map(({ p, u }) =>
        t.http.post(resourcePath(projects[p], u.id)).set('Authorization', u.client.authorization).set('Content-Type', 'application/json').send(u.text),
      ),
    );
    answers.forEach((res, n) => (order[n].u.res = res));

    for (const s of strays) expectErrorEnvelope(s.res!, 404, 'ResourceNotFound');
    for (const [p, pk] of projects.entries()) {
      const other = projects[1 - p];
      const { messages } = await projectMessages(pk);
      const own = byResource(messages);
      expect([...own.keys()].sort()).toEqual(created[p].map((r) => r.id).sort());
      await mapLimit(perProject[p], 8, async (u) => {
        expectWritten(u);
        expect((await getById(pk, u.id)).text).toBe(u.res!.text);
        expectErrorEnvelope(await getById(other, u.id), 404, 'ResourceNotFound');
        expect(own.get(u.id)).toHaveLength(3);
        expectMessages(u, own.get(u.id)!, 1);
      });
      // The same key in both projects, each naming its own project's resource.
      for (let i = 0; i < PER_PROJECT; i++) {
        const byKey = await t.http.get(`${resourcePath(pk)}/key=${sharedKey(i)}`).set(await t.auth('view_test', { projectKey: pk }));
        expect(byKey.status).toBe(200);
        expect(byKey.body.id).toBe(created[p][i].id);
      }
    }
    // The strays changed nothing: their resources carry only their own project's update.
    for (const s of strays) expect((await getById(projects[1], s.id)).body.someProperty).toBe(`${projects[1]}-${created[1].indexOf(s.before)}`);

    const all = statements.slice(since);
    expectWellFormedBatches(all);
    for (const [p, pk] of projects.entries()) {
      const mine = all.filter((s) => s.project === pk);
      const sent = order.filter((o) => o.p === p).map((o) => o.u.id);
      expect(mine.flatMap((s) => s.ids).sort()).toEqual([...sent].sort());
      expect(mine.some((s) => s.kind === 'many')).toBe(true);
    }
    expect(all.filter((s) => !projects.includes(s.project))).toEqual([]);
  });
});

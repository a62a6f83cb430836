import type { Response } from 'supertest';
import { Database, type Statement } from '../../src/database/database.js';
import { createTestApp, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { mapLimit } from '../support/map-limit.js';
import { arrays, draft, INT64_MAX, INT64_MIN, type ResourceBody } from '../support/fixtures.js';
import { resourcePath } from '../support/resources.js';
import { basic } from '../support/auth.js';
import { expectErrorEnvelope } from '../support/expect-error.js';

/*
 * POST /{projectKey}/resource without a key under concurrency: creates of one project that arrive together
 * are written together (ResourceRepository.create, a Coalescer into one statement), yet each answers as if
 * written alone: its own id, body, flag, client, message and version. Read back through the API.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Message {
  id: string;
  sequenceNumber: number;
  resource: { typeId: string; id: string };
  resourceVersion: number;
  resourceUserProvidedIdentifiers: Record<string, unknown>;
  type: string;
  createdAt: string;
  createdBy: Record<string, unknown>;
  lastModifiedBy: Record<string, unknown>;
  representation?: unknown;
  [member: string]: unknown;
}

interface Modifier {
  clientId: string;
  customerId?: string;
}

/** What one request sent and who sent it. */
interface Sent {
  by: Modifier;
  authorization: string;
  /** The JSON text sent as the body (sent verbatim: 64-bit integers reach the server exactly). */
  text: string;
  /** `publish` as sent; undefined when absent. */
  publish?: boolean;
  /** The value of `arrayOfIntExample[0]` as written in the body (a 64-bit integer stays text). */
  firstInt: string;
  res?: Response;
}

/** The i-th body of a burst: every array differs from one request to the next, some with 64-bit integers. */
function variedBody(i: number, publish: boolean | undefined): { text: string; firstInt: string } {
  const firstInt = i % 10 === 0 ? INT64_MAX : i % 10 === 5 ? INT64_MIN : String(i * 7);
  const objectTypeProperty = arrays({
    arrayOfIntExample: ['@first@', i, i],
    arrayOfUniqueIntExample: [i, i + 1, i + 2],
    arrayOfTwonumbersExample: [i + 0.5, -i],
    arrayOfFloatExample: [i / 4, 1e-7 * i],
    arrayOfNumberNoDefaultsExample: Array.from({ length: 1 + (i % 4) }, (_, n) => n * i),
    arrayOfStringExample: [`s-${i}`, 'é 😀 "quoted" \\ back', 'x'.repeat(i * 13)],
    arrayOfObjectType: Array.from({ length: 1 + (i % 3) }, (_, n) => ({ integerExample: i * 1000 + n, integerExampleInt32: -n })),
  });
  const body = publish === undefined ? { objectTypeProperty } : { objectTypeProperty, publish };
  return { text: JSON.stringify(body).replace('"@first@"', firstInt), firstInt };
}

describe('concurrent creates without a key (written together per project)', () => {
  let t: TestApp;
  /** The statements of creates without a key, as [project, resources in it, distinct modifiers in it]. */
  const statements: [string, number, number][] = [];
  let restoreQuery: () => void;

  beforeAll(async () => {
    t = await createTestApp();
    // Watch (not change) the statements: how many creates each one carried.
    const db = t.app.get(Database);
    const query = db.query;
    db.query = function (this: Database, statement: Statement | string, values?: unknown[], project?: string) {
      if (typeof statement !== 'string' && statement.name === 'resource_create_many') {
        statements.push([values![0] as string, (values![1] as unknown[]).length, new Set(values![2] as string[]).size]);
      } else if (typeof statement !== 'string' && statement.name === 'resource_upsert' && values![2] === null) {
        // A lone create runs the single-resource statement (project $2, no key $3).
        statements.push([values![1] as string, 1, 1]);
      }
      return query.call(this, statement, values, project);
    } as Database['query'];
    restoreQuery = () => Reflect.deleteProperty(db, 'query');
  });
  afterAll(async () => {
    restoreQuery?.();
    await t?.close();
  });

  /** A new API client of project `pk` (through the API) and a bearer token of its own. */
  async function newClient(pk: string, scope: string, customerId?: string): Promise<{ modifier: Modifier; authorization: string }> {
    const created = await t.http
      .post(`/${pk}/api-clients`)
      .set(await t.auth(`manage_api_clients ${scope}`, { projectKey: pk }))
      .send({ name: `batching ${scope}`, scope: `${scope}:${pk}`, ...(customerId ? { customerId } : {}) });
    expect(created.status).toBe(201);
    const token = await t.http.post('/oauth/token').set('Authorization', basic(created.body.id, created.body.secret)).type('form').send('grant_type=client_credentials');
    expect(token.status).toBe(200);
    return { modifier: customerId ? { clientId: created.body.id, customerId } : { clientId: created.body.id }, authorization: `Bearer ${token.body.access_token}` };
  }

  /** Sends every request at once (Promise.all), each with its own token and body; keeps each answer with its request. */
  async function fire(pk: string, sent: Sent[]): Promise<void> {
    const answers = await Promise.all(
      sent.map((s) => t.http.post(resourcePath(pk)).set('Authorization', s.authorization).set('Content-Type', 'application/json').send(s.text)),
    );
    answers.forEach((res, i) => (sent[i].res = res));
  }

  async function getById(pk: string, id: string): Promise<Response> {
    return t.http.get(resourcePath(pk, id)).set(await t.auth('view_test', { projectKey: pk })).buffer(true);
  }

  /** Every message of project `pk` (this file gives each test its own project), oldest first. */
  async function projectMessages(pk: string): Promise<Message[]> {
    const res = await t.http
      .get(`/${pk}/messages`)
      .query({ limit: 500, sort: 'sequenceNumber asc', withTotal: 'true' })
      .set(await t.auth('view_messages', { projectKey: pk }));
    expect(res.status).toBe(200);
    expect(res.body.results.length).toBe(res.body.total);
    return res.body.results as Message[];
  }

  describe('120 creates at once by three clients of one project', () => {
    const COUNT = 120;
    let pk: string;
    let sent: Sent[];
    /** The created resources in the order of `sent`. */
    let created: ResourceBody[];

    beforeAll(async () => {
      pk = uniqueProjectKey('batch');
      const clients = [
        await newClient(pk, 'manage_test'),
        await newClient(pk, 'manage_test'),
        // A customer-bound client creates too: its modifier carries a customerId.
        await newClient(pk, 'manage_my_profile_test', 'cust-batch'),
      ];
      statements.length = 0;
      sent = Array.from({ length: COUNT }, (_, i) => {
        // Clients interleaved (0, 1, 2, 0, 1, …) so that every batch mixes them; publish false / true / absent.
        const client = clients[i % 3];
        const publish = i % 4 === 0 ? false : i % 4 === 1 ? true : undefined;
        return { by: client.modifier, authorization: client.authorization, publish, ...variedBody(i, publish) };
      });
      await fire(pk, sent);
      created = sent.map((s) => s.res!.body as ResourceBody);
    });

    it('answers every request 201 with a distinct id, a Location, version 1 and the flag it sent', () => {
      for (const s of sent) {
        expect(s.res!.status).toBe(201);
        const body = s.res!.body as ResourceBody;
        expect(body.id).toMatch(UUID);
        expect(s.res!.headers.location).toBe(`/${pk}/resource/${body.id}`);
        expect(body.version).toBe(1);
        expect(body.published).toBe(s.publish ?? true);
        expect(body).not.toHaveProperty('key');
        expect(body.createdAt).toBe(body.lastModifiedAt);
        expect(body.images).toEqual([]);
      }
      expect(new Set(created.map((r) => r.id)).size).toBe(COUNT);
    });

    it('answers each request with its own document (64-bit integers exact)', () => {
      for (const s of sent) {
        const sentDocument = JSON.parse(s.text).objectTypeProperty;
        const answered = s.res!.body.objectTypeProperty;
        // Beyond the first integer (which JSON.parse may round), the document is the one sent.
        expect({ ...answered, arrayOfIntExample: answered.arrayOfIntExample.slice(1) }).toEqual({
          ...sentDocument,
          arrayOfIntExample: sentDocument.arrayOfIntExample.slice(1),
        });
        expect(s.res!.text).toContain(`"arrayOfIntExample":[${s.firstInt},`);
      }
    });

    it('each answer is what GET by id answers afterwards', async () => {
      const reads = await mapLimit(created, 8, (r) => getById(pk, r.id));
      reads.forEach((read, i) => {
        expect(read.status).toBe(200);
        expect(read.body).toEqual(created[i]);
        expect(read.text).toBe(sent[i].res!.text);
      });
    });

    it('createdBy and lastModifiedBy name the client that sent the request', () => {
      for (const s of sent) {
        expect(s.res!.body.createdBy).toEqual(s.by);
        expect(s.res!.body.lastModifiedBy).toEqual(s.by);
      }
      // All three clients did write: the check above compared distinct modifiers.
      expect(new Set(sent.map((s) => JSON.stringify(s.res!.body.createdBy))).size).toBe(3);
    });

    it('each resource has exactly one message: ResourceCreated, sequence 1, version 1, carrying the resource', async () => {
      const messages = await projectMessages(pk);
      expect(messages).toHaveLength(COUNT);
      const byResource = new Map<string, Message[]>();
      for (const m of messages) byResource.set(m.resource.id, [...(byResource.get(m.resource.id) ?? []), m]);
      expect(new Set(messages.map((m) => m.id)).size).toBe(COUNT);
      for (const [i, resource] of created.entries()) {
        const own = byResource.get(resource.id);
        expect(own).toHaveLength(1);
        expect(own![0]).toMatchObject({
          sequenceNumber: 1,
          resource: { typeId: 'resource', id: resource.id },
          resourceVersion: 1,
          resourceUserProvidedIdentifiers: {},
          type: 'ResourceCreated',
          createdAt: resource.createdAt,
          createdBy: sent[i].by,
          lastModifiedBy: sent[i].by,
        });
        expect(own![0].representation).toEqual(resource);
      }
    });

    it('ResourceCreated carries 64-bit integers exactly', async () => {
      const wide = sent.filter((s) => s.firstInt === INT64_MAX || s.firstInt === INT64_MIN);
      expect(wide.length).toBeGreaterThan(0);
      for (const s of wide) {
        const res = await t.http
          .get(`/${pk}/messages`)
          .query({ where: `resource(id = "${s.res!.body.id}")` })
          .set(await t.auth('view_messages', { projectKey: pk }))
          .buffer(true);
        expect(res.status).toBe(200);
        expect(res.body.results).toHaveLength(1);
        expect(res.text).toContain(`"arrayOfIntExample":[${s.firstInt},`);
      }
    });

    it('each resource has one version, 1, whose snapshot is the resource', async () => {
      const histories = await mapLimit(created, 8, async (r, i) => {
        const list = await t.http.get(`${resourcePath(pk, r.id)}/versions`).set(await t.auth('view_audit_log', { projectKey: pk }));
        const snapshot = await t.http.get(`${resourcePath(pk, r.id)}/versions/1`).set(await t.auth('view_test', { projectKey: pk })).buffer(true);
        return { list, snapshot, i };
      });
      for (const { list, snapshot, i } of histories) {
        const resource = created[i];
        expect(list.status).toBe(200);
        expect(list.body.results).toEqual([{ version: 1, modifiedAt: resource.createdAt, modifiedBy: sent[i].by, types: ['ResourceCreated'] }]);
        expect(snapshot.status).toBe(200);
        expect(snapshot.text).toBe(sent[i].res!.text);
      }
    });

    it('search finds each resource at once: by its own values, by a text only it holds, fuzzily, and all 120', async () => {
      const auth = await t.auth('view_test', { projectKey: pk });
      const search = async (query: Record<string, string | number>) => {
        const res = await t.http.get(`/${pk}/resource/searchApiPattern`).query({ staged: 'true', ...query }).set(auth);
        expect(res.status).toBe(200);
        return res.body as { total: number; results: Array<{ id: string }> };
      };
      expect((await search({ limit: 0 })).total).toBe(COUNT);
      for (const i of [0, 1, 2, 3, 4, 37, 119]) {
        const byValue = await search({ 'filter.query': `objectTypeProperty.arrayOfObjectType.integerExample:${i * 1000}` });
        expect(byValue.results.map((r) => r.id)).toEqual([created[i].id]);
      }
      for (const i of [1, 2, 3, 4]) {
        // `'x'.repeat(i * 13)`: one resource's word; one letter changed, it is found through the fuzzy vocabulary.
        const word = 'x'.repeat(i * 13);
        expect((await search({ 'text.en': word })).results.map((r) => r.id)).toEqual([created[i].id]);
        expect((await search({ 'text.en': `${word.slice(1)}y`, fuzzy: 'true' })).results.map((r) => r.id)).toEqual([created[i].id]);
      }
    });

    it('the creates were written together: statements of several creates (of several clients), at most 50 each, 120 in all', () => {
      const mine = statements.filter(([project]) => project === pk);
      const sizes = mine.map(([, size]) => size);
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(COUNT);
      expect(Math.max(...sizes)).toBeGreaterThan(1);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(50);
      expect(sizes.length).toBeLessThan(COUNT);
      // The clients were interleaved, so a statement of several creates wrote several clients' creates.
      expect(Math.max(...mine.map(([, , modifiers]) => modifiers))).toBeGreaterThan(1);
    });
  });

  it('invalid requests among concurrent creates get their 400; the valid ones are all created', async () => {
    const pk = uniqueProjectKey('batch');
    const authorization = (await t.auth('manage_test', { projectKey: pk })).Authorization;
    const invalid: [string, string][] = [
      [JSON.stringify(draft({ publish: 'yes' })), 'publish'],
      [JSON.stringify({ publish: true }), 'objectTypeProperty'],
      [JSON.stringify(draft({}, { arrayOfStringExample: [1] })), 'objectTypeProperty.arrayOfStringExample[0]'],
      [JSON.stringify(draft({ extra: 1 })), 'extra'],
      [JSON.stringify(draft({}, { arrayOfTwonumbersExample: [1] })), 'objectTypeProperty.arrayOfTwonumbersExample'],
      [JSON.stringify(draft({ key: 'x' })), 'key'],
    ];
    const sent: (Sent & { invalidField?: string })[] = Array.from({ length: 60 }, (_, i) => {
      if (i % 3 === 1) {
        const [text, field] = invalid[((i - 1) / 3) % invalid.length];
        return { by: { clientId: '' }, authorization, text, firstInt: '', invalidField: field };
      }
      const publish = i % 2 === 0 ? false : undefined;
      return { by: { clientId: '' }, authorization, publish, ...variedBody(i, publish) };
    });
    await fire(pk, sent);

    const valid = sent.filter((s) => !s.invalidField);
    for (const s of sent.filter((x) => x.invalidField)) {
      expectErrorEnvelope(s.res!, 400);
      expect(s.res!.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: s.invalidField })]));
    }
    for (const s of valid) {
      expect(s.res!.status).toBe(201);
      expect(s.res!.body.version).toBe(1);
      expect(s.res!.body.published).toBe(s.publish ?? true);
      expect(s.res!.text).toContain(`"arrayOfIntExample":[${s.firstInt},`);
      const read = await getById(pk, s.res!.body.id);
      expect(read.status).toBe(200);
      expect(read.text).toBe(s.res!.text);
    }
    expect(new Set(valid.map((s) => s.res!.body.id)).size).toBe(valid.length);
    // Exactly the valid creates left a message; the refused ones none.
    const messages = await projectMessages(pk);
    expect(messages.map((m) => m.resource.id).sort()).toEqual(valid.map((s) => s.res!.body.id).sort());
    expect(messages.every((m) => m.type === 'ResourceCreated' && m.sequenceNumber === 1)).toBe(true);
  });

  it('creates of two projects at once stay in their own project', async () => {
    const projects = [uniqueProjectKey('batch'), uniqueProjectKey('batch')];
    const tokens = await Promise.all(projects.map(async (pk) => (await t.auth('manage_test', { projectKey: pk })).Authorization));
    const PER_PROJECT = 40;
    const perProject: Sent[][] = projects.map((_, p) =>
      Array.from({ length: PER_PROJECT }, (_, i) => ({ by: { clientId: '' }, authorization: tokens[p], ...variedBody(p * 100 + i, undefined) })),
    );
    // Interleaved, all at once.
    const order = Array.from({ length: PER_PROJECT * 2 }, (_, n) => ({ p: n % 2, s: perProject[n % 2][Math.floor(n / 2)] }));
    statements.length = 0;
    const answers = await Promise.all(
      order.map(({ p, s }) => t.http.post(resourcePath(projects[p])).set('Authorization', s.authorization).set('Content-Type', 'application/json').send(s.text)),
    );
    answers.forEach((res, n) => (order[n].s.res = res));

    for (const [p, pk] of projects.entries()) {
      const other = projects[1 - p];
      const ids = perProject[p].map((s) => {
        expect(s.res!.status).toBe(201);
        expect(s.res!.headers.location).toBe(`/${pk}/resource/${s.res!.body.id}`);
        return s.res!.body.id as string;
      });
      expect(new Set(ids).size).toBe(PER_PROJECT);
      await mapLimit(perProject[p], 8, async (s) => {
        const own = await getById(pk, s.res!.body.id);
        expect(own.status).toBe(200);
        expect(own.text).toBe(s.res!.text);
        const elsewhere = await t.http.get(resourcePath(other, s.res!.body.id)).set(await t.auth('view_test', { projectKey: other }));
        expectErrorEnvelope(elsewhere, 404);
      });
      const messages = await projectMessages(pk);
      expect(messages.map((m) => m.resource.id).sort()).toEqual([...ids].sort());
    }
    // Each statement wrote one project's creates: 40 per project in all.
    for (const pk of projects) {
      expect(statements.filter(([project]) => project === pk).reduce((a, [, size]) => a + size, 0)).toBe(PER_PROJECT);
    }
  });

  it('after a burst has been written, a create arriving alone is written at once, by a statement of its own', async () => {
    const pk = uniqueProjectKey('batch');
    const authorization = (await t.auth('manage_test', { projectKey: pk })).Authorization;
    const burst: Sent[] = Array.from({ length: 20 }, (_, i) => ({ by: { clientId: '' }, authorization, ...variedBody(i, undefined) }));
    await fire(pk, burst);
    for (const s of burst) expect(s.res!.status).toBe(201);
    statements.length = 0;
    const res = await t.http.post(resourcePath(pk)).set('Authorization', authorization).send(draft());
    expect(res.status).toBe(201);
    expect(statements.map(([project, size]) => [project, size])).toEqual([[pk, 1]]);
    const read = await getById(pk, res.body.id);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
    expect((await projectMessages(pk)).length).toBe(21);
  });
});

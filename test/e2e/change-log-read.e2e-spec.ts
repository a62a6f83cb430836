import type { Response } from 'supertest';
import { Database } from '../../src/database/database.js';
import { createTestApp, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { draft, INT64_MAX, INT64_MIN } from '../support/fixtures.js';
import { createResource, queryPath, resourcePath } from '../support/resources.js';
import { expectErrorEnvelope } from '../support/expect-error.js';

/*
 * Black-box tests of the change log's read side (docs/change-log-and-subscriptions.md#change-log): GET /{projectKey}/messages,
 * /messages/{id}, /resource/{id}/versions and /resource/{id}/versions/{version}. The rows are seeded
 * with SQL in the stored format the writes produce (payload: the type's members as JSON text without
 * braces; representation: the JSON text of GET by id), in projects of this file that no request writes to.
 */

type Params = Array<[string, string]>;

interface SeedMessage {
  name: string;
  id: string;
  resourceId: string;
  resourceVersion: number;
  sequenceNumber: number;
  key?: string;
  type: string;
  createdAt: string;
  createdBy: string;
  payload: string;
}

const CLIENT = '{"clientId":"client-1"}';
const CUSTOMER = '{"clientId":"client-2","customerId":"cust-7"}';
/** A representation as GET by id answers it, 64-bit integers included (never parsed by the test). */
const representation = (id: string, version: number, extra = '') =>
  `{"id":"${id}","key":"alpha","version":${version},"createdAt":"2026-11-20T10:00:00.000Z","lastModifiedAt":"2026-11-20T10:00:00.000Z",` +
  `"createdBy":${CLIENT},"lastModifiedBy":${CLIENT},"published":true,"objectTypeProperty":{"arrayOfIntExample":[${INT64_MAX},${INT64_MIN}],` +
  `"arrayOfUniqueIntExample":[],"arrayOfTwonumbersExample":[1.5,2.5],"arrayOfFloatExample":[],"arrayOfNumberNoDefaultsExample":[],` +
  `"arrayOfStringExample":[],"arrayOfObjectType":[{"integerExample":${INT64_MAX},"integerExampleInt32":7}]}${extra},"images":[]}`;

const A = 'a0000000-0000-4000-8000-00000000000a';
const B = 'b0000000-0000-4000-8000-00000000000b';
const C = 'c0000000-0000-4000-8000-00000000000c';
const D = 'd0000000-0000-4000-8000-00000000000d';
const msgId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** The seeded messages of the project, by name; m5/m6 are of B (no key), c1/d1 share createdAt and sequenceNumber (ties by id). */
const MESSAGES: SeedMessage[] = [
  { name: 'a1', id: msgId(11), resourceId: A, resourceVersion: 1, sequenceNumber: 1, key: 'alpha', type: 'ResourceCreated', createdAt: '2026-11-20T10:00:00.000Z', createdBy: CLIENT, payload: `"representation":${representation(A, 1)}` },
  { name: 'b1', id: msgId(21), resourceId: B, resourceVersion: 1, sequenceNumber: 1, type: 'ResourceCreated', createdAt: '2026-11-20T10:30:00.000Z', createdBy: CUSTOMER, payload: `"representation":{"id":"${B}","version":1}` },
  { name: 'd1', id: msgId(41), resourceId: D, resourceVersion: 1, sequenceNumber: 1, key: 'delta', type: 'ResourceCreated', createdAt: '2026-11-20T11:00:00.000Z', createdBy: CLIENT, payload: `"representation":{"id":"${D}","version":1}` },
  { name: 'c1', id: msgId(31), resourceId: C, resourceVersion: 1, sequenceNumber: 1, key: 'charlie', type: 'ResourceCreated', createdAt: '2026-11-20T11:00:00.000Z', createdBy: CLIENT, payload: `"representation":{"id":"${C}","version":1}` },
  { name: 'a2', id: msgId(12), resourceId: A, resourceVersion: 2, sequenceNumber: 2, key: 'alpha', type: 'SomePropertyChanged', createdAt: '2026-11-20T11:00:00.000Z', createdBy: CLIENT, payload: '"someProperty":"b","oldSomeProperty":"a"' },
  { name: 'a3', id: msgId(13), resourceId: A, resourceVersion: 2, sequenceNumber: 3, key: 'alpha', type: 'SomeThingDone', createdAt: '2026-11-20T11:00:00.000Z', createdBy: CLIENT, payload: '' },
  { name: 'a4', id: msgId(14), resourceId: A, resourceVersion: 3, sequenceNumber: 4, key: 'alpha2', type: 'KeySet', createdAt: '2026-11-20T12:00:00.000Z', createdBy: CLIENT, payload: '"key":"alpha2","oldKey":"alpha"' },
  { name: 'a5', id: msgId(15), resourceId: A, resourceVersion: 4, sequenceNumber: 5, key: 'alpha2', type: 'ObjectTypePropertySet', createdAt: '2026-11-20T13:00:00.000Z', createdBy: CLIENT, payload: `"objectTypeProperty":{"arrayOfIntExample":[${INT64_MIN}]}` },
  { name: 'b2', id: msgId(22), resourceId: B, resourceVersion: 2, sequenceNumber: 2, type: 'ResourceDeleted', createdAt: '2026-11-21T09:00:00.000Z', createdBy: CUSTOMER, payload: '' },
];
/** The default order: createdAt, then sequenceNumber, then id. */
const DEFAULT_ORDER = ['a1', 'b1', 'c1', 'd1', 'a2', 'a3', 'a4', 'a5', 'b2'];
const byName = (name: string) => MESSAGES.find((m) => m.name === name)!;

/** The message's JSON text as the API shows it, members in order, the payload's appended as stored. */
function messageText(m: SeedMessage): string {
  const common =
    `{"id":"${m.id}","version":1,"sequenceNumber":${m.sequenceNumber},"resource":{"typeId":"resource","id":"${m.resourceId}"},` +
    `"resourceVersion":${m.resourceVersion},"resourceUserProvidedIdentifiers":{${m.key ? `"key":"${m.key}"` : ''}},"type":"${m.type}",` +
    `"createdAt":"${m.createdAt}","lastModifiedAt":"${m.createdAt}","createdBy":${m.createdBy},"lastModifiedBy":${m.createdBy}`;
  return `${common}${m.payload ? `,${m.payload}` : ''}}`;
}

async function insertMessages(db: Database, projectKey: string, messages: SeedMessage[]): Promise<void> {
  for (const m of messages) {
    await db.query(
      `INSERT INTO message (id, project_key, resource_id, resource_version, sequence_number, resource_key, type, created_at, created_by, payload)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10)`,
      [m.id, projectKey, m.resourceId, m.resourceVersion, m.sequenceNumber, m.key ?? null, m.type, m.createdAt, m.createdBy, m.payload],
    );
  }
}

async function insertVersion(db: Database, projectKey: string, resourceId: string, version: number, modifiedAt: string, modifiedBy: string, types: string[], text: string): Promise<void> {
  await db.query(
    `INSERT INTO resource_version (resource_id, version, project_key, modified_at, modified_by, types, representation)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6::text[], $7)`,
    [resourceId, version, projectKey, modifiedAt, modifiedBy, types, text],
  );
}

describe('the change log (read side)', () => {
  let t: TestApp;
  let db: Database;
  /** A project of this file that only SQL writes to (the writes of other projects record their own rows). */
  let pk: string;
  let otherPk: string;
  const messagesPath = (project = pk) => `/${project}/messages`;

  async function messages(params: Params, project = pk, scope = 'view_messages'): Promise<Response> {
    const search = new URLSearchParams(params).toString();
    return t.http.get(`${messagesPath(project)}${search ? `?${search}` : ''}`).set(await t.auth(scope, { projectKey: project }));
  }

  /** The names of the results, in order. */
  function names(res: Response): string[] {
    expect(res.status).toBe(200);
    return (res.body.results as Array<{ id: string }>).map((item) => MESSAGES.find((m) => m.id === item.id)?.name ?? `?${item.id}`);
  }

  beforeAll(async () => {
    // The retention job does not run during these tests (change-log-retention.e2e-spec.ts tests it).
    t = await createTestApp({ CHANGE_LOG_RETENTION_INTERVAL_SECONDS: '86400' });
    db = t.app.get(Database);
    pk = t.projectKey;
    otherPk = t.otherProjectKey;
    await insertMessages(db, pk, MESSAGES);
    await insertMessages(db, otherPk, [{ ...byName('a1'), name: 'other', id: msgId(99), resourceId: 'e0000000-0000-4000-8000-00000000000e', payload: '' }]);
    // A's history: three versions; B was deleted (its versions stay).
    await insertVersion(db, pk, A, 1, '2026-11-20T10:00:00.000Z', CLIENT, ['ResourceCreated'], representation(A, 1));
    await insertVersion(db, pk, A, 2, '2026-11-20T11:00:00.000Z', CLIENT, ['SomePropertyChanged', 'SomeThingDone'], representation(A, 2, ',"someProperty":"b"'));
    await insertVersion(db, pk, A, 3, '2026-11-20T12:00:00.000Z', CUSTOMER, ['KeySet'], representation(A, 3, ',"someProperty":"b"'));
    await insertVersion(db, pk, B, 1, '2026-11-20T10:30:00.000Z', CUSTOMER, ['ResourceCreated'], `{"id":"${B}","version":1}`);
    await insertVersion(db, otherPk, 'e0000000-0000-4000-8000-00000000000e', 1, '2026-11-20T10:30:00.000Z', CLIENT, ['ResourceCreated'], '{"id":"e","version":1}');
  });
  afterAll(() => t.close());

  describe('GET /{projectKey}/messages', () => {
    it('answers every message of the project in the order of writing (createdAt, sequenceNumber, then id), with the paged envelope', async () => {
      const res = await messages([]);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(names(res)).toEqual(DEFAULT_ORDER);
      const texts = DEFAULT_ORDER.map((name) => messageText(byName(name)));
      expect(res.text).toBe(`{"limit":20,"offset":0,"count":9,"total":9,"results":[${texts.join(',')}]}`);
    });

    it('shows each message exactly: common members in order, then its payload as stored (64-bit integers exact)', async () => {
      const res = await messages([['where', `id = "${byName('a1').id}"`]]);
      expect(res.text).toContain(`"arrayOfIntExample":[${INT64_MAX},${INT64_MIN}]`);
      expect(res.text).toContain(`{"integerExample":${INT64_MAX},"integerExampleInt32":7}`);
      const a5 = await messages([['where', `id = "${byName('a5').id}"`]]);
      expect(a5.text).toContain(`,"objectTypeProperty":{"arrayOfIntExample":[${INT64_MIN}]}}]}`);
      expect(a5.body.results[0]).toEqual({
        id: byName('a5').id,
        version: 1,
        sequenceNumber: 5,
        resource: { typeId: 'resource', id: A },
        resourceVersion: 4,
        resourceUserProvidedIdentifiers: { key: 'alpha2' },
        type: 'ObjectTypePropertySet',
        createdAt: '2026-11-20T13:00:00.000Z',
        lastModifiedAt: '2026-11-20T13:00:00.000Z',
        createdBy: { clientId: 'client-1' },
        lastModifiedBy: { clientId: 'client-1' },
        objectTypeProperty: { arrayOfIntExample: [expect.any(Number)] },
      });
      const b2 = await messages([['where', `id = "${byName('b2').id}"`]]);
      expect(b2.body.results[0]).toMatchObject({ resourceUserProvidedIdentifiers: {}, createdBy: { clientId: 'client-2', customerId: 'cust-7' }, type: 'ResourceDeleted' });
      expect(Object.keys(b2.body.results[0])).toEqual(['id', 'version', 'sequenceNumber', 'resource', 'resourceVersion', 'resourceUserProvidedIdentifiers', 'type', 'createdAt', 'lastModifiedAt', 'createdBy', 'lastModifiedBy']);
    });

    it.each<[string, Params, string[]]>([
      ['id', [['where', `id = "${msgId(12)}"`]], ['a2']],
      ['id in', [['where', `id in ("${msgId(12)}", "${msgId(22)}")`]], ['a2', 'b2']],
      ['type', [['where', 'type = "ResourceCreated"']], ['a1', 'b1', 'c1', 'd1']],
      ['type in a variable list', [['where', 'type in :types'], ['var.types', 'KeySet'], ['var.types', 'ResourceDeleted']], ['a4', 'b2']],
      ['resource(id)', [['where', `resource(id = "${A}")`]], ['a1', 'a2', 'a3', 'a4', 'a5']],
      ['resource(id) from a variable', [['where', 'resource(id = :id)'], ['var.id', B]], ['b1', 'b2']],
      ['resource(id) with an id that is not a UUID', [['where', 'resource(id = "nope")']], []],
      ['resourceVersion', [['where', 'resourceVersion = 2']], ['a2', 'a3', 'b2']],
      ['sequenceNumber', [['where', 'sequenceNumber >= 4']], ['a4', 'a5']],
      ['createdAt', [['where', 'createdAt > "2026-11-20T11:00:00.000Z"']], ['a4', 'a5', 'b2']],
      ['createdAt as a date', [['where', 'createdAt >= "2026-11-21"']], ['b2']],
      ['resourceUserProvidedIdentifiers(key)', [['where', 'resourceUserProvidedIdentifiers(key = "alpha")']], ['a1', 'a2', 'a3']],
      ['resourceUserProvidedIdentifiers(key is not defined)', [['where', 'resourceUserProvidedIdentifiers(key is not defined)']], ['b1', 'b2']],
      ['and, or, not', [['where', `resource(id = "${A}") and not (type = "SomeThingDone" or sequenceNumber > 3)`]], ['a1', 'a2']],
      ['two where parameters are ANDed', [['where', 'type = "ResourceCreated"'], ['where', 'createdAt >= "2026-11-20T11:00:00Z"']], ['c1', 'd1']],
    ])('where on %s', async (_name, params, expected) => {
      expect(names(await messages(params))).toEqual(expected);
    });

    it.each<[string, Params, string[]]>([
      ['sequenceNumber desc (ties by id asc)', [['sort', 'sequenceNumber desc']], ['a5', 'a4', 'a3', 'a2', 'b2', 'a1', 'b1', 'c1', 'd1']],
      ['createdAt desc, then sequenceNumber desc', [['sort', 'createdAt desc'], ['sort', 'sequenceNumber desc']], ['b2', 'a5', 'a4', 'a3', 'a2', 'c1', 'd1', 'b1', 'a1']],
      ['type asc (byte-wise), then id', [['sort', 'type asc']], ['a4', 'a5', 'a1', 'b1', 'c1', 'd1', 'b2', 'a2', 'a3']],
      ['resourceVersion desc', [['sort', 'resourceVersion desc'], ['where', `resource(id = "${A}")`]], ['a5', 'a4', 'a2', 'a3', 'a1']],
      ['id desc', [['sort', 'id desc']], [...MESSAGES].sort((x, y) => (x.id < y.id ? 1 : -1)).map((m) => m.name)],
    ])('sort: %s', async (_name, params, expected) => {
      expect(names(await messages(params))).toEqual(expected);
    });

    it('pages with limit and offset, and leaves total out with withTotal=false', async () => {
      const page = await messages([['limit', '3'], ['offset', '2']]);
      expect(page.body).toMatchObject({ limit: 3, offset: 2, count: 3, total: 9 });
      expect(names(page)).toEqual(DEFAULT_ORDER.slice(2, 5));
      const last = await messages([['limit', '4'], ['offset', '8'], ['withTotal', 'false']]);
      expect(last.body).toEqual({ limit: 4, offset: 8, count: 1, results: [expect.objectContaining({ id: byName('b2').id })] });
      expect(last.text).not.toContain('"total"');
      const none = await messages([['limit', '0']]);
      expect(none.body).toEqual({ limit: 0, offset: 0, count: 0, total: 9, results: [] });
      const past = await messages([['offset', '10000']]);
      expect(past.body).toEqual({ limit: 20, offset: 10000, count: 0, total: 9, results: [] });
      expect((await messages([['limit', '500'], ['limit', '500']])).status).toBe(400);
      expect((await messages([['limit', '5.0']])).body).toMatchObject({ limit: 5, count: 5 });
    });

    /** The same request to sorted-query-parameters: the shared rules answer the same 400. */
    async function resourceQuery(params: Params): Promise<Response> {
      return t.http.get(`${queryPath(pk)}?${new URLSearchParams(params)}`).set(await t.auth('view_test', { projectKey: pk }));
    }

    it.each<[string, Params]>([
      ['a syntax error', [['where', 'id = ']]],
      ['a value of the wrong type', [['where', 'id = 5']]],
      ['an unbound variable', [['where', 'id = :missing']]],
      ['a variable given twice where one value is expected', [['where', 'id = :x'], ['var.x', 'a'], ['var.x', 'b']]],
      ['an unclosed string', [['where', 'id = "abc']]],
      ['too many where parameters', Array.from({ length: 11 }, (): [string, string] => ['where', 'id is defined'])],
      ['a where longer than 10,000 characters', [['where', `id = "${'x'.repeat(10_001)}"`]]],
      ['a sort with a bad direction', [['sort', 'id up']]],
      ['limit 501', [['limit', '501']]],
      ['limit 5.5', [['limit', '5.5']]],
      ['offset 10001', [['offset', '10001']]],
      ['withTotal maybe', [['withTotal', 'maybe']]],
    ])('%s → the same 400 as sorted-query-parameters', async (_name, params) => {
      const res = await messages(params);
      expectErrorEnvelope(res, 400);
      const same = await resourceQuery(params);
      expect({ status: res.status, body: res.body }).toEqual({ status: same.status, body: same.body });
    });

    it('an unknown field names the message fields ("Malformed parameter: where: …", as the OpenAPI example shows)', async () => {
      const res = await messages([['where', 'colour = "red"']]);
      expectErrorEnvelope(res, 400, 'InvalidInput');
      const message =
        'Malformed parameter: where: expected a field (id, sequenceNumber, resourceVersion, type, createdAt, resource, resourceUserProvidedIdentifiers) but found unknown field "colour" (line 1, column 1)';
      expect(res.body).toEqual({ statusCode: 400, message, errors: [{ code: 'InvalidInput', message }] });
      const doc = await t.http.get('/openapi.json');
      expect(doc.body.paths['/{projectKey}/messages'].get.responses['400'].content['application/json'].example.message).toBe(message);
    });

    it('a field of the resource (key, version) is not a message field; a sort without its direction or by a field that does not sort → InvalidField naming the sortable ones', async () => {
      expect((await messages([['where', 'key = "alpha"']])).body.message).toMatch(/^Malformed parameter: where: expected a field \(id, sequenceNumber/);
      const bare = await messages([['sort', 'id']]);
      expectErrorEnvelope(bare, 400, 'InvalidField');
      expect(bare.body.message).toBe('Malformed parameter: sort: expected "<field> asc" or "<field> desc" (field one of id, sequenceNumber, resourceVersion, type, createdAt) but found "id".');
      const res = await messages([['sort', 'createdBy asc']]);
      expectErrorEnvelope(res, 400, 'InvalidField');
      expect(res.body.message).toBe('Malformed parameter: sort: expected a field to sort by (id, sequenceNumber, resourceVersion, type, createdAt) but found "createdBy".');
    });
  });

  describe('GET /{projectKey}/messages/{id}', () => {
    it('answers one message exactly as the list shows it', async () => {
      for (const m of MESSAGES) {
        const res = await t.http.get(`${messagesPath()}/${m.id}`).set(await t.auth('view_messages'));
        expect(res.status).toBe(200);
        expect(res.text).toBe(messageText(m));
      }
    });

    it('404 ResourceNotFound for an unknown id, and for an id that is not a UUID (no route, with or without a token)', async () => {
      expectErrorEnvelope(await t.http.get(`${messagesPath()}/${msgId(1234)}`).set(await t.auth('view_messages')), 404, 'ResourceNotFound');
      expectErrorEnvelope(await t.http.get(`${messagesPath()}/not-a-uuid`).set(await t.auth('view_messages')), 404, 'ResourceNotFound');
      expectErrorEnvelope(await t.http.get(`${messagesPath()}/not-a-uuid`), 404, 'ResourceNotFound');
      expectErrorEnvelope(await t.http.get(`${messagesPath()}/${msgId(12)}/more`).set(await t.auth('view_messages')), 404, 'ResourceNotFound');
    });
  });

  describe('access to the messages', () => {
    const paths = () => [messagesPath(), `${messagesPath()}/${msgId(12)}`];

    it.each(['view_messages', 'manage_test', 'view_messages view_test'])('%s may read them', async (scope) => {
      for (const path of paths()) expect((await t.http.get(path).set(await t.auth(scope))).status).toBe(200);
    });

    it.each(['view_test', 'view_audit_log', 'manage_api_clients'])('%s alone → 403 insufficient_scope', async (scope) => {
      for (const path of paths()) expectErrorEnvelope(await t.http.get(path).set(await t.auth(scope)), 403, 'insufficient_scope');
    });

    it('a customer-bound client needs view_messages like any other (manage_my_profile_test is not enough)', async () => {
      for (const path of paths()) {
        expectErrorEnvelope(await t.http.get(path).set(await t.auth('manage_my_profile_test', { customerId: 'cust-7' })), 403, 'insufficient_scope');
        expect((await t.http.get(path).set(await t.auth('view_messages', { customerId: 'cust-7' }))).status).toBe(200);
      }
    });

    it('no token → 401 invalid_token; a malformed project key → 400', async () => {
      for (const path of paths()) expectErrorEnvelope(await t.http.get(path), 401, 'invalid_token');
      expectErrorEnvelope(await t.http.get('/Bad_Key/messages').set(await t.auth('view_messages')), 400, 'InvalidInput');
    });

    it("isolates projects: another project's token is refused here, and there sees only that project's messages", async () => {
      expectErrorEnvelope(await t.http.get(messagesPath()).set(await t.auth('view_messages', { projectKey: otherPk })), 403, 'insufficient_scope');
      const other = await messages([], otherPk);
      expect(other.body).toMatchObject({ count: 1, total: 1 });
      expect(other.body.results[0].id).toBe(msgId(99));
      expect((await messages([['where', `id = "${msgId(12)}"`]], otherPk)).body).toMatchObject({ count: 0, total: 0, results: [] });
      expect((await messages([['where', `resource(id = "${A}")`]], otherPk)).body).toMatchObject({ count: 0, total: 0 });
      const res = await t.http.get(`${messagesPath(otherPk)}/${msgId(12)}`).set(await t.auth('view_messages', { projectKey: otherPk }));
      expectErrorEnvelope(res, 404, 'ResourceNotFound');
      // A project with no message at all: an empty page.
      const empty = uniqueProjectKey('e');
      expect((await messages([], empty)).body).toEqual({ limit: 20, offset: 0, count: 0, total: 0, results: [] });
    });
  });

  describe('GET /{projectKey}/resource/{id}/versions', () => {
    const versionsPath = (id: string, project = pk) => `/${project}/resource/${id}/versions`;
    const read = async (path: string, scope = 'view_audit_log', options: { projectKey?: string; customerId?: string } = {}) =>
      t.http.get(path).set(await t.auth(scope, { projectKey: options.projectKey ?? pk, customerId: options.customerId }));

    it('lists the versions newest first, with who wrote each, when, and the message types of the write', async () => {
      const res = await read(versionsPath(A));
      expect(res.status).toBe(200);
      expect(res.text).toBe(
        '{"limit":20,"offset":0,"count":3,"total":3,"results":[' +
          `{"version":3,"modifiedAt":"2026-11-20T12:00:00.000Z","modifiedBy":${CUSTOMER},"types":["KeySet"]},` +
          `{"version":2,"modifiedAt":"2026-11-20T11:00:00.000Z","modifiedBy":${CLIENT},"types":["SomePropertyChanged","SomeThingDone"]},` +
          `{"version":1,"modifiedAt":"2026-11-20T10:00:00.000Z","modifiedBy":${CLIENT},"types":["ResourceCreated"]}]}`,
      );
    });

    it('pages with limit and offset (total counts every version)', async () => {
      const res = await t.http.get(`${versionsPath(A)}?limit=1&offset=1`).set(await t.auth('view_audit_log'));
      expect(res.body).toEqual({ limit: 1, offset: 1, count: 1, total: 3, results: [expect.objectContaining({ version: 2 })] });
      expect((await t.http.get(`${versionsPath(A)}?offset=3`).set(await t.auth('view_audit_log'))).body).toEqual({ limit: 20, offset: 3, count: 0, total: 3, results: [] });
      expectErrorEnvelope(await t.http.get(`${versionsPath(A)}?limit=501`).set(await t.auth('view_audit_log')), 400, 'InvalidField');
      expectErrorEnvelope(await t.http.get(`${versionsPath(A)}?offset=-1`).set(await t.auth('view_audit_log')), 400, 'InvalidField');
    });

    it("answers each version's representation byte for byte (64-bit integers exact), also of a deleted resource", async () => {
      expect((await read(`${versionsPath(A)}/1`)).text).toBe(representation(A, 1));
      const v2 = await read(`${versionsPath(A)}/2`);
      expect(v2.status).toBe(200);
      expect(v2.headers['content-type']).toMatch(/^application\/json/);
      expect(v2.text).toBe(representation(A, 2, ',"someProperty":"b"'));
      expect((await read(`${versionsPath(B)}/1`)).text).toBe(`{"id":"${B}","version":1}`);
      expect((await read(versionsPath(B))).body).toMatchObject({ count: 1, total: 1, results: [{ version: 1, modifiedBy: { clientId: 'client-2', customerId: 'cust-7' } }] });
    });

    it('404 ResourceNotFound for an id with no version, an unknown version, and segments that match no route', async () => {
      expectErrorEnvelope(await read(versionsPath(msgId(5))), 404, 'ResourceNotFound');
      expectErrorEnvelope(await read(`${versionsPath(msgId(5))}/1`), 404, 'ResourceNotFound');
      for (const version of ['4', '0', '2147483648', '9999999999', '99999999999', 'abc', '-1', '1.0']) {
        expectErrorEnvelope(await read(`${versionsPath(A)}/${version}`), 404, 'ResourceNotFound');
      }
      expectErrorEnvelope(await read(`/${pk}/resource/not-a-uuid/versions`), 404, 'ResourceNotFound');
      expectErrorEnvelope(await read(`/${pk}/resource/key=alpha/versions`), 404, 'ResourceNotFound');
      expectErrorEnvelope(await t.http.get(`/${pk}/resource/not-a-uuid/versions/1`), 404, 'ResourceNotFound');
    });

    it.each(['view_audit_log', 'view_test', 'manage_test'])('%s may read the history', async (scope) => {
      expect((await read(versionsPath(A), scope)).status).toBe(200);
      expect((await read(`${versionsPath(A)}/1`, scope)).status).toBe(200);
    });

    it.each(['view_messages', 'manage_my_profile_test', 'manage_api_clients'])('%s alone → 403 insufficient_scope', async (scope) => {
      expectErrorEnvelope(await read(versionsPath(A), scope), 403, 'insufficient_scope');
      expectErrorEnvelope(await read(`${versionsPath(A)}/1`, scope), 403, 'insufficient_scope');
    });

    it('a customer-bound client is treated as by GET by id: with view_audit_log (or view_test) it reads every history, with only its customer scope it is refused', async () => {
      expect((await read(versionsPath(A), 'view_audit_log', { customerId: 'cust-9' })).status).toBe(200);
      expect((await read(`${versionsPath(A)}/3`, 'view_test', { customerId: 'cust-9' })).status).toBe(200);
      expectErrorEnvelope(await read(versionsPath(A), 'manage_my_profile_test', { customerId: 'cust-7' }), 403, 'insufficient_scope');
    });

    it('no token → 401; another project neither sees nor counts the history', async () => {
      expectErrorEnvelope(await t.http.get(versionsPath(A)), 401, 'invalid_token');
      expectErrorEnvelope(await t.http.get(`${versionsPath(A)}/1`), 401, 'invalid_token');
      expectErrorEnvelope(await read(versionsPath(A), 'view_audit_log', { projectKey: otherPk }), 403, 'insufficient_scope');
      expectErrorEnvelope(await read(versionsPath(A, otherPk), 'view_audit_log', { projectKey: otherPk }), 404, 'ResourceNotFound');
      expectErrorEnvelope(await read(`${versionsPath(A, otherPk)}/1`, 'view_audit_log', { projectKey: otherPk }), 404, 'ResourceNotFound');
    });
  });

  describe('the resource routes beside /resource/{id}/versions', () => {
    it('still answer: by id, by key, query, update and delete, and the versions routes take no other path', async () => {
      const project = uniqueProjectKey('r');
      const auth = await t.auth('manage_test', { projectKey: project });
      const created = await createResource(t, project, draft({ key: 'versions-neighbour' }));
      expect((await t.http.get(resourcePath(project, created.id)).set(auth)).body).toEqual(created);
      expect((await t.http.get(`/${project}/resource/key=versions-neighbour`).set(auth)).body).toEqual(created);
      expect((await t.http.get(queryPath(project)).set(auth)).body).toMatchObject({ count: 1, results: [{ id: created.id }] });
      const updated = await t.http.post(resourcePath(project, created.id)).set(auth).send({ version: 1, actions: [{ action: 'changeSomeProperty', someProperty: 'x' }] });
      expect(updated.body).toMatchObject({ version: 2, someProperty: 'x' });
      // A static segment under /resource is not an id: 404 (no route) for versions under it.
      expectErrorEnvelope(await t.http.get(`/${project}/resource/searchApiPattern/versions`).set(auth), 404, 'ResourceNotFound');
      expectErrorEnvelope(await t.http.get(`/${project}/resource/images/versions/1`).set(auth), 404, 'ResourceNotFound');
      expect((await t.http.delete(`${resourcePath(project, created.id)}?version=2`).set(auth)).status).toBe(200);
      expectErrorEnvelope(await t.http.get(resourcePath(project, created.id)).set(auth), 404, 'ResourceNotFound');
    });
  });
});

import { Database, type Statement } from '../../src/database/database.js';
import { createTestApp, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { expectErrorEnvelope as expectError } from '../support/expect-error.js';
import { ExtensionReceiver } from '../support/extension-receiver.js';
import { draft } from '../support/fixtures.js';

/*
 * How writes under extensions reach the database (docs/extensions.md): an update whose actions alone show
 * that no condition holds is written without reading the stored resource first, yet answers, records its
 * messages and refuses a stale version as any update; a condition that holds only once the actions apply
 * still calls; creates whose extensions were called are written together with the project's other
 * concurrent creates, and updates read their stored resources and are written together, a refused or
 * stale one failing alone. A real HTTP endpoint plays the extensions; the
 * statements the database receives are watched, not changed (some only started late, see `busy`).
 */

describe('writes under API extensions', () => {
  let t: TestApp;
  let receiver: ExtensionReceiver;
  /** The named statements run (`one` runs through `query`), with their values and the project they ran for. */
  const statements: Array<{ name: string; values: unknown[] }> = [];
  let restoreQuery: () => void;
  /**
   * Projects whose statements each start BUSY_MS late, as on a busy database: writes that arrive within that
   * time find their project's two statements running and wait to go together, however fast the database.
   */
  const busy = new Set<string>();
  const BUSY_MS = 40;

  const project = async () => {
    const pk = uniqueProjectKey('xw');
    return { pk, ext: await t.auth('manage_extensions', { projectKey: pk }), res: await t.auth('manage_test', { projectKey: pk }), msg: await t.auth('view_messages', { projectKey: pk }) };
  };
  type Project = Awaited<ReturnType<typeof project>>;
  const extension = async (p: Project, path: string, triggers: unknown[]) => {
    const res = await t.http.post(`/${p.pk}/extensions`).set(p.ext).send({ destination: { type: 'HTTP', url: receiver.url(path) }, triggers });
    expect(res.status).toBe(201);
    return res.body;
  };
  const messages = async (p: Project, id: string) =>
    (await t.http.get(`/${p.pk}/messages`).query({ where: `resource(id = "${id}")`, sort: 'sequenceNumber asc' }).set(p.msg)).body.results as any[];
  /** The statements of project `pk` since `from` with one of `names`. */
  const ran = (pk: string, from: number, ...names: string[]) =>
    statements.slice(from).filter((s) => names.includes(s.name) && s.values.includes(pk));

  beforeAll(async () => {
    receiver = await ExtensionReceiver.start();
    t = await createTestApp();
    const db = t.app.get(Database);
    const query = db.query;
    db.query = async function (this: Database, statement: Statement | string, values?: unknown[], projectKey?: string) {
      if (typeof statement !== 'string') statements.push({ name: statement.name, values: [...(values ?? []), projectKey] });
      if (projectKey !== undefined && busy.has(projectKey)) await new Promise((resolve) => setTimeout(resolve, BUSY_MS));
      return query.call(this, statement, values, projectKey);
    } as Database['query'];
    restoreQuery = () => Reflect.deleteProperty(db, 'query');
  });
  afterAll(async () => {
    restoreQuery?.();
    await t?.close();
    await receiver?.close();
  });

  describe('an update whose conditions its actions decide', () => {
    it('is written without a read or a call when no condition holds: its answer, its messages, 409 on a stale version', async () => {
      const p = await project();
      await extension(p, '/nomatch', [{ resourceTypeId: 'resource', actions: ['Update'], condition: 'someProperty = "call me" and version > 1' }]);
      const created = (await t.http.post(`/${p.pk}/resource`).set(p.res).send(draft({ key: 'quiet' })).expect(201)).body;
      const from = statements.length;
      const updated = await t.http.post(`/${p.pk}/resource/${created.id}`).set(p.res).send({
        version: 1,
        actions: [{ action: 'changeSomeProperty', someProperty: 'not you' }, { action: 'setKey', key: 'quiet-2' }, { action: 'doSomeThing' }],
      });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({ id: created.id, version: 2, key: 'quiet-2', someProperty: 'not you' });
      expect(ran(p.pk, from, 'resource_state_by_id', 'resource_states_by_id', 'resource_by_id')).toEqual([]);
      expect(ran(p.pk, from, 'resource_update', 'resource_update_many')).toHaveLength(1);
      expect(receiver.at('/nomatch')).toHaveLength(0);
      expect((await messages(p, created.id)).map((m) => [m.type, m.resourceVersion])).toEqual([
        ['ResourceCreated', 1], ['SomePropertyChanged', 2], ['KeySet', 2], ['SomeThingDone', 2],
      ]);
      const [, changed, keySet] = await messages(p, created.id);
      expect(changed).toMatchObject({ someProperty: 'not you' });
      expect(changed.oldSomeProperty).toBeUndefined();
      expect(keySet).toMatchObject({ key: 'quiet-2', oldKey: 'quiet' });

      const stale = await t.http.post(`/${p.pk}/resource/${created.id}`).set(p.res).send({ version: 1, actions: [{ action: 'changeSomeProperty', someProperty: 'late' }] });
      expectError(stale, 409, 'ConcurrentModification');
      expect(stale.body.errors[0].currentVersion).toBe(2);
      const missing = await t.http.post(`/${p.pk}/resource/00000000-0000-4000-8000-000000000000`).set(p.res).send({ version: 1, actions: [{ action: 'doSomeThing' }] });
      expectError(missing, 404, 'ResourceNotFound');
      const now = (await t.http.get(`/${p.pk}/resource/${created.id}`).set(p.res)).body;
      expect(now).toMatchObject({ version: 2, someProperty: 'not you' });
      expect(receiver.at('/nomatch')).toHaveLength(0);
    });

    it('calls when the condition holds only once the actions apply, and reads the stored resource for a field the actions leave', async () => {
      const p = await project();
      await extension(p, '/after', [{ resourceTypeId: 'resource', actions: ['Update'], condition: 'someProperty = "go"' }]);
      await extension(p, '/stored', [{ resourceTypeId: 'resource', actions: ['Update'], condition: 'secondPropertyToUpdate = "go" and published = false' }]);
      receiver.answers.set('/after', () => ({ status: 200, body: { actions: [{ action: 'importFooForSecondPropertyToUpdate', secondPropertyToUpdate: 'go' }] } }));
      receiver.answers.set('/stored', () => ({ status: 400, body: { errors: [{ code: 'InvalidOperation', message: 'stored says no' }] } }));
      const created = (await t.http.post(`/${p.pk}/resource`).set(p.res).send(draft({ publish: false })).expect(201)).body;

      // The condition reads only what the action sets, and holds after it: called with the resource as the request leaves it.
      const updated = await t.http.post(`/${p.pk}/resource/${created.id}`).set(p.res).send({ version: 1, actions: [{ action: 'changeSomeProperty', someProperty: 'go' }] });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({ version: 2, someProperty: 'go', secondPropertyToUpdate: 'go', published: false });
      expect(receiver.at('/after').map((c) => c.json.resource.obj)).toEqual([expect.objectContaining({ version: 2, someProperty: 'go', published: false })]);
      expect((await messages(p, created.id)).slice(1).map((m) => m.type)).toEqual(['SomePropertyChanged', 'SecondPropertyToUpdateImported']);

      // The second condition names `published`, which the stored resource holds: it is read, and the condition holds.
      const from = statements.length;
      const refused = await t.http.post(`/${p.pk}/resource/${created.id}`).set(p.res).send({ version: 2, actions: [{ action: 'changeSomeProperty', someProperty: 'stay' }] });
      expect(refused.status).toBe(400);
      expect(refused.body.errors[0]).toMatchObject({ code: 'InvalidOperation', message: 'stored says no' });
      expect(ran(p.pk, from, 'resource_state_by_id')).toHaveLength(1);
      expect(receiver.at('/stored')).toHaveLength(1);
      expect((await t.http.get(`/${p.pk}/resource/${created.id}`).set(p.res)).body).toMatchObject({ version: 2, someProperty: 'go' });

      // Published now: the second condition no longer holds, the first does not either; written without a call.
      const quiet = await t.http.post(`/${p.pk}/resource/${created.id}`).set(p.res).send({ version: 2, actions: [{ action: 'changeSomeProperty', someProperty: 'quiet' }, { action: 'publish' }] });
      expect(quiet.status).toBe(200);
      expect(quiet.body).toMatchObject({ version: 3, someProperty: 'quiet', published: true });
      expect(receiver.at('/after')).toHaveLength(1);
      expect(receiver.at('/stored')).toHaveLength(1);
    });
  });

  describe('creates whose extensions were called', () => {
    it('are written together with the project\'s other creates; a refused one and one whose key was taken fail alone', async () => {
      const p = await project();
      const ext = await extension(p, '/batch', [{ resourceTypeId: 'resource', actions: ['Create'], condition: 'published = true' }]);
      // Every extension answer comes after the same short pause, so the writes reach the database together.
      receiver.answers.set('/batch', (call) => {
        const key = call.json.resource.obj.key as string | undefined;
        if (key?.startsWith('refuse')) return { status: 400, delayMs: 150, body: { errors: [{ code: 'InvalidInput', message: `no ${key}` }] } };
        return { status: 200, delayMs: 150, body: { actions: [{ action: 'importFooForSecondPropertyToUpdate', secondPropertyToUpdate: `for ${key ?? 'no key'}` }] } };
      });
      const from = statements.length;
      busy.add(p.pk);
      const bodies = [
        ...Array.from({ length: 8 }, (_, i) => draft({ key: `ok-${i}` })),
        ...Array.from({ length: 3 }, (_, i) => draft({ key: `refuse-${i}` })),
        draft({ key: 'twice' }),
        draft({ key: 'twice' }),
        ...Array.from({ length: 4 }, () => draft()),
        ...Array.from({ length: 4 }, (_, i) => draft({ key: `plain-${i}`, publish: false })),
      ];
      const answers = await Promise.all(bodies.map((body) => t.http.post(`/${p.pk}/resource`).set(p.res).send(body)));
      busy.delete(p.pk);

      answers.slice(0, 8).forEach((res, i) => {
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({ version: 1, key: `ok-${i}`, secondPropertyToUpdate: `for ok-${i}` });
      });
      answers.slice(8, 11).forEach((res, i) => {
        expect(res.status).toBe(400);
        expect(res.body.errors).toEqual([expect.objectContaining({ code: 'InvalidInput', message: `no refuse-${i}`, extensionId: ext.id })]);
      });
      const twice = answers.slice(11, 13).map((res) => res.status).sort();
      expect(twice).toEqual([201, 409]);
      answers.slice(13, 17).forEach((res) => expect(res.body).toMatchObject({ version: 1, secondPropertyToUpdate: 'for no key' }));
      answers.slice(17).forEach((res, i) => {
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({ key: `plain-${i}`, published: false });
        expect(res.body.secondPropertyToUpdate).toBeUndefined();
      });

      // 14 creates reached the database after their calls (the 8, both of `twice`, the 4 without a key) in
      // fewer statements: those whose calls ended together went in one.
      expect(answers.filter((res) => res.status === 201)).toHaveLength(17);
      const extended = ran(p.pk, from, 'resource_create_complete', 'resource_create_many_complete');
      expect(extended.some((s) => s.name === 'resource_create_many_complete')).toBe(true);
      expect(extended.length).toBeLessThan(14);

      for (const res of answers.filter((r) => r.status === 201)) {
        const stored = await t.http.get(`/${p.pk}/resource/${res.body.id}`).set(p.res);
        expect(stored.body).toEqual(res.body);
        const expected = res.body.published ? [['ResourceCreated', 1], ['SecondPropertyToUpdateImported', 1]] : [['ResourceCreated', 1]];
        expect((await messages(p, res.body.id)).map((m) => [m.type, m.resourceVersion, m.sequenceNumber])).toEqual(expected.map(([type, v], i) => [type, v, i + 1]));
      }
      for (let i = 0; i < 3; i++) expectError(await t.http.get(`/${p.pk}/resource/key=refuse-${i}`).set(p.res), 404);
    });
  });

  describe('updates whose extensions are called', () => {
    it('read the stored resources together and are written together; a refused one and a stale one fail alone', async () => {
      const p = await project();
      const ext = await extension(p, '/updates', [{ resourceTypeId: 'resource', actions: ['Update'] }]);
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) ids.push((await t.http.post(`/${p.pk}/resource`).set(p.res).send(draft({ key: `u-${i}` })).expect(201)).body.id);
      receiver.answers.set('/updates', (call) => {
        const { someProperty } = call.json.resource.obj;
        if (someProperty === 'refuse') return { status: 400, delayMs: 150, body: { errors: [{ code: 'InvalidOperation', message: 'refused' }] } };
        return { status: 200, delayMs: 150, body: { actions: [{ action: 'importFooForSecondPropertyToUpdate', secondPropertyToUpdate: `after ${someProperty}` }] } };
      });
      const from = statements.length;
      busy.add(p.pk);
      const answers = await Promise.all(ids.map((id, i) =>
        t.http.post(`/${p.pk}/resource/${id}`).set(p.res).send({ version: i === 11 ? 3 : 1, actions: [{ action: 'changeSomeProperty', someProperty: i === 10 ? 'refuse' : `v${i}` }] })));
      busy.delete(p.pk);

      answers.slice(0, 10).forEach((res, i) => {
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ id: ids[i], version: 2, key: `u-${i}`, someProperty: `v${i}`, secondPropertyToUpdate: `after v${i}` });
      });
      expect(answers[10].status).toBe(400);
      expect(answers[10].body.errors).toEqual([expect.objectContaining({ code: 'InvalidOperation', message: 'refused', extensionId: ext.id })]);
      expectError(answers[11], 409, 'ConcurrentModification');
      expect(answers[11].body.errors[0].currentVersion).toBe(1);
      // The stale one is answered from its read, before any call.
      expect(receiver.at('/updates')).toHaveLength(11);

      const reads = ran(p.pk, from, 'resource_state_by_id', 'resource_states_by_id');
      expect(reads.some((r) => r.name === 'resource_states_by_id')).toBe(true);
      expect(reads.length).toBeLessThan(12);
      const writes = ran(p.pk, from, 'resource_update', 'resource_update_many');
      expect(writes.some((w) => w.name === 'resource_update_many')).toBe(true);
      expect(writes.length).toBeLessThan(10);

      for (const [i, id] of ids.entries()) {
        const stored = (await t.http.get(`/${p.pk}/resource/${id}`).set(p.res)).body;
        expect(stored.version).toBe(i < 10 ? 2 : 1);
        expect((await messages(p, id)).map((m) => m.type)).toEqual(i < 10 ? ['ResourceCreated', 'SomePropertyChanged', 'SecondPropertyToUpdateImported'] : ['ResourceCreated']);
      }
    });
  });
});

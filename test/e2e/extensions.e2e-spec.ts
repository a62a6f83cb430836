import { createTestApp, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { expectErrorEnvelope as expectError } from '../support/expect-error.js';
import { ExtensionReceiver } from '../support/extension-receiver.js';
import { draft, INT64_MAX } from '../support/fixtures.js';
import { compileCondition } from '../../src/extensions/condition.js';
import { parseJson } from '../../src/common/lossless-json.js';

/*
 * /{projectKey}/extensions (docs/extensions.md): the API (validation, masking, limits, scopes), and the
 * calls before creates and updates, answered by a real HTTP endpoint on loopback: each kind of answer,
 * timeouts, conditions, several extensions, a write that changed meanwhile.
 */

const METRICS_TOKEN = 'metrics-token-for-extension-tests';

describe('API extensions', () => {
  let t: TestApp;
  let receiver: ExtensionReceiver;

  /** A fresh project with tokens to manage its extensions and its resources. */
  const project = async () => {
    const pk = uniqueProjectKey('x');
    return { pk, ext: await t.auth('manage_extensions', { projectKey: pk }), res: await t.auth('manage_test', { projectKey: pk }), msg: await t.auth('view_messages', { projectKey: pk }) };
  };
  type Project = Awaited<ReturnType<typeof project>>;
  const extension = async (p: Project, path: string, extra: Record<string, unknown> = {}) => {
    const res = await t.http.post(`/${p.pk}/extensions`).set(p.ext).send({
      destination: { type: 'HTTP', url: receiver.url(path) },
      triggers: [{ resourceTypeId: 'resource', actions: ['Create', 'Update'] }],
      ...extra,
    });
    expect(res.status).toBe(201);
    return res.body;
  };
  const messages = async (p: Project, id: string) =>
    (await t.http.get(`/${p.pk}/messages`).query({ where: `resource(id = "${id}")`, sort: 'sequenceNumber asc' }).set(p.msg)).body.results as any[];

  beforeAll(async () => {
    receiver = await ExtensionReceiver.start();
    t = await createTestApp({ METRICS_TOKEN, EXTENSIONS_MAX_TIMEOUT_MS: '3000' });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  describe('POST, GET, POST by id, DELETE /{projectKey}/extensions', () => {
    it('stores an extension and answers it with the header value masked, everywhere', async () => {
      const p = await project();
      const body = await extension(p, '/crud', {
        key: 'rules',
        destination: { type: 'HTTP', url: receiver.url('/crud'), authentication: { type: 'AuthorizationHeader', headerValue: 'Bearer very-secret-1234' } },
        triggers: [{ resourceTypeId: 'resource', actions: ['Create'], condition: 'published = true' }],
        timeoutInMs: 500,
      });
      expect(Object.keys(body)).toEqual(['id', 'version', 'key', 'destination', 'triggers', 'timeoutInMs', 'createdAt', 'lastModifiedAt']);
      expect(body).toMatchObject({
        version: 1,
        key: 'rules',
        destination: { type: 'HTTP', url: receiver.url('/crud'), authentication: { type: 'AuthorizationHeader', headerValue: '****1234' } },
        triggers: [{ resourceTypeId: 'resource', actions: ['Create'], condition: 'published = true' }],
        timeoutInMs: 500,
      });
      for (const path of [`/${p.pk}/extensions/${body.id}`, `/${p.pk}/extensions/key=rules`]) {
        const res = await t.http.get(path).set(p.ext);
        expect(res.status).toBe(200);
        expect(res.body).toEqual(body);
      }
      const list = await t.http.get(`/${p.pk}/extensions`).set(p.ext);
      expect(list.body).toMatchObject({ limit: 20, offset: 0, count: 1, total: 1, results: [body] });
      expect(JSON.stringify(list.body)).not.toContain('very-secret');

      const updated = await t.http.post(`/${p.pk}/extensions/${body.id}`).set(p.ext).send({
        version: 1,
        actions: [{ action: 'setTimeoutInMs' }, { action: 'setKey', key: 'rules-2' }, { action: 'changeTriggers', triggers: [{ resourceTypeId: 'resource', actions: ['Update'] }] }],
      });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({ version: 2, key: 'rules-2', timeoutInMs: 2000, triggers: [{ resourceTypeId: 'resource', actions: ['Update'] }] });
      expect(updated.body.destination.authentication.headerValue).toBe('****1234');
      expectError(await t.http.post(`/${p.pk}/extensions/${body.id}`).set(p.ext).send({ version: 1, actions: [{ action: 'setKey' }] }), 409, 'ConcurrentModification');
      expectError(await t.http.delete(`/${p.pk}/extensions/${body.id}`).query({ version: 1 }).set(p.ext), 409, 'ConcurrentModification');
      const deleted = await t.http.delete(`/${p.pk}/extensions/${body.id}`).query({ version: 2 }).set(p.ext);
      expect(deleted.status).toBe(200);
      expect(deleted.body.id).toBe(body.id);
      expectError(await t.http.get(`/${p.pk}/extensions/${body.id}`).set(p.ext), 404, 'ResourceNotFound');
    });

    it('refuses bad drafts with 400: condition (line and column), triggers, timeout, host, key', async () => {
      const p = await project();
      const post = (extra: Record<string, unknown>) =>
        t.http.post(`/${p.pk}/extensions`).set(p.ext).send({ destination: { type: 'HTTP', url: receiver.url('/bad') }, triggers: [{ resourceTypeId: 'resource', actions: ['Create'] }], ...extra });
      const condition = await post({ triggers: [{ resourceTypeId: 'resource', actions: ['Create'], condition: 'someProperty = "a" and\n  nope = 1' }] });
      expectError(condition, 400, 'InvalidInput');
      expect(condition.body.message).toMatch(/^triggers\[0\]\.condition: Malformed condition: .*unknown field "nope".*\(line 2, column 3\)$/);
      const typed = await post({ triggers: [{ resourceTypeId: 'resource', actions: ['Create'], condition: 'version = "x"' }] });
      expectError(typed, 400, 'InvalidInput');
      expect(typed.body.message).toContain('(line 1, column 11)');
      expectError(await post({ triggers: [] }), 400);
      expectError(await post({ triggers: [{ resourceTypeId: 'resource', actions: ['Create', 'Create'] }] }), 400);
      expectError(await post({ triggers: [{ resourceTypeId: 'resource', actions: ['Delete'] }] }), 400);
      expectError(await post({ triggers: Array.from({ length: 11 }, () => ({ resourceTypeId: 'resource', actions: ['Create'] })) }), 400);
      expectError(await post({ timeoutInMs: 0 }), 400);
      const long = await post({ timeoutInMs: 3001 });
      expectError(long, 400, 'InvalidField');
      expect(long.body.message).toContain('EXTENSIONS_MAX_TIMEOUT_MS');
      const host = await post({ destination: { type: 'HTTP', url: 'http://169.254.169.254/latest' } });
      expectError(host, 400, 'InvalidInput');
      expect(host.body.message).toBe('destination: host not allowed.');
      expectError(await post({ destination: { type: 'HTTP', url: receiver.url('/x'), authentication: { type: 'AuthorizationHeader', headerValue: 'a\nb' } } }), 400);
      expectError(await post({ unknown: 1 }), 400, 'InvalidField');
      expect((await post({ key: 'taken' })).status).toBe(201);
      expectError(await post({ key: 'taken' }), 400, 'DuplicateField');
    });

    it('allows 25 extensions per project, the 26th is 400 MaxResourceLimitExceeded', async () => {
      const p = await project();
      for (let i = 0; i < 25; i++) await extension(p, '/limit', { triggers: [{ resourceTypeId: 'resource', actions: ['Create'], condition: 'key = "never"' }] });
      const res = await t.http.post(`/${p.pk}/extensions`).set(p.ext).send({ destination: { type: 'HTTP', url: receiver.url('/limit') }, triggers: [{ resourceTypeId: 'resource', actions: ['Create'] }] });
      expectError(res, 400, 'MaxResourceLimitExceeded');
    });

    it('needs manage_extensions of the project', async () => {
      const p = await project();
      const body = { destination: { type: 'HTTP', url: receiver.url('/s') }, triggers: [{ resourceTypeId: 'resource', actions: ['Create'] }] };
      expectError(await t.http.post(`/${p.pk}/extensions`).set(p.res).send(body), 403, 'insufficient_scope');
      expectError(await t.http.get(`/${p.pk}/extensions`).set(p.res), 403, 'insufficient_scope');
      expectError(await t.http.get(`/${p.pk}/extensions`), 401, 'invalid_token');
      const other = await project();
      expectError(await t.http.get(`/${p.pk}/extensions`).set(other.ext), 403, 'insufficient_scope');
    });
  });

  describe('the call before a write', () => {
    it('sends the resource as the write would leave it, with X-Correlation-ID and Authorization; an empty answer lets it go on', async () => {
      const p = await project();
      await extension(p, '/plain', { destination: { type: 'HTTP', url: receiver.url('/plain'), authentication: { type: 'AuthorizationHeader', headerValue: 'Bearer abc-9876' } } });
      const res = await t.http.post(`/${p.pk}/resource`).set(p.res).set('X-Request-Id', 'req-ext-1').send(draft({ key: 'k1' }));
      expect(res.status).toBe(201);
      const [call] = receiver.at('/plain');
      expect(call.headers['x-correlation-id']).toBe('req-ext-1');
      expect(call.headers.authorization).toBe('Bearer abc-9876');
      expect(call.headers['content-type']).toBe('application/json');
      expect(call.json.action).toBe('Create');
      expect(call.json.resource).toMatchObject({ typeId: 'resource', id: res.body.id });
      const { createdAt, lastModifiedAt, ...rest } = call.json.resource.obj;
      const { createdAt: c2, lastModifiedAt: l2, ...written } = res.body;
      expect(rest).toEqual(written);

      for (const answer of [{ status: 200, body: {} }, { status: 201, body: { actions: [] } }, { status: 200, body: '' }]) {
        receiver.answers.set('/plain', () => answer);
        const update = await t.http.post(`/${p.pk}/resource/${res.body.id}`).set(p.res).send({ version: (await t.http.get(`/${p.pk}/resource/${res.body.id}`).set(p.res)).body.version, actions: [{ action: 'doSomeThing' }] });
        expect(update.status).toBe(200);
      }
      const updates = receiver.at('/plain').slice(1);
      expect(updates.map((c) => [c.json.action, c.json.resource.obj.version])).toEqual([['Update', 2], ['Update', 3], ['Update', 4]]);
    });

    it('applies the actions an extension answers after the client\'s, in one version with their messages', async () => {
      const p = await project();
      await extension(p, '/amend');
      receiver.answers.set('/amend', (call) => ({ status: 200, body: { actions: [{ action: 'importFooForSecondPropertyToUpdate', secondPropertyToUpdate: `set on ${call.json.action}` }] } }));
      const created = await t.http.post(`/${p.pk}/resource`).set(p.res).send(draft({ key: 'amended' }));
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ version: 1, key: 'amended', secondPropertyToUpdate: 'set on Create' });
      expect((await messages(p, created.body.id)).map((m) => [m.type, m.resourceVersion])).toEqual([['ResourceCreated', 1], ['SecondPropertyToUpdateImported', 1]]);

      const updated = await t.http.post(`/${p.pk}/resource/${created.body.id}`).set(p.res).send({ version: 1, actions: [{ action: 'changeSomeProperty', someProperty: 'by client' }] });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({ version: 2, someProperty: 'by client', secondPropertyToUpdate: 'set on Update' });
      expect((await messages(p, created.body.id)).slice(2).map((m) => [m.type, m.resourceVersion])).toEqual([['SomePropertyChanged', 2], ['SecondPropertyToUpdateImported', 2]]);

      const overwritten = await t.http.put(`/${p.pk}/resource`).set(p.res).send(draft({ key: 'amended', publish: false }));
      expect(overwritten.status).toBe(201);
      expect(overwritten.body).toMatchObject({ id: created.body.id, version: 3, published: false });
      expect((await messages(p, created.body.id)).slice(4).map((m) => m.type)).toEqual(['ObjectTypePropertySet', 'ResourceUnpublished', 'SecondPropertyToUpdateImported']);
    });

    it('passes an extension\'s 400 errors on, each with extensionId and extensionKey, and writes nothing', async () => {
      const p = await project();
      const ext = await extension(p, '/refuse', { key: 'gate' });
      receiver.answers.set('/refuse', () => ({
        status: 400,
        body: { errors: [{ code: 'InvalidInput', message: 'someProperty is required', extensionExtraInfo: { field: 'someProperty' } }, { code: 'InvalidOperation', message: 'not today', localizedMessage: { en: 'not today' } }] },
      }));
      const res = await t.http.post(`/${p.pk}/resource`).set(p.res).send(draft({ key: 'refused' }));
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([
        { code: 'InvalidInput', message: 'someProperty is required', extensionExtraInfo: { field: 'someProperty' }, extensionId: ext.id, extensionKey: 'gate' },
        { code: 'InvalidOperation', message: 'not today', localizedMessage: { en: 'not today' }, extensionId: ext.id, extensionKey: 'gate' },
      ]);
      expectError(await t.http.get(`/${p.pk}/resource/key=refused`).set(p.res), 404);
    });

    it('answers 502 ExtensionBadResponse for answers it cannot use, 400 ExtensionUpdateActionsFailed for actions that fail', async () => {
      const p = await project();
      const ext = await extension(p, '/bad');
      const cases: Array<[{ status: number; body?: unknown }, number | undefined]> = [
        [{ status: 500, body: { oops: true } }, 500],
        [{ status: 200, body: 'not json' }, 200],
        [{ status: 200, body: { actions: Array.from({ length: 101 }, () => ({ action: 'doSomeThing' })) } }, 200],
        [{ status: 200, body: [1] }, 200],
        [{ status: 400, body: { errors: [{ code: 'General', message: 'x' }] } }, 400],
        [{ status: 204 }, 204],
      ];
      for (const [answer, statusCode] of cases) {
        receiver.answers.set('/bad', () => answer);
        const res = await t.http.post(`/${p.pk}/resource`).set(p.res).send(draft());
        expectError(res, 502, 'ExtensionBadResponse');
        expect(res.body.errors[0]).toMatchObject({ extensionId: ext.id, extensionStatusCode: statusCode });
      }
      receiver.answers.set('/bad', () => ({ status: 500, body: 'x'.repeat(10_000) }));
      const long = await t.http.post(`/${p.pk}/resource`).set(p.res).send(draft());
      expect(long.body.errors[0].extensionBody).toHaveLength(4096);

      receiver.answers.set('/bad', () => ({ status: 200, body: { actions: [{ action: 'doSomeThing' }, { action: 'changeSomeProperty', someProperty: 5 }] } }));
      const failed = await t.http.post(`/${p.pk}/resource`).set(p.res).send(draft({ key: 'never-written' }));
      expectError(failed, 400, 'ExtensionUpdateActionsFailed');
      expect(failed.body.errors[0].extensionId).toBe(ext.id);
      expect(failed.body.errors[0].extensionErrors[0]).toMatchObject({ actionIndex: 1 });
      expectError(await t.http.get(`/${p.pk}/resource/key=never-written`).set(p.res), 404);
    });

    it('answers 504 ExtensionNoResponse past timeoutInMs, or when nothing listens', async () => {
      const p = await project();
      const ext = await extension(p, '/slow', { timeoutInMs: 300 });
      receiver.answers.set('/slow', () => ({ status: 200, delayMs: 1500 }));
      const started = Date.now();
      const res = await t.http.post(`/${p.pk}/resource`).set(p.res).send(draft({ key: 'slow' }));
      expectError(res, 504, 'ExtensionNoResponse');
      expect(res.body.errors[0].extensionId).toBe(ext.id);
      expect(Date.now() - started).toBeLessThan(1400);
      expectError(await t.http.get(`/${p.pk}/resource/key=slow`).set(p.res), 404);

      const q = await project();
      await extension(q, '/x', { destination: { type: 'HTTP', url: 'http://127.0.0.1:1/nothing' } });
      expectError(await t.http.post(`/${q.pk}/resource`).set(q.res).send(draft()), 504, 'ExtensionNoResponse');
    });

    it('ends 409 and writes nothing (no version, no message) when the resource changed while its extension was called', async () => {
      const p = await project();
      const created = await t.http.post(`/${p.pk}/resource`).set(p.res).send(draft({ key: 'raced' }));
      await extension(p, '/race', { triggers: [{ resourceTypeId: 'resource', actions: ['Update'], condition: 'someProperty = "slow"' }] });
      receiver.answers.set('/race', () => ({ status: 200, delayMs: 600, body: { actions: [{ action: 'importFooForSecondPropertyToUpdate', secondPropertyToUpdate: 'late' }] } }));
      const slow = t.http.post(`/${p.pk}/resource/${created.body.id}`).set(p.res).send({ version: 1, actions: [{ action: 'changeSomeProperty', someProperty: 'slow' }] }).then((r) => r);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const fast = await t.http.post(`/${p.pk}/resource/${created.body.id}`).set(p.res).send({ version: 1, actions: [{ action: 'doSomeThing' }] });
      expect(fast.status).toBe(200);
      const res = await slow;
      expectError(res, 409, 'ConcurrentModification');
      expect(res.body.errors[0].currentVersion).toBe(2);
      const now = (await t.http.get(`/${p.pk}/resource/${created.body.id}`).set(p.res)).body;
      expect(now.version).toBe(2);
      expect(now.someProperty).toBeUndefined();
      expect(now.secondPropertyToUpdate).toBeUndefined();
      expect((await messages(p, created.body.id)).map((m) => m.type)).toEqual(['ResourceCreated', 'SomeThingDone']);
      expect(receiver.at('/race')).toHaveLength(1);
    });

    it('calls an extension only when its condition holds for the resource as the request leaves it', async () => {
      const p = await project();
      await extension(p, '/cond', { triggers: [{ resourceTypeId: 'resource', actions: ['Create', 'Update'], condition: 'someProperty = "check me" or objectTypeProperty(arrayOfIntExample contains any (424242))' }] });
      const before = receiver.at('/cond').length;
      const plain = await t.http.post(`/${p.pk}/resource`).set(p.res).send(draft());
      expect(plain.status).toBe(201);
      expect(receiver.at('/cond')).toHaveLength(before);
      const matching = await t.http.post(`/${p.pk}/resource`).set(p.res).send(draft({}, { arrayOfIntExample: [424242] }));
      expect(matching.status).toBe(201);
      expect(receiver.at('/cond')).toHaveLength(before + 1);
      // Matches only after the client's action: evaluated on the resource as the request leaves it.
      await t.http.post(`/${p.pk}/resource/${plain.body.id}`).set(p.res).send({ version: 1, actions: [{ action: 'changeSomeProperty', someProperty: 'check me' }] }).expect(200);
      expect(receiver.at('/cond')).toHaveLength(before + 2);
      expect(receiver.at('/cond').at(-1)!.json.resource.obj).toMatchObject({ version: 2, someProperty: 'check me' });
      await t.http.post(`/${p.pk}/resource/${plain.body.id}`).set(p.res).send({ version: 2, actions: [{ action: 'changeSomeProperty', someProperty: 'other' }] }).expect(200);
      expect(receiver.at('/cond')).toHaveLength(before + 2);
    });

    it('calls several extensions at once and applies their actions in creation order; the first refusal decides', async () => {
      const p = await project();
      await extension(p, '/first');
      const second = await extension(p, '/second', { key: 'second' });
      const third = await extension(p, '/third');
      receiver.answers.set('/first', () => ({ status: 200, delayMs: 300, body: { actions: [{ action: 'changeSomeProperty', someProperty: 'first' }] } }));
      receiver.answers.set('/second', () => ({ status: 200, delayMs: 300, body: { actions: [{ action: 'changeSomeProperty', someProperty: 'second' }, { action: 'importFooForSecondPropertyToUpdate', secondPropertyToUpdate: 'second' }] } }));
      receiver.answers.set('/third', () => ({ status: 200, delayMs: 300 }));
      const started = Date.now();
      const res = await t.http.post(`/${p.pk}/resource`).set(p.res).send(draft());
      expect(res.status).toBe(201);
      expect(Date.now() - started).toBeLessThan(850);
      expect(res.body).toMatchObject({ someProperty: 'second', secondPropertyToUpdate: 'second' });
      expect((await messages(p, res.body.id)).map((m) => m.type)).toEqual(['ResourceCreated', 'SomePropertyChanged', 'SomePropertyChanged', 'SecondPropertyToUpdateImported']);

      receiver.answers.set('/second', () => ({ status: 400, body: { errors: [{ code: 'InvalidInput', message: 'second says no' }] } }));
      receiver.answers.set('/third', () => ({ status: 400, body: { errors: [{ code: 'InvalidInput', message: 'third says no' }] } }));
      const refused = await t.http.post(`/${p.pk}/resource`).set(p.res).send(draft());
      expect(refused.status).toBe(400);
      expect(refused.body.errors).toEqual([{ code: 'InvalidInput', message: 'second says no', extensionId: second.id, extensionKey: 'second' }]);
      expect(third.id).toBeDefined();
    });

    it('evaluates a condition in memory exactly as the database evaluates the same predicate as a where', async () => {
      const p = await project();
      const drafts = [
        draft({ key: 'a-1' }, { arrayOfIntExample: [1, 5], arrayOfStringExample: ['alpha', 'Beta'], arrayOfObjectType: [{ integerExample: 7, integerExampleInt32: 1 }] }),
        draft({ key: 'b-2', publish: false }, { arrayOfIntExample: [], arrayOfFloatExample: [1.5, -2.25], arrayOfStringExample: ['ü', 'zeta'] }),
        draft({}, { arrayOfIntExample: [9], arrayOfObjectType: [] }),
      ];
      const ids: string[] = [];
      for (const d of drafts) ids.push((await t.http.post(`/${p.pk}/resource`).set(p.res).send(d).expect(201)).body.id);
      const big = await t.http.post(`/${p.pk}/resource`).set(p.res).set('Content-Type', 'application/json')
        .send(`{"key":"big","objectTypeProperty":{"arrayOfIntExample":[${INT64_MAX}],"arrayOfUniqueIntExample":[],"arrayOfTwonumbersExample":[1,2],"arrayOfFloatExample":[],"arrayOfNumberNoDefaultsExample":[],"arrayOfStringExample":[],"arrayOfObjectType":[{"integerExample":-9223372036854775808,"integerExampleInt32":3}]}}`);
      ids.push(big.body.id);
      await t.http.post(`/${p.pk}/resource/${ids[0]}`).set(p.res).send({ version: 1, actions: [{ action: 'changeSomeProperty', someProperty: 'Mango' }] }).expect(200);
      await t.http.post(`/${p.pk}/resource/${ids[2]}`).set(p.res).send({ version: 1, actions: [{ action: 'importFooForSecondPropertyToUpdate', secondPropertyToUpdate: 'x' }] }).expect(200);
      const page = async (where?: string) => {
        const res = await t.http.get(`/${p.pk}/resource/sorted-query-parameters`).query({ limit: 500, ...(where ? { where } : {}) }).set(p.res);
        expect(res.status).toBe(200);
        return (parseJson(res.text) as { results: Record<string, unknown>[] }).results;
      };
      const all = await page();
      expect(all).toHaveLength(4);
      const predicates = [
        'published = true', 'published != true', 'version > 1', 'version in (1, 3)', 'key = "a-1"', 'key != "a-1"', 'key < "b"', 'key >= "b-2"',
        'key is defined', 'key is not defined', 'someProperty is defined', 'someProperty = "Mango"', 'someProperty != "Mango"', 'someProperty > "M"',
        'someProperty not in ("Mango")', 'not (someProperty = "Mango")', 'secondPropertyToUpdate is not defined or published = false',
        `id = "${ids[1]}"`, `id in ("${ids[0]}", "${ids[3].toUpperCase()}")`, 'id > "8"', 'createdAt > "2000-01-01"', 'lastModifiedAt < "2000-01-01T00:00:00Z"',
        'objectTypeProperty(arrayOfIntExample = 5)', 'objectTypeProperty(arrayOfIntExample > 4)', 'objectTypeProperty(arrayOfIntExample != 1)',
        'objectTypeProperty(arrayOfIntExample is empty)', 'objectTypeProperty(arrayOfIntExample is not empty)', 'objectTypeProperty(arrayOfIntExample not in (1, 5))',
        `objectTypeProperty(arrayOfIntExample = ${INT64_MAX})`, 'objectTypeProperty(arrayOfIntExample >= 9223372036854775806)',
        'objectTypeProperty(arrayOfIntExample contains all (1, 5))', 'objectTypeProperty(arrayOfIntExample contains any (5, 9))',
        'objectTypeProperty(arrayOfFloatExample < -2)', 'objectTypeProperty(arrayOfFloatExample = 1.50)', 'objectTypeProperty(arrayOfStringExample > "a")',
        'objectTypeProperty(arrayOfStringExample in ("Beta", "ü"))', 'objectTypeProperty(arrayOfStringExample < "z")',
        'objectTypeProperty(arrayOfObjectType(integerExample = 7 and integerExampleInt32 = 1))', 'objectTypeProperty(arrayOfObjectType(integerExample < 0))',
        'objectTypeProperty(arrayOfObjectType is empty)', 'objectTypeProperty(arrayOfObjectType(integerExample is defined))',
        'not (objectTypeProperty(arrayOfObjectType(integerExample in (7, 8))))', 'objectTypeProperty is defined',
        'published = false or (version = 2 and objectTypeProperty(arrayOfIntExample contains any (9)))',
      ];
      for (const predicate of predicates) {
        const inDatabase = (await page(predicate)).map((r) => r.id).sort();
        const condition = compileCondition(predicate);
        const inMemory = all.filter((r) => condition(r)).map((r) => r.id).sort();
        expect([predicate, inMemory]).toEqual([predicate, inDatabase]);
      }
    });

    it('counts and times the calls on /metrics', async () => {
      const res = await t.http.get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
      expect(res.status).toBe(200);
      for (const outcome of ['ok', 'actions', 'refused', 'bad_response', 'no_response']) {
        expect(res.text).toMatch(new RegExp(`^extension_calls_total\\{outcome="${outcome}"\\} [1-9]`, 'm'));
      }
      expect(res.text).toMatch(/^extension_call_duration_seconds_count\{outcome="ok"\} [1-9]/m);
    });
  });
});

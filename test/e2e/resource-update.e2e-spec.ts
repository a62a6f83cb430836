import type { Response } from 'supertest';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { arrays, draft, INT64_MAX, type ResourceBody } from '../support/fixtures.js';
import { newKey, resourcePath } from '../support/resources.js';
import { sleep } from '../support/timing.js';

/**
 * Black-box tests of POST /{projectKey}/resource/{id} (update actions) and DELETE
 * /{projectKey}/resource/{id} (docs/api-guide.md#update-with-actions).
 */

const MISSING_ID = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';

type Resource = ResourceBody;

describe('resource updates and deletes', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const path = (id = '') => resourcePath(t.projectKey, id);

  async function create(extra: Record<string, unknown> = {}, arrayOverrides: Record<string, unknown> = {}): Promise<Resource> {
    const res = await t.http.post(path()).set(await t.auth('manage_test')).send(draft(extra, arrayOverrides));
    expect(res.status).toBe(201);
    return res.body as Resource;
  }

  async function update(id: string, body: unknown): Promise<Response> {
    return t.http.post(path(id)).set(await t.auth('manage_test')).send(body as object);
  }

  async function updateRaw(id: string, text: string): Promise<Response> {
    return t.http.post(path(id)).set(await t.auth('manage_test')).set('Content-Type', 'application/json').send(text);
  }

  async function read(id: string): Promise<Response> {
    return t.http.get(path(id)).set(await t.auth('view_test'));
  }

  async function byKey(key: string): Promise<Response> {
    return t.http.get(`${path()}/key=${key}`).set(await t.auth('view_test'));
  }

  async function del(id: string, version?: number | string): Promise<Response> {
    const req = t.http.delete(path(id)).set(await t.auth('manage_test'));
    return version === undefined ? req : req.query({ version: String(version) });
  }

  function expectEnvelope(res: Response, status: number, code?: string): void {
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body.statusCode).toBe(status);
    expect(typeof res.body.message).toBe('string');
    expect(Array.isArray(res.body.errors)).toBe(true);
    expect(res.body.errors.length).toBeGreaterThan(0);
    if (code) expect(res.body.errors[0].code).toBe(code);
  }

  /** A 400 for action `index`: errors[0].actionIndex and a message starting `actions[index]:`. */
  function expectActionError(res: Response, index: number, code: string): void {
    expectEnvelope(res, 400, code);
    expect(res.body.errors[0].actionIndex).toBe(index);
    expect(res.body.errors[0].message.startsWith(`actions[${index}]:`)).toBe(true);
  }

  /** Everything but the fields an update would touch. */
  async function expectUnchanged(before: Resource): Promise<void> {
    const now = await read(before.id);
    expect(now.status).toBe(200);
    expect(now.body).toEqual(before);
  }

  describe('POST /{projectKey}/resource/{id}', () => {
    it('changeSomeProperty sets someProperty: 200, version +1, JSON body', async () => {
      const r = await create();
      const res = await update(r.id, { version: 1, actions: [{ action: 'changeSomeProperty', someProperty: 'hello' }] });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body).toMatchObject({ id: r.id, version: 2, someProperty: 'hello', objectTypeProperty: r.objectTypeProperty });
      expect(res.body.createdAt).toBe(r.createdAt);
      expect((await read(r.id)).body).toEqual(res.body);
    });

    it('doSomeThing touches the resource: new version and lastModifiedAt, nothing else', async () => {
      const r = await create();
      await sleep(5);
      const res = await update(r.id, { version: 1, actions: [{ action: 'doSomeThing' }] });
      expect(res.status).toBe(200);
      expect(res.body.version).toBe(2);
      expect(res.body.lastModifiedAt > r.lastModifiedAt).toBe(true);
      const { version: _v, lastModifiedAt: _l, lastModifiedBy: _b, ...rest } = res.body;
      const { version: _v0, lastModifiedAt: _l0, lastModifiedBy: _b0, ...rest0 } = r as unknown as Record<string, unknown>;
      expect(rest).toEqual(rest0);
    });

    it('importFooForSecondPropertyToUpdate sets secondPropertyToUpdate', async () => {
      const r = await create();
      const res = await update(r.id, {
        version: 1,
        actions: [{ action: 'importFooForSecondPropertyToUpdate', secondPropertyToUpdate: 'foo' }],
      });
      expect(res.status).toBe(200);
      expect(res.body.secondPropertyToUpdate).toBe('foo');
      expect(res.body.version).toBe(2);
      expect(res.body).not.toHaveProperty('someProperty');
    });

    it('setKey sets, changes and (without key) removes the key', async () => {
      const r = await create();
      const key1 = newKey();
      const set = await update(r.id, { version: 1, actions: [{ action: 'setKey', key: key1 }] });
      expect(set.status).toBe(200);
      expect(set.body.key).toBe(key1);
      expect((await byKey(key1)).body.id).toBe(r.id);

      const key2 = newKey();
      const changed = await update(r.id, { version: 2, actions: [{ action: 'setKey', key: key2 }] });
      expect(changed.status).toBe(200);
      expect(changed.body.key).toBe(key2);
      expect((await byKey(key1)).status).toBe(404);
      expect((await byKey(key2)).status).toBe(200);

      const removed = await update(r.id, { version: 3, actions: [{ action: 'setKey' }] });
      expect(removed.status).toBe(200);
      expect(removed.body.version).toBe(4);
      expect(removed.body).not.toHaveProperty('key');
      expect((await byKey(key2)).status).toBe(404);
      expect((await read(r.id)).body).not.toHaveProperty('key');
    });

    it('setKey with a key another resource has → 400 DuplicateField, nothing changed', async () => {
      const taken = newKey();
      await create({ key: taken });
      const r = await create();
      const res = await update(r.id, { version: 1, actions: [{ action: 'setKey', key: taken }] });
      expectEnvelope(res, 400, 'DuplicateField');
      expect(res.body.errors[0]).toMatchObject({ field: 'key', duplicateValue: taken });
      await expectUnchanged(r);
    });

    it('setKey to the key the resource already has succeeds', async () => {
      const key = newKey();
      const r = await create({ key });
      const res = await update(r.id, { version: 1, actions: [{ action: 'setKey', key }] });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ key, version: 2 });
    });

    it.each([['x'], ['has space'], ['k'.repeat(257)], [42]])('setKey with an invalid key %p → 400 InvalidField naming the action', async (key) => {
      const r = await create();
      const res = await update(r.id, { version: 1, actions: [{ action: 'setKey', key }] });
      expectActionError(res, 0, 'InvalidField');
      await expectUnchanged(r);
    });

    it('setObjectTypeProperty replaces objectTypeProperty (64-bit exact)', async () => {
      const r = await create();
      const text = JSON.stringify({
        version: 1,
        actions: [{ action: 'setObjectTypeProperty', objectTypeProperty: arrays({ arrayOfIntExample: ['@max@'], arrayOfStringExample: ['new'] }) }],
      }).replace('"@max@"', INT64_MAX);
      const res = await updateRaw(r.id, text);
      expect(res.status).toBe(200);
      expect(res.body.version).toBe(2);
      expect(res.body.objectTypeProperty.arrayOfStringExample).toEqual(['new']);
      expect(res.text.replace(/\s/g, '')).toContain(`"arrayOfIntExample":[${INT64_MAX}]`);
      expect((await read(r.id)).text.replace(/\s/g, '')).toContain(`"arrayOfIntExample":[${INT64_MAX}]`);
    });

    it('setObjectTypeProperty is validated like a draft: paths under actions[i], InvalidField / RequiredField', async () => {
      const r = await create();
      const invalid = await update(r.id, {
        version: 1,
        actions: [{ action: 'setObjectTypeProperty', objectTypeProperty: arrays({ arrayOfTwonumbersExample: [] }) }],
      });
      expectActionError(invalid, 0, 'InvalidField');
      expect(invalid.body.errors[0].field).toBe('actions[0].objectTypeProperty.arrayOfTwonumbersExample');

      const int32 = await update(r.id, {
        version: 1,
        actions: [
          { action: 'doSomeThing' },
          {
            action: 'setObjectTypeProperty',
            objectTypeProperty: arrays({
              arrayOfObjectType: [{ integerExample: 1, integerExampleInt32: 1 }, { integerExample: 1, integerExampleInt32: 2147483648 }],
            }),
          },
        ],
      });
      expectActionError(int32, 1, 'InvalidField');
      expect(int32.body.errors[0].field).toBe('actions[1].objectTypeProperty.arrayOfObjectType[1].integerExampleInt32');

      const missing = await update(r.id, { version: 1, actions: [{ action: 'setObjectTypeProperty' }] });
      expectActionError(missing, 0, 'RequiredField');
      await expectUnchanged(r);
    });

    it('publish and unpublish', async () => {
      const r = await create({ publish: false });
      expect(r.published).toBe(false);
      const published = await update(r.id, { version: 1, actions: [{ action: 'publish' }] });
      expect(published.status).toBe(200);
      expect(published.body).toMatchObject({ published: true, version: 2 });
      const unpublished = await update(r.id, { version: 2, actions: [{ action: 'unpublish' }] });
      expect(unpublished.status).toBe(200);
      expect(unpublished.body).toMatchObject({ published: false, version: 3 });
      expect((await read(r.id)).body.published).toBe(false);
    });

    it('publish on a published resource still counts as a write (version +1)', async () => {
      const r = await create();
      const res = await update(r.id, { version: 1, actions: [{ action: 'publish' }] });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ published: true, version: 2 });
    });

    it('applies the actions in order and adds exactly 1 to the version', async () => {
      const r = await create({ publish: false });
      const key = newKey();
      const res = await update(r.id, {
        version: 1,
        actions: [
          { action: 'changeSomeProperty', someProperty: 'first' },
          { action: 'setKey', key },
          { action: 'publish' },
          { action: 'changeSomeProperty', someProperty: 'second' },
          { action: 'importFooForSecondPropertyToUpdate', secondPropertyToUpdate: 'bar' },
          { action: 'unpublish' },
          { action: 'publish' },
          { action: 'doSomeThing' },
        ],
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ version: 2, someProperty: 'second', secondPropertyToUpdate: 'bar', key, published: true });
    });

    it('setKey then setKey without key leaves no key (order matters)', async () => {
      const r = await create();
      const res = await update(r.id, { version: 1, actions: [{ action: 'setKey', key: newKey() }, { action: 'setKey' }] });
      expect(res.status).toBe(200);
      expect(res.body).not.toHaveProperty('key');
      expect(res.body.version).toBe(2);
    });

    it('every successful request with ≥1 action adds exactly 1', async () => {
      const r = await create();
      let version = 1;
      for (const count of [1, 2, 5, 1]) {
        const res = await update(r.id, {
          version,
          actions: Array.from({ length: count }, (_, i) => ({ action: 'changeSomeProperty', someProperty: `v${version}-${i}` })),
        });
        expect(res.status).toBe(200);
        expect(res.body.version).toBe(version + 1);
        version++;
      }
      expect((await read(r.id)).body.version).toBe(5);
    });

    it('empty actions → 200 with the resource unchanged (version too)', async () => {
      const r = await create();
      const res = await update(r.id, { version: 1, actions: [] });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(r);
      await expectUnchanged(r);
    });

    it('empty actions still check the version: stale → 409 with currentVersion', async () => {
      const r = await create();
      const res = await update(r.id, { version: 2, actions: [] });
      expectEnvelope(res, 409, 'ConcurrentModification');
      expect(res.body.errors[0].currentVersion).toBe(1);
    });

    it('a version that differs → 409 ConcurrentModification with errors[0].currentVersion, nothing changed', async () => {
      const r = await create();
      expect((await update(r.id, { version: 1, actions: [{ action: 'doSomeThing' }] })).status).toBe(200);
      const r2 = (await read(r.id)).body as Resource;
      for (const version of [1, 3, 100]) {
        const res = await update(r.id, { version, actions: [{ action: 'changeSomeProperty', someProperty: 'lost' }] });
        expectEnvelope(res, 409, 'ConcurrentModification');
        expect(res.body.errors[0].currentVersion).toBe(2);
      }
      await expectUnchanged(r2);
    });

    it('a client can retry a 409 with errors[0].currentVersion', async () => {
      const r = await create();
      await update(r.id, { version: 1, actions: [{ action: 'doSomeThing' }] });
      const conflict = await update(r.id, { version: 1, actions: [{ action: 'changeSomeProperty', someProperty: 'retry' }] });
      expect(conflict.status).toBe(409);
      const retried = await update(r.id, {
        version: conflict.body.errors[0].currentVersion,
        actions: [{ action: 'changeSomeProperty', someProperty: 'retry' }],
      });
      expect(retried.status).toBe(200);
      expect(retried.body).toMatchObject({ version: 3, someProperty: 'retry' });
    });

    it('a version with a zero fraction (2.0) is a whole number and accepted', async () => {
      const r = await create();
      await update(r.id, { version: 1, actions: [{ action: 'doSomeThing' }] });
      const res = await updateRaw(r.id, '{"version": 2.0, "actions": [{"action": "doSomeThing"}]}');
      expect(res.status).toBe(200);
      expect(res.body.version).toBe(3);
    });

    it('version missing → 400 RequiredField version', async () => {
      const r = await create();
      const res = await update(r.id, { actions: [{ action: 'doSomeThing' }] });
      expectEnvelope(res, 400, 'RequiredField');
      expect(res.body.errors[0].field).toBe('version');
      await expectUnchanged(r);
    });

    it.each([2.5, '1', null, true, 0, -1])('version %p → 400 InvalidField version', async (version) => {
      const r = await create();
      const res = await update(r.id, { version, actions: [{ action: 'doSomeThing' }] });
      expectEnvelope(res, 400, 'InvalidField');
      expect(res.body.errors[0].field).toBe('version');
      await expectUnchanged(r);
    });

    it('actions missing or not an array → 400', async () => {
      const r = await create();
      const missing = await update(r.id, { version: 1 });
      expectEnvelope(missing, 400, 'RequiredField');
      expect(missing.body.errors[0].field).toBe('actions');
      const notArray = await update(r.id, { version: 1, actions: { action: 'doSomeThing' } });
      expectEnvelope(notArray, 400, 'InvalidField');
      expect(notArray.body.errors[0].field).toBe('actions');
      await expectUnchanged(r);
    });

    it('unknown body fields → 400 InvalidField', async () => {
      const r = await create();
      const res = await update(r.id, { version: 1, actions: [], colour: 'red' });
      expectEnvelope(res, 400, 'InvalidField');
      expect(res.body.errors[0].field).toBe('colour');
    });

    it.each([
      ['an array', '[]'],
      ['a string', '"x"'],
      ['null', 'null'],
    ])('a body that is %s → 400', async (_name, text) => {
      const r = await create();
      expectEnvelope(await updateRaw(r.id, text), 400);
      await expectUnchanged(r);
    });

    it('an unknown action → 400 with errors[0].actionIndex and a message starting actions[2]:', async () => {
      const r = await create();
      const res = await update(r.id, {
        version: 1,
        actions: [{ action: 'doSomeThing' }, { action: 'changeSomeProperty', someProperty: 'x' }, { action: 'fly' }],
      });
      expectActionError(res, 2, 'InvalidField');
      await expectUnchanged(r);
    });

    it('an action without a name → 400 naming its index', async () => {
      const r = await create();
      const res = await update(r.id, { version: 1, actions: [{ action: 'doSomeThing' }, { someProperty: 'x' }] });
      expectEnvelope(res, 400);
      expect(res.body.errors[0].actionIndex).toBe(1);
      expect(res.body.errors[0].message.startsWith('actions[1]:')).toBe(true);
    });

    it('an action that is not an object → 400 naming its index', async () => {
      const r = await create();
      const res = await update(r.id, { version: 1, actions: ['doSomeThing'] });
      expectActionError(res, 0, 'InvalidField');
    });

    it.each([
      ['doSomeThing', { action: 'doSomeThing', extra: 1 }],
      ['changeSomeProperty', { action: 'changeSomeProperty', someProperty: 'x', secondPropertyToUpdate: 'y' }],
      ['publish', { action: 'publish', key: 'abc' }],
      ['setKey', { action: 'setKey', key: 'abc', someProperty: 'x' }],
    ])('an unknown field inside %s → 400 InvalidField naming the action', async (_name, action) => {
      const r = await create();
      const res = await update(r.id, { version: 1, actions: [{ action: 'doSomeThing' }, action] });
      expectActionError(res, 1, 'InvalidField');
      await expectUnchanged(r);
    });

    it.each([
      ['changeSomeProperty without someProperty', { action: 'changeSomeProperty' }, 'RequiredField'],
      ['changeSomeProperty with a number', { action: 'changeSomeProperty', someProperty: 5 }, 'InvalidField'],
      ['importFooForSecondPropertyToUpdate without its field', { action: 'importFooForSecondPropertyToUpdate' }, 'RequiredField'],
      ['importFooForSecondPropertyToUpdate with an object', { action: 'importFooForSecondPropertyToUpdate', secondPropertyToUpdate: {} }, 'InvalidField'],
    ])('%s → 400 %s naming the action', async (_name, action, code) => {
      const r = await create();
      const res = await update(r.id, { version: 1, actions: [action] });
      expectActionError(res, 0, code);
      await expectUnchanged(r);
    });

    it('is all or nothing: a valid first action and an invalid second change nothing', async () => {
      const r = await create();
      const res = await update(r.id, {
        version: 1,
        actions: [{ action: 'changeSomeProperty', someProperty: 'should-not-stick' }, { action: 'nope' }],
      });
      expectActionError(res, 1, 'InvalidField');
      await expectUnchanged(r);
    });

    it('is all or nothing when the database refuses a later action (taken key)', async () => {
      const taken = newKey();
      await create({ key: taken });
      const r = await create();
      const res = await update(r.id, {
        version: 1,
        actions: [
          { action: 'changeSomeProperty', someProperty: 'should-not-stick' },
          { action: 'unpublish' },
          { action: 'setKey', key: taken },
        ],
      });
      expectEnvelope(res, 400, 'DuplicateField');
      await expectUnchanged(r);
    });

    it('accepts 500 actions and rejects 501 with 400', async () => {
      const r = await create();
      const actions = (n: number) => Array.from({ length: n }, (_, i) => ({ action: 'changeSomeProperty', someProperty: `p${i}` }));
      const tooMany = await update(r.id, { version: 1, actions: actions(501) });
      expectEnvelope(tooMany, 400);
      await expectUnchanged(r);
      const max = await update(r.id, { version: 1, actions: actions(500) });
      expect(max.status).toBe(200);
      expect(max.body).toMatchObject({ version: 2, someProperty: 'p499' });
    });

    it('an unknown id → 404 ResourceNotFound', async () => {
      const res = await update(MISSING_ID, { version: 1, actions: [{ action: 'doSomeThing' }] });
      expectEnvelope(res, 404, 'ResourceNotFound');
    });

    it('a malformed id → plain 404 ResourceNotFound', async () => {
      const res = await update('not-a-uuid', { version: 1, actions: [{ action: 'doSomeThing' }] });
      expectEnvelope(res, 404, 'ResourceNotFound');
    });

    it('check order: validation (400) before existence (404) before version (409)', async () => {
      expectEnvelope(await update(MISSING_ID, { actions: [] }), 400, 'RequiredField');
      expectEnvelope(await update(MISSING_ID, { version: 99, actions: [{ action: 'doSomeThing' }] }), 404, 'ResourceNotFound');
      expectEnvelope(await update(MISSING_ID, { version: 99, actions: [] }), 404, 'ResourceNotFound');
      const r = await create();
      expectEnvelope(await update(r.id, { version: 99, actions: [{ action: 'fly' }] }), 400, 'InvalidField');
    });

    it('of 30 concurrent requests with the same version exactly one wins; the others get 409', async () => {
      const r = await create();
      const auth = await t.auth('manage_test');
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          t.http.post(path(r.id)).set(auth).send({ version: 1, actions: [{ action: 'changeSomeProperty', someProperty: `w${i}` }] }),
        ),
      );
      const statuses = results.map((res) => res.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(29);
      for (const res of results.filter((x) => x.status === 409)) {
        expect(res.body.errors[0]).toMatchObject({ code: 'ConcurrentModification', currentVersion: 2 });
      }
      const winner = results.find((res) => res.status === 200)!;
      const final = await read(r.id);
      expect(final.body.version).toBe(2);
      expect(final.body.someProperty).toBe(winner.body.someProperty);
    });

    it('loses no update: concurrent workers retrying on 409 each land all their increments', async () => {
      const r = await create({}, { arrayOfIntExample: [] });
      const auth = await t.auth('manage_test');
      const viewAuth = await t.auth('view_test');
      const workers = 5;
      const perWorker = 6;
      const successVersions: number[] = [];
      const worker = async (w: number) => {
        for (let n = 0; n < perWorker; n++) {
          const marker = w * 1000 + n;
          for (let attempt = 0; ; attempt++) {
            expect(attempt).toBeLessThan(200);
            const current = await t.http.get(path(r.id)).set(viewAuth);
            expect(current.status).toBe(200);
            const otp = current.body.objectTypeProperty;
            const res = await t.http
              .post(path(r.id))
              .set(auth)
              .send({
                version: current.body.version,
                actions: [{ action: 'setObjectTypeProperty', objectTypeProperty: { ...otp, arrayOfIntExample: [...otp.arrayOfIntExample, marker] } }],
              });
            if (res.status === 409) {
              expect(res.body.errors[0].code).toBe('ConcurrentModification');
              continue;
            }
            expect(res.status).toBe(200);
            expect(res.body.version).toBe(current.body.version + 1);
            successVersions.push(res.body.version);
            break;
          }
        }
      };
      await Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));
      const total = workers * perWorker;
      const final = await read(r.id);
      expect(final.body.version).toBe(1 + total);
      expect([...successVersions].sort((a, b) => a - b)).toEqual(Array.from({ length: total }, (_, i) => i + 2));
      const expectedMarkers = Array.from({ length: workers }, (_, w) => Array.from({ length: perWorker }, (_, n) => w * 1000 + n)).flat();
      expect([...final.body.objectTypeProperty.arrayOfIntExample].sort((a: number, b: number) => a - b)).toEqual(
        expectedMarkers.sort((a, b) => a - b),
      );
      // Each worker's increments landed in its own order.
      for (let w = 0; w < workers; w++) {
        const mine = final.body.objectTypeProperty.arrayOfIntExample.filter((m: number) => Math.floor(m / 1000) === w);
        expect(mine).toEqual(Array.from({ length: perWorker }, (_, n) => w * 1000 + n));
      }
    }, 120000);
  });

  describe('DELETE /{projectKey}/resource/{id}', () => {
    it('without version: 200 with the deleted resource; afterwards 404', async () => {
      const key = newKey();
      const r = await create({ key });
      const res = await del(r.id);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body).toEqual(r);
      expectEnvelope(await read(r.id), 404, 'ResourceNotFound');
      expectEnvelope(await byKey(key), 404, 'ResourceNotFound');
    });

    it('with the current version: 200 with the deleted resource', async () => {
      const r = await create();
      const updated = (await update(r.id, { version: 1, actions: [{ action: 'changeSomeProperty', someProperty: 'last' }] })).body;
      const res = await del(r.id, 2);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(updated);
      expect(res.body).toMatchObject({ id: r.id, version: 2, someProperty: 'last' });
      expect((await read(r.id)).status).toBe(404);
    });

    it('with a stale version: 409 ConcurrentModification with currentVersion, the resource stays', async () => {
      const r = await create();
      await update(r.id, { version: 1, actions: [{ action: 'doSomeThing' }] });
      const res = await del(r.id, 1);
      expectEnvelope(res, 409, 'ConcurrentModification');
      expect(res.body.errors[0].currentVersion).toBe(2);
      const still = await read(r.id);
      expect(still.status).toBe(200);
      expect(still.body.version).toBe(2);
    });

    it.each(['abc', '1.5', '0', '-1'])('version=%p → 400', async (version) => {
      const r = await create();
      expectEnvelope(await del(r.id, version), 400);
      expect((await read(r.id)).status).toBe(200);
    });

    it('a deleted resource: DELETE, update and read answer 404', async () => {
      const r = await create();
      expect((await del(r.id)).status).toBe(200);
      expectEnvelope(await del(r.id), 404, 'ResourceNotFound');
      expectEnvelope(await del(r.id, 1), 404, 'ResourceNotFound');
      expectEnvelope(await update(r.id, { version: 1, actions: [{ action: 'doSomeThing' }] }), 404, 'ResourceNotFound');
      expectEnvelope(await read(r.id), 404, 'ResourceNotFound');
    });

    it('an unknown or malformed id → 404 ResourceNotFound', async () => {
      expectEnvelope(await del(MISSING_ID), 404, 'ResourceNotFound');
      expectEnvelope(await del('not-a-uuid'), 404, 'ResourceNotFound');
    });

    it('frees the key: a new resource can take it', async () => {
      const key = newKey();
      const r = await create({ key });
      expect((await del(r.id)).status).toBe(200);
      const again = await create({ key });
      expect(again.id).not.toBe(r.id);
      expect(again.version).toBe(1);
    });

    it('keeps 64-bit integers exact in the deleted resource', async () => {
      const text = JSON.stringify(draft({}, { arrayOfIntExample: ['@max@'] })).replace('"@max@"', INT64_MAX);
      const created = await t.http.post(path()).set(await t.auth('manage_test')).set('Content-Type', 'application/json').send(text);
      expect(created.status).toBe(201);
      const res = await del(created.body.id);
      expect(res.status).toBe(200);
      expect(res.text.replace(/\s/g, '')).toContain(`"arrayOfIntExample":[${INT64_MAX}]`);
    });
  });
});

import type { Response } from 'supertest';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { draft } from '../support/fixtures.js';
import { expectErrorEnvelope as expectEnvelope, expectNoInternals } from '../support/expect-error.js';

/**
 * Project isolation, project-key format and the error envelope of the resource endpoints
 * (docs/rules.md#addressing-and-input).
 */

describe('resource isolation and errors', () => {
  let t: TestApp;
  let A: string;
  let B: string;

  beforeAll(async () => {
    t = await createTestApp();
    A = t.projectKey;
    B = t.otherProjectKey;
  });
  afterAll(async () => {
    await t.close();
  });

  const writeA = () => t.auth('manage_test');
  const readA = () => t.auth('view_test');
  const writeB = () => t.auth('manage_test', { projectKey: B });
  const readB = () => t.auth('view_test', { projectKey: B });

  async function createIn(pk: string, body: Record<string, unknown>): Promise<Response> {
    const res = await t.http
      .post(`/${pk}/resource`)
      .set(await t.auth('manage_test', { projectKey: pk }))
      .send(body);
    expect(res.status).toBe(201);
    return res;
  }

  describe('project isolation', () => {
    let resource: { id: string; key: string; version: number };
    /** Arrays that also satisfy every HEAD default ("test", 5, 10, 1500). */
    const marker = 'iso-marker';
    const arraysOfA = {
      arrayOfIntExample: [5, 424242],
      arrayOfFloatExample: [10],
      arrayOfNumberNoDefaultsExample: [1500],
      arrayOfStringExample: ['test', marker],
    };

    beforeAll(async () => {
      const res = await createIn(A, draft({ key: 'shared-key' }, arraysOfA));
      resource = res.body;
    });

    async function expectUntouchedInA(): Promise<void> {
      const res = await t.http.get(`/${A}/resource/${resource.id}`).set(await readA());
      expect(res.status).toBe(200);
      expect(res.body.version).toBe(resource.version);
      expect(res.body.key).toBe('shared-key');
      expect(res.body).not.toHaveProperty('someProperty');
    }

    describe('GET /{projectKey}/resource/{id}', () => {
      it('is visible in its own project', async () => {
        const res = await t.http.get(`/${A}/resource/${resource.id}`).set(await readA());
        expect(res.status).toBe(200);
        expect(res.body.id).toBe(resource.id);
      });

      it("is not readable through another project's key: 404", async () => {
        expectEnvelope(await t.http.get(`/${B}/resource/${resource.id}`).set(await readB()), 404, 'ResourceNotFound');
      });
    });

    describe('GET /{projectKey}/resource/key={key}', () => {
      it("is not readable by key through another project's key: 404", async () => {
        expectEnvelope(await t.http.get(`/${B}/resource/key=shared-key`).set(await readB()), 404, 'ResourceNotFound');
      });
    });

    describe('GET /{projectKey}/resource', () => {
      it('is not counted or merged in another project (X-Total-Count 0, empty arrays)', async () => {
        const res = await t.http.get(`/${B}/resource`).query({ stringParameter: marker }).set(await readB());
        expect(res.status).toBe(200);
        expect(res.headers['x-total-count']).toBe('0');
        expect(res.body.arrayOfStringExample).toEqual([]);
        expect(res.body.arrayOfTwonumbersExample).toEqual([]);
        const all = await t.http.get(`/${B}/resource`).query({ integerParameter: '424242' }).set(await readB());
        expect(all.headers['x-total-count']).toBe('0');
        expect(all.body.arrayOfIntExample).toEqual([]);
      });

      it('is counted in its own project', async () => {
        const res = await t.http.get(`/${A}/resource`).query({ stringParameter: marker }).set(await readA());
        expect(res.status).toBe(200);
        expect(res.headers['x-total-count']).toBe('1');
        expect(res.body.arrayOfStringExample).toEqual(['test', marker]);
      });
    });

    describe('HEAD /{projectKey}/resource', () => {
      it('matches in its own project but not in another', async () => {
        expect((await t.http.head(`/${A}/resource`).query({ arrayOfString: marker }).set(await readA())).status).toBe(200);
        const other = await t.http.head(`/${B}/resource`).query({ arrayOfString: marker }).set(await readB());
        expect(other.status).toBe(404);
        expect(other.text ?? '').toBe('');
        expect((await t.http.head(`/${B}/resource`).set(await readB())).status).toBe(404);
      });
    });

    describe('POST /{projectKey}/resource/{id}', () => {
      it("is not updatable through another project's key: 404, unchanged", async () => {
        const res = await t.http
          .post(`/${B}/resource/${resource.id}`)
          .set(await writeB())
          .send({ version: resource.version, actions: [{ action: 'changeSomeProperty', someProperty: 'hijacked' }] });
        expectEnvelope(res, 404, 'ResourceNotFound');
        await expectUntouchedInA();
      });

      it("empty actions through another project's key: 404", async () => {
        const res = await t.http.post(`/${B}/resource/${resource.id}`).set(await writeB()).send({ version: resource.version, actions: [] });
        expectEnvelope(res, 404, 'ResourceNotFound');
      });
    });

    describe('DELETE /{projectKey}/resource/{id}', () => {
      it("is not deletable through another project's key: 404, still there", async () => {
        expectEnvelope(await t.http.delete(`/${B}/resource/${resource.id}`).set(await writeB()), 404, 'ResourceNotFound');
        expectEnvelope(
          await t.http.delete(`/${B}/resource/${resource.id}`).query({ version: String(resource.version) }).set(await writeB()),
          404,
          'ResourceNotFound',
        );
        await expectUntouchedInA();
      });
    });

    describe('PATCH /{projectKey}/resource', () => {
      it("does not overwrite another project's resource with the same key: 404", async () => {
        const res = await t.http.patch(`/${B}/resource`).set(await writeB()).send(draft({ key: 'shared-key' }));
        expectEnvelope(res, 404, 'ResourceNotFound');
        await expectUntouchedInA();
      });
    });

    describe('POST /{projectKey}/resource', () => {
      it('keys are per project: the same key in another project creates a separate resource', async () => {
        const res = await createIn(B, draft({ key: 'shared-key' }));
        expect(res.body.id).not.toBe(resource.id);
        expect(res.body.version).toBe(1);
        expect(res.headers.location).toBe(`/${B}/resource/${res.body.id}`);
        await expectUntouchedInA();
        // A's resource is still not visible in B, B's not in A.
        expect((await t.http.get(`/${A}/resource/${res.body.id}`).set(await readA())).status).toBe(404);
        const byKeyInB = await t.http.get(`/${B}/resource/key=shared-key`).set(await readB());
        expect(byKeyInB.body.id).toBe(res.body.id);
      });
    });

    describe('PUT /{projectKey}/resource', () => {
      it("creates in its own project rather than overwriting another project's resource", async () => {
        const res = await t.http.put(`/${B}/resource`).set(await writeB()).send(draft({ key: 'put-shared', version: 1 }));
        expect(res.status).toBe(201);
        const inA = await createIn(A, draft({ key: 'put-shared' }));
        expect(inA.body.id).not.toBe(res.body.id);
        expect(inA.body.version).toBe(1);
      });
    });

    describe('POST /{projectKey}/resource/{id} (setKey)', () => {
      it('a key taken in another project is free in this one', async () => {
        await createIn(A, draft({ key: 'cross-key' }));
        const inB = await createIn(B, draft());
        const res = await t.http
          .post(`/${B}/resource/${inB.body.id}`)
          .set(await writeB())
          .send({ version: 1, actions: [{ action: 'setKey', key: 'cross-key' }] });
        expect(res.body).toMatchObject({ id: inB.body.id, key: 'cross-key', version: 2 });
        const inA = await t.http.get(`/${A}/resource/key=cross-key`).set(await readA());
        expect(inA.status).toBe(200);
        expect(inA.body.id).not.toBe(inB.body.id);
      });
    });
  });

  describe('project key format', () => {
    const BAD = [
      ['1 character', 'a'],
      ['37 characters', 'a'.repeat(37)],
      ['uppercase', 'Project'],
      ['an underscore', 'my_project'],
      ['a dot', 'my.project'],
    ];
    const VALID_ID = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';

    describe('GET /{projectKey}/resource', () => {
      it.each(BAD)('a project key with %s → 400', async (_name, pk) => {
        expectEnvelope(await t.http.get(`/${pk}/resource`).set(await readA()), 400);
      });

      it.each([
        ['2 characters', 'ab'],
        ['36 characters', 'a1-'.repeat(12)],
        ['digits and dashes', '0-9'],
      ])('a project key with %s is valid: 200', async (_name, pk) => {
        const res = await t.http.get(`/${pk}/resource`).set(await t.auth('view_test', { projectKey: pk }));
        expect(res.status).toBe(200);
        expect(res.headers['x-total-count']).toMatch(/^\d+$/);
      });
    });

    describe('HEAD /{projectKey}/resource', () => {
      it.each(BAD)('a project key with %s → 400 with no body', async (_name, pk) => {
        const res = await t.http.head(`/${pk}/resource`).set(await readA());
        expect(res.status).toBe(400);
        expect(res.text ?? '').toBe('');
      });
    });

    describe('GET /{projectKey}/resource/{id}', () => {
      it.each(BAD)('a project key with %s → 400 (before existence)', async (_name, pk) => {
        expectEnvelope(await t.http.get(`/${pk}/resource/${VALID_ID}`).set(await readA()), 400);
      });
    });

    describe('GET /{projectKey}/resource/key={key}', () => {
      it.each(BAD)('a project key with %s → 400', async (_name, pk) => {
        expectEnvelope(await t.http.get(`/${pk}/resource/key=some-key`).set(await readA()), 400);
      });
    });

    describe('POST /{projectKey}/resource', () => {
      it.each(BAD)('a project key with %s → 400', async (_name, pk) => {
        expectEnvelope(await t.http.post(`/${pk}/resource`).set(await writeA()).send(draft({ key: 'bad-project' })), 400);
      });
      it('the key check comes before body validation', async () => {
        const res = await t.http.post(`/Bad_Key/resource`).set(await writeA()).send({});
        expectEnvelope(res, 400);
        expect(res.body.errors[0].code).not.toBe('RequiredField');
      });
    });

    describe('PUT /{projectKey}/resource', () => {
      it.each(BAD)('a project key with %s → 400', async (_name, pk) => {
        expectEnvelope(await t.http.put(`/${pk}/resource`).set(await writeA()).send(draft({ key: 'bad-project' })), 400);
      });
    });

    describe('PATCH /{projectKey}/resource', () => {
      it.each(BAD)('a project key with %s → 400', async (_name, pk) => {
        expectEnvelope(await t.http.patch(`/${pk}/resource`).set(await writeA()).send(draft({ key: 'bad-project' })), 400);
      });
    });

    describe('POST /{projectKey}/resource/{id}', () => {
      it.each(BAD)('a project key with %s → 400', async (_name, pk) => {
        expectEnvelope(
          await t.http.post(`/${pk}/resource/${VALID_ID}`).set(await writeA()).send({ version: 1, actions: [] }),
          400,
        );
      });
    });

    describe('DELETE /{projectKey}/resource/{id}', () => {
      it.each(BAD)('a project key with %s → 400', async (_name, pk) => {
        expectEnvelope(await t.http.delete(`/${pk}/resource/${VALID_ID}`).set(await writeA()), 400);
      });
    });
  });

  describe('error envelope', () => {
    let id: string;
    beforeAll(async () => {
      id = (await createIn(A, draft({ key: 'envelope' }))).body.id;
    });

    it('validation errors (400 InvalidField / RequiredField) carry field paths', async () => {
      const res = await t.http.post(`/${A}/resource`).set(await writeA()).send({ objectTypeProperty: { arrayOfIntExample: ['x'] } });
      expectEnvelope(res, 400);
      expect(res.body.errors.map((e: { code: string }) => e.code)).toEqual(expect.arrayContaining(['InvalidField', 'RequiredField']));
      for (const error of res.body.errors) expect(typeof error.field).toBe('string');
    });

    it('malformed JSON → 400 InvalidJsonInput without parser internals', async () => {
      const res = await t.http.post(`/${A}/resource`).set(await writeA()).set('Content-Type', 'application/json').send('{"a": tru');
      expectEnvelope(res, 400, 'InvalidJsonInput');
      expect(typeof res.body.errors[0].detailedErrorMessage).toBe('string');
    });

    it('an unsupported Content-Type → 415 UnsupportedMediaType', async () => {
      const res = await t.http.post(`/${A}/resource`).set(await writeA()).set('Content-Type', 'text/plain').send('hello');
      expectEnvelope(res, 415, 'UnsupportedMediaType');
    });

    it('404 ResourceNotFound for a missing resource and for a path that matches no route', async () => {
      expectEnvelope(await t.http.get(`/${A}/resource/3f2504e0-4f89-41d3-9a0c-0305e82c3301`).set(await readA()), 404, 'ResourceNotFound');
      expectEnvelope(await t.http.get(`/${A}/resource/${id}/nothing/here`).set(await readA()), 404, 'ResourceNotFound');
    });

    it('409 ConcurrentModification carries currentVersion', async () => {
      const res = await t.http.post(`/${A}/resource/${id}`).set(await writeA()).send({ version: 42, actions: [] });
      expectEnvelope(res, 409, 'ConcurrentModification');
      expect(res.body.errors[0].currentVersion).toBe(1);
    });

    it('a taken key → 400 DuplicateField with duplicateValue', async () => {
      const other = await createIn(A, draft());
      const res = await t.http
        .post(`/${A}/resource/${other.body.id}`)
        .set(await writeA())
        .send({ version: 1, actions: [{ action: 'setKey', key: 'envelope' }] });
      expectEnvelope(res, 400, 'DuplicateField');
      expect(res.body.errors[0]).toMatchObject({ field: 'key', duplicateValue: 'envelope' });
    });

    it.each([
      ['stringParameter', "'; DROP TABLE resource; --"],
      ['stringParameter', '" OR 1=1 --'],
      ['arrayOfString', "x') OR ('1'='1"],
      ['objectParameter', '{"objectTypeProperty":{"arrayOfStringExample":["\'; DELETE FROM resource; --"]}}'],
      ['unionParameter', '{"version": 1, "objectTypeProperty": {"arrayOfStringExample": ["$1::jsonb"]}}'],
    ])('hostile filter values are plain values (%s=%p): 200, nothing matched, nothing broken', async (name, value) => {
      const res = await t.http.get(`/${A}/resource`).query({ [name]: value }).set(await readA());
      expect(res.status).toBe(200);
      expect(res.headers['x-total-count']).toBe('0');
      expectNoInternals(res);
      const still = await t.http.get(`/${A}/resource/${id}`).set(await readA());
      expect(still.status).toBe(200);
    });

    it.each([
      ['floatParameter', '1e400'],
      ['integerParameter', '99999999999999999999999'],
      ['objectParameter', '{"version": 99999999999999999999}'],
      ['objectParameter', '{"objectTypeProperty":{"arrayOfIntExample":[1e400]}}'],
      ['unionParameter', '{"version": -1}'],
      ['unionParameter', 'NaN'],
    ])('out-of-range filter values (%s=%p) → 400 envelope without internals', async (name, value) => {
      expectEnvelope(await t.http.get(`/${A}/resource`).query({ [name]: value }).set(await readA()), 400);
    });

    it('hostile keys and ids are plain values: 404 / 400 without internals', async () => {
      expectEnvelope(await t.http.get(`/${A}/resource/key=${encodeURIComponent("x' OR '1'='1")}`).set(await readA()), 404, 'ResourceNotFound');
      expectEnvelope(await t.http.get(`/${A}/resource/${encodeURIComponent("1'; DROP TABLE resource; --")}`).set(await readA()), 404, 'ResourceNotFound');
      expectEnvelope(await t.http.post(`/${A}/resource`).set(await writeA()).send(draft({ key: "x'; DROP TABLE resource; --" })), 400, 'InvalidField');
      expectEnvelope(await t.http.delete(`/${A}/resource/${id}`).query({ version: "1; DROP TABLE resource" }).set(await writeA()), 400);
      expect((await t.http.get(`/${A}/resource/${id}`).set(await readA())).status).toBe(200);
    });

    it('huge version numbers never reach the database as errors (400, not 500)', async () => {
      expectEnvelope(await t.http.post(`/${A}/resource/${id}`).set(await writeA()).send({ version: 1e20, actions: [] }), 400, 'InvalidField');
      expectEnvelope(await t.http.delete(`/${A}/resource/${id}`).query({ version: '99999999999' }).set(await writeA()), 400);
      const put = await t.http.put(`/${A}/resource`).set(await writeA()).send(draft({ key: 'envelope', version: 99999999999 }));
      expect([400, 409]).toContain(put.status);
      expectEnvelope(put, put.status);
    });

    it('a very long string value is rejected or stored, never a 500', async () => {
      const res = await t.http.post(`/${A}/resource`).set(await writeA()).send(draft({}, { arrayOfStringExample: ['x'.repeat(20000)] }));
      expect([201, 400, 413]).toContain(res.status);
      if (res.status !== 201) expectEnvelope(res, res.status);
    });
  });
});

import { createTestApp, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { ExtensionReceiver } from '../support/extension-receiver.js';
import { draft } from '../support/fixtures.js';

/*
 * Import lines and extensions (docs/extensions.md#imports): each line is one write, a create calling the
 * Create extensions and an overwrite the Update ones, a few lines at once; a refused line fails alone and the
 * import reaches its summary; the actions an extension adds are in the line's one version.
 */

const NDJSON = 'application/x-ndjson';
const CONCURRENCY = 4;

describe('API extensions on import lines', () => {
  let t: TestApp;
  let receiver: ExtensionReceiver;

  const project = async () => {
    const pk = uniqueProjectKey('xi');
    return { pk, ext: await t.auth('manage_extensions', { projectKey: pk }), res: await t.auth('manage_test', { projectKey: pk }), msg: await t.auth('view_messages', { projectKey: pk }), view: await t.auth('view_test', { projectKey: pk }) };
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
  /** The import's answer lines, parsed. */
  const importLines = async (p: Project, lines: unknown[]) => {
    const body = lines.map((l) => JSON.stringify(l)).join('\n');
    const res = await t.http.post(`/${p.pk}/resource/import`).set(p.res).set('Content-Type', NDJSON).set('X-Request-Id', 'import-req').send(body).buffer(true)
      .parse((response, done) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => done(null, text));
      });
    expect(res.status).toBe(200);
    const answer = (res.body as string).split('\n').filter(Boolean).map((l) => JSON.parse(l));
    return { results: answer.slice(0, -1), summary: answer.at(-1).summary };
  };
  const get = async (p: Project, key: string) => t.http.get(`/${p.pk}/resource/key=${key}`).set(p.res);
  const messages = async (p: Project, id: string) =>
    (await t.http.get(`/${p.pk}/messages`).query({ where: `resource(id = "${id}")`, sort: 'sequenceNumber asc' }).set(p.msg)).body.results as any[];

  beforeAll(async () => {
    receiver = await ExtensionReceiver.start();
    t = await createTestApp({ EXTENSIONS_IMPORT_CONCURRENCY: String(CONCURRENCY) });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('writes the lines an extension lets go on and answers the refused ones with its 400, 502 or 504; the import reaches its summary', async () => {
    const p = await project();
    // Lines 1-24: keys k1..k24. k1..k6 exist before the import (their lines overwrite, calling Update extensions).
    for (let i = 1; i <= 6; i++) expect((await t.http.put(`/${p.pk}/resource`).set(p.res).send(draft({ key: `k${i}` }, { arrayOfIntExample: [99] }))).status).toBe(201);
    const ext = await extension(p, '/every-third', { key: 'every-third', timeoutInMs: 300 });
    receiver.answers.set('/every-third', (call) => {
      const n = Number(String(call.json.resource.obj.key).slice(1));
      if (n === 22) return { status: 500, body: 'broken' };
      if (n === 23) return { status: 200, delayMs: 1000 };
      if (n % 3 === 0) return { status: 400, body: { errors: [{ code: 'InvalidInput', message: `line of k${n} refused` }] } };
      return { status: 200, delayMs: 20 };
    });
    receiver.maxInFlight = 0;
    const before = receiver.at('/every-third').length;
    const lines = Array.from({ length: 24 }, (_, i) => draft({ key: `k${i + 1}`, publish: i % 2 === 0 }));
    const { results, summary } = await importLines(p, lines);
    expect(results.map((r) => r.line)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));

    const calls = receiver.at('/every-third').slice(before);
    expect(calls).toHaveLength(24);
    expect(new Map(calls.map((c) => [c.json.resource.obj.key, c.json.action]))).toEqual(new Map(lines.map((_, i) => [`k${i + 1}`, i < 6 ? 'Update' : 'Create'])));
    expect(calls.every((c) => c.headers['x-correlation-id'] === 'import-req')).toBe(true);
    expect(receiver.maxInFlight).toBeGreaterThan(1);
    expect(receiver.maxInFlight).toBeLessThanOrEqual(CONCURRENCY);

    for (const [i, result] of results.entries()) {
      const n = i + 1;
      const stored = await get(p, `k${n}`);
      if (n === 22) {
        expect(result).toMatchObject({ line: n, status: 502, errors: [{ code: 'ExtensionBadResponse', extensionId: ext.id, extensionKey: 'every-third', extensionStatusCode: 500, extensionBody: 'broken' }] });
      } else if (n === 23) {
        expect(result).toMatchObject({ line: n, status: 504, errors: [{ code: 'ExtensionNoResponse', extensionId: ext.id, extensionKey: 'every-third' }] });
      } else if (n % 3 === 0) {
        expect(result).toEqual({ line: n, status: 400, errors: [{ code: 'InvalidInput', message: `line of k${n} refused`, extensionId: ext.id, extensionKey: 'every-third' }] });
      } else {
        expect(result).toEqual({ line: n, status: n <= 6 ? 200 : 201, id: stored.body.id, version: n <= 6 ? 2 : 1 });
        expect(stored.body).toMatchObject({ version: n <= 6 ? 2 : 1, published: i % 2 === 0 });
        continue;
      }
      // A refused line wrote nothing: an existing resource keeps its version and messages, a new key does not exist.
      if (n <= 6) {
        expect(stored.body.version).toBe(1);
        expect((await messages(p, stored.body.id)).map((m) => m.type)).toEqual(['ResourceCreated']);
      } else {
        expect(stored.status).toBe(404);
      }
    }
    const failed = results.filter((r) => r.status >= 400).length;
    // Refused: k3, k6, …, k24 (eight), k22 (502) and k23 (504); updated: k1, k2, k4, k5.
    expect(failed).toBe(10);
    expect(summary).toEqual({ lines: 24, created: 10, updated: 4, unchanged: 0, failed: 10 });
  });

  it('applies the actions an extension adds in the line\'s one version, with their messages; lines it does not apply to take the batch, an unchanged line calls nothing', async () => {
    const p = await project();
    const existing = await t.http.put(`/${p.pk}/resource`).set(p.res).send(draft({ key: 'old' }));
    const same = await t.http.put(`/${p.pk}/resource`).set(p.res).send(draft({ key: 'same' }));
    const stale = await t.http.put(`/${p.pk}/resource`).set(p.res).send(draft({ key: 'stale' }));
    await extension(p, '/adds', { triggers: [{ resourceTypeId: 'resource', actions: ['Create', 'Update'], condition: 'objectTypeProperty(arrayOfIntExample contains any (7))' }] });
    receiver.answers.set('/adds', (call) => ({
      status: 200,
      body: { actions: [{ action: 'changeSomeProperty', someProperty: `${call.json.action} ${call.json.resource.obj.key}` }, { action: 'importFooForSecondPropertyToUpdate', secondPropertyToUpdate: 'by extension' }] },
    }));
    const before = receiver.at('/adds').length;
    const { results, summary } = await importLines(p, [
      draft({ key: 'new' }, { arrayOfIntExample: [7] }),
      draft({ key: 'old' }, { arrayOfIntExample: [7] }),
      draft({ key: 'plain' }, { arrayOfIntExample: [1] }),
      draft({ key: 'same' }),
      draft({ key: 'stale', version: 5 }, { arrayOfIntExample: [7] }),
    ]);
    // Called (at once) for `new` (Create) and `old` (Update) only: `plain` does not match, `same` is unchanged, `stale` is of another version.
    expect(receiver.at('/adds').slice(before).map((c) => [c.json.action, c.json.resource.obj.key, c.json.resource.obj.version]).sort()).toEqual([['Create', 'new', 1], ['Update', 'old', 2]]);
    expect(summary).toEqual({ lines: 5, created: 2, updated: 1, unchanged: 1, failed: 1 });

    const created = (await get(p, 'new')).body;
    expect(results[0]).toEqual({ line: 1, status: 201, id: created.id, version: 1 });
    expect(created).toMatchObject({ version: 1, someProperty: 'Create new', secondPropertyToUpdate: 'by extension' });
    expect((await messages(p, created.id)).map((m) => [m.type, m.resourceVersion])).toEqual([['ResourceCreated', 1], ['SomePropertyChanged', 1], ['SecondPropertyToUpdateImported', 1]]);

    const overwritten = (await get(p, 'old')).body;
    expect(results[1]).toEqual({ line: 2, status: 200, id: existing.body.id, version: 2 });
    expect(overwritten).toMatchObject({ version: 2, someProperty: 'Update old', secondPropertyToUpdate: 'by extension', objectTypeProperty: { arrayOfIntExample: [7] } });
    expect((await messages(p, existing.body.id)).map((m) => [m.type, m.resourceVersion])).toEqual([
      ['ResourceCreated', 1], ['ObjectTypePropertySet', 2], ['SomePropertyChanged', 2], ['SecondPropertyToUpdateImported', 2],
    ]);
    const versions = await t.http.get(`/${p.pk}/resource/${existing.body.id}/versions`).set(p.view);
    expect(versions.status).toBe(200);
    expect(versions.body.results.map((v: any) => [v.version, v.types])).toEqual([
      [2, ['ObjectTypePropertySet', 'SomePropertyChanged', 'SecondPropertyToUpdateImported']], [1, ['ResourceCreated']],
    ]);

    const plain = (await get(p, 'plain')).body;
    expect(results[2]).toEqual({ line: 3, status: 201, id: plain.id, version: 1 });
    expect(plain.someProperty).toBeUndefined();
    expect(results[3]).toEqual({ line: 4, status: 200, id: same.body.id, version: 1, unchanged: true });
    expect(results[4]).toMatchObject({ line: 5, status: 409, errors: [{ code: 'ConcurrentModification', currentVersion: 1 }] });
    expect((await get(p, 'stale')).body.version).toBe(stale.body.version);
  });

  it('answers 400 ExtensionUpdateActionsFailed for a line whose extension adds actions that fail, and writes the others', async () => {
    const p = await project();
    const ext = await extension(p, '/fails', { triggers: [{ resourceTypeId: 'resource', actions: ['Create'], condition: 'key = "bb"' }] });
    receiver.answers.set('/fails', () => ({ status: 200, body: { actions: [{ action: 'changeSomeProperty', someProperty: 5 }] } }));
    const { results, summary } = await importLines(p, [draft({ key: 'aa' }), draft({ key: 'bb' }), draft({ key: 'cc' })]);
    expect(results[1]).toMatchObject({ line: 2, status: 400, errors: [{ code: 'ExtensionUpdateActionsFailed', extensionId: ext.id, extensionErrors: [{ actionIndex: 0 }] }] });
    expect(summary).toEqual({ lines: 3, created: 2, updated: 0, unchanged: 0, failed: 1 });
    expect((await get(p, 'bb')).status).toBe(404);
    expect((await get(p, 'cc')).status).toBe(200);
  });
});

import { createTestApp, type TestApp } from '../support/test-app.js';
import { arrays, draft } from '../support/fixtures.js';

/** Member names every JavaScript object inherits: unknown to every DTO, so refused like any unknown member. */
const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];

/** `{"<name>": <value>, …object}` as JSON text (a spread could not carry `__proto__` as a member). */
function withMember(name: string, value: unknown, object: object): string {
  const rest = JSON.stringify(object).slice(1);
  return `{${JSON.stringify(name)}:${JSON.stringify(value)}${rest === '}' ? '' : ','}${rest}`;
}

describe('member names every object inherits (__proto__, constructor, toString…) are unknown members', () => {
  let t: TestApp;
  let manage: Record<string, string>;
  let resourceId: string;

  beforeAll(async () => {
    t = await createTestApp();
    manage = await t.auth('manage_test view_test manage_api_clients manage_subscriptions');
    const created = await t.http.post(`/${t.projectKey}/resource`).set(manage).send(draft({ key: 'inherited-names' }));
    expect(created.status).toBe(201);
    resourceId = created.body.id;
  });
  afterAll(() => t.close());

  const json = (request: ReturnType<TestApp['http']['post']>, body: string) => request.set(manage).set('Content-Type', 'application/json').send(body);

  function expectUnknown(res: { status: number; body: { errors?: { code: string; field?: string }[] } }, field: string): void {
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]).toEqual(expect.objectContaining({ code: 'InvalidField', field }));
  }

  describe.each(NAMES)('%s', (name) => {
    it('in a create body, at the top and nested → 400 InvalidField naming it; nothing is written', async () => {
      expectUnknown(await json(t.http.post(`/${t.projectKey}/resource`), withMember(name, { a: 1 }, draft({ key: `top-${name}` }))), name);
      const nested = `{"key":"nested-${name}","objectTypeProperty":${withMember(name, 1, arrays())}}`;
      expectUnknown(await json(t.http.post(`/${t.projectKey}/resource`), nested), `objectTypeProperty.${name}`);
      const listed = await t.http.get(`/${t.projectKey}/resource/key=top-${name}`).set(manage);
      expect(listed.status).toBe(404);
    });

    it('in an update action → 400 InvalidField; the resource keeps its version', async () => {
      const action = withMember(name, 1, { action: 'changeSomeProperty', someProperty: 'x' });
      const res = await json(t.http.post(`/${t.projectKey}/resource/${resourceId}`), `{"version":1,"actions":[${action}]}`);
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toEqual(expect.objectContaining({ code: 'InvalidField', field: `actions[0].${name}` }));
      const read = await t.http.get(`/${t.projectKey}/resource/${resourceId}`).set(manage);
      expect(read.body.version).toBe(1);
    });

    it('in objectParameter → 400, not an empty pattern matching everything', async () => {
      const res = await t.http.get(`/${t.projectKey}/resource`).query({ objectParameter: withMember(name, { a: 1 }, {}) }).set(manage);
      expectUnknown(res, `objectParameter.${name}`);
    });

    it('in a namespace action\'s JSON header → 400', async () => {
      const res = await t.http
        .get(`/${t.projectKey}/resource/namespace-action-with-headers`)
        .set(manage)
        .set({ 'Test-Header': withMember(name, 1, { version: 1 }), 'Path-Header': '/carts/current' });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].code).toBe('InvalidField');
      expect(res.body.errors[0].field).toMatch(new RegExp(`\\.${name}$`));
    });

    it('in an API client draft and a subscription draft → 400', async () => {
      expectUnknown(await json(t.http.post(`/${t.projectKey}/api-clients`), withMember(name, 1, { name: 'c', scope: `view_test:${t.projectKey}` })), name);
      const subscription = { destination: { type: 'HTTP', url: 'http://127.0.0.1:9/hook' }, changes: [{ resourceTypeId: 'resource' }] };
      expectUnknown(await json(t.http.post(`/${t.projectKey}/subscriptions`), withMember(name, 1, subscription)), name);
    });

    it('in an import line → that line\'s 400 InvalidField; the next line is written', async () => {
      const lines = [withMember(name, 1, draft({ key: `import-${name}` })), JSON.stringify(draft({ key: `import-ok-${name}` }))].join('\n');
      const res = await t.http.post(`/${t.projectKey}/resource/import`).set(manage).set('Content-Type', 'application/x-ndjson').send(`${lines}\n`);
      expect(res.status).toBe(200);
      const results = res.text.trim().split('\n').map((line) => JSON.parse(line));
      expect(results[0]).toEqual(expect.objectContaining({ line: 1, status: 400 }));
      expect(results[0].errors[0]).toEqual(expect.objectContaining({ code: 'InvalidField', field: name }));
      expect(results[1]).toEqual(expect.objectContaining({ line: 2, status: 201 }));
    });
  });
});

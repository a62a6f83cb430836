import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Database } from '../../src/database/database.js';
import { createTestApp, onPostgres, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { draft } from '../support/fixtures.js';
import { errorCode, expectErrorEnvelope as expectError } from '../support/expect-error.js';
import { basic } from '../support/auth.js';
import { awayFromMinuteBoundary, sleep } from '../support/timing.js';

/*
 * /{projectKey}/api-clients, who may create and delete which clients, the bootstrap and demo clients,
 * deletion and rate limits.
 */

type Res = { status: number; headers: Record<string, string>; body: any };

const ALL_SCOPES = ['manage_test', 'view_test', 'manage_my_profile_test', 'manage_products', 'manage_api_clients', 'view_messages', 'view_audit_log', 'manage_subscriptions', 'view_subscriptions', 'manage_extensions'];

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

async function tokenFor(t: TestApp, id: string, secret: string): Promise<Res> {
  return t.http.post('/oauth/token').set('Authorization', basic(id, secret)).type('form').send('grant_type=client_credentials');
}

/** The client representation: listed fields only, never the secret or its hash. */
function expectPublicClient(client: Record<string, unknown>, secret?: string): void {
  const allowed = ['id', 'name', 'scope', 'customerId', 'createdAt', 'lastUsedAt'];
  expect(Object.keys(client).filter((k) => !allowed.includes(k))).toEqual([]);
  const text = JSON.stringify(client);
  expect(text).not.toMatch(/scrypt|secret|hash/i);
  if (secret) expect(text).not.toContain(secret);
}

describe('/{projectKey}/api-clients', () => {
  let t: TestApp;
  let admin: Record<string, string>;
  beforeAll(async () => {
    t = await createTestApp();
    // Every scope: a client may create only clients whose scopes are among its own.
    admin = await t.auth(ALL_SCOPES.join(' '));
  });
  afterAll(() => t.close());

  describe('POST /{projectKey}/api-clients', () => {
    it('answers 201 with the client and its secret, once; the credentials get a token with the client\'s scopes', async () => {
      const pk = t.projectKey;
      const res = await t.http.post(`/${pk}/api-clients`).set(admin).send({ name: 'my app', scope: `manage_test:${pk} view_test:${pk}` });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['createdAt', 'id', 'name', 'scope', 'secret']);
      expect(res.body.name).toBe('my app');
      expect(res.body.scope.split(' ').sort()).toEqual([`manage_test:${pk}`, `view_test:${pk}`]);
      expect(res.body.createdAt).toMatch(ISO);
      expect(typeof res.body.secret).toBe('string');
      expect(res.body.secret.length).toBeGreaterThanOrEqual(16);
      const token = await tokenFor(t, res.body.id, res.body.secret);
      expect(token.status).toBe(200);
      expect(token.body.scope.split(' ').sort()).toEqual([`manage_test:${pk}`, `view_test:${pk}`]);
      const write = await t.http.post(`/${pk}/resource`).set('Authorization', `Bearer ${token.body.access_token}`).send(draft());
      expect(write.status).toBe(201);
      expect(write.body.createdBy).toEqual({ clientId: res.body.id });
      // GET never shows the secret or a hash of it.
      const byId = await t.http.get(`/${pk}/api-clients/${res.body.id}`).set(admin);
      expect(byId.status).toBe(200);
      expectPublicClient(byId.body, res.body.secret);
      const list = await t.http.get(`/${pk}/api-clients?limit=500`).set(admin);
      expect(list.status).toBe(200);
      const listed = list.body.results.find((c: { id: string }) => c.id === res.body.id);
      expect(listed).toBeDefined();
      for (const c of list.body.results) expectPublicClient(c, res.body.secret);
    });

    it('creates a customer-bound client whose tokens carry customer_id_test:<customerId>', async () => {
      const pk = t.projectKey;
      const res = await t.http.post(`/${pk}/api-clients`).set(admin).send({ name: 'shop', scope: `manage_my_profile_test:${pk}`, customerId: 'cust-7' });
      expect(res.status).toBe(201);
      expect(res.body.customerId).toBe('cust-7');
      const token = await tokenFor(t, res.body.id, res.body.secret);
      expect(token.status).toBe(200);
      expect(token.body.scope.split(' ').sort()).toEqual([`customer_id_test:cust-7`, `manage_my_profile_test:${pk}`].sort());
      const created = await t.http.post(`/${pk}/resource`).set('Authorization', `Bearer ${token.body.access_token}`).send(draft());
      expect(created.status).toBe(201);
      expect(created.body.createdBy).toEqual({ clientId: res.body.id, customerId: 'cust-7' });
    });

    it('answers 400 for an unknown scope name, a scope of another project, a missing name or scope, an unknown field', async () => {
      const pk = t.projectKey;
      const cases: Array<[unknown, string, string]> = [
        [{ name: 'x', scope: `manage_everything:${pk}` }, 'InvalidField', 'scope'],
        [{ name: 'x', scope: `view_test:${pk} bogus` }, 'InvalidField', 'scope'],
        [{ name: 'x', scope: `manage_test:${t.otherProjectKey}` }, 'InvalidField', 'scope'],
        [{ name: 'x', scope: `view_test:${pk} manage_test:${t.otherProjectKey}` }, 'InvalidField', 'scope'],
        [{ name: 'x', scope: '' }, 'InvalidField', 'scope'],
        [{ scope: `view_test:${pk}` }, 'RequiredField', 'name'],
        [{ name: 'x' }, 'RequiredField', 'scope'],
        [{ name: 42, scope: `view_test:${pk}` }, 'InvalidField', 'name'],
        [{ name: 'x', scope: `view_test:${pk}`, secret: 'chosen' }, 'InvalidField', 'secret'],
      ];
      for (const [body, code, field] of cases) {
        const res = await t.http.post(`/${pk}/api-clients`).set(admin).send(body as object);
        expect({ body, status: res.status, code: errorCode(res), field: (res.body as { errors: Array<{ field?: string }> }).errors?.[0]?.field }).toEqual({ body, status: 400, code, field });
      }
      const count = await t.http.get(`/${pk}/api-clients?limit=500`).set(admin);
      expect(count.body.results.filter((c: { name: string }) => c.name === 'x')).toEqual([]);
    });
  });

  describe('GET /{projectKey}/api-clients', () => {
    it('answers a page {limit, offset, count, total, results} ordered stably, honouring limit and offset', async () => {
      const pk = uniqueProjectKey('list');
      const owner = await t.auth('manage_api_clients view_test', { projectKey: pk });
      const names = ['one', 'two', 'three'];
      for (const name of names) {
        const res = await t.http.post(`/${pk}/api-clients`).set(owner).send({ name, scope: `view_test:${pk}` });
        expect(res.status).toBe(201);
      }
      const all = await t.http.get(`/${pk}/api-clients`).set(owner);
      expect(all.status).toBe(200);
      expect(Object.keys(all.body).sort()).toEqual(['count', 'limit', 'offset', 'results', 'total']);
      expect(all.body).toEqual(expect.objectContaining({ limit: 20, offset: 0, count: 4, total: 4 }));
      expect(all.body.results.map((c: { name: string }) => c.name)).toEqual(expect.arrayContaining(names));
      const page = await t.http.get(`/${pk}/api-clients?limit=2&offset=1`).set(owner);
      expect(page.status).toBe(200);
      expect(page.body).toEqual(expect.objectContaining({ limit: 2, offset: 1, count: 2, total: 4 }));
      expect(page.body.results.map((c: { id: string }) => c.id)).toEqual(all.body.results.slice(1, 3).map((c: { id: string }) => c.id));
      const tail = await t.http.get(`/${pk}/api-clients?limit=2&offset=3`).set(owner);
      expect(tail.body).toEqual(expect.objectContaining({ limit: 2, offset: 3, count: 1, total: 4 }));
      const none = await t.http.get(`/${pk}/api-clients?limit=0`).set(owner);
      expect(none.body).toEqual(expect.objectContaining({ limit: 0, count: 0, total: 4, results: [] }));
    });

    it('answers 400 for a bad limit or offset', async () => {
      for (const query of ['limit=-1', 'limit=501', 'limit=abc', 'limit=2.5', 'offset=-1', 'offset=x']) {
        const res = await t.http.get(`/${t.projectKey}/api-clients?${query}`).set(admin);
        expect({ query, status: res.status }).toEqual({ query, status: 400 });
        expect(['InvalidInput', 'InvalidField']).toContain(errorCode(res));
      }
    });

    it('lists only the project\'s own clients', async () => {
      const other = await t.auth('manage_api_clients view_test', { projectKey: t.otherProjectKey });
      const otherList = await t.http.get(`/${t.otherProjectKey}/api-clients?limit=500`).set(other);
      expect(otherList.status).toBe(200);
      const mine = await t.http.get(`/${t.projectKey}/api-clients?limit=500`).set(admin);
      const myIds = new Set(mine.body.results.map((c: { id: string }) => c.id));
      expect(otherList.body.results.length).toBeGreaterThan(0);
      for (const c of otherList.body.results) {
        expect(myIds.has(c.id)).toBe(false);
        for (const s of (c.scope as string).split(' ')) expect(s.endsWith(`:${t.otherProjectKey}`)).toBe(true);
      }
    });
  });

  describe('GET and DELETE /{projectKey}/api-clients/{id}', () => {
    it('GET answers the client; another project\'s client (or an unknown id) → 404, for GET and DELETE', async () => {
      const pk = t.projectKey;
      const created = await t.http.post(`/${pk}/api-clients`).set(admin).send({ name: 'get-me', scope: `view_test:${pk}` });
      expect(created.status).toBe(201);
      const got = await t.http.get(`/${pk}/api-clients/${created.body.id}`).set(admin);
      expect(got.status).toBe(200);
      expect(got.body).toEqual({ id: created.body.id, name: 'get-me', scope: `view_test:${pk}`, createdAt: created.body.createdAt });

      const otherAdmin = await t.auth('manage_api_clients view_test', { projectKey: t.otherProjectKey });
      const foreign = await t.http.post(`/${t.otherProjectKey}/api-clients`).set(otherAdmin).send({ name: 'foreign', scope: `view_test:${t.otherProjectKey}` });
      expect(foreign.status).toBe(201);
      expectError(await t.http.get(`/${pk}/api-clients/${foreign.body.id}`).set(admin), 404, 'ResourceNotFound');
      expectError(await t.http.delete(`/${pk}/api-clients/${foreign.body.id}`).set(admin), 404, 'ResourceNotFound');
      expectError(await t.http.get(`/${pk}/api-clients/does-not-exist`).set(admin), 404, 'ResourceNotFound');
      // Untouched in its own project.
      const still = await t.http.get(`/${t.otherProjectKey}/api-clients/${foreign.body.id}`).set(otherAdmin);
      expect(still.status).toBe(200);
      const token = await tokenFor(t, foreign.body.id, foreign.body.secret);
      expect(token.status).toBe(200);
    });

    it('DELETE answers 200 with the client; it is gone and its credentials get no token (401 invalid_client)', async () => {
      const pk = t.projectKey;
      const created = await t.http.post(`/${pk}/api-clients`).set(admin).send({ name: 'delete-me', scope: `view_test:${pk}` });
      expect(created.status).toBe(201);
      const deleted = await t.http.delete(`/${pk}/api-clients/${created.body.id}`).set(admin);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual(expect.objectContaining({ id: created.body.id, name: 'delete-me', scope: `view_test:${pk}`, createdAt: created.body.createdAt }));
      expectPublicClient(deleted.body, created.body.secret);
      expectError(await t.http.get(`/${pk}/api-clients/${created.body.id}`).set(admin), 404, 'ResourceNotFound');
      expectError(await t.http.delete(`/${pk}/api-clients/${created.body.id}`).set(admin), 404, 'ResourceNotFound');
      const token = await tokenFor(t, created.body.id, created.body.secret);
      expectError(token, 401, 'invalid_client');
      expect((token.body as { error?: string }).error).toBe('invalid_client');
    });

    it('a deleted client\'s token fails (401 invalid_token) within 5 seconds of the delete', async () => {
      const pk = t.projectKey;
      const created = await t.http.post(`/${pk}/api-clients`).set(admin).send({ name: 'short-lived', scope: `view_test:${pk}` });
      expect(created.status).toBe(201);
      const token = await tokenFor(t, created.body.id, created.body.secret);
      expect(token.status).toBe(200);
      const bearer = { Authorization: `Bearer ${token.body.access_token}` };
      // Used (and so possibly cached) before the delete.
      for (let i = 0; i < 3; i++) expect((await t.http.get(`/${pk}/resource`).set(bearer)).status).toBe(200);
      const deleted = await t.http.delete(`/${pk}/api-clients/${created.body.id}`).set(admin);
      expect(deleted.status).toBe(200);
      const start = Date.now();
      let firstRejection: number | undefined;
      let last: Res | undefined;
      while (Date.now() - start <= 6000) {
        last = await t.http.get(`/${pk}/resource`).set(bearer);
        if (last.status === 401) {
          firstRejection = Date.now() - start;
          break;
        }
        expect(last.status).toBe(200);
        await sleep(500);
      }
      expect(firstRejection).toBeDefined();
      expect(firstRejection!).toBeLessThanOrEqual(5000);
      expectError(last!, 401, 'invalid_token');
      // And it stays rejected.
      expect((await t.http.get(`/${pk}/resource`).set(bearer)).status).toBe(401);
    });

    it('lastUsedAt is absent until the client gets a token, then an ISO date-time', async () => {
      const pk = t.projectKey;
      const created = await t.http.post(`/${pk}/api-clients`).set(admin).send({ name: 'usage', scope: `view_test:${pk}` });
      expect(created.status).toBe(201);
      expect(created.body.lastUsedAt).toBeUndefined();
      const before = await t.http.get(`/${pk}/api-clients/${created.body.id}`).set(admin);
      expect(before.body.lastUsedAt).toBeUndefined();
      const token = await tokenFor(t, created.body.id, created.body.secret);
      expect(token.status).toBe(200);
      const after = await t.http.get(`/${pk}/api-clients/${created.body.id}`).set(admin);
      expect(after.body.lastUsedAt).toMatch(ISO);
      expect(Date.parse(after.body.lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(created.body.createdAt));
    });
  });
  describe('who may create and delete which clients', () => {
    const post = (by: Record<string, string>, body: object): Promise<Res> => t.http.post(`/${t.projectKey}/api-clients`).set(by).send(body);
    const remove = (by: Record<string, string>, id: string): Promise<Res> => t.http.delete(`/${t.projectKey}/api-clients/${id}`).set(by);

    /** Creates a client as `by` (201) and gets a token for it from POST /oauth/token with its secret. */
    async function clientWithToken(by: Record<string, string>, body: object, scope?: string): Promise<{ id: string; secret: string; bearer: Record<string, string> }> {
      const created = await post(by, body);
      expect(created.status).toBe(201);
      const token = await t.http.post('/oauth/token').set('Authorization', basic(created.body.id, created.body.secret)).type('form')
        .send({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) });
      expect(token.status).toBe(200);
      return { id: created.body.id, secret: created.body.secret, bearer: { Authorization: `Bearer ${token.body.access_token}` } };
    }

    /** 403 insufficient_scope naming exactly the scopes the caller lacks, in the body and in WWW-Authenticate. */
    function expectLacking(res: Res, lacking: string[]): void {
      expectError(res, 403, 'insufficient_scope');
      expect(res.body.error).toBe('insufficient_scope');
      expect(res.body.error_description).toContain(`the caller lacks ${lacking.join(' ')}.`);
      expect(res.headers['www-authenticate']).toContain(`error="insufficient_scope", scope="${lacking.join(' ')}"`);
    }

    async function clientNames(): Promise<string[]> {
      const list = await t.http.get(`/${t.projectKey}/api-clients?limit=500`).set(admin);
      expect(list.status).toBe(200);
      return list.body.results.map((c: { name: string }) => c.name);
    }

    it('a client holding only manage_api_clients creates clients with manage_api_clients alone, never more (403 naming what it lacks)', async () => {
      const pk = t.projectKey;
      const keeper = await clientWithToken(admin, { name: 'keeper', scope: `manage_api_clients:${pk}` });
      expectLacking(await post(keeper.bearer, { name: 'escalated', scope: `manage_test:${pk}` }), [`manage_test:${pk}`]);
      expectLacking(await post(keeper.bearer, { name: 'escalated', scope: `manage_api_clients:${pk} view_test:${pk}` }), [`view_test:${pk}`]);
      expectLacking(await post(keeper.bearer, { name: 'escalated', scope: `manage_my_profile_test:${pk}`, customerId: 'cust-e' }), [`manage_my_profile_test:${pk}`]);
      expect(await clientNames()).not.toContain('escalated');
      // Its equal, and down the chain the same limit.
      const peer = await clientWithToken(keeper.bearer, { name: 'peer', scope: `manage_api_clients:${pk}` });
      expectLacking(await post(peer.bearer, { name: 'escalated', scope: `manage_test:${pk} view_test:${pk}` }), [`manage_test:${pk}`, `view_test:${pk}`]);
      expect((await t.http.post(`/${pk}/resource`).set(peer.bearer).send(draft())).status).toBe(403);
    });

    it('manage_test covers view_test; the scopes counted are those of the caller\'s token, not all of its client\'s', async () => {
      const pk = t.projectKey;
      const writerAdmin = await clientWithToken(admin, { name: 'writer-admin', scope: `manage_api_clients:${pk} manage_test:${pk}` });
      const viewer = await clientWithToken(writerAdmin.bearer, { name: 'viewer', scope: `view_test:${pk}` });
      expect((await t.http.get(`/${pk}/resource`).set(viewer.bearer)).status).toBe(200);
      expect((await t.http.post(`/${pk}/resource`).set(viewer.bearer).send(draft())).status).toBe(403);
      await clientWithToken(writerAdmin.bearer, { name: 'writer', scope: `manage_test:${pk} view_test:${pk}` });
      expectLacking(await post(writerAdmin.bearer, { name: 'shop', scope: `manage_my_profile_test:${pk}`, customerId: 'cust-w' }), [`manage_my_profile_test:${pk}`]);

      const readerAdmin = await clientWithToken(admin, { name: 'reader-admin', scope: `manage_api_clients:${pk} view_test:${pk}` });
      expectLacking(await post(readerAdmin.bearer, { name: 'writer', scope: `manage_test:${pk}` }), [`manage_test:${pk}`]);

      // The same client as writer-admin, with a token asked for manage_api_clients only.
      const narrowed = await clientWithToken(admin, { name: 'narrowed-admin', scope: `manage_api_clients:${pk} manage_test:${pk}` }, `manage_api_clients:${pk}`);
      expectLacking(await post(narrowed.bearer, { name: 'writer', scope: `manage_test:${pk}` }), [`manage_test:${pk}`]);
    });

    it('a customer-bound client cannot hold manage_api_clients (400 InvalidField, nothing stored); one stored with it before gets no token carrying it', async () => {
      const pk = t.projectKey;
      for (const scope of [`manage_api_clients:${pk}`, `manage_my_profile_test:${pk} manage_api_clients:${pk}`]) {
        const refused = await post(admin, { name: 'bound-admin', scope, customerId: 'cust-b' });
        expectError(refused, 400, 'InvalidField');
        expect(refused.body.errors[0].field).toBe('scope');
        expect(refused.body.message).toContain(`customer-bound client (customerId) may not hold 'manage_api_clients:${pk}'`);
      }
      expect(await clientNames()).not.toContain('bound-admin');

      const legacy = await post(admin, { name: 'legacy-bound-admin', scope: `manage_my_profile_test:${pk}`, customerId: 'cust-b' });
      expect(legacy.status).toBe(201);
      await t.app.get(Database).query('UPDATE api_client SET scope = $2 WHERE id = $1', [legacy.body.id, `manage_my_profile_test:${pk} manage_api_clients:${pk}`]);
      const token = await tokenFor(t, legacy.body.id, legacy.body.secret);
      expect(token.status).toBe(200);
      expect(token.body.scope.split(' ').sort()).toEqual(['customer_id_test:cust-b', `manage_my_profile_test:${pk}`]);
      const asked = await t.http.post('/oauth/token').set('Authorization', basic(legacy.body.id, legacy.body.secret)).type('form')
        .send({ grant_type: 'client_credentials', scope: `manage_api_clients:${pk}` });
      expectError(asked, 400, 'invalid_scope');
      expect(asked.body.error_description).toContain(`manage_api_clients:${pk}`);
      const bearer = { Authorization: `Bearer ${token.body.access_token}` };
      expectError(await post(bearer, { name: 'made-by-legacy', scope: `manage_my_profile_test:${pk}`, customerId: 'cust-b' }), 403, 'insufficient_scope');
    });

    it('a customer-bound caller (a token issued before that rule) creates and deletes only clients bound to its own customer', async () => {
      const pk = t.projectKey;
      const bound = await t.auth('manage_api_clients manage_my_profile_test', { customerId: 'cust-1' });
      const unbound = await post(bound, { name: 'unbound-by-customer', scope: `manage_my_profile_test:${pk}` });
      expectLacking(unbound, [`manage_my_profile_test:${pk}`]);
      expect(unbound.body.error_description).toContain("holds its scopes for customer 'cust-1' only");
      expectLacking(await post(bound, { name: 'unbound-by-customer', scope: `manage_my_profile_test:${pk}`, customerId: 'cust-2' }), [`manage_my_profile_test:${pk}`]);
      expect(await clientNames()).not.toContain('unbound-by-customer');
      const own = await post(bound, { name: 'own-customer', scope: `manage_my_profile_test:${pk}`, customerId: 'cust-1' });
      expect(own.status).toBe(201);
      expect(own.body.customerId).toBe('cust-1');

      const otherCustomer = await post(admin, { name: 'other-customer', scope: `manage_my_profile_test:${pk}`, customerId: 'cust-2' });
      const notBound = await post(admin, { name: 'not-bound', scope: `manage_my_profile_test:${pk}` });
      for (const victim of [otherCustomer, notBound]) {
        expect(victim.status).toBe(201);
        expectLacking(await remove(bound, victim.body.id), [`manage_my_profile_test:${pk}`]);
        expect((await t.http.get(`/${pk}/api-clients/${victim.body.id}`).set(admin)).status).toBe(200);
      }
      expect((await remove(bound, own.body.id)).status).toBe(200);
    });

    it('a client deletes only clients whose scopes are among its own: a stronger one → 403 (it stays and works), an equal one → 200', async () => {
      const pk = t.projectKey;
      const deleter = await clientWithToken(admin, { name: 'deleter', scope: `manage_api_clients:${pk}` });
      const stronger = await post(admin, { name: 'stronger', scope: `manage_api_clients:${pk} manage_test:${pk}` });
      expect(stronger.status).toBe(201);
      expectLacking(await remove(deleter.bearer, stronger.body.id), [`manage_test:${pk}`]);
      expect((await t.http.get(`/${pk}/api-clients/${stronger.body.id}`).set(admin)).status).toBe(200);
      expect((await tokenFor(t, stronger.body.id, stronger.body.secret)).status).toBe(200);

      const equal = await post(admin, { name: 'equal', scope: `manage_api_clients:${pk}` });
      expect(equal.status).toBe(201);
      const deleted = await remove(deleter.bearer, equal.body.id);
      expect(deleted.status).toBe(200);
      expect(deleted.body.id).toBe(equal.body.id);
      expectError(await tokenFor(t, equal.body.id, equal.body.secret), 401, 'invalid_client');
      // An unknown id stays a 404, whatever the caller holds.
      expectError(await remove(deleter.bearer, 'does-not-exist'), 404, 'ResourceNotFound');
    });
  });
});

describe('bootstrap client (BOOTSTRAP_*)', () => {
  const dataDir = onPostgres ? undefined : mkdtempSync(join(tmpdir(), 'auth-bootstrap-'));
  const projectKey = uniqueProjectKey('boot');
  const clientId = `boot-${randomBytes(6).toString('hex')}`;
  const secret = `bootstrap-secret-${randomBytes(8).toString('hex')}`;
  const env: Record<string, string> = {
    ...(dataDir ? { DATA_DIR: dataDir } : {}),
    BOOTSTRAP_PROJECT_KEY: projectKey,
    BOOTSTRAP_CLIENT_ID: clientId,
    BOOTSTRAP_CLIENT_SECRET: secret,
    BOOTSTRAP_SCOPES: `manage_test:${projectKey} manage_api_clients:${projectKey}`,
  };
  afterAll(() => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('is created at start-up and gets a token; a second start with the same env on the same database does not fail', async () => {
    const first = await createTestApp(env);
    try {
      const token = await tokenFor(first, clientId, secret);
      expect(token.status).toBe(200);
      expect(token.body.scope.split(' ').sort()).toEqual([`manage_api_clients:${projectKey}`, `manage_test:${projectKey}`]);
      const write = await first.http.post(`/${projectKey}/resource`).set('Authorization', `Bearer ${token.body.access_token}`).send(draft());
      expect(write.status).toBe(201);
      expect(write.body.createdBy).toEqual({ clientId });
      // With a bootstrap client configured, no demo client is made.
      const demo = await first.app.get(Database).query<{ n: number }>("SELECT count(*)::integer AS n FROM api_client WHERE project_key = 'demo'");
      expect(demo[0].n).toBe(0);
    } finally {
      await first.close();
    }
    const second = await createTestApp(env);
    try {
      const token = await tokenFor(second, clientId, secret);
      expect(token.status).toBe(200);
      const list = await second.http.get(`/${projectKey}/api-clients?limit=500`).set('Authorization', `Bearer ${token.body.access_token}`);
      expect(list.status).toBe(200);
      expect(list.body.results.filter((c: { id: string }) => c.id === clientId)).toHaveLength(1);
    } finally {
      await second.close();
    }
  });
});

describe('bootstrap client holding manage_api_clients alone', () => {
  const projectKey = uniqueProjectKey('root');
  const clientId = `root-${randomBytes(6).toString('hex')}`;
  const secret = `bootstrap-secret-${randomBytes(8).toString('hex')}`;
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ BOOTSTRAP_PROJECT_KEY: projectKey, BOOTSTRAP_CLIENT_ID: clientId, BOOTSTRAP_CLIENT_SECRET: secret, BOOTSTRAP_SCOPES: `manage_api_clients:${projectKey}` });
  });
  afterAll(() => t.close());

  it('creates and deletes clients with any scope of its project; the clients it makes are bound by what they hold', async () => {
    const token = await tokenFor(t, clientId, secret);
    expect(token.status).toBe(200);
    const root = { Authorization: `Bearer ${token.body.access_token}` };
    const writer = await t.http.post(`/${projectKey}/api-clients`).set(root).send({ name: 'writer', scope: `manage_test:${projectKey} manage_api_clients:${projectKey}` });
    expect(writer.status).toBe(201);
    const writerToken = await tokenFor(t, writer.body.id, writer.body.secret);
    expect(writerToken.status).toBe(200);
    const writerBearer = { Authorization: `Bearer ${writerToken.body.access_token}` };
    expect((await t.http.post(`/${projectKey}/resource`).set(writerBearer).send(draft())).status).toBe(201);
    // The writer is no bootstrap client: it may not grant what it lacks.
    const escalated = await t.http.post(`/${projectKey}/api-clients`).set(writerBearer).send({ name: 'x', scope: `view_messages:${projectKey}` });
    expectError(escalated, 403, 'insufficient_scope');
    expect(escalated.body.error_description).toContain(`the caller lacks view_messages:${projectKey}.`);
    // Customer binding rules bind the bootstrap client too.
    const bound = await t.http.post(`/${projectKey}/api-clients`).set(root).send({ name: 'x', scope: `manage_api_clients:${projectKey}`, customerId: 'c' });
    expectError(bound, 400, 'InvalidField');
    expect((await t.http.delete(`/${projectKey}/api-clients/${writer.body.id}`).set(root)).status).toBe(200);
  });
});

describe('demo client', () => {
  it(onPostgres ? 'is not created on PostgreSQL' : 'is created once, with every scope of project demo, on an empty embedded database', async () => {
    const dataDir = onPostgres ? undefined : mkdtempSync(join(tmpdir(), 'auth-demo-'));
    const env: Record<string, string> = dataDir ? { DATA_DIR: dataDir } : {};
    const printed: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      printed.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stdout.write;
    let t: TestApp;
    try {
      t = await createTestApp(env);
    } finally {
      process.stdout.write = write;
    }
    try {
      const rows = await t.app.get(Database).query<{ id: string; scope: string }>("SELECT id, scope FROM api_client WHERE project_key = 'demo'");
      if (onPostgres) {
        expect(rows).toEqual([]);
        expect(printed.join('')).not.toMatch(/client_secret/);
        return;
      }
      expect(rows).toHaveLength(1);
      expect(rows[0].scope.split(' ').sort()).toEqual(ALL_SCOPES.map((n) => `${n}:demo`).sort());
      // Its credentials are printed once, and they work.
      const output = printed.join('');
      const id = /client_id:\s*(\S+)/.exec(output)?.[1];
      const secret = /client_secret:\s*(\S+)/.exec(output)?.[1];
      expect(id).toBe(rows[0].id);
      expect(secret).toBeDefined();
      const token = await tokenFor(t, id!, secret!);
      expect(token.status).toBe(200);
      expect(token.body.scope.split(' ').sort()).toEqual(ALL_SCOPES.map((n) => `${n}:demo`).sort());
    } finally {
      await t.close();
    }
    // A restart on the same (no longer empty) data directory creates and prints nothing more.
    const again: string[] = [];
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      again.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stdout.write;
    let t2: TestApp;
    try {
      t2 = await createTestApp(env);
    } finally {
      process.stdout.write = write;
    }
    try {
      const rows = await t2.app.get(Database).query<{ id: string }>("SELECT id FROM api_client WHERE project_key = 'demo'");
      expect(rows).toHaveLength(1);
      expect(again.join('')).not.toMatch(/client_secret/);
    } finally {
      await t2.close();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('rate limit (RATE_LIMIT_PER_MINUTE)', () => {
  describe('with RATE_LIMIT_PER_MINUTE=5', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ RATE_LIMIT_PER_MINUTE: '5' });
    });
    afterAll(() => t.close());

    it('answers the 6th request of a client 429 TooManyRequests with Retry-After; another client is unaffected', async () => {
      const a = await t.auth('view_test');
      const b = await t.auth('manage_test');
      await awayFromMinuteBoundary();
      for (let i = 1; i <= 5; i++) {
        const res = await t.http.get(`/${t.projectKey}/resource`).set(a);
        expect({ i, status: res.status }).toEqual({ i, status: 200 });
      }
      const sixth = await t.http.get(`/${t.projectKey}/resource`).set(a);
      expectError(sixth, 429, 'TooManyRequests');
      expect(sixth.headers['retry-after']).toMatch(/^\d+$/);
      const wait = Number(sixth.headers['retry-after']);
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(60);
      // Still limited, on any route.
      const again = await t.http.post(`/${t.projectKey}/resource`).set(a).send(draft());
      expect(again.status).toBe(429);
      // Another client of the same project is not.
      const other = await t.http.get(`/${t.projectKey}/resource`).set(b);
      expect(other.status).toBe(200);
    });
  });

  describe('with RATE_LIMIT_PER_MINUTE=0', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ RATE_LIMIT_PER_MINUTE: '0' });
    });
    afterAll(() => t.close());

    it('never answers 429', async () => {
      const a = await t.auth('view_test');
      for (let i = 1; i <= 30; i++) {
        const res = await t.http.get(`/${t.projectKey}/resource`).set(a);
        expect({ i, status: res.status }).toEqual({ i, status: 200 });
      }
    });
  });
});

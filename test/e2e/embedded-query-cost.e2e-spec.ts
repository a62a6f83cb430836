import { Database } from '../../src/database/database.js';
import { createTestApp, onPostgres, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { expectErrorEnvelope } from '../support/expect-error.js';

/*
 * One list read cannot hold the embedded database (docs/rules.md#fair-use): PGlite runs
 * statements on the server's thread and cancels none, so a list read whose planned cost passes
 * DATABASE_EMBEDDED_MAX_QUERY_COST answers 400 QueryTimedOut without running. On PostgreSQL the statement
 * timeout bounds a statement instead, and the setting changes nothing.
 */

/** Low enough that a scan of this file's 5,000 resources passes it (about 750), an index lookup not (17). */
const MAX_COST = 500;

describe('DATABASE_EMBEDDED_MAX_QUERY_COST', () => {
  const WIDE = uniqueProjectKey('wide');
  let t: TestApp;
  let view: Record<string, string>;
  const query = (params: Record<string, string>) => t.http.get(`/${WIDE}/resource/sorted-query-parameters`).query(params).set(view);
  const answer = (res: { status: number; body: { count?: number } }) => ({ status: res.status, count: res.body.count });

  beforeAll(async () => {
    t = await createTestApp({ AUTH_DEMO_CLIENT: 'false', DATABASE_EMBEDDED_MAX_QUERY_COST: String(MAX_COST) });
    const db = t.app.get(Database);
    // Seeded by SQL: what matters is how many rows a statement would read, not how they were written.
    await db.query(
      `INSERT INTO resource (id, project_key, key, version, created_at, last_modified_at, created_by, last_modified_by, published, object_type_property)
       SELECT gen_random_uuid(), $1, 'w-' || g, 1, now(), now(), '{"clientId":"seed"}', '{"clientId":"seed"}', true,
              ('{"arrayOfIntExample":[' || g || '],"arrayOfUniqueIntExample":[],"arrayOfTwonumbersExample":[1,2],"arrayOfFloatExample":[0.25],' ||
               '"arrayOfNumberNoDefaultsExample":[],"arrayOfStringExample":["w' || g || '"],"arrayOfObjectType":[]}')::jsonb
       FROM generate_series(1, 5000) g`,
      [WIDE],
    );
    await db.query('ANALYZE resource');
    view = await t.auth('view_test', { projectKey: WIDE });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('a where no index narrows, over every resource of the project: 400 QueryTimedOut on the embedded database, 200 on PostgreSQL', async () => {
    const res = await query({ where: 'objectTypeProperty(arrayOfIntExample > 4999)', withTotal: 'true' });
    if (onPostgres) {
      expect({ ...answer(res), total: res.body.total }).toEqual({ status: 200, count: 1, total: 1 });
      return;
    }
    expectErrorEnvelope(res, 400, 'QueryTimedOut');
    expect(res.body.message).toContain(`DATABASE_EMBEDDED_MAX_QUERY_COST ${MAX_COST}`);
  });

  it('GET /resource merging every resource of the project: refused the same way on the embedded database', async () => {
    const res = await t.http.get(`/${WIDE}/resource`).set(view);
    if (onPostgres) {
      expect(res.status).toBe(200);
      expect(res.headers['x-total-count']).toBe('5000');
      return;
    }
    expectErrorEnvelope(res, 400, 'QueryTimedOut');
  });

  it('the same project read through its indexes answers: a key, a page in the default order, a search for one word', async () => {
    expect(answer(await query({ where: 'key = "w-4999"' }))).toEqual({ status: 200, count: 1 });
    expect(answer(await query({ limit: '20' }))).toEqual({ status: 200, count: 20 });
    const search = await t.http.get(`/${WIDE}/resource/searchApiPattern`).query({ 'text.en': 'w17' }).set(view);
    expect(search.status).toBe(200);
  });
});

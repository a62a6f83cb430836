import { createTestApp, uniqueProjectKey } from '../support/test-app.js';
import { Database } from '../../src/database/database.js';
it('calibrates', async () => {
  const t = await createTestApp({ DATABASE_EMBEDDED_MAX_QUERY_COST: '0' });
  const db = t.app.get(Database);
  const pk = uniqueProjectKey('c');
  const view = await t.auth('view_test', { projectKey: pk });
  for (const count of [2000, 20000, 60000]) {
    const t0 = performance.now();
    await db.query(`DELETE FROM resource WHERE project_key = $1`, [pk]);
    await db.query(
      `INSERT INTO resource (id, project_key, key, version, created_at, last_modified_at, created_by, last_modified_by, published, object_type_property)
       SELECT gen_random_uuid(), $1, 'k-' || g, 1, now(), now(), '{"clientId":"seed"}', '{"clientId":"seed"}', true,
              ('{"arrayOfIntExample":[' || g || ',7],"arrayOfUniqueIntExample":[],"arrayOfTwonumbersExample":[1,2],' ||
               '"arrayOfFloatExample":[0.25],"arrayOfNumberNoDefaultsExample":[],"arrayOfStringExample":["word' || (g % 97) || '"],' ||
               '"arrayOfObjectType":[{"integerExample":5,"integerExampleInt32":' || g || '}]}')::jsonb
       FROM generate_series(1, ${count}) g`, [pk]);
    await db.query('ANALYZE resource');
    console.log('seeded', count, Math.round(performance.now() - t0));
    const cases: [string, Record<string, string>][] = [
      ['unindexed where limit 20', { where: 'objectTypeProperty(arrayOfIntExample > 5000000)' }],
      ['unindexed where withTotal', { where: 'objectTypeProperty(arrayOfIntExample > 5)', withTotal: 'true' }],
      ['key =', { where: 'key = "k-5"' }],
      ['default limit 500', { limit: '500' }],
      ['default limit 20 withTotal', { withTotal: 'true' }],
      ['sort by key offset 9000', { sort: 'key desc', offset: '9000' }],
    ];
    for (const [name, q] of cases) {
      for (let i = 0; i < 2; i++) {
        const s = performance.now();
        const res = await t.http.get(`/${pk}/resource/sorted-query-parameters`).query(q).set(view);
        const ms = performance.now() - s;
        if (i === 1) console.log(count, name, res.status, Math.round(ms), 'ms');
      }
    }
    for (const q of [{ 'text.en': 'word5' }, { 'text.en': 'word5', 'facet': 'variants.attributes.size' }, { fuzzy: 'true', 'text.en': 'wurd5' }]) {
      const s = performance.now();
      const res = await t.http.get(`/${pk}/resource/searchApiPattern`).query(q).set(view);
      console.log(count, 'search', JSON.stringify(q), res.status, Math.round(performance.now() - s), 'ms', res.status !== 200 ? res.text.slice(0, 200) : '');
    }
  }
  await t.close();
  expect(1).toBe(1);
}, 600000);

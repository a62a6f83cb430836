import pg from 'pg';
import { Database } from '../../src/database/database.js';
import { createFreshDatabase, type FreshDatabase } from '../support/fresh-database.js';

/*
 * Every statement of `Database.query` is a transaction of its own, so one that PostgreSQL ends to break a
 * deadlock (40P01) wrote nothing and runs again. Two statements here lock rows 1 and 2 in opposite orders,
 * with a pause of a second between (on connections opened beforehand), which deadlocks them every time (the embedded database runs one
 * statement at a time, so this runs on PostgreSQL only).
 */
describe('a statement ended to break a deadlock', () => {
  let fresh: FreshDatabase;
  let pool: pg.Pool;
  let db: Database;

  beforeAll(async () => {
    fresh = await createFreshDatabase('deadlock');
    pool = new pg.Pool({ connectionString: fresh.url, max: 4 });
    // A short deadlock_timeout: the deadlock is found 100 ms into the wait rather than 1 s.
    await pool.query(`ALTER DATABASE "${new URL(fresh.url).pathname.slice(1)}" SET deadlock_timeout = '100ms'`);
    await pool.query('CREATE TABLE counter (id integer PRIMARY KEY, n integer NOT NULL); INSERT INTO counter VALUES (1, 0), (2, 0); CREATE SEQUENCE runs');
    db = new Database(pool, true);
  });
  afterAll(async () => {
    await pool.end();
    await fresh.drop();
  });

  /** Adds one to `first`, waits, then adds one to `second`, in one statement; counts its runs in `runs`. */
  const crossing = (first: number, second: number) => ({
    name: `crossing_${first}_${second}`,
    text: `WITH a AS (UPDATE counter SET n = n + 1 WHERE id = $1 RETURNING nextval('runs')),
                s AS (SELECT pg_sleep(1) FROM a)
           UPDATE counter SET n = n + 1 WHERE id = $2 AND EXISTS (SELECT 1 FROM s) RETURNING n`,
    values: [first, second],
  });

  /** Two connections of the pool open and idle, so that the two statements start together. */
  const warm = (p: pg.Pool) => Promise.all([p.query('SELECT pg_sleep(0.05)'), p.query('SELECT pg_sleep(0.05)')]);

  it('runs again, so both crossing writes are written once each', async () => {
    const one = crossing(1, 2);
    const two = crossing(2, 1);
    const plain = new pg.Pool({ connectionString: fresh.url, max: 2 });
    try {
      await warm(plain);
      // Without the retry: one of the two fails with 40P01 (the proof that these statements deadlock).
      const bare = await Promise.allSettled([plain.query(one), plain.query(two)]);
      expect(bare.map((r) => (r.status === 'rejected' ? (r.reason as { code?: string }).code : 'written')).sort()).toEqual(['40P01', 'written']);
    } finally {
      await plain.end();
    }
    await pool.query('UPDATE counter SET n = 0');
    const runsBefore = Number((await pool.query("SELECT last_value FROM runs")).rows[0].last_value);
    await warm(pool);
    const written = await Promise.all([db.query(one, one.values), db.query(two, two.values)]);
    expect(written.map((rows) => rows.length)).toEqual([1, 1]);
    expect((await pool.query('SELECT id, n FROM counter ORDER BY id')).rows).toEqual([
      { id: 1, n: 2 },
      { id: 2, n: 2 },
    ]);
    // Three runs: the two, and the victim's second.
    expect(Number((await pool.query('SELECT last_value FROM runs')).rows[0].last_value) - runsBefore).toBe(3);
  });

  it('does not run again a statement that failed otherwise', async () => {
    const runsBefore = Number((await pool.query('SELECT last_value FROM runs')).rows[0].last_value);
    await expect(db.query({ name: 'fails', text: "SELECT nextval('runs') / 0" })).rejects.toMatchObject({ code: '22012' });
    expect(Number((await pool.query('SELECT last_value FROM runs')).rows[0].last_value) - runsBefore).toBe(1);
  });
});

import { randomBytes } from 'node:crypto';
import type { Database } from '../../src/database/database.js';

/**
 * Makes a statement on `table` fail as it would while PostgreSQL shuts down (57P01) for the rows `when`
 * selects (a condition on `NEW`), so that a real 503 ServiceUnavailable comes back through the whole stack.
 * Resolves to the function that removes the trigger again.
 */
export async function failLikeShutdown(db: Database, { table, event, when }: { table: string; event: 'INSERT' | 'UPDATE'; when: string }): Promise<() => Promise<void>> {
  const name = `refuse_${randomBytes(4).toString('hex')}`;
  await db.query(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'terminating connection due to administrator command' USING ERRCODE = '57P01'; END $$`);
  await db.query(`CREATE TRIGGER ${name} BEFORE ${event} ON ${table} FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION ${name}()`);
  return async () => {
    await db.query(`DROP TRIGGER IF EXISTS ${name} ON ${table}`);
    await db.query(`DROP FUNCTION IF EXISTS ${name}()`);
  };
}

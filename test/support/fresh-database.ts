import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface FreshDatabase {
  /** DATABASE_URL of the new, empty database (the server migrates it on start). */
  url: string;
  /** Drops it, closing whatever still holds a connection. */
  drop(): Promise<void>;
}

/**
 * An empty database of its own on the PostgreSQL of `DATABASE_URL`, for a test whose background work
 * (a worker claiming jobs) must not meet other test files' servers, which share that database.
 */
export async function createFreshDatabase(prefix: string): Promise<FreshDatabase> {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('createFreshDatabase needs DATABASE_URL');
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

import type { FactoryProvider } from '@nestjs/common';
import pg from 'pg';
import { APPLICATION_NAME, poolOptions } from '../database/data-source-options.js';
import { databaseConfig, type DatabaseConfig } from '../database/database.config.js';
import { Database } from '../database/database.js';

/**
 * The database of the subscription dispatcher's bookkeeping (notification-queue.repository.ts): on
 * PostgreSQL a small pool of its own whose transactions commit without waiting for the write-ahead log
 * to reach the disk (`synchronous_commit = off`). What such a commit can lose is the last fraction of a
 * second of that bookkeeping when PostgreSQL itself crashes, never a resource write, and delivery is at
 * least once either way: a lost removal or claim sends a notification again, and a lost queuing is
 * lost with its position, so the next scan queues it again. Each commit waiting for its own flush made
 * the dispatcher's statements compete with the API's writes for the disk. On the embedded database,
 * the app's `Database` (one session).
 */
export abstract class DispatchDatabase extends Database {}

/** Connections of the dispatcher's pool: its rounds run one at a time, beside failed attempts' updates. */
const DISPATCH_POOL_SIZE = 3;

export const dispatchDatabaseProvider: FactoryProvider<Database> = {
  provide: DispatchDatabase,
  inject: [Database, databaseConfig.KEY],
  useFactory: (db: Database, config: DatabaseConfig): Database => {
    if (!config.url) return db;
    const options = poolOptions(config);
    const pool = new pg.Pool({
      connectionString: config.url,
      application_name: APPLICATION_NAME,
      ...options,
      max: DISPATCH_POOL_SIZE,
      options: `${options.options ?? ''} -c synchronous_commit=off`.trim(),
    });
    // A connection PostgreSQL ends while idle is dropped by the pool; the next statement opens another.
    pool.on('error', () => undefined);
    return new Database(pool, true);
  },
};

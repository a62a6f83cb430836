import { Global, Inject, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { APPLICATION_NAME, poolOptions } from './data-source-options.js';
import { databaseConfig, type DatabaseConfig } from './database.config.js';
import { Database } from './database.js';
import { ListAnswers } from './list-answers.js';
import { type OpenedDatabase, openDataSource } from './open-data-source.js';
import { ReadReplicas } from './read-replicas.js';

const OPENED_DATABASE = Symbol('OPENED_DATABASE');

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

/** What kind of database the app opened (the demo client is created on an embedded one only). */
export class OpenedDatabaseInfo {
  constructor(readonly embedded: boolean) {}
}

@Global()
@Module({
  providers: [
    {
      provide: OPENED_DATABASE,
      inject: [databaseConfig.KEY],
      useFactory: (config: DatabaseConfig) => openDataSource(config, { migrate: config.migrationsRun }),
    },
    {
      provide: OpenedDatabaseInfo,
      inject: [OPENED_DATABASE],
      useFactory: (opened: OpenedDatabase) => new OpenedDatabaseInfo(opened.embedded),
    },
    {
      provide: Database,
      inject: [OPENED_DATABASE, databaseConfig.KEY],
      useFactory: (opened: OpenedDatabase, config: DatabaseConfig) =>
        // Replicas are refused at start-up without DATABASE_URL (database.config.ts).
        new Database(
          opened.pool,
          !opened.embedded,
          config.replicaUrls.length > 0 ? new ReadReplicas(config, opened.pool) : undefined,
          config.projectConcurrency,
          opened.embedded ? config.embeddedMaxQueryCost || undefined : undefined,
        ),
    },
    {
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
    },
    ListAnswers,
  ],
  exports: [Database, DispatchDatabase, OpenedDatabaseInfo, ListAnswers],
})
export class DatabaseModule implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(OPENED_DATABASE) private readonly opened: OpenedDatabase,
    private readonly db: Database,
    private readonly dispatchDb: DispatchDatabase,
  ) {}

  onApplicationBootstrap(): void {
    this.db.replicas?.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.db.replicas?.close();
    if (this.dispatchDb !== this.db) await this.dispatchDb.pool.end();
    await this.opened.close();
  }
}

import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver.js';
import type { Pool } from 'pg';
import type { DatabaseConfig } from './database.config.js';
import { buildDataSourceOptions, type ConnectionTarget } from './data-source-options.js';
import { DataDirectoryLockedError, type EmbeddedPostgres, runningServerConnection, startEmbeddedPostgres } from './embedded-postgres.js';

/** Any constant: replicas starting together queue on it while one applies the migrations. */
const MIGRATION_LOCK_ID = 7_316_200_142;

export interface OpenedDatabase {
  dataSource: DataSource;
  pool: Pool;
  embedded: boolean;
  close(): Promise<void>;
}

/**
 * Opens PostgreSQL (`DATABASE_URL`) or the embedded PGlite data directory, and optionally applies
 * pending migrations under a PostgreSQL advisory lock so several replicas can start at once.
 * Used by the app and by the operator commands, so both open the database the same way. With
 * `shareRunningServer` (the CLI), an embedded data directory a running server holds is used through that
 * server's socket (it applied the migrations) instead of being refused as locked.
 */
export async function openDataSource(config: DatabaseConfig, options: { migrate: boolean; shareRunningServer?: boolean }): Promise<OpenedDatabase> {
  const logger = new Logger('Database');
  let embedded: EmbeddedPostgres | undefined;
  let target: ConnectionTarget;
  let migrate = options.migrate;
  if (config.url) {
    target = { url: config.url };
  } else {
    try {
      embedded = await startEmbeddedPostgres(config.dataDir, config.poolSize + 2);
    } catch (error) {
      const shared = options.shareRunningServer && error instanceof DataDirectoryLockedError ? runningServerConnection(config.dataDir) : undefined;
      if (!shared) throw error;
      embedded = { connection: shared, stop: async () => undefined };
      migrate = false;
    }
    const { host, port, user, database } = embedded.connection;
    target = { host, port, username: user, database };
    logger.log(`embedded PostgreSQL (PGlite) in ${config.dataDir}`);
  }
  // PGlite is one session: its socket server runs each chunk a connection sends as one unit, so the
  // Parse of one connection and the Bind/Execute of another can interleave on the session's unnamed
  // statement and portal ("portal does not exist", seen under concurrent writes). One connection
  // serialises the app's statements; PGlite could not run them in parallel anyway.
  const poolSize = embedded ? 1 : config.poolSize;
  let dataSource = new DataSource(buildDataSourceOptions({ ...config, poolSize }, target));
  try {
    await dataSource.initialize();
    const applied = migrate ? await runMigrations(dataSource, !embedded, logger) : 0;
    if (applied > 0 && embedded?.reopen) {
      // Creating a data directory (PGlite's initdb) and migrating it grow the embedded database's
      // WebAssembly memory to about 650 MB, which never shrinks; opened again, it starts at about 140 MB.
      await dataSource.destroy();
      const { host, port, user, database } = await embedded.reopen();
      dataSource = new DataSource(buildDataSourceOptions({ ...config, poolSize }, { host, port, username: user, database }));
      await dataSource.initialize();
    }
  } catch (error) {
    if (dataSource.isInitialized) await dataSource.destroy();
    await embedded?.stop();
    throw error;
  }
  return {
    dataSource,
    pool: (dataSource.driver as PostgresDriver).master as Pool,
    embedded: embedded !== undefined,
    async close() {
      if (dataSource.isInitialized) await dataSource.destroy();
      await embedded?.stop();
    },
  };
}

/** Applies the pending migrations; answers how many. */
async function runMigrations(dataSource: DataSource, useAdvisoryLock: boolean, logger: Logger): Promise<number> {
  // The lock is held on a connection of its own; the migrations run on the pool. A replica that
  // waits here finds nothing left to apply once it gets the lock.
  const lockRunner = useAdvisoryLock ? dataSource.createQueryRunner() : undefined;
  try {
    await lockRunner?.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    if (applied.length > 0) logger.log(`applied migrations: ${applied.map((m) => m.name).join(', ')}`);
    return applied.length;
  } finally {
    await lockRunner?.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined);
    await lockRunner?.release();
  }
}

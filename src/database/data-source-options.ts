import type { DataSourceOptions } from 'typeorm';
import type { DatabaseConfig } from './database.config.js';
import { ENTITIES } from './entities.js';
import { MIGRATIONS } from './migrations/index.js';

export interface ConnectionTarget {
  url?: string;
  host?: string;
  port?: number;
  username?: string;
  database?: string;
}

/** This process's connections in `pg_stat_activity`, on the primary and on every read replica. */
export const APPLICATION_NAME = `resource-api/${process.pid}`;

/**
 * What TypeORM is for in this service, and all it is for:
 * - running the migrations (`migrations/`, the schema's source of truth) and recording them;
 * - opening the `pg` pool, which `Database` (database.ts) then uses directly: every query the running
 *   service sends is hand-written SQL with bound parameters (in the repositories, the image store,
 *   SigningKeysService, the metrics and the health check). None goes through a TypeORM repository,
 *   the entity manager or the DataSource, which only the migration runner and its advisory lock
 *   (open-data-source.ts) use;
 * - holding the entities (entities.ts): one class per table, with its columns, keys and `@VersionColumn`,
 *   checked against the migrated schema by a test. They are never used to change the schema
 *   (`synchronize` is off).
 *
 * The one builder of data-source options: used by the app, the migration command and the TypeORM CLI.
 */
export function buildDataSourceOptions(config: DatabaseConfig, target: ConnectionTarget): DataSourceOptions {
  return {
    type: 'postgres',
    ...target,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    synchronize: false,
    migrationsRun: false,
    logging: ['error'],
    // Names this process's connections in pg_stat_activity (which replica holds what; none left after a stop).
    applicationName: APPLICATION_NAME,
    extra: poolOptions(config),
  };
}

/**
 * The `pg` pool settings of every pool the service opens: the primary's (through TypeORM, above) and each
 * read replica's (read-replicas.ts), so a statement is bounded the same way wherever it runs.
 */
export function poolOptions(config: DatabaseConfig): { max: number; statement_timeout: number; connectionTimeoutMillis: number; options?: string } {
  return {
    max: config.poolSize,
    statement_timeout: config.statementTimeoutMs,
    connectionTimeoutMillis: 5_000,
    // PostgreSQL's JIT compiles a plan once its estimated cost passes jit_above_cost: 25-35 ms spent on
    // every search with facets over a few thousand matches, whose whole run takes 30-60 ms. (The
    // embedded database has no JIT.)
    ...(config.url ? { options: '-c jit=off' } : {}),
  };
}

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

/** The one builder of data-source options: used by the app, the migration command and the TypeORM CLI. */
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
    applicationName: `resource-api/${process.pid}`,
    extra: {
      max: config.poolSize,
      statement_timeout: config.statementTimeoutMs,
      connectionTimeoutMillis: 5_000,
      // PostgreSQL's JIT compiles a plan once its estimated cost passes jit_above_cost: 25-35 ms spent on
      // every search with facets over a few thousand matches, whose whole run takes 30-60 ms. (The
      // embedded database has no JIT.)
      ...(config.url ? { options: '-c jit=off' } : {}),
    },
  };
}

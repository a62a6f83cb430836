import { configSection } from '../config/env-reader.js';

export interface DatabaseConfig {
  /** PostgreSQL connection string; absent → embedded PGlite in `dataDir`. */
  url?: string;
  dataDir: string;
  poolSize: number;
  statementTimeoutMs: number;
  migrationsRun: boolean;
  /** Statements one project may run at once per process (the others wait, then 503): default half the pool. */
  projectConcurrency: number;
}

export const databaseConfig = configSection('database', (read): DatabaseConfig => {
  const poolSize = read.int('DATABASE_POOL_SIZE', 10, 1, 200);
  const database: DatabaseConfig = {
    url: read.url('DATABASE_URL', ['postgres:', 'postgresql:']),
    dataDir: read.string('DATA_DIR', './data'),
    poolSize,
    statementTimeoutMs: read.int('DATABASE_STATEMENT_TIMEOUT_MS', 10_000, 100, 600_000),
    migrationsRun: read.bool('DATABASE_MIGRATIONS_RUN', true),
    projectConcurrency: read.int('DATABASE_PROJECT_CONCURRENCY', Math.max(1, Math.floor(poolSize / 2)), 1, 200),
  };
  if (database.projectConcurrency > poolSize) {
    read.problems.push('DATABASE_PROJECT_CONCURRENCY: must not be greater than DATABASE_POOL_SIZE (a project runs its statements on the pool)');
  }
  return database;
});

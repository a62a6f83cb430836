import { configSection } from '../config/env-reader.js';

export interface DatabaseConfig {
  /** PostgreSQL connection string; absent → embedded PGlite in `dataDir`. */
  url?: string;
  dataDir: string;
  poolSize: number;
  statementTimeoutMs: number;
  migrationsRun: boolean;
}

export const databaseConfig = configSection('database', (read): DatabaseConfig => ({
  url: read.url('DATABASE_URL', ['postgres:', 'postgresql:']),
  dataDir: read.string('DATA_DIR', './data'),
  poolSize: read.int('DATABASE_POOL_SIZE', 10, 1, 200),
  statementTimeoutMs: read.int('DATABASE_STATEMENT_TIMEOUT_MS', 10_000, 100, 600_000),
  migrationsRun: read.bool('DATABASE_MIGRATIONS_RUN', true),
}));

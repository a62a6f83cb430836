import { configSection, type EnvReader } from '../config/env-reader.js';

export interface DatabaseConfig {
  /** PostgreSQL connection string; absent → embedded PGlite in `dataDir`. */
  url?: string;
  dataDir: string;
  poolSize: number;
  statementTimeoutMs: number;
  migrationsRun: boolean;
  /** Streaming replicas of `url` for the read-only list endpoints (see read-replicas.ts); empty: none. */
  replicaUrls: string[];
  /** A replica answers only while it is known to hold every write acknowledged longer ago than this. */
  replicaMaxLagMs: number;
  /** Statements one project may run at once per process (the others wait, then 503): default half the pool. */
  projectConcurrency: number;
  /** Embedded database only: the planner's estimated cost past which a list read is refused (cost-bound.ts); 0: none. */
  embeddedMaxQueryCost: number;
}

/**
 * About 0.5–2 s of PGlite's work: a `where` no index narrows over some 300,000 resources (measured: see
 * docs/getting-started.md#the-embedded-database). PostgreSQL bounds a statement by its timeout instead, and
 * ignores this setting.
 */
const DEFAULT_EMBEDDED_MAX_QUERY_COST = 50_000;

/** More would be a fleet to manage with a proxy in front, not a list in an environment variable. */
const MAX_REPLICAS = 16;

export const databaseConfig = configSection('database', (read): DatabaseConfig => {
  const url = read.url('DATABASE_URL', ['postgres:', 'postgresql:']);
  const poolSize = read.int('DATABASE_POOL_SIZE', 10, 1, 200);
  const projectConcurrency = read.int('DATABASE_PROJECT_CONCURRENCY', Math.max(1, Math.floor(poolSize / 2)), 1, 200);
  if (projectConcurrency > poolSize) {
    read.problems.push('DATABASE_PROJECT_CONCURRENCY: must not be greater than DATABASE_POOL_SIZE (a project runs its statements on the pool)');
  }
  return {
    url,
    dataDir: read.string('DATA_DIR', './data'),
    poolSize,
    statementTimeoutMs: read.int('DATABASE_STATEMENT_TIMEOUT_MS', 10_000, 100, 600_000),
    migrationsRun: read.bool('DATABASE_MIGRATIONS_RUN', true),
    replicaUrls: readReplicaUrls(read, url),
    // At least the interval of the lag checks (1 s): a smaller bound would leave each replica unused
    // for most of every second. At most an hour.
    replicaMaxLagMs: read.int('DATABASE_REPLICA_MAX_LAG_MS', 2_000, 1_000, 3_600_000),
    projectConcurrency,
    embeddedMaxQueryCost: read.int('DATABASE_EMBEDDED_MAX_QUERY_COST', DEFAULT_EMBEDDED_MAX_QUERY_COST, 0, 1_000_000_000),
  };
});

/**
 * DATABASE_REPLICA_URLS: a comma list of PostgreSQL URLs, each server once and never the primary
 * itself. Messages name a URL by its position and server, never by its credentials.
 */
function readReplicaUrls(read: EnvReader, primaryUrl: string | undefined): string[] {
  const urls = read.list('DATABASE_REPLICA_URLS');
  if (urls.length === 0) return [];
  const problems: string[] = [];
  if (read.string('DATABASE_URL') === undefined) {
    problems.push('needs DATABASE_URL: the embedded database has no replicas');
  }
  if (urls.length > MAX_REPLICAS) problems.push(`at most ${MAX_REPLICAS} URLs (got ${urls.length})`);
  const primary = primaryUrl ? serverName(primaryUrl) : undefined;
  const seen = new Set<string>();
  urls.forEach((url, i) => {
    const name = serverName(url);
    if (name === undefined) problems.push(`URL ${i + 1} is not a postgres: or postgresql: URL with a host`);
    else if (name === primary) problems.push(`URL ${i + 1} (${name}) is DATABASE_URL's server itself`);
    else if (seen.has(name)) problems.push(`URL ${i + 1} (${name}) is listed twice`);
    if (name !== undefined) seen.add(name);
  });
  read.problems.push(...problems.map((problem) => `DATABASE_REPLICA_URLS: ${problem}`));
  return problems.length === 0 ? urls : [];
}

/**
 * `host:port/database` of a PostgreSQL URL, without its credentials (a replica's name in logs, health and
 * metrics); undefined when it is not one. The host may also come from `?host=` (a unix socket directory).
 */
export function serverName(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') return undefined;
  const host = decodeURIComponent(parsed.hostname) || parsed.searchParams.get('host');
  if (!host) return undefined;
  const database = decodeURIComponent(parsed.pathname.slice(1)) || decodeURIComponent(parsed.username) || 'postgres';
  return `${host}:${parsed.port || '5432'}/${database}`;
}

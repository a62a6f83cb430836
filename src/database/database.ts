import type { Pool, QueryResultRow } from 'pg';
import type { ReadReplicas } from './read-replicas.js';
import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';
import { KeyedSemaphores, SemaphoreRefusal } from '../common/semaphore.js';
import { CostBoundedReader } from './cost-bound.js';

/** How long a statement waits for its project's turn before the request answers 503. */
export const PROJECT_WAIT_MS = 5_000;

/** A statement with a stable name, prepared once per connection where the server supports it. */
export interface Statement {
  name: string;
  text: string;
}

/**
 * What a repository queries through: the primary's `Database`, or the reader of `Database.reader()`.
 * `project` names the project a request's statement works for: it takes one of that project's turns
 * (fair use, `Database`). Statements of background work and start-up name none.
 */
export interface Queryable {
  query<R extends QueryResultRow>(statement: Statement | string, values?: unknown[], project?: string): Promise<R[]>;
  one<R extends QueryResultRow>(statement: Statement | string, values?: unknown[], project?: string): Promise<R | undefined>;
}

/**
 * The SQL path of every query: the pool TypeORM opened (see data-source-options.ts), used directly with bound parameters and
 * (on PostgreSQL) named prepared statements: one round-trip, no entity hydration. Embedded PGlite
 * multiplexes every connection onto one session, where named statements would collide, so there
 * statements stay unnamed.
 *
 * Fair use between projects (docs/rules.md#fair-use): a statement that names its project (the repositories'
 * methods a request calls pass the project key they work on) waits for one of that project's
 * `projectConcurrency` turns, so one project's slow statements cannot hold the whole pool; after
 * PROJECT_WAIT_MS of waiting the request answers 503 with Retry-After. Statements of workers and start-up
 * name none and are not counted.
 *
 * The project is passed, not found in an `AsyncLocalStorage` entered per request: on Node 20 that
 * store's promise hooks run for every promise of the process. GET by id and create (`npm run bench`,
 * PostgreSQL, builds alternated twice) ran at 0.82 and 0.75 / 0.63 and 0.65 of the same-SQL baseline with
 * the project passed, 0.66 and 0.69 / 0.56 and 0.58 with the store.
 */
export class Database implements Queryable {
  private readonly read: Queryable;
  private readonly projects?: KeyedSemaphores;

  constructor(
    readonly pool: Pool,
    private readonly prepared: boolean,
    /** The streaming replicas of DATABASE_REPLICA_URLS, when there are any. */
    readonly replicas?: ReadReplicas,
    /** Statements one project may run at once on this pool during its requests (docs/rules.md#fair-use). */
    projectConcurrency?: number,
    /** The embedded database's bound on a list read's estimated cost (cost-bound.ts); undefined: none. */
    maxReadCost?: number,
  ) {
    this.read = replicas ? replicas.reader(this) : maxReadCost ? new CostBoundedReader(this, maxReadCost) : this;
    if (projectConcurrency !== undefined) this.projects = new KeyedSemaphores(projectConcurrency, Infinity);
  }

  /**
   * Where a read-only statement of a list endpoint runs (GET/HEAD /resource, sorted-query-parameters,
   * searchApiPattern): with DATABASE_REPLICA_URLS a replica within DATABASE_REPLICA_MAX_LAG_MS, else (and
   * whenever that replica fails) this primary; without replicas, this primary. Its answers may miss the
   * writes of the last DATABASE_REPLICA_MAX_LAG_MS, so never use it for a read that must see a write just
   * made (GET by id or key, a version check), for a write, or in a transaction. On the embedded
   * database its statements are refused past DATABASE_EMBEDDED_MAX_QUERY_COST (cost-bound.ts).
   */
  reader(): Queryable {
    return this.read;
  }

  async query<R extends QueryResultRow>(statement: Statement | string, values: unknown[] = [], project?: string): Promise<R[]> {
    const config =
      typeof statement === 'string'
        ? { text: statement, values }
        : this.prepared
          ? { name: statement.name, text: statement.text, values }
          : { text: statement.text, values };
    if (project === undefined || !this.projects) return (await this.pool.query<R>(config)).rows;
    try {
      return await this.projects.run(project, async () => (await this.pool.query<R>(config)).rows, PROJECT_WAIT_MS);
    } catch (error) {
      if (error instanceof SemaphoreRefusal) throw projectBusy();
      throw error;
    }
  }

  async one<R extends QueryResultRow>(statement: Statement | string, values: unknown[] = [], project?: string): Promise<R | undefined> {
    return (await this.query<R>(statement, values, project))[0];
  }
}

/** 503: the project's statements have used its share of the pool for longer than PROJECT_WAIT_MS. */
export function projectBusy(): DomainError {
  return Object.assign(
    DomainError.of(ErrorCode.ServiceUnavailable, 'This project has too many requests in progress; retry shortly.'),
    { headers: { 'Retry-After': '5' } },
  );
}

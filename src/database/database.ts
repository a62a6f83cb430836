import type { Pool, PoolClient, QueryResultRow } from 'pg';
import type { ReadReplicas } from './read-replicas.js';
import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';
import { isDeadlock } from '../common/database-errors.js';
import { KeyedSemaphores, SemaphoreRefusal } from '../common/semaphore.js';
import { CostBoundedReader } from './cost-bound.js';
import { PoolQueryable, type Queryable, type Statement } from './queryable.js';

export type { Queryable, Statement } from './queryable.js';

/** How long a statement waits for its project's turn before the request answers 503. */
export const PROJECT_WAIT_MS = 5_000;

/** More runs of a statement ended to break a deadlock, at most (see `untilNoDeadlock`). */
const DEADLOCK_RETRIES = 3;

/**
 * The SQL path of every query: the pool TypeORM opened (see data-source-options.ts), used directly
 * (`PoolQueryable`: bound parameters, named prepared statements on PostgreSQL).
 *
 * Fair use between projects (docs/rules.md#fair-use): a statement that names its project (the repositories'
 * methods a request calls pass the project key they work on) waits for one of that project's
 * `projectConcurrency` turns, so one project's slow statements cannot hold the whole pool; after
 * PROJECT_WAIT_MS of waiting the request answers 503 with Retry-After. Statements of workers and start-up
 * name none and are not counted.
 *
 * The project is passed, not found in an `AsyncLocalStorage` entered per request: on Node 20 that
 * store's promise hooks run for every promise of the process, which cost reads and creates a measurable
 * share of their throughput (docs/performance.md).
 */
export class Database extends PoolQueryable {
  private readonly read: Queryable;
  private readonly projects?: KeyedSemaphores;

  constructor(
    pool: Pool,
    prepared: boolean,
    /** The streaming replicas of DATABASE_REPLICA_URLS, when there are any. */
    readonly replicas?: ReadReplicas,
    /** Statements one project may run at once on this pool during its requests (docs/rules.md#fair-use). */
    projectConcurrency?: number,
    /** The embedded database's bound on a list read's estimated cost (cost-bound.ts); undefined: none. */
    maxReadCost?: number,
  ) {
    super(pool, prepared);
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

  override async query<R extends QueryResultRow>(statement: Statement | string, values: unknown[] = [], project?: string): Promise<R[]> {
    if (project === undefined || !this.projects) return this.untilNoDeadlock<R>(statement, values);
    try {
      return await this.projects.run(project, () => this.untilNoDeadlock<R>(statement, values), PROJECT_WAIT_MS);
    } catch (error) {
      if (error instanceof SemaphoreRefusal) throw projectBusy();
      throw error;
    }
  }

  /**
   * Runs the statement, again when PostgreSQL chose it as a deadlock's victim (up to DEADLOCK_RETRIES more
   * times): each statement here is a transaction of its own, so the victim wrote nothing. Concurrent writes
   * of one project can deadlock, for instance when one waits on a key that another statement's row holds
   * while that statement waits on a row the first has updated.
   */
  private async untilNoDeadlock<R extends QueryResultRow>(statement: Statement | string, values: unknown[]): Promise<R[]> {
    for (let retries = DEADLOCK_RETRIES; ; retries--) {
      try {
        return await super.query<R>(statement, values);
      } catch (error) {
        if (retries === 0 || !isDeadlock(error)) throw error;
      }
    }
  }

  override async one<R extends QueryResultRow>(statement: Statement | string, values: unknown[] = [], project?: string): Promise<R | undefined> {
    return (await this.query<R>(statement, values, project))[0];
  }

  /**
   * Runs `work` in one transaction on a connection of its own: `begin` opens it (`BEGIN` and any `SET LOCAL`);
   * committed when `work` returns, rolled back when it throws (the error is thrown on). A connection that
   * failed is closed rather than returned to the pool. A checked-out connection has no 'error' listener of
   * the pool's: one the database ends (restart, crash) would be an unhandled 'error' event that ends the
   * process, so one is added while the transaction runs; the statement in flight fails with the same error.
   */
  async transaction<T>(work: (client: PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
    const client = await this.pool.connect();
    let failed = false;
    const onConnectionError = () => (failed = true);
    client.on('error', onConnectionError);
    try {
      await client.query(begin);
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      failed = true;
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.removeListener('error', onConnectionError);
      client.release(failed);
    }
  }
}

/** 503: the project's statements have used its share of the pool for longer than PROJECT_WAIT_MS. */
export function projectBusy(): DomainError {
  return Object.assign(
    DomainError.of(ErrorCode.ServiceUnavailable, 'This project has too many requests in progress; retry shortly.'),
    { headers: { 'Retry-After': '5' } },
  );
}

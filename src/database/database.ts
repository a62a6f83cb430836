import type { Pool, QueryResultRow } from 'pg';
import type { ReadReplicas } from './read-replicas.js';

/** A statement with a stable name, prepared once per connection where the server supports it. */
export interface Statement {
  name: string;
  text: string;
}

/** What a repository queries through: the primary's `Database`, or the reader of `Database.reader()`. */
export interface Queryable {
  query<R extends QueryResultRow>(statement: Statement | string, values?: unknown[]): Promise<R[]>;
  one<R extends QueryResultRow>(statement: Statement | string, values?: unknown[]): Promise<R | undefined>;
}

/**
 * The SQL path of every query: the pool TypeORM opened (see data-source-options.ts), used directly with bound parameters and
 * (on PostgreSQL) named prepared statements: one round-trip, no entity hydration. Embedded PGlite
 * multiplexes every connection onto one session, where named statements would collide, so there
 * statements stay unnamed.
 */
export class Database implements Queryable {
  private readonly read: Queryable;

  constructor(
    readonly pool: Pool,
    private readonly prepared: boolean,
    /** The streaming replicas of DATABASE_REPLICA_URLS, when there are any. */
    readonly replicas?: ReadReplicas,
  ) {
    this.read = replicas ? replicas.reader(this) : this;
  }

  /**
   * Where a read-only statement of a list endpoint runs (GET/HEAD /resource, sorted-query-parameters,
   * searchApiPattern): with DATABASE_REPLICA_URLS a replica within DATABASE_REPLICA_MAX_LAG_MS, else (and
   * whenever that replica fails) this primary; without replicas, this primary. Its answers may miss the
   * writes of the last DATABASE_REPLICA_MAX_LAG_MS, so never use it for a read that must see a write just
   * made (GET by id or key, a version check), for a write, or in a transaction.
   */
  reader(): Queryable {
    return this.read;
  }

  async query<R extends QueryResultRow>(statement: Statement | string, values: unknown[] = []): Promise<R[]> {
    const config =
      typeof statement === 'string'
        ? { text: statement, values }
        : this.prepared
          ? { name: statement.name, text: statement.text, values }
          : { text: statement.text, values };
    return (await this.pool.query<R>(config)).rows;
  }

  async one<R extends QueryResultRow>(statement: Statement | string, values: unknown[] = []): Promise<R | undefined> {
    return (await this.query<R>(statement, values))[0];
  }
}

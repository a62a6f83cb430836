import type { Pool, QueryResultRow } from 'pg';

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
 * Statements on a `pg` pool with bound parameters and, when `prepared`, named prepared statements: one
 * round trip, no entity hydration. Embedded PGlite multiplexes every connection onto one session, where
 * named statements would collide, so there statements stay unnamed. No project turns: `Database` adds them
 * on the primary; a read replica's reads (read-replicas.ts) run on this directly.
 */
export class PoolQueryable implements Queryable {
  constructor(
    readonly pool: Pool,
    private readonly prepared: boolean,
  ) {}

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

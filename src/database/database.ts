import type { Pool, QueryResultRow } from 'pg';

/** A statement with a stable name, prepared once per connection where the server supports it. */
export interface Statement {
  name: string;
  text: string;
}

/**
 * The SQL path of every query: the pool TypeORM opened (see data-source-options.ts), used directly with bound parameters and
 * (on PostgreSQL) named prepared statements: one round-trip, no entity hydration. Embedded PGlite
 * multiplexes every connection onto one session, where named statements would collide, so there
 * statements stay unnamed.
 */
export class Database {
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

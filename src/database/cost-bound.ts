import type { QueryResultRow } from 'pg';
import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';
import type { Queryable, Statement } from './queryable.js';

/**
 * The embedded database's bound on one list read (docs/rules.md#fair-use, `DATABASE_EMBEDDED_MAX_QUERY_COST`).
 *
 * PGlite runs PostgreSQL on the server's main thread and cancels no statement, so the statement timeout
 * that bounds a request on PostgreSQL does nothing there: one `where` no index narrows, over a large
 * project, would hold every request of every project for as long as it runs. Each statement of the list
 * endpoints (`Database.reader()`: query, search, export, messages, versions) is therefore planned first
 * with `EXPLAIN`, with the same bound values, and refused with 400 `QueryTimedOut`, as PostgreSQL
 * answers a statement that outlasts its timeout, when the planner's estimated total cost passes the
 * bound. Planning is a fraction of a millisecond beside the statement.
 *
 * The planner's estimate follows the rows a statement reads (a scan of a large project, a count of every
 * match); it does not see the work inside one row (a comparison over each element of a large array),
 * which the body and array size limits bound instead.
 */
export class CostBoundedReader implements Queryable {
  constructor(
    private readonly db: Queryable,
    private readonly maxCost: number,
  ) {}

  async query<R extends QueryResultRow>(statement: Statement | string, values: unknown[] = [], project?: string): Promise<R[]> {
    const text = typeof statement === 'string' ? statement : statement.text;
    const [explained] = await this.db.query<{ 'QUERY PLAN': [{ Plan: { 'Total Cost': number } }] }>(`EXPLAIN (FORMAT JSON) ${text}`, values, project);
    const cost = explained['QUERY PLAN'][0].Plan['Total Cost'];
    if (cost > this.maxCost) throw tooExpensive(cost, this.maxCost);
    return this.db.query<R>(statement, values, project);
  }

  async one<R extends QueryResultRow>(statement: Statement | string, values: unknown[] = [], project?: string): Promise<R | undefined> {
    return (await this.query<R>(statement, values, project))[0];
  }
}

function tooExpensive(cost: number, maxCost: number): DomainError {
  return DomainError.of(
    ErrorCode.QueryTimedOut,
    `The request would cost the embedded database more than one request may (estimated ${Math.round(cost)}, ` +
      `DATABASE_EMBEDDED_MAX_QUERY_COST ${maxCost}); narrow it (predicates on indexed fields such as id or key, fewer facets, no withTotal).`,
  );
}

import { Injectable } from '@nestjs/common';
import { boundedItems, joinChunks, type ItemChunk } from '../database/bounded-list.js';
import { Database } from '../database/database.js';
import { statementTemplate } from '../database/named-statement.js';
import { RESOURCE_CATALOGUE } from '../query-language/resource.catalogue.js';
import { RESOURCE_JSON } from './resource-write.js';
import type { PredicatePlan, QueryPage } from '../query-language/predicate-query.js';

/** The columns `sort` may order by: what the matches-first shape keeps of each match. */
const SORT_COLUMNS = [...RESOURCE_CATALOGUE.sortFields.values()].map((f) => `r.${f.column}`).join(', ');

/** What the page's statement is built from: the plan's SQL parts and how many values its `where` binds (from $2). */
type PagePlan = Pick<PredicatePlan, 'where' | 'orderBy' | 'matchesFirst' | 'withTotal'> & { valueCount: number };

export const RESOURCE_QUERY_SQL = {
  /**
   * GET /{projectKey}/resource/sorted-query-parameters. The page's rows are chosen first (sorting and
   * limiting builds no JSON); the resources of that page alone are then rendered with RESOURCE_JSON and
   * concatenated in order, up to `maxBytes`, in rows of about a MiB (boundedItems). Matches first: one pass through the GIN index
   * yields the matches (few, typically), which are counted and sorted; otherwise an ordered index can stop
   * at the page, and the count is separate. After the `where`'s values: limit, offset, the bytes bound.
   */
  page: statementTemplate<[PagePlan]>(
    [
      [{ where: `r.some_property = $2`, orderBy: 'r.created_at ASC, r.id ASC', matchesFirst: false, withTotal: true, valueCount: 1 }],
      [{ where: `r.object_type_property @> $2::jsonb`, orderBy: 'r.key DESC, r.id ASC', matchesFirst: true, withTotal: true, valueCount: 1 }],
    ],
    (plan) => {
      const filter = `r.project_key = $1 AND (${plan.where})`;
      const limit = `$${plan.valueCount + 2}::integer`;
      const offset = `$${plan.valueCount + 3}::integer`;
      const max = `$${plan.valueCount + 4}::bigint`;
      const numbered = (from: string) => `SELECT ${RESOURCE_JSON} AS j, row_number() OVER (ORDER BY ${plan.orderBy}) AS n FROM ${from}`;
      return plan.matchesFirst
        ? `WITH m AS MATERIALIZED (SELECT ${SORT_COLUMNS} FROM resource r WHERE ${filter}),
                p AS (SELECT r.id FROM m r ORDER BY ${plan.orderBy} LIMIT ${limit} OFFSET ${offset})
           SELECT b.count, b.results, b.chunk${plan.withTotal ? ', (SELECT count(*) FROM m)::integer AS total' : ''}
           FROM (${boundedItems(numbered('resource r WHERE r.project_key = $1 AND r.id IN (SELECT p.id FROM p)'), max)}) b`
        : `SELECT b.count, b.results, b.chunk${plan.withTotal ? `, (SELECT count(*) FROM resource r WHERE ${filter})::integer AS total` : ''}
           FROM (${boundedItems(numbered(`(SELECT r.* FROM resource r WHERE ${filter} ORDER BY ${plan.orderBy} LIMIT ${limit} OFFSET ${offset}) r`), max)}) b`;
    },
  ),
};

/** The SQL of GET /{projectKey}/resource/sorted-query-parameters (RESOURCE_QUERY_SQL). */
@Injectable()
export class ResourceQueryRepository {
  constructor(private readonly db: Database) {}

  /** `maxBytes`: the bound of `ListAnswers` (at most HTTP_MAX_RESPONSE_BYTES); past it the page's `results` are null (`boundedItems`). */
  async findPage(projectKey: string, plan: PredicatePlan, maxBytes: number): Promise<QueryPage> {
    const text = RESOURCE_QUERY_SQL.page({ ...plan, valueCount: plan.values.length });
    // A predicate no index can narrow, over a large project, can outlast the statement timeout: the
    // global filter answers that 400 QueryTimedOut, as for every endpoint.
    return joinChunks(await this.db.reader().query<QueryPage & ItemChunk>(text, [projectKey, ...plan.values, plan.limit, plan.offset, maxBytes], projectKey));
  }
}

import { Injectable } from '@nestjs/common';
import { boundedItems } from '../database/bounded-list.js';
import { Database } from '../database/database.js';
import { RESOURCE_CATALOGUE } from '../query-language/resource.catalogue.js';
import { RESOURCE_JSON } from './resource.repository.js';
import type { PredicatePlan, QueryPage } from '../query-language/predicate-query.js';

/** The columns `sort` may order by: what the matches-first shape keeps of each match. */
const SORT_COLUMNS = [...RESOURCE_CATALOGUE.sortFields.values()].map((f) => `r.${f.column}`).join(', ');

/**
 * The SQL of GET /{projectKey}/resource/sorted-query-parameters. The page's rows are chosen first
 * (sorting and limiting builds no JSON); the resources of that page alone are then rendered with
 * RESOURCE_JSON and concatenated in order, up to `maxBytes` (boundedItems).
 */
@Injectable()
export class ResourceQueryRepository {
  constructor(private readonly db: Database) {}

  /** `maxBytes`: the bound of `ListAnswers` (at most HTTP_MAX_RESPONSE_BYTES); past it the page's `results` are null (`boundedItems`). */
  async findPage(projectKey: string, plan: PredicatePlan, maxBytes: number): Promise<QueryPage> {
    const filter = `r.project_key = $1 AND (${plan.where})`;
    const limit = `$${plan.values.length + 2}::integer`;
    const offset = `$${plan.values.length + 3}::integer`;
    const max = `$${plan.values.length + 4}::bigint`;
    const numbered = (from: string) => `SELECT ${RESOURCE_JSON} AS j, row_number() OVER (ORDER BY ${plan.orderBy}) AS n FROM ${from}`;
    // Matches first: one pass through the GIN index yields the matches (few, typically), which are
    // counted and sorted; otherwise an ordered index can stop at the page, and the count is separate.
    const text = plan.matchesFirst
      ? `WITH m AS MATERIALIZED (SELECT ${SORT_COLUMNS} FROM resource r WHERE ${filter}),
              p AS (SELECT r.id FROM m r ORDER BY ${plan.orderBy} LIMIT ${limit} OFFSET ${offset})
         SELECT b.count, b.results${plan.withTotal ? ', (SELECT count(*) FROM m)::integer AS total' : ''}
         FROM (${boundedItems(numbered('resource r WHERE r.project_key = $1 AND r.id IN (SELECT p.id FROM p)'), max)}) b`
      : `SELECT b.count, b.results${plan.withTotal ? `, (SELECT count(*) FROM resource r WHERE ${filter})::integer AS total` : ''}
         FROM (${boundedItems(numbered(`(SELECT r.* FROM resource r WHERE ${filter} ORDER BY ${plan.orderBy} LIMIT ${limit} OFFSET ${offset}) r`), max)}) b`;
    // A predicate no index can narrow, over a large project, can outlast the statement timeout: the
    // global filter answers that 400 QueryTimedOut, as for every endpoint.
    return (await this.db.reader().one<QueryPage>(text, [projectKey, ...plan.values, plan.limit, plan.offset, maxBytes], projectKey))!;
  }
}

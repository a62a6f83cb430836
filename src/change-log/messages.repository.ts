import { Injectable } from '@nestjs/common';
import { boundedItems, joinChunks, type ItemChunk } from '../database/bounded-list.js';
import { Database } from '../database/database.js';
import { statementTemplate } from '../database/named-statement.js';
import { MESSAGE_JSON } from '../query-language/message.catalogue.js';
import type { PredicatePlan, QueryPage } from '../query-language/predicate-query.js';

/**
 * The SQL of GET /{projectKey}/messages and /messages/{id}. Messages are answered as JSON text built
 * by PostgreSQL (MESSAGE_JSON: the catalogue's members, then the stored payload text as written, so 64-bit
 * integers stay exact). Every statement names the project: another project's message is not found.
 *
 * The page is chosen first (sorting and limiting build no JSON), then its messages alone are rendered.
 * Shapes for the indexes of migration 1763700000010: the default order `created_at, sequence_number, id`
 * is the order of `message_project_created_idx` after `project_key`, so a page is read from the index and
 * stops at its last row; `resource(id = …)` is `m.resource_id = $n`, served by `message_resource_sequence_key`.
 */
/** What the page's statement is built from: the plan's SQL parts and how many values its `where` binds (from $2). */
type PagePlan = Pick<PredicatePlan, 'where' | 'orderBy' | 'withTotal'> & { valueCount: number };

export const MESSAGES_SQL = {
  /** A page of messages; after the `where`'s values: limit, offset, the bytes bound (boundedItems). */
  page: statementTemplate<[PagePlan]>(
    [[{ where: 'm.resource_id = $2', orderBy: 'm.created_at ASC, m.sequence_number ASC, m.id ASC', withTotal: true, valueCount: 1 }]],
    (plan) => {
      const filter = `m.project_key = $1 AND (${plan.where})`;
      const limit = `$${plan.valueCount + 2}::integer`;
      const offset = `$${plan.valueCount + 3}::integer`;
      const max = `$${plan.valueCount + 4}::bigint`;
      const total = plan.withTotal ? `, (SELECT count(*) FROM message m WHERE ${filter})::integer AS total` : '';
      const page = `SELECT ${MESSAGE_JSON} AS j, row_number() OVER (ORDER BY ${plan.orderBy}) AS n
        FROM (SELECT m.* FROM message m WHERE ${filter} ORDER BY ${plan.orderBy} LIMIT ${limit} OFFSET ${offset}) m`;
      return `SELECT b.count, b.results, b.chunk${total} FROM (${boundedItems(page, max)}) b`;
    },
  ),
  byId: { name: 'messages_by_id', text: `SELECT ${MESSAGE_JSON} AS json FROM message m WHERE m.id = $1 AND m.project_key = $2` },
};

@Injectable()
export class MessagesRepository {
  constructor(private readonly db: Database) {}

  /** `maxBytes`: the bound of `ListAnswers` (at most HTTP_MAX_RESPONSE_BYTES); past it the page's `results` are null (`boundedItems`). */
  async findPage(projectKey: string, plan: PredicatePlan, maxBytes: number): Promise<QueryPage> {
    const text = MESSAGES_SQL.page({ ...plan, valueCount: plan.values.length });
    return joinChunks(await this.db.reader().query<QueryPage & ItemChunk>(text, [projectKey, ...plan.values, plan.limit, plan.offset, maxBytes], projectKey));
  }

  async findJsonById(projectKey: string, id: string): Promise<string | undefined> {
    const row = await this.db.one<{ json: string }>(
      MESSAGES_SQL.byId,
      [id, projectKey],
      projectKey,
    );
    return row?.json;
  }
}

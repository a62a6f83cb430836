import { Injectable } from '@nestjs/common';
import { boundedItems } from '../database/bounded-list.js';
import { Database } from '../database/database.js';
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
@Injectable()
export class MessagesRepository {
  constructor(private readonly db: Database) {}

  /** `maxBytes`: the bound of `ListAnswers` (at most HTTP_MAX_RESPONSE_BYTES); past it the page's `results` are null (`boundedItems`). */
  async findPage(projectKey: string, plan: PredicatePlan, maxBytes: number): Promise<QueryPage> {
    const filter = `m.project_key = $1 AND (${plan.where})`;
    const limit = `$${plan.values.length + 2}::integer`;
    const offset = `$${plan.values.length + 3}::integer`;
    const max = `$${plan.values.length + 4}::bigint`;
    const total = plan.withTotal ? `, (SELECT count(*) FROM message m WHERE ${filter})::integer AS total` : '';
    const page = `SELECT ${MESSAGE_JSON} AS j, row_number() OVER (ORDER BY ${plan.orderBy}) AS n
      FROM (SELECT m.* FROM message m WHERE ${filter} ORDER BY ${plan.orderBy} LIMIT ${limit} OFFSET ${offset}) m`;
    const text = `SELECT b.count, b.results${total} FROM (${boundedItems(page, max)}) b`;
    return (await this.db.reader().one<QueryPage>(text, [projectKey, ...plan.values, plan.limit, plan.offset, maxBytes], projectKey))!;
  }

  async findJsonById(projectKey: string, id: string): Promise<string | undefined> {
    const row = await this.db.one<{ json: string }>(
      { name: 'messages_by_id', text: `SELECT ${MESSAGE_JSON} AS json FROM message m WHERE m.id = $1 AND m.project_key = $2` },
      [id, projectKey],
      projectKey,
    );
    return row?.json;
  }
}

import { Injectable } from '@nestjs/common';
import { commitHorizonSql, HORIZON_MARGIN_MS } from '../database/commit-horizon.js';
import { Database } from '../database/database.js';
import { statementTemplate } from '../database/named-statement.js';
import { MESSAGE_JSON } from '../query-language/message.catalogue.js';
import type { LiveCursor } from './live-cursor.js';

/** A message of the change log as the streams send it, in stream order. */
export interface LiveMessage {
  /** The stream position's `at` (live-cursor.ts), in ms. */
  at: number;
  resourceId: string;
  sequenceNumber: number;
  id: string;
  projectKey: string;
  /** The message as GET /{projectKey}/messages/{id} answers it. */
  json: string;
  /** Its event text, once built (live-stream.ts). */
  event?: string;
}

/** What a window of the change log holds (`window`). */
export interface LiveWindow {
  messages: LiveMessage[];
  /** Whether visible messages lie at or past `to`: read again once the horizon passes them. */
  pending: boolean;
}

const ms = (column: string) => `(round(extract(epoch FROM ${column}) * 1000))::float8`;

/**
 * The messages whose stream position `at` lies in `[$2, $3)` (and after the cursor `$4, $5, $6` when given),
 * of the projects `$1`, in stream order (live-cursor.ts). `at` is the running maximum of `created_at` over a
 * resource's messages in sequence order: a write stamps its messages with its transaction's start, and a
 * write that started earlier but waited for the resource's row lock commits later with a higher sequence
 * number and an older `created_at`.
 *
 * - `a`: the resources with a message stamped at or after `$2` (through `message_project_created_idx`),
 *   each with the first such sequence number. A message whose `at` is at or after `$2` has such a message
 *   at or before it in its resource (the one that gave it its `at`); messages before that one all have an
 *   `at` before `$2`. With `$7`, only messages stamped before it count (a chunk of a long catch-up).
 * - `s`: from that sequence number on (`message_resource_sequence_key`), every message of those resources,
 *   up to `$8` (the chunk's end plus the lookback: a message stamped later cannot be before one stamped
 *   before the chunk's end, as a write waits for a row lock at most a statement's time), with its `at`.
 *   `OFFSET 0` keeps the lateral subquery a lookup per resource: flattened into a join, PostgreSQL's
 *   estimate of `a` led it to hash-join a parallel scan of the whole table (docs/performance.md#live-changes).
 *
 * When `$3` is at most the commit horizon, every message with an `at` before it is visible, and so are the
 * earlier messages of its resource that its `at` depends on: the window is complete and every process reads
 * the same one.
 */
const WINDOW = (chunked: boolean) => `
WITH a AS (
  SELECT m.resource_id, min(m.sequence_number) AS first_sequence
  FROM message m
  WHERE m.project_key = ANY ($1::text[]) AND m.created_at >= $2::timestamptz ${chunked ? 'AND m.created_at < $7::timestamptz' : ''}
  GROUP BY m.resource_id
), s AS (
  SELECT m.*, max(m.created_at) OVER (PARTITION BY m.resource_id ORDER BY m.sequence_number) AS at
  FROM a CROSS JOIN LATERAL (
    SELECT * FROM message m
    WHERE m.resource_id = a.resource_id AND m.sequence_number >= a.first_sequence ${chunked ? 'AND m.created_at < $8::timestamptz' : ''}
    OFFSET 0
  ) m
)
SELECT ${ms('m.at')} AS at, m.resource_id AS "resourceId", m.sequence_number AS "sequenceNumber", m.id, m.project_key AS "projectKey",
       CASE WHEN m.at < $3::timestamptz THEN ${MESSAGE_JSON} END AS json
FROM s m
WHERE m.at >= $2::timestamptz
  AND ($4::timestamptz IS NULL OR (m.at, m.resource_id, m.sequence_number) > ($4::timestamptz, $5::uuid, $6::integer))
ORDER BY m.at, m.resource_id, m.sequence_number`;

export const LIVE_SQL = {
  horizon: { name: 'live_horizon', text: `SELECT floor(extract(epoch FROM ${commitHorizonSql('$1', '$2')}) * 1000)::float8 AS h` },
  window: { name: 'live_window', text: WINDOW(false) },
  windowChunk: { name: 'live_window_chunk', text: WINDOW(true) },
  chunkEnd: {
    name: 'live_chunk_end',
    text: `SELECT ${ms('m.created_at')} AS at FROM message m WHERE m.project_key = $1 AND m.created_at >= $2::timestamptz
           ORDER BY m.created_at OFFSET $3 LIMIT 1`,
  },
  /** The ids among the last placeholder's of the messages of project $1 that match `where` (its values from $2). */
  matching: statementTemplate([['m.resource_id = $2', '$3']], (where: string, ids: string) =>
    `SELECT m.id FROM message m WHERE m.id = ANY (${ids}::uuid[]) AND m.project_key = $1 AND (${where})`),
  oldest: { name: 'live_oldest', text: `SELECT ${ms('min(m.created_at)')} AS at FROM message m WHERE m.project_key = $1` },
};
const SQL = LIVE_SQL;

/**
 * The SQL of the live streams (docs/live-changes.md). Everything is read from the primary: a replica's
 * lag would move the horizon under the reader's feet.
 */
@Injectable()
export class LiveChangesRepository {
  constructor(private readonly db: Database) {}

  /** The primary's pool (the embedded database's notifications arrive on its connection). */
  get pool() {
    return this.db.pool;
  }

  /**
   * The commit horizon (database/commit-horizon.ts) in ms: every message stamped before it is visible to
   * the next statement. Read in a statement of its own, before the window's.
   */
  async horizon(lookbackMs: number): Promise<number> {
    const row = await this.db.one<{ h: number }>(SQL.horizon, [lookbackMs / 1000, HORIZON_MARGIN_MS / 1000]);
    return row!.h;
  }

  /**
   * The messages of `projects` with a position in `[from, to)` after `after` (when given), rendered, in
   * stream order; `chunkEnd`: only those stamped before it count (see WINDOW), `lookbackMs` past it is read.
   */
  async window(projects: string[], from: number, to: number, after: LiveCursor | undefined, chunk?: { end: number; lookbackMs: number }): Promise<LiveWindow> {
    const values: unknown[] = [
      projects,
      new Date(from).toISOString(),
      new Date(to).toISOString(),
      after ? new Date(after.at).toISOString() : null,
      after?.resourceId ?? null,
      after?.sequenceNumber ?? null,
    ];
    if (chunk) values.push(new Date(chunk.end).toISOString(), new Date(chunk.end + chunk.lookbackMs).toISOString());
    const rows = await this.db.query<LiveMessage & { json: string | null }>(chunk ? SQL.windowChunk : SQL.window, values);
    const messages: LiveMessage[] = [];
    let pending = false;
    for (const row of rows) {
      if (row.json === null) pending = true;
      else messages.push(row);
    }
    return { messages, pending };
  }

  /**
   * Where a catch-up chunk of `project` starting at `from` ends: the stamp of its `size`-th message after
   * `from`, or undefined when fewer remain.
   */
  async chunkEnd(project: string, from: number, size: number): Promise<number | undefined> {
    const row = await this.db.one<{ at: number }>(SQL.chunkEnd, [project, new Date(from).toISOString(), size]);
    return row?.at;
  }

  /** The ids among `ids` of the messages of `project` that match `where` (its values from `$2`). */
  async matching(project: string, where: string, values: unknown[], ids: string[]): Promise<Set<string>> {
    const rows = await this.db.query<{ id: string }>(SQL.matching(where, `$${values.length + 2}`), [project, ...values, ids]);
    return new Set(rows.map((r) => r.id));
  }

  /** When the oldest message `project` still has was written (ms), or undefined when it has none. */
  async oldest(project: string): Promise<number | undefined> {
    const row = await this.db.one<{ at: number | null }>(SQL.oldest, [project]);
    return row?.at ?? undefined;
  }
}

import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import { statementTemplate } from '../database/named-statement.js';

/** One replica at a time deletes expired rows: the holder of this transaction-level advisory lock. */
export const RETENTION_LOCK_ID = 7_316_200_144;

/** Rows one batch deletes at most: each batch is a short transaction, so writes never wait long behind it. */
export const RETENTION_BATCH = 1000;

/** The tables the retention empties, with the column their age is read from (a BRIN index each, migration 10). */
const TABLES = {
  messages: { table: 'message', column: 'created_at', returning: 'resource_id' },
  versions: { table: 'resource_version', column: 'modified_at', returning: 'NULL AS resource_id' },
} as const;

export type RetainedKind = keyof typeof TABLES;

export const RETENTION_SQL = {
  lock: 'SELECT pg_try_advisory_xact_lock($1) AS locked',
  /** At most RETENTION_BATCH rows of one kind older than $1 days, found through the BRIN index, deleted by `ctid`. */
  deleteExpired: statementTemplate<[RetainedKind]>([['messages'], ['versions']], (kind) => {
    const { table, column, returning } = TABLES[kind];
    return `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(
              SELECT t.ctid FROM ${table} t WHERE t.${column} < now() - make_interval(days => $1) LIMIT ${RETENTION_BATCH}))
            RETURNING ${returning}`;
  }),
  /**
   * The subscriptions' stream positions (`subscription_progress`, docs/change-log-and-subscriptions.md#subscriptions) of resources that have
   * no message left, deleted in the transaction of the batch that deleted their last ones: the
   * position only says which of a resource's messages were queued, so with none left it says nothing. A
   * message written later has a higher sequence number and, with no position, is queued as the first of a
   * new stream (the dispatcher queues the messages written after the subscription). Without this the table
   * would keep one row per subscription and resource ever written.
   */
  pruneProgress: `
    DELETE FROM subscription_progress p
    WHERE p.resource_id = ANY($1::uuid[]) AND NOT EXISTS (SELECT 1 FROM message m WHERE m.resource_id = p.resource_id)`,
};

/**
 * The statements of the change log's retention (docs/change-log-and-subscriptions.md#change-log). The oldest rows are found through the
 * BRIN index on their timestamp and deleted by `ctid` (a TID scan: no second index lookup); rows of the
 * change log are never updated, so a row's `ctid` is stable within the transaction.
 */
@Injectable()
export class RetentionRepository {
  constructor(private readonly db: Database) {}

  /**
   * Deletes at most RETENTION_BATCH rows of `kind` older than `days`, in one transaction that holds the
   * retention lock. How many it deleted, or undefined when another server process holds the lock.
   */
  async deleteExpiredBatch(kind: RetainedKind, days: number): Promise<number | undefined> {
    return this.db.transaction(async (client) => {
      const lock = await client.query<{ locked: boolean }>(RETENTION_SQL.lock, [RETENTION_LOCK_ID]);
      if (!lock.rows[0].locked) return undefined;
      const deleted = await client.query<{ resource_id: string | null }>(
        RETENTION_SQL.deleteExpired(kind),
        [days],
      );
      const resources = new Set(deleted.rows.flatMap((row) => (row.resource_id ? [row.resource_id] : [])));
      if (resources.size > 0) await client.query(RETENTION_SQL.pruneProgress, [[...resources]]);
      return deleted.rowCount ?? 0;
    });
  }
}

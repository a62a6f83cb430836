import { Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { commitHorizonSql, HORIZON_MARGIN_MS } from '../database/commit-horizon.js';
import { DispatchDatabase } from './dispatch-database.js';
import { MESSAGE_JSON } from '../query-language/message.catalogue.js';
import type { NotificationFormat, QueuedNotification } from './notification-format.js';
import type { FailureKind } from './delivery-error.js';

/**
 * Opens the queuing transaction. Its scan has one right plan whatever the tables hold: per subscribed
 * project, a range of `message_project_created_idx`, then per (subscription, resource) index lookups.
 * Without statistics (a new database, or autovacuum off, as on the CI's PostgreSQL) the planner guessed a
 * third of `message` for the range and read the whole table once or twice per round instead: by sequential
 * scans, or through the BRIN index, whose newest ranges stay unsummarized until a vacuum.
 */
export const BEGIN_QUEUING = 'BEGIN; SET LOCAL enable_seqscan = off; SET LOCAL enable_hashjoin = off; SET LOCAL enable_bitmapscan = off';
const TIMESTAMP = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', ${TIMESTAMP})`;

/**
 * Turns the change log into notifications (docs/change-log-and-subscriptions.md#subscriptions), one statement: the resources of subscribed
 * projects with messages since `$1` are found through `message_project_created_idx`; for each
 * (subscription, resource), every message above the stream's `last_sequence` (through
 * `message_resource_sequence_key`) is queued. That second step is what makes late commits safe: a
 * resource's messages commit in sequence order (its row lock), so if any message of it is visible, all
 * earlier ones are, whatever their `created_at`. The scan only has to reach back far enough to *notice* a
 * resource written by a slow transaction: the messages since `$1` (the frequent scan) and those of the
 * sweep's slice `[$2, $3)` when `$2` is not null (see the dispatcher). The same statement moves the position
 * to `$4` (never back), sets the sweep's cursor to `$5` and, when `$6`, the start of a pass to now: one
 * round trip fewer per poll, which on a busy machine is most of a poll's time.
 *
 * Message notifications: the message as GET /messages/{id} shows it, with `notificationType` and
 * `projectKey` first; ordinal 2 × sequence number. Change notifications: one per write (the messages
 * sharing a `change_id`), after the write's messages (ordinal 2 × its last sequence number + 1).
 * The queue's primary key makes a repeat a no-op. Answers how many notifications it queued, and whether
 * any subscription exists (so that a subscribed dispatcher need not ask before each poll).
 *
 * Cost (bench/README.md, "Subscriptions"): each subscription's filters are read from its JSON once per round (`subs`),
 * not once per message and subscription (a set-returning function per row cost about 35 µs); a stream's
 * progress is one index lookup per (subscription, resource) found (`LIMIT 1` keeps the lateral subquery
 * from being merged into a join that read the whole progress table on every round).
 */
export const FAN_OUT = `
WITH subs AS MATERIALIZED (
  SELECT s.id, s.project_key, s.created_at,
         EXISTS (SELECT 1 FROM jsonb_array_elements(s.messages) e WHERE e->>'resourceTypeId' = 'resource' AND NOT (e ? 'types')) AS all_messages,
         ARRAY(SELECT jsonb_array_elements_text(e->'types') FROM jsonb_array_elements(s.messages) e
               WHERE e->>'resourceTypeId' = 'resource' AND e ? 'types') AS message_types,
         EXISTS (SELECT 1 FROM jsonb_array_elements(s.changes) e WHERE e->>'resourceTypeId' = 'resource') AS changes
  FROM subscription s
), found AS (
  SELECT DISTINCT sp.project_key, w.resource_id
  FROM (SELECT DISTINCT s.project_key FROM subs s) sp
  CROSS JOIN LATERAL (SELECT m.resource_id FROM message m WHERE m.project_key = sp.project_key AND m.created_at >= $1
                      UNION ALL
                      SELECT m.resource_id FROM message m WHERE m.project_key = sp.project_key AND m.created_at >= $2 AND m.created_at < $3) w
), fresh AS MATERIALIZED (
  SELECT s.id AS sub_id, s.all_messages OR m.type = ANY (s.message_types) AS sub_message, s.changes AS sub_changes, m.*
  FROM found f
  JOIN subs s ON s.project_key = f.project_key
  LEFT JOIN LATERAL (SELECT p.last_sequence FROM subscription_progress p
                     WHERE p.subscription_id = s.id AND p.resource_id = f.resource_id LIMIT 1) p ON true
  JOIN message m ON m.resource_id = f.resource_id AND m.sequence_number > coalesce(p.last_sequence, 0)
                 -- A new stream starts with the writes after the subscription; a started one takes every later message.
                 AND (p.last_sequence IS NOT NULL OR m.created_at >= s.created_at)
), queued_messages AS (
  INSERT INTO subscription_notification (subscription_id, resource_id, ordinal, id, type, sequence_number, created_at, payload)
  SELECT m.sub_id, m.resource_id, m.sequence_number::bigint * 2, m.id, 'message.' || m.type, m.sequence_number, m.created_at,
         '{"notificationType":"Message","projectKey":' || to_json(m.project_key)::text || ',' || substr(${MESSAGE_JSON}, 2)
  FROM fresh m
  WHERE m.sub_message
  ON CONFLICT DO NOTHING
  RETURNING 1
), writes AS (
  SELECT m.sub_id, m.project_key, m.resource_id, m.change_id,
         max(m.sequence_number) AS last_sequence, max(m.created_at) AS created_at, max(m.resource_version) AS resource_version,
         bool_or(m.type = 'ResourceCreated') AS created, bool_or(m.type = 'ResourceDeleted') AS deleted,
         (array_agg(m.resource_key ORDER BY m.sequence_number DESC))[1] AS resource_key
  FROM fresh m
  WHERE m.sub_changes
  GROUP BY m.sub_id, m.project_key, m.resource_id, m.change_id
), queued_changes AS (
  INSERT INTO subscription_notification (subscription_id, resource_id, ordinal, id, type, sequence_number, created_at, payload)
  SELECT w.sub_id, w.resource_id, w.last_sequence::bigint * 2 + 1, w.change_id, 'change.' || k.kind, w.last_sequence, w.created_at,
         json_strip_nulls(json_build_object(
           'notificationType', 'Resource' || k.kind,
           'projectKey', w.project_key,
           'resource', json_build_object('typeId', 'resource', 'id', w.resource_id),
           'resourceUserProvidedIdentifiers', CASE WHEN w.resource_key IS NULL THEN '{}'::json ELSE json_build_object('key', w.resource_key) END,
           'version', CASE WHEN w.deleted THEN w.resource_version - 1 ELSE w.resource_version END,
           'oldVersion', CASE WHEN k.kind = 'Updated' THEN w.resource_version - 1 END,
           'modifiedAt', ${iso('w.created_at')}
         ))::text
  FROM writes w
  CROSS JOIN LATERAL (SELECT CASE WHEN w.created THEN 'Created' WHEN w.deleted THEN 'Deleted' ELSE 'Updated' END AS kind) k
  ON CONFLICT DO NOTHING
  RETURNING 1
), progress AS (
  INSERT INTO subscription_progress (subscription_id, resource_id, last_sequence)
  SELECT m.sub_id, m.resource_id, max(m.sequence_number) FROM fresh m GROUP BY m.sub_id, m.resource_id
  ON CONFLICT (subscription_id, resource_id) DO UPDATE SET last_sequence = greatest(subscription_progress.last_sequence, excluded.last_sequence)
  RETURNING 1
), moved AS (
  UPDATE subscription_dispatch
  SET scanned_to = greatest(scanned_to, $4), sweep_cursor = $5, swept_at = CASE WHEN $6 THEN now() ELSE swept_at END
  WHERE id = 1
  RETURNING 1
)
SELECT ((SELECT count(*) FROM queued_messages) + (SELECT count(*) FROM queued_changes))::integer AS queued,
       EXISTS (SELECT 1 FROM subscription) AS subscribed`;

/**
 * Claims the first notification of up to `$1` streams that are due: a stream's later rows are never
 * taken while an earlier one exists, so a resource's notifications go out one after the other. The
 * claim pushes `due_at` past the delivery timeout (a lease): a crashed process's claims become due
 * again by themselves. `SKIP LOCKED` lets the replicas claim side by side.
 */
const CLAIM = `
WITH heads AS (
  SELECT n.subscription_id, n.resource_id, n.ordinal
  FROM subscription_notification n
  WHERE n.due_at <= now()
    AND NOT EXISTS (SELECT 1 FROM subscription_notification p
                    WHERE p.subscription_id = n.subscription_id AND p.resource_id = n.resource_id AND p.ordinal < n.ordinal)
  ORDER BY n.due_at
  LIMIT $1
  FOR UPDATE OF n SKIP LOCKED
)
UPDATE subscription_notification n SET due_at = now() + make_interval(secs => $2)
FROM heads h, subscription s
WHERE n.subscription_id = h.subscription_id AND n.resource_id = h.resource_id AND n.ordinal = h.ordinal AND s.id = n.subscription_id
RETURNING n.subscription_id AS "subscriptionId", n.resource_id AS "resourceId", n.ordinal::text AS ordinal, n.id, n.type,
          n.sequence_number AS "sequenceNumber", ${iso('n.created_at')} AS "createdAt", n.payload, n.attempts,
          s.project_key AS "projectKey", s.destination, s.credentials, s.format`;

/** The SET of an upsert into `subscription_status` that keeps the later of the stored and the new last error. */
const LATEST_ERROR = `
  last_error = CASE WHEN excluded.last_error_at > coalesce(subscription_status.last_error_at, '-infinity') THEN excluded.last_error ELSE subscription_status.last_error END,
  last_error_at = greatest(subscription_status.last_error_at, excluded.last_error_at)`;

export interface ClaimedNotification extends QueuedNotification {
  subscriptionId: string;
  ordinal: string;
  attempts: number;
  destination: Record<string, string>;
  credentials: Record<string, string>;
  format: NotificationFormat;
}

interface DispatchPosition {
  scannedTo: Date;
  /** Where the next scan may start: no message older than this can still become visible (see lockPosition). */
  horizon: Date;
  sweepFrom: Date | null;
  sweepBegins: boolean;
}

/** A notification its destination accepted, and when. */
export interface AcceptedNotification extends ClaimedNotification {
  acceptedAt: Date;
}

/** A subscription's last delivery error, for its health (its last delivery is recorded with the removal: `delivered`). */
export interface StatusUpdate {
  error: { at: Date; message: string };
}

/** The statements of the notification queue. */
export const NOTIFICATION_QUEUE_SQL = {
  begin: BEGIN_QUEUING,
  /** The dispatch position, locked for the queuing transaction (see `lockPosition`). */
  lockPosition: `SELECT scanned_to AS "scannedTo",
              ${commitHorizonSql('$2', '$3')} AS horizon,
              coalesce(sweep_cursor, CASE WHEN swept_at <= now() - make_interval(secs => $1) THEN now() - make_interval(secs => $2) END) AS "sweepFrom",
              sweep_cursor IS NULL AND swept_at <= now() - make_interval(secs => $1) AS "sweepBegins"
       FROM subscription_dispatch WHERE id = 1 FOR UPDATE SKIP LOCKED`,
  fanOut: FAN_OUT,
  /** Drops the notifications of messages past their retention. */
  expire: 'DELETE FROM subscription_notification WHERE created_at < now() - make_interval(days => $1)',
  claim: CLAIM,
  delivered: {
    name: 'subscription_notification_delivered',
    text: `WITH d AS (
                 SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::bigint[], $4::timestamptz[]) AS d(subscription_id, resource_id, ordinal, delivered_at)
               ), removed AS (
                 DELETE FROM subscription_notification n USING d
                 WHERE n.subscription_id = d.subscription_id AND n.resource_id = d.resource_id AND n.ordinal = d.ordinal
                 RETURNING n.subscription_id, n.last_error_at, n.last_error
               ), errors AS (
                 SELECT r.subscription_id, max(r.last_error_at) AS error_at, (array_agg(r.last_error ORDER BY r.last_error_at DESC))[1] AS error
                 FROM removed r WHERE r.last_error_at IS NOT NULL GROUP BY r.subscription_id
               )
               INSERT INTO subscription_status (subscription_id, last_delivered_at, last_error_at, last_error)
               SELECT l.subscription_id, l.delivered_at, e.error_at, e.error
               FROM (SELECT d.subscription_id, max(d.delivered_at) AS delivered_at FROM d GROUP BY d.subscription_id) l
               LEFT JOIN errors e ON e.subscription_id = l.subscription_id
               WHERE EXISTS (SELECT 1 FROM subscription s WHERE s.id = l.subscription_id)
               -- In one order in every process: two replicas' statements never wait for each other's rows in turn.
               ORDER BY l.subscription_id
               ON CONFLICT (subscription_id) DO UPDATE SET
                 last_delivered_at = greatest(subscription_status.last_delivered_at, excluded.last_delivered_at), ${LATEST_ERROR}`,
  },
  release: {
    name: 'subscription_notification_release',
    text: `UPDATE subscription_notification n SET due_at = now()
               FROM unnest($1::uuid[], $2::uuid[], $3::bigint[]) AS d(subscription_id, resource_id, ordinal)
               WHERE n.subscription_id = d.subscription_id AND n.resource_id = d.resource_id AND n.ordinal = d.ordinal`,
  },
  failed: {
    name: 'subscription_notification_failed',
    text: `UPDATE subscription_notification SET attempts = attempts + 1, due_at = now() + make_interval(secs => $4),
                      last_error = $5, last_error_at = now(), error_kind = $6
               WHERE subscription_id = $1 AND resource_id = $2 AND ordinal = $3`,
  },
  saveStatus: `INSERT INTO subscription_status (subscription_id, last_error_at, last_error)
       SELECT u.id, u.error_at, u.error
       FROM unnest($1::uuid[], $2::timestamptz[], $3::text[]) AS u(id, error_at, error)
       WHERE EXISTS (SELECT 1 FROM subscription s WHERE s.id = u.id)
       ON CONFLICT (subscription_id) DO UPDATE SET ${LATEST_ERROR}`,
  any: { name: 'subscription_any', text: 'SELECT EXISTS (SELECT 1 FROM subscription) AS any' },
  pending: 'SELECT count(*)::integer AS n FROM subscription_notification',
};
const SQL = NOTIFICATION_QUEUE_SQL;

@Injectable()
export class NotificationQueueRepository {
  constructor(private readonly db: DispatchDatabase) {}

  /**
   * Queues the messages written since the position, in one transaction (BEGIN_QUEUING) that holds the
   * position's row: how many notifications, whether any subscription exists (undefined when another
   * process held the turn), and how many notifications it dropped because their messages are past
   * `retentionDays` (only when a pass of the sweep begins). The round's slice of the sweep is
   * `sweepSliceMs` long (see the dispatcher).
   */
  queueMessages(options: { sweepIntervalMs: number; lookbackMs: number; sweepSliceMs: number; retentionDays: number }): Promise<{ queued: number; subscribed?: boolean; expired: number }> {
    return this.db.transaction(async (client) => {
      const position = await this.lockPosition(client, options.sweepIntervalMs, options.lookbackMs);
      if (!position) return { queued: 0, expired: 0 };
      const { slice, cursor } = sweepSlice(position, options.sweepSliceMs);
      const result = await this.fanOut(client, position.scannedTo, slice, { horizon: position.horizon, sweepCursor: cursor, sweepBegan: position.sweepBegins });
      const expired = position.sweepBegins ? await this.expire(client, options.retentionDays) : 0;
      return { ...result, expired };
    }, SQL.begin);
  }

  /**
   * The dispatch position, locked for this transaction; undefined when another process holds it.
   * `sweepFrom`: where this round's slice of the sweep starts: the cursor of the pass under way, or, when
   * none is and the last began `sweepIntervalMs` ago or more, `lookbackMs` before now (a pass begins:
   * `sweepBegins`); null: no slice this round.
   *
   * `horizon`: the commit horizon (database/commit-horizon.ts), never more than `lookbackMs` ago: a message
   * older than it was committed (or rolled back) before this statement, and any later statement of this
   * transaction sees it. Read here, before the scan's own snapshot. What the horizon cannot see (backends of
   * another role) the sweep still covers.
   */
  private async lockPosition(client: PoolClient, sweepIntervalMs: number, lookbackMs: number): Promise<DispatchPosition | undefined> {
    const { rows } = await client.query<DispatchPosition>(SQL.lockPosition, [sweepIntervalMs / 1000, lookbackMs / 1000, HORIZON_MARGIN_MS / 1000]);
    return rows[0];
  }

  /**
   * Queues the messages since `from` and those of the sweep's slice `[slice.from, slice.to)` when given, and
   * saves the position: `next.horizon` (read by lockPosition; never back), `next.sweepCursor` (where the
   * next slice starts; null: the pass is over), `next.sweepBegan` (this round began a pass).
   */
  private async fanOut(
    client: PoolClient,
    from: Date,
    slice: { from: Date; to: Date } | undefined,
    next: { horizon: Date; sweepCursor: Date | null; sweepBegan: boolean },
  ): Promise<{ queued: number; subscribed: boolean }> {
    const values = [from, slice?.from ?? null, slice?.to ?? null, next.horizon, next.sweepCursor, next.sweepBegan];
    return (await client.query<{ queued: number; subscribed: boolean }>(SQL.fanOut, values)).rows[0];
  }

  /**
   * Drops the notifications of messages past their retention (MESSAGES_RETENTION_DAYS): the documented rules
   * retries a notification until its destination accepts it or its message's retention ends. How many.
   */
  private async expire(client: PoolClient, retentionDays: number): Promise<number> {
    const { rowCount } = await client.query(SQL.expire, [retentionDays]);
    return rowCount ?? 0;
  }

  claim(limit: number, leaseSeconds: number): Promise<ClaimedNotification[]> {
    return this.db.query<ClaimedNotification>(SQL.claim, [limit, leaseSeconds]);
  }

  /**
   * Removes accepted notifications from the queue and records in each subscription's status its last
   * delivery and the last error of what was removed (a notification that failed before it went through),
   * in one statement: a health read (one snapshot of both tables) never sees a notification gone from the
   * queue without its delivery, nor its error vanish with it. Each stream's next notification is claimable
   * after it.
   */
  async delivered(accepted: readonly AcceptedNotification[]): Promise<void> {
    await this.db.query(
      SQL.delivered,
      [accepted.map((n) => n.subscriptionId), accepted.map((n) => n.resourceId), accepted.map((n) => n.ordinal), accepted.map((n) => n.acceptedAt)],
    );
  }

  /** Ends the leases of claimed notifications that were not attempted: each is due again now. */
  async release(claimed: readonly ClaimedNotification[]): Promise<void> {
    await this.db.query(
      SQL.release,
      [claimed.map((n) => n.subscriptionId), claimed.map((n) => n.resourceId), claimed.map((n) => n.ordinal)],
    );
  }

  async failed(n: ClaimedNotification, retryInMs: number, kind: FailureKind, message: string): Promise<void> {
    await this.db.query(
      SQL.failed,
      [n.subscriptionId, n.resourceId, n.ordinal, retryInMs / 1000, message, kind],
    );
  }

  /** Records the subscriptions' last delivery error, one statement for all (kept off the per-notification path). */
  async saveStatus(updates: Map<string, StatusUpdate>): Promise<void> {
    if (updates.size === 0) return;
    const ids = [...updates.keys()];
    const values = [...updates.values()];
    await this.db.query(
      SQL.saveStatus,
      [ids, values.map((v) => v.error.at), values.map((v) => v.error.message)],
    );
  }

  /** Whether any project has a subscription: without one a poll has nothing to queue or claim. */
  async anySubscription(): Promise<boolean> {
    return (await this.db.one<{ any: boolean }>(SQL.any))!.any;
  }

  /** Notifications not yet accepted, all subscriptions (for /metrics). */
  async pendingCount(): Promise<number> {
    return (await this.db.one<{ n: number }>(SQL.pending))!.n;
  }
}

/**
 * The sweep's slice of this round, after the frequent scan's start (`scannedTo`): from the pass's cursor,
 * `sliceMs` long at most, and where the next one starts (null: the pass ends with this slice). No slice
 * when no pass is under way or the pass has caught up with the frequent scan.
 */
function sweepSlice(position: DispatchPosition, sliceMs: number): { slice?: { from: Date; to: Date }; cursor: Date | null } {
  const from = position.scannedTo;
  if (!position.sweepFrom || position.sweepFrom >= from) return { cursor: null };
  const slice = { from: position.sweepFrom, to: new Date(Math.min(from.getTime(), position.sweepFrom.getTime() + sliceMs)) };
  return { slice, cursor: slice.to < from ? slice.to : null };
}

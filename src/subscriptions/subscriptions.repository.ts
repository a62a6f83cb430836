import { Injectable } from '@nestjs/common';
import { isUniqueViolation } from '../common/database-errors.js';
import { Database } from '../database/database.js';

export interface StoredSubscription {
  id: string;
  projectKey: string;
  key: string | null;
  version: number;
  destination: Record<string, string>;
  credentials: Record<string, string>;
  messages: Array<{ resourceTypeId: 'resource'; types?: string[] }>;
  changes: Array<{ resourceTypeId: 'resource' }>;
  format: { type: 'Platform' | 'CloudEvents'; cloudEventsVersion?: '1.0' };
  createdAt: string;
  lastModifiedAt: string;
}

/** What an update sets; absent members stay as they are (`key: null` removes the key). */
export type SubscriptionChanges = Partial<Pick<StoredSubscription, 'key' | 'destination' | 'credentials' | 'messages' | 'changes' | 'format'>>;

export interface SubscriptionHealthRow {
  pending: number;
  oldestPendingAt: string | null;
  failing: number;
  misconfigured: number;
  lastDeliveredAt: string | null;
  lastErrorAt: string | null;
  lastError: string | null;
}

const TIMESTAMP = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', ${TIMESTAMP})`;
const COLUMNS = `s.id, s.project_key AS "projectKey", s.key, s.version, s.destination, s.credentials, s.messages, s.changes, s.format,
  ${iso('s.created_at')} AS "createdAt", ${iso('s.last_modified_at')} AS "lastModifiedAt"`;
export const KEY_CONSTRAINT = 'subscription_project_key_key';

@Injectable()
export class SubscriptionsRepository {
  constructor(private readonly db: Database) {}

  /**
   * Inserts the subscription unless the project has `limit` already: 'limit'. The project's count and
   * the insert run under a transaction-scoped advisory lock of the project, so concurrent creates
   * cannot both take the last place. A taken key: 'duplicate-key'.
   */
  async insertWithinLimit(s: Omit<StoredSubscription, 'version' | 'createdAt' | 'lastModifiedAt'>, limit: number): Promise<StoredSubscription | 'limit' | 'duplicate-key'> {
    const client = await this.db.pool.connect();
    let failed = false;
    // A connection the database ends mid-transaction fails the query in flight; without a listener its
    // 'error' event would end the process.
    const onConnectionError = () => (failed = true);
    client.on('error', onConnectionError);
    try {
      await client.query('BEGIN');
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('subscription:' || $1))`, [s.projectKey]);
      const { rows } = await client.query<StoredSubscription>(
        `INSERT INTO subscription AS s (id, project_key, key, destination, credentials, messages, changes, format)
         SELECT $1::uuid, $2::varchar, $3::varchar, $4::jsonb, $5::jsonb, $6::jsonb, $7::jsonb, $8::jsonb
         WHERE (SELECT count(*) FROM subscription WHERE project_key = $2) < $9
         RETURNING ${COLUMNS}`,
        [s.id, s.projectKey, s.key, s.destination, s.credentials, JSON.stringify(s.messages), JSON.stringify(s.changes), s.format, limit],
      );
      await client.query('COMMIT');
      return rows[0] ?? 'limit';
    } catch (error) {
      failed = true;
      await client.query('ROLLBACK').catch(() => undefined);
      if (isUniqueViolation(error, KEY_CONSTRAINT)) return 'duplicate-key';
      throw error;
    } finally {
      client.removeListener('error', onConnectionError);
      client.release(failed);
    }
  }

  async count(projectKey: string): Promise<number> {
    return (await this.db.one<{ n: number }>('SELECT count(*)::integer AS n FROM subscription WHERE project_key = $1', [projectKey], projectKey))!.n;
  }

  findById(projectKey: string, id: string): Promise<StoredSubscription | undefined> {
    return this.db.one<StoredSubscription>(`SELECT ${COLUMNS} FROM subscription s WHERE s.id = $1 AND s.project_key = $2`, [id, projectKey], projectKey);
  }

  findByKey(projectKey: string, key: string): Promise<StoredSubscription | undefined> {
    return this.db.one<StoredSubscription>(`SELECT ${COLUMNS} FROM subscription s WHERE s.project_key = $1 AND s.key = $2`, [projectKey, key], projectKey);
  }

  async list(projectKey: string, limit: number, offset: number): Promise<{ results: StoredSubscription[]; total: number }> {
    const [results, total] = await Promise.all([
      this.db.query<StoredSubscription>(
        `SELECT ${COLUMNS} FROM subscription s WHERE s.project_key = $1 ORDER BY s.created_at, s.id LIMIT $2 OFFSET $3`,
        [projectKey, limit, offset],
        projectKey,
      ),
      this.count(projectKey),
    ]);
    return { results, total };
  }

  /**
   * Applies `changes` when the stored version is `version` (optimistic concurrency in the statement);
   * undefined when no row matched (absent or another version: the caller re-reads to tell which).
   */
  async update(projectKey: string, id: string, version: number, changes: SubscriptionChanges): Promise<StoredSubscription | 'duplicate-key' | undefined> {
    const sets: string[] = [];
    const values: unknown[] = [id, projectKey, version];
    const set = (column: string, value: unknown) => {
      values.push(value);
      sets.push(`${column} = $${values.length}`);
    };
    if (changes.key !== undefined) set('key', changes.key);
    if (changes.destination) set('destination', changes.destination);
    if (changes.credentials) set('credentials', changes.credentials);
    if (changes.messages) set('messages', JSON.stringify(changes.messages));
    if (changes.changes) set('changes', JSON.stringify(changes.changes));
    if (changes.format) set('format', changes.format);
    try {
      return await this.db.one<StoredSubscription>(
        `UPDATE subscription s SET ${[...sets, 'version = s.version + 1', 'last_modified_at = now()'].join(', ')}
         WHERE s.id = $1 AND s.project_key = $2 AND s.version = $3 RETURNING ${COLUMNS}`,
        values,
        projectKey,
      );
    } catch (error) {
      if (isUniqueViolation(error, KEY_CONSTRAINT)) return 'duplicate-key';
      throw error;
    }
  }

  /** Deletes the subscription (its queue and state with it) when its version is `version`. */
  delete(projectKey: string, id: string, version: number): Promise<StoredSubscription | undefined> {
    return this.db.one<StoredSubscription>(
      `DELETE FROM subscription s WHERE s.id = $1 AND s.project_key = $2 AND s.version = $3 RETURNING ${COLUMNS}`,
      [id, projectKey, version],
      projectKey,
    );
  }

  /** What the health answer is made of: the queue of the subscription and its last delivery and error. */
  async health(id: string): Promise<SubscriptionHealthRow> {
    return (await this.db.one<SubscriptionHealthRow>(
      `SELECT q.pending, ${iso('q.oldest')} AS "oldestPendingAt", q.failing, q.misconfigured,
              ${iso('st.last_delivered_at')} AS "lastDeliveredAt",
              ${iso('coalesce(q.last_error_at, st.last_error_at)')} AS "lastErrorAt",
              CASE WHEN q.last_error_at IS NOT NULL THEN q.last_error ELSE st.last_error END AS "lastError"
       FROM (SELECT count(*)::integer AS pending, min(n.created_at) AS oldest,
                    count(*) FILTER (WHERE n.attempts > 0)::integer AS failing,
                    count(*) FILTER (WHERE n.attempts > 0 AND n.error_kind = 'ConfigurationError')::integer AS misconfigured,
                    max(n.last_error_at) AS last_error_at,
                    (array_agg(n.last_error ORDER BY n.last_error_at DESC) FILTER (WHERE n.last_error_at IS NOT NULL))[1] AS last_error
             FROM subscription_notification n WHERE n.subscription_id = $1) q
       LEFT JOIN subscription_status st ON st.subscription_id = $1`,
      [id],
    ))!;
  }
}

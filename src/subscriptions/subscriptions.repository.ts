import { Injectable } from '@nestjs/common';
import { isUniqueViolation } from '../common/database-errors.js';
import { Database } from '../database/database.js';
import { namedStatement } from '../database/named-statement.js';

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

interface SubscriptionHealthRow {
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

export const SUBSCRIPTIONS_SQL = {
  /** Creates of one project wait for each other here, so that two cannot both take the last place. */
  projectLock: `SELECT pg_advisory_xact_lock(hashtext('subscription:' || $1))`,
  insert: namedStatement('subscription_insert', ['id', 'projectKey', 'key', 'destination', 'credentials', 'messages', 'changes', 'format', 'limit'], `
    INSERT INTO subscription AS s (id, project_key, key, destination, credentials, messages, changes, format)
    SELECT :id::uuid, :projectKey::varchar, :key::varchar, :destination::jsonb, :credentials::jsonb, :messages::jsonb, :changes::jsonb, :format::jsonb
    WHERE (SELECT count(*) FROM subscription WHERE project_key = :projectKey) < :limit
    RETURNING ${COLUMNS}`),
  count: { name: 'subscription_count', text: 'SELECT count(*)::integer AS n FROM subscription WHERE project_key = $1' },
  byId: { name: 'subscription_by_id', text: `SELECT ${COLUMNS} FROM subscription s WHERE s.id = $1 AND s.project_key = $2` },
  byKey: { name: 'subscription_by_key', text: `SELECT ${COLUMNS} FROM subscription s WHERE s.project_key = $1 AND s.key = $2` },
  page: { name: 'subscription_page', text: `SELECT ${COLUMNS} FROM subscription s WHERE s.project_key = $1 ORDER BY s.created_at, s.id LIMIT $2 OFFSET $3` },
  /** Sets the members given (`key` when `:keySet`, the others when not null) when the stored version is `:version`. */
  update: namedStatement(
    'subscription_update',
    ['id', 'projectKey', 'version', 'keySet', 'key', 'destination', 'credentials', 'messages', 'changes', 'format'],
    `UPDATE subscription s SET key = CASE WHEN :keySet::boolean THEN :key::varchar ELSE s.key END,
       destination = COALESCE(:destination::jsonb, s.destination), credentials = COALESCE(:credentials::jsonb, s.credentials),
       messages = COALESCE(:messages::jsonb, s.messages), changes = COALESCE(:changes::jsonb, s.changes), format = COALESCE(:format::jsonb, s.format),
       version = s.version + 1, last_modified_at = now()
     WHERE s.id = :id AND s.project_key = :projectKey AND s.version = :version RETURNING ${COLUMNS}`,
  ),
  delete: {
    name: 'subscription_delete',
    text: `DELETE FROM subscription s WHERE s.id = $1 AND s.project_key = $2 AND s.version = $3 RETURNING ${COLUMNS}`,
  },
  health: {
    name: 'subscription_health',
    text: `SELECT q.pending, ${iso('q.oldest')} AS "oldestPendingAt", q.failing, q.misconfigured,
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
  },
};
const SQL = SUBSCRIPTIONS_SQL;

@Injectable()
export class SubscriptionsRepository {
  constructor(private readonly db: Database) {}

  /**
   * Inserts the subscription unless the project has `limit` already: 'limit'. The project's count and
   * the insert run under a transaction-scoped advisory lock of the project, so concurrent creates
   * cannot both take the last place. A taken key: 'duplicate-key'.
   */
  async insertWithinLimit(s: Omit<StoredSubscription, 'version' | 'createdAt' | 'lastModifiedAt'>, limit: number): Promise<StoredSubscription | 'limit' | 'duplicate-key'> {
    try {
      return await this.db.transaction(async (client) => {
        await client.query(SQL.projectLock, [s.projectKey]);
        const { rows } = await client.query<StoredSubscription>(SQL.insert.text, SQL.insert.values({
          id: s.id,
          projectKey: s.projectKey,
          key: s.key,
          destination: s.destination,
          credentials: s.credentials,
          messages: JSON.stringify(s.messages),
          changes: JSON.stringify(s.changes),
          format: s.format,
          limit,
        }));
        return rows[0] ?? 'limit';
      });
    } catch (error) {
      if (isUniqueViolation(error, KEY_CONSTRAINT)) return 'duplicate-key';
      throw error;
    }
  }

  async count(projectKey: string): Promise<number> {
    return (await this.db.one<{ n: number }>(SQL.count, [projectKey], projectKey))!.n;
  }

  findById(projectKey: string, id: string): Promise<StoredSubscription | undefined> {
    return this.db.one<StoredSubscription>(SQL.byId, [id, projectKey], projectKey);
  }

  findByKey(projectKey: string, key: string): Promise<StoredSubscription | undefined> {
    return this.db.one<StoredSubscription>(SQL.byKey, [projectKey, key], projectKey);
  }

  async list(projectKey: string, limit: number, offset: number): Promise<{ results: StoredSubscription[]; total: number }> {
    const [results, total] = await Promise.all([
      this.db.query<StoredSubscription>(SQL.page, [projectKey, limit, offset], projectKey),
      this.count(projectKey),
    ]);
    return { results, total };
  }

  /**
   * Applies `changes` when the stored version is `version` (optimistic concurrency in the statement);
   * undefined when no row matched (absent or another version: the caller re-reads to tell which).
   */
  async update(projectKey: string, id: string, version: number, changes: SubscriptionChanges): Promise<StoredSubscription | 'duplicate-key' | undefined> {
    try {
      return await this.db.one<StoredSubscription>(SQL.update, SQL.update.values({
        id,
        projectKey,
        version,
        keySet: changes.key !== undefined,
        key: changes.key ?? null,
        destination: changes.destination ?? null,
        credentials: changes.credentials ?? null,
        messages: changes.messages ? JSON.stringify(changes.messages) : null,
        changes: changes.changes ? JSON.stringify(changes.changes) : null,
        format: changes.format ?? null,
      }), projectKey);
    } catch (error) {
      if (isUniqueViolation(error, KEY_CONSTRAINT)) return 'duplicate-key';
      throw error;
    }
  }

  /** Deletes the subscription (its queue and state with it) when its version is `version`. */
  delete(projectKey: string, id: string, version: number): Promise<StoredSubscription | undefined> {
    return this.db.one<StoredSubscription>(SQL.delete, [id, projectKey, version], projectKey);
  }

  /** What the health answer is made of: the queue of the subscription and its last delivery and error. */
  async health(id: string): Promise<SubscriptionHealthRow> {
    return (await this.db.one<SubscriptionHealthRow>(SQL.health, [id]))!;
  }
}

import { Injectable } from '@nestjs/common';
import { isUniqueViolation } from '../common/database-errors.js';
import { Database } from '../database/database.js';
import { namedStatement } from '../database/named-statement.js';
import type { ExtensionDestinationDto, ExtensionTriggerDto } from './extension.dto.js';

/** An extension as stored; `destination.authentication.headerValue` in clear (it is sent), masked in every answer. */
export interface StoredExtension {
  id: string;
  projectKey: string;
  key: string | null;
  version: number;
  destination: ExtensionDestinationDto;
  triggers: ExtensionTriggerDto[];
  timeoutInMs: number;
  createdAt: string;
  lastModifiedAt: string;
}

/** What an update sets; absent members stay as they are (`key: null` removes the key). */
export type ExtensionChanges = Partial<Pick<StoredExtension, 'key' | 'destination' | 'triggers' | 'timeoutInMs'>>;

const TIMESTAMP = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', ${TIMESTAMP})`;
const COLUMNS = `e.id, e.project_key AS "projectKey", e.key, e.version, e.destination, e.triggers, e.timeout_in_ms AS "timeoutInMs",
  ${iso('e.created_at')} AS "createdAt", ${iso('e.last_modified_at')} AS "lastModifiedAt"`;
const KEY_CONSTRAINT = 'extension_project_key_key';

/**
 * Counts a change of the project's extensions (`$1`): every server process compares the revision with the
 * one it loaded (ExtensionRegistry). Also the lock that orders a project's creates (the 25 limit).
 */
const BUMP_REVISION = `INSERT INTO extension_revision AS v (project_key, revision) VALUES ($1, 1)
  ON CONFLICT (project_key) DO UPDATE SET revision = v.revision + 1, changed_at = now()`;
/** `BUMP_REVISION` as a CTE following a write `w` of the project `$2` (no change, no bump). */
const BUMP_AFTER = (project: string) => `bumped AS (
    INSERT INTO extension_revision AS v (project_key, revision) SELECT ${project}, 1 FROM w LIMIT 1
    ON CONFLICT (project_key) DO UPDATE SET revision = v.revision + 1, changed_at = now())`;

export const EXTENSIONS_SQL = {
  bumpRevision: BUMP_REVISION,
  /** Inserts the extension unless the project has `:limit` already. */
  insert: namedStatement('extension_insert', ['id', 'projectKey', 'key', 'destination', 'triggers', 'timeoutInMs', 'limit'], `
    INSERT INTO extension AS e (id, project_key, key, destination, triggers, timeout_in_ms)
    SELECT :id::uuid, :projectKey::varchar, :key::varchar, :destination::jsonb, :triggers::jsonb, :timeoutInMs::integer
    WHERE (SELECT count(*) FROM extension WHERE project_key = :projectKey) < :limit
    RETURNING ${COLUMNS}`),
  count: { name: 'extension_count', text: 'SELECT count(*)::integer AS n FROM extension WHERE project_key = $1' },
  byId: { name: 'extension_by_id', text: `SELECT ${COLUMNS} FROM extension e WHERE e.id = $1 AND e.project_key = $2` },
  byKey: { name: 'extension_by_key', text: `SELECT ${COLUMNS} FROM extension e WHERE e.project_key = $1 AND e.key = $2` },
  page: { name: 'extension_page', text: `SELECT ${COLUMNS} FROM extension e WHERE e.project_key = $1 ORDER BY e.created_at, e.id LIMIT $2 OFFSET $3` },
  /** Every extension of the project in creation order, with the revision they are of (0: never changed). */
  project: {
    name: 'extension_project',
    text: `SELECT v.revision::text AS revision, ${COLUMNS}
           FROM (SELECT COALESCE((SELECT revision FROM extension_revision WHERE project_key = $1), 0) AS revision) v
           LEFT JOIN extension e ON e.project_key = $1
           ORDER BY e.created_at, e.id`,
  },
  changedSince: {
    name: 'extension_changed_since',
    text: `SELECT project_key AS "projectKey", revision::text AS revision FROM extension_revision WHERE changed_at > now() - make_interval(secs => $1)`,
  },
  /** Sets the members given (`…Set`) when the stored version is `:version`. */
  update: namedStatement(
    'extension_update',
    ['id', 'projectKey', 'version', 'keySet', 'key', 'destination', 'triggers', 'timeoutInMs'],
    `WITH w AS (
       UPDATE extension e SET key = CASE WHEN :keySet::boolean THEN :key::varchar ELSE e.key END,
         destination = COALESCE(:destination::jsonb, e.destination), triggers = COALESCE(:triggers::jsonb, e.triggers),
         timeout_in_ms = COALESCE(:timeoutInMs::integer, e.timeout_in_ms), version = e.version + 1, last_modified_at = now()
       WHERE e.id = :id AND e.project_key = :projectKey AND e.version = :version RETURNING ${COLUMNS}
     ), ${BUMP_AFTER(':projectKey::varchar')}
     SELECT * FROM w`,
  ),
  delete: {
    name: 'extension_delete',
    text: `WITH w AS (
             DELETE FROM extension e WHERE e.id = $1 AND e.project_key = $2 AND e.version = $3 RETURNING ${COLUMNS}
           ), ${BUMP_AFTER('$2::varchar')}
           SELECT * FROM w`,
  },
};
const SQL = EXTENSIONS_SQL;

@Injectable()
export class ExtensionsRepository {
  constructor(private readonly db: Database) {}

  /**
   * Inserts the extension unless the project has `limit` already ('limit'); a taken key: 'duplicate-key'.
   * The revision's row is updated first in the transaction: concurrent creates of one project wait for
   * each other there, so they cannot both take the last place.
   */
  async insertWithinLimit(e: Omit<StoredExtension, 'version' | 'createdAt' | 'lastModifiedAt'>, limit: number): Promise<StoredExtension | 'limit' | 'duplicate-key'> {
    return this.db.transaction(async (client) => {
      await client.query(SQL.bumpRevision, [e.projectKey]);
      const { rows } = await client.query<StoredExtension>(SQL.insert.text, SQL.insert.values({
        id: e.id,
        projectKey: e.projectKey,
        key: e.key,
        destination: JSON.stringify(e.destination),
        triggers: JSON.stringify(e.triggers),
        timeoutInMs: e.timeoutInMs,
        limit,
      }));
      return rows[0] ?? 'limit';
    }).catch((error: unknown) => {
      if (isUniqueViolation(error, KEY_CONSTRAINT)) return 'duplicate-key' as const;
      throw error;
    });
  }

  async count(projectKey: string): Promise<number> {
    return (await this.db.one<{ n: number }>(SQL.count, [projectKey], projectKey))!.n;
  }

  findById(projectKey: string, id: string): Promise<StoredExtension | undefined> {
    return this.db.one<StoredExtension>(SQL.byId, [id, projectKey], projectKey);
  }

  findByKey(projectKey: string, key: string): Promise<StoredExtension | undefined> {
    return this.db.one<StoredExtension>(SQL.byKey, [projectKey, key], projectKey);
  }

  async list(projectKey: string, limit: number, offset: number): Promise<{ results: StoredExtension[]; total: number }> {
    const [results, total] = await Promise.all([this.db.query<StoredExtension>(SQL.page, [projectKey, limit, offset], projectKey), this.count(projectKey)]);
    return { results, total };
  }

  /** Every extension of the project in creation order, and the revision they are of (0: never changed). */
  async loadProject(projectKey: string): Promise<{ revision: string; extensions: StoredExtension[] }> {
    const rows = await this.db.query<StoredExtension & { revision: string }>(SQL.project, [projectKey], projectKey);
    return { revision: rows[0]?.revision ?? '0', extensions: rows.filter((r) => r.id !== null).map(({ revision: _, ...e }) => e) };
  }

  /** The projects whose extensions changed in the last `seconds` seconds, with their revision. */
  changedSince(seconds: number): Promise<Array<{ projectKey: string; revision: string }>> {
    return this.db.query(SQL.changedSince, [seconds]);
  }

  /**
   * Applies `changes` when the stored version is `version` (optimistic concurrency in the statement);
   * undefined when no row matched (absent or another version: the caller re-reads to tell which).
   */
  async update(projectKey: string, id: string, version: number, changes: ExtensionChanges): Promise<StoredExtension | 'duplicate-key' | undefined> {
    try {
      return await this.db.one<StoredExtension>(SQL.update, SQL.update.values({
        id,
        projectKey,
        version,
        keySet: changes.key !== undefined,
        key: changes.key ?? null,
        destination: changes.destination ? JSON.stringify(changes.destination) : null,
        triggers: changes.triggers ? JSON.stringify(changes.triggers) : null,
        timeoutInMs: changes.timeoutInMs ?? null,
      }), projectKey);
    } catch (error) {
      if (isUniqueViolation(error, KEY_CONSTRAINT)) return 'duplicate-key';
      throw error;
    }
  }

  /** Deletes the extension when its version is `version`. */
  delete(projectKey: string, id: string, version: number): Promise<StoredExtension | undefined> {
    return this.db.one<StoredExtension>(SQL.delete, [id, projectKey, version], projectKey);
  }
}

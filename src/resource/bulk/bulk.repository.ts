import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Database } from '../../database/database.js';
import { namedStatement, statementTemplate } from '../../database/named-statement.js';
import type { Modifier } from '../resource.entity.js';
import { insertResources, modifierJson, overwriteMessages, RESOURCE_JSON, resourceWrite, stamp, writtenColumns } from '../resource-write.js';

/** The first id of the keyset order (the nil UUID sorts before every other). */
export const FIRST_ID = '00000000-0000-0000-0000-000000000000';

/** What an import did with one line of a batch (see `IMPORT_SQL`). */
export interface ImportedRow {
  /** The line's index in the batch's arrays (1-based). */
  n: number;
  /** create, update: written when `written`; unchanged: equal to the stored resource; conflict: `version` mismatch. */
  action: 'create' | 'update' | 'unchanged' | 'conflict';
  written: boolean;
  /** The resource's id and version after the statement (null for a create that was not written). */
  id: string | null;
  version: number | null;
}

/**
 * Resources per row of an export page: about 40 KB of text for 800-byte resources. A page read as one
 * string (200 KB and more) is a large object in V8 (over 128 KB), allocated in the old generation: garbage
 * that only a full collection frees. Strings of tens of KB are allocated young, and most die there.
 */
export const EXPORT_CHUNK_ROWS = 50;

/**
 * The statements of bulk export and import (docs/bulk-and-cli.md). Not prepared: the export's text depends on
 * its `where`, and the import's arrays vary in length.
 */
export const BULK_SQL = {
  /**
   * One batch of import lines, each a PUT by key (create or overwrite, `version` checked when given) with
   * the messages and version a PUT records, in one statement: the lines' keys are distinct (the caller
   * splits a batch at a repeated key). The existing rows are locked in id order (`o`, so that two imports
   * do not deadlock over them); each line is then decided on its own row: a line equal to the stored
   * resource (document and flag, compared as jsonb) writes nothing, whatever its `version`; a version
   * mismatch writes nothing; the others update or insert. A key another writer inserted since `o` was
   * read is left alone (DO NOTHING): that line comes back unwritten and is run again. Arrays, one element
   * per line: `lines` their indexes, `expected` NULL for a line without a version.
   */
  importBatch: namedStatement('bulk_import_batch', ['projectKey', 'by', 'lines', 'keys', 'documents', 'publish', 'expected', 'newIds'], resourceWrite({
    write: `t AS (
             SELECT * FROM unnest(:lines::integer[], :keys::text[], :documents::text[], :publish::boolean[], :expected::integer[], :newIds::uuid[])
               AS t(n, key, document, publish, expected, new_id)
           ), o AS MATERIALIZED (
             SELECT r.id, r.key, r.version, r.published, r.object_type_property AS document
             FROM resource r WHERE r.project_key = :projectKey AND r.key = ANY (:keys::text[]) ORDER BY r.id FOR UPDATE
           ), d AS MATERIALIZED (
             SELECT t.n, t.key, t.document, t.publish, t.new_id, o.id AS old_id, o.version AS old_version,
                    o.published IS DISTINCT FROM t.publish AS flag_changed,
                    CASE WHEN o.id IS NULL THEN 'create'
                         WHEN o.document = t.document::jsonb AND o.published = t.publish THEN 'unchanged'
                         WHEN t.expected IS NOT NULL AND t.expected <> o.version THEN 'conflict'
                         ELSE 'update' END AS action
             FROM t LEFT JOIN o ON o.key = t.key
           ), u AS (
             UPDATE resource r SET object_type_property = d.document::jsonb, published = d.publish,
               ${stamp(':by', 'CASE WHEN d.flag_changed THEN 2 ELSE 1 END')}
             FROM d WHERE d.action = 'update' AND r.id = d.old_id
             RETURNING ${writtenColumns('CASE WHEN d.flag_changed THEN 2 ELSE 1 END')}, false AS created, d.flag_changed, r.published, d.document
           ), i AS (
             ${insertResources(
               { id: 'd.new_id', projectKey: ':projectKey', key: 'd.key', by: ':by', publish: 'd.publish', document: 'd.document' },
               "FROM d WHERE d.action = 'create' ON CONFLICT (project_key, key) DO NOTHING",
               ', true AS created, false AS flag_changed, r.published, NULL::text AS document',
             )}
           ), w AS (SELECT * FROM i UNION ALL SELECT * FROM u)`,
    messages: overwriteMessages('w.document', 'w.id AS resource_id, '),
    many: true,
    answer: `SELECT d.n, d.action, w.id IS NOT NULL AS written, COALESCE(w.id, d.old_id) AS id, COALESCE(w.version, d.old_version) AS version
             FROM d LEFT JOIN w ON w.key = d.key ORDER BY d.n`,
  })),

  /**
   * The stored resources of an import batch's keys, read before the batch when the project has extensions
   * (ImportService): per line that names one, its index in the arrays (1-based), its version, GET by id's
   * JSON, and whether the line equals it (as `importBatch` decides `unchanged`).
   */
  importCurrent: namedStatement('bulk_import_current', ['projectKey', 'keys', 'documents', 'publish'], `
    SELECT t.n::integer AS n, r.version, ${RESOURCE_JSON} AS json, (r.object_type_property = t.document::jsonb AND r.published = t.publish) AS unchanged
    FROM unnest(:keys::text[], :documents::text[], :publish::boolean[]) WITH ORDINALITY AS t(key, document, publish, n)
    JOIN resource r ON r.project_key = :projectKey AND r.key = t.key`),

  /**
   * One page of an export: the first `limit` resources that match the condition with an id after `after`
   * and, when `upTo` is not null, at most `upTo`, as their lines (GET by id's JSON, each ending in a newline)
   * in rows of EXPORT_CHUNK_ROWS resources, in id order, each with its count and last id (no row when none
   * match). Placeholders: $1 the project key, the condition's from $2, then `after`, `upTo` and `limit`.
   *
   * A resource's line is the representation its last write recorded in `resource_version` (docs/change-log-and-subscriptions.md#change-log:
   * GET by id's JSON right after the write), read as text instead of built again: building a resource's JSON
   * is most of what an export costs PostgreSQL. Every write of a resource records its version in the
   * statement that writes it (recordChanges), and the representation is made of the row's columns alone, so
   * the record of the row's current version is the row as GET answers it. A resource without that record
   * (written before the change log, seeded by SQL, or whose version the retention deleted) has its JSON built.
   */
  exportPage: statementTemplate([['r.some_property = $2', '$3', '$4', '$5::integer']], (where: string, after: string, upTo: string, limit: string) => `
    SELECT count(*)::integer AS count, (array_agg(q.id ORDER BY q.id DESC))[1]::text AS last,
           string_agg(q.json || E'\\n', '' ORDER BY q.id) AS lines
    FROM (SELECT p.id, p.json, (row_number() OVER (ORDER BY p.id) - 1) / ${EXPORT_CHUNK_ROWS} AS chunk
          FROM (SELECT r.id, COALESCE((SELECT v.representation FROM resource_version v WHERE v.resource_id = r.id AND v.version = r.version),
                                      ${RESOURCE_JSON}) AS json
                FROM resource r
                WHERE r.project_key = $1 AND r.id > ${after}::uuid AND (${upTo}::uuid IS NULL OR r.id <= ${upTo}::uuid) AND (${where})
                ORDER BY r.id LIMIT ${limit}) p) q
    GROUP BY q.chunk ORDER BY q.chunk`),

  /**
   * The id of the `size`-th resource matching the condition after the id `after` (no row when fewer
   * remain): the end of the next page, found on the id index without building the page. Placeholders as
   * `exportPage`, then `after` and `size`.
   */
  exportBoundary: statementTemplate([['r.some_property = $2', '$3', '$4::integer']], (where: string, after: string, size: string) => `
    SELECT r.id::text AS id FROM resource r
    WHERE r.project_key = $1 AND r.id > ${after}::uuid AND (${where})
    ORDER BY r.id OFFSET ${size} - 1 LIMIT 1`),

  /** The planner's statistics of the tables an import fills. */
  analyze: 'ANALYZE resource, resource_search, message, resource_version',
};

/** One draft of an import batch, validated. */
export interface ImportDraft {
  key: string;
  /** JSON text, as a PUT writes it. */
  objectTypeProperty: string;
  publish: boolean;
  expectedVersion?: number;
  /** The document as the validated value (what extensions are shown). */
  value: unknown;
}

/** A stored resource an import line names (see `BULK_SQL.importCurrent`). */
export interface ImportCurrentRow {
  n: number;
  version: number;
  json: string;
  unchanged: boolean;
}

/** The bulk operations on the `resource` table: an export's pages (on the reader) and an import's batches. */
@Injectable()
export class BulkRepository {
  constructor(private readonly db: Database) {}

  async importBatch(projectKey: string, drafts: ImportDraft[], by: Modifier): Promise<ImportedRow[]> {
    const { importBatch } = BULK_SQL;
    return this.db.query<ImportedRow>(importBatch.text, importBatch.values({
      projectKey,
      by: modifierJson(by),
      lines: drafts.map((_, i) => i + 1),
      keys: drafts.map((d) => d.key),
      documents: drafts.map((d) => d.objectTypeProperty),
      publish: drafts.map((d) => d.publish),
      expected: drafts.map((d) => d.expectedVersion ?? null),
      newIds: drafts.map(() => randomUUID()),
    }), projectKey);
  }

  async importCurrent(projectKey: string, drafts: ImportDraft[]): Promise<ImportCurrentRow[]> {
    const { importCurrent } = BULK_SQL;
    return this.db.query<ImportCurrentRow>(importCurrent.text, importCurrent.values({
      projectKey,
      keys: drafts.map((d) => d.key),
      documents: drafts.map((d) => d.objectTypeProperty),
      publish: drafts.map((d) => d.publish),
    }), projectKey);
  }

  /** Refreshes the planner's statistics of the tables an import fills (see ANALYZE_AFTER_WRITES). */
  async analyze(): Promise<void> {
    await this.db.query(BULK_SQL.analyze);
  }

  /**
   * A page of an export, on the reader: the first `limit` matches after `after` (and up to `upTo` when not
   * null). With read replicas each page may come from another one, which keyset paging on id tolerates
   * (see ExportService).
   */
  async exportPage(projectKey: string, filter: ExportFilter, after: string, upTo: string | null, limit: number): Promise<ExportPage> {
    const n = filter.values.length + 2;
    const sql = BULK_SQL.exportPage(filter.where, `$${n}`, `$${n + 1}`, `$${n + 2}::integer`);
    const rows = await this.db.reader().query<{ count: number; last: string; lines: string }>(sql, [projectKey, ...filter.values, after, upTo, limit], projectKey);
    return {
      count: rows.reduce((sum, row) => sum + row.count, 0),
      last: rows.length === 0 ? null : rows[rows.length - 1].last,
      chunks: rows.map((row) => row.lines),
    };
  }

  /** The id of the `size`-th match after `after`, or null when fewer remain (on the reader). */
  async exportBoundary(projectKey: string, filter: ExportFilter, after: string, size: number): Promise<string | null> {
    const n = filter.values.length + 2;
    const sql = BULK_SQL.exportBoundary(filter.where, `$${n}`, `$${n + 1}::integer`);
    return (await this.db.reader().one<{ id: string }>(sql, [projectKey, ...filter.values, after, size], projectKey))?.id ?? null;
  }
}

/** The `where` of an export as SQL, its values numbered from $2 ($1 is the project key). */
export interface ExportFilter {
  where: string;
  values: unknown[];
}

export interface ExportPage {
  count: number;
  /** The last resource's id (null when the page is empty). */
  last: string | null;
  /** The resources' lines, each ending in `\n`, a few dozen resources to a chunk (none when the page is empty). */
  chunks: string[];
}

import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Database } from '../../database/database.js';
import type { Modifier } from '../resource.entity.js';
import { BULK_SQL, modifierJson, type ImportedRow } from '../resource.repository.js';

/** One draft of an import batch, validated. */
export interface ImportDraft {
  key: string;
  /** JSON text, as a PUT writes it. */
  objectTypeProperty: string;
  publish: boolean;
  expectedVersion?: number;
}

/** The bulk operations on the `resource` table: an export's pages (on the reader) and an import's batches. */
@Injectable()
export class BulkRepository {
  constructor(private readonly db: Database) {}

  async importBatch(projectKey: string, drafts: ImportDraft[], by: Modifier): Promise<ImportedRow[]> {
    return this.db.query<ImportedRow>(BULK_SQL.importBatch, [
      projectKey,
      modifierJson(by),
      drafts.map((_, i) => i + 1),
      drafts.map((d) => d.key),
      drafts.map((d) => d.objectTypeProperty),
      drafts.map((d) => d.publish),
      drafts.map((d) => d.expectedVersion ?? null),
      drafts.map(() => randomUUID()),
    ], projectKey);
  }

  /** Refreshes the planner's statistics of the tables an import fills (see ANALYZE_AFTER_WRITES). */
  async analyze(): Promise<void> {
    await this.db.query('ANALYZE resource, resource_search, message, resource_version');
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

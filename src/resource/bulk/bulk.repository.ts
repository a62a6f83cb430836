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
    ]);
  }

  /** Refreshes the planner's statistics of the tables an import fills (see ANALYZE_AFTER_WRITES). */
  async analyze(): Promise<void> {
    await this.db.query('ANALYZE resource, resource_search, message, resource_version');
  }

  /**
   * The next page of an export, on the reader: with read replicas each page may come from another one,
   * which keyset paging on id tolerates (see ExportService).
   */
  async exportPage(projectKey: string, filter: { where: string; values: unknown[] }, after: string, limit: number): Promise<ExportPage> {
    const n = filter.values.length + 2;
    const row = await this.db.reader().one<ExportPage>(BULK_SQL.exportPage(filter.where, `$${n}`, `$${n + 1}::integer`), [projectKey, ...filter.values, after, limit]);
    return row!;
  }
}

export interface ExportPage {
  count: number;
  /** The last resource's id (null when the page is empty). */
  last: string | null;
  /** The resources' lines, joined by `\n` (null when the page is empty). */
  lines: string | null;
}

import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import type { ImageStore } from './image-store.js';

/**
 * The default `ImageStore`: a `bytea` row per (project, sha256) in `image_blob`, a table no resource
 * query reads. Bytes go in as a binary parameter; they come back as `bytea` hex text, which `pg`
 * decodes (a per-query binary result would be decoded as UTF-8 text by `pg` and corrupt them).
 */
@Injectable()
export class DatabaseImageStore implements ImageStore {
  constructor(private readonly db: Database) {}

  /**
   * Records the address in `image_blob_check` (its time refreshed) and stores the bytes, in one statement
   * and so one commit: a reclaim that holds the entry finishes first, and one that comes later finds the
   * entry too recent (migration 1763700000011). An upload that stops before its image is recorded leaves
   * bytes the reclaim deletes later.
   */
  async put(projectKey: string, sha256: string, bytes: Buffer): Promise<void> {
    await this.db.pool.query({
      text: `WITH checked AS (
               INSERT INTO image_blob_check (project_key, sha256) VALUES ($1, $2)
               ON CONFLICT (project_key, sha256) DO UPDATE SET since = now()
               RETURNING project_key
             )
             INSERT INTO image_blob (project_key, sha256, size, data) SELECT $1, $2, $3, $4 FROM checked
             ON CONFLICT (project_key, sha256) DO NOTHING`,
      values: [projectKey, sha256, bytes.length, bytes],
    });
  }

  async get(projectKey: string, sha256: string): Promise<Buffer | undefined> {
    const result = await this.db.pool.query<{ data: Buffer }>({
      text: 'SELECT data FROM image_blob WHERE project_key = $1 AND sha256 = $2',
      values: [projectKey, sha256],
    });
    return result.rows[0]?.data;
  }

  /**
   * The entries of `image_blob_check` older than `idleMs` leave the table; the blob of each goes too
   * unless an `image` row names it. `SKIP LOCKED`: replicas reclaiming at once take different entries.
   */
  async reclaim(idleMs: number, limit: number): Promise<number> {
    const result = await this.db.pool.query({
      text: `WITH due AS (
               SELECT c.project_key, c.sha256 FROM image_blob_check c
               WHERE c.since <= now() - make_interval(secs => $1::double precision / 1000)
               ORDER BY c.since LIMIT $2
               FOR UPDATE SKIP LOCKED
             ), checked AS (
               DELETE FROM image_blob_check c USING due WHERE c.project_key = due.project_key AND c.sha256 = due.sha256
             )
             DELETE FROM image_blob b USING due
             WHERE b.project_key = due.project_key AND b.sha256 = due.sha256
               AND NOT EXISTS (SELECT 1 FROM image i WHERE i.project_key = b.project_key AND i.sha256 = b.sha256)`,
      values: [idleMs, limit],
    });
    return result.rowCount ?? 0;
  }
}

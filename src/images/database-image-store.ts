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

  async put(projectKey: string, sha256: string, bytes: Buffer): Promise<void> {
    await this.db.pool.query({
      text: `INSERT INTO image_blob (project_key, sha256, size, data) VALUES ($1, $2, $3, $4)
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
}

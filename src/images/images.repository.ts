import { Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { Database } from '../database/database.js';
import { RESOURCE_JSON } from '../resource/resource.repository.js';
import { recordChanges, writtenColumns } from '../change-log/record-changes.js';

/** An image's row: what serving needs. */
export interface StoredImage {
  sha256: string;
  contentType: string;
  size: number;
  filename: string;
}

export interface NewImage {
  id: string;
  projectKey: string;
  resourceId: string;
  sha256: string;
  contentType: string;
  size: number;
  /** The Image object as the resource lists it (JSON text). */
  json: string;
  createdAt: string;
  /** `{clientId, customerId?}` of the uploader: the resource's lastModifiedBy after the attach. */
  modifiedBy: string;
}

export interface ClaimedJob {
  imageId: string;
  projectKey: string;
  resourceId: string;
  modifiedBy: string;
  image: string;
  attempts: number;
}

/**
 * Appends an image to a resource: a new version, lastModifiedAt/By, and its `ImageAdded` message with the
 * version's record (docs/change-log-and-subscriptions.md#change-log). One statement that reads and writes the row under its lock, so a
 * concurrent write is never lost and no version check can fail; an image already listed is not added
 * twice. Answers `json`, the resource after the attach, when it attached.
 */
const ATTACH = `WITH w AS (
    UPDATE resource r SET images = r.images || jsonb_build_array($3::text::jsonb),
      version = r.version + 1, last_modified_at = now(), last_modified_by = $4::jsonb,
      message_sequence = r.message_sequence + 1
    WHERE r.id = $1 AND r.project_key = $2
      AND NOT r.images @> jsonb_build_array(jsonb_build_object('id', $5::text))
    RETURNING ${writtenColumns(RESOURCE_JSON, '1')}
  ), c AS (SELECT 1 AS n, 'ImageAdded' AS type, '"image":' || $3::text AS payload),
  ${recordChanges({ version: true })}`;

/** The SQL of the images module: `image`, `image_job`, and the attach to `resource`. */
@Injectable()
export class ImagesRepository {
  constructor(private readonly db: Database) {}

  async findResourceIdByKey(projectKey: string, key: string): Promise<string | undefined> {
    const row = await this.db.one<{ id: string }>(
      { name: 'images_resource_id_by_key', text: 'SELECT r.id FROM resource r WHERE r.project_key = $1 AND r.key = $2' },
      [projectKey, key],
      projectKey,
    );
    return row?.id;
  }

  /**
   * Records the image and attaches it to the resource in one statement; the resource as JSON text,
   * or undefined when the resource no longer exists (nothing is recorded then).
   */
  async attachNow(image: NewImage): Promise<string | undefined> {
    const row = await this.db.one<{ json: string }>(
      `${ATTACH}, saved AS (
         INSERT INTO image (id, project_key, resource_id, sha256, content_type, size, image, created_at)
         SELECT $5::uuid, $2::varchar, w.id, $6::text, $7::text, $8::integer, $3::text::jsonb, $9::timestamptz FROM w
       )
       SELECT w.json FROM w`,
      [image.resourceId, image.projectKey, image.json, image.modifiedBy, image.id, image.sha256, image.contentType, image.size, image.createdAt],
      image.projectKey,
    );
    return row?.json;
  }

  /**
   * Records the image and a pending attach job in one statement (both durable when it returns);
   * false when the resource no longer exists (nothing is recorded then).
   */
  async enqueue(image: NewImage): Promise<boolean> {
    const row = await this.db.one<{ id: string }>(
      `WITH target AS (
         SELECT r.id FROM resource r WHERE r.id = $1 AND r.project_key = $2
       ), saved AS (
         INSERT INTO image (id, project_key, resource_id, sha256, content_type, size, image, created_at)
         SELECT $5::uuid, $2::varchar, target.id, $6::text, $7::text, $8::integer, $3::jsonb, $9::timestamptz FROM target
         RETURNING id
       )
       INSERT INTO image_job (image_id, project_key, resource_id, modified_by)
       SELECT saved.id, $2::varchar, $1::uuid, $4::jsonb FROM saved
       RETURNING image_id AS id`,
      [image.resourceId, image.projectKey, image.json, image.modifiedBy, image.id, image.sha256, image.contentType, image.size, image.createdAt],
      image.projectKey,
    );
    return row !== undefined;
  }

  async findImage(projectKey: string, id: string): Promise<StoredImage | undefined> {
    return this.db.one<StoredImage>(
      {
        name: 'images_find',
        text: `SELECT i.sha256, i.content_type AS "contentType", i.size, i.image->>'filename' AS filename
               FROM image i WHERE i.id = $1 AND i.project_key = $2`,
      },
      [id, projectKey],
      projectKey,
    );
  }

  /* ---------------------------------------------------------------- the worker's statements */

  /** A connection of its own for one job's transaction. */
  connect(): Promise<PoolClient> {
    return this.db.pool.connect();
  }

  /** Locks the next due job; another worker's `SKIP LOCKED` passes it by. Inside a transaction. */
  async claimJob(client: PoolClient): Promise<ClaimedJob | undefined> {
    const result = await client.query<ClaimedJob>(
      `SELECT j.image_id AS "imageId", j.project_key AS "projectKey", j.resource_id AS "resourceId",
              j.modified_by::text AS "modifiedBy", i.image::text AS image, j.attempts
       FROM image_job j JOIN image i ON i.id = j.image_id
       WHERE j.run_after <= now()
       ORDER BY j.run_after, j.created_at
       LIMIT 1
       FOR UPDATE OF j SKIP LOCKED`,
    );
    return result.rows[0];
  }

  /**
   * Attaches a claimed job's image and deletes the job, in the caller's transaction. When the
   * resource is gone, the image is dropped with its job. Returns what happened.
   */
  async completeJob(client: PoolClient, job: ClaimedJob): Promise<'attached' | 'already-attached' | 'resource-gone'> {
    const attached = await client.query(`${ATTACH} SELECT w.id FROM w`, [job.resourceId, job.projectKey, job.image, job.modifiedBy, job.imageId]);
    let outcome: 'attached' | 'already-attached' | 'resource-gone' = 'attached';
    if (attached.rowCount === 0) {
      const exists = await client.query('SELECT 1 FROM resource r WHERE r.id = $1 AND r.project_key = $2', [job.resourceId, job.projectKey]);
      outcome = exists.rowCount === 0 ? 'resource-gone' : 'already-attached';
    }
    if (outcome === 'resource-gone') await client.query('DELETE FROM image WHERE id = $1', [job.imageId]);
    else await client.query('DELETE FROM image_job WHERE image_id = $1', [job.imageId]);
    return outcome;
  }

  /** After a failed attempt: try again later (exponential back-off, at most 5 minutes). */
  async postponeJob(imageId: string, error: string): Promise<void> {
    await this.db.query(
      `UPDATE image_job SET attempts = attempts + 1, last_error = left($2, 1000),
         run_after = now() + make_interval(secs => least(power(2, attempts), 300))
       WHERE image_id = $1`,
      [imageId, error],
    );
  }
}

import { Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { Database } from '../database/database.js';
import { isDatabaseUnavailable } from '../common/database-errors.js';
import { namedStatement } from '../database/named-statement.js';
import { messageTypeSql as type } from '../query-language/message.catalogue.js';
import { member, resourceWrite, stamp, writtenColumns } from '../resource/resource-write.js';

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

export type AttachOutcome = 'attached' | 'already-attached' | 'resource-gone';

/** A claimed job's attempt failed (rolled back: the job stays due). */
export class AttachFailed extends Error {
  constructor(
    readonly imageId: string,
    readonly reason: unknown,
  ) {
    super(reason instanceof Error ? reason.message : String(reason));
  }
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
 * twice. `w` holds the resource after the attach, when it attached.
 */
const attach = (more: string, answer: string) => resourceWrite({
  write: `w AS (
             UPDATE resource r SET images = r.images || jsonb_build_array(:image::text::jsonb), ${stamp(':by', '1')}
             WHERE r.id = :resourceId AND r.project_key = :projectKey
               AND NOT r.images @> jsonb_build_array(jsonb_build_object('id', :imageId::text))
             RETURNING ${writtenColumns('1')}
           )`,
  messages: `SELECT 1 AS n, ${type('ImageAdded')} AS type, ${member('image', ':image::text')} AS payload`,
  more,
  answer,
});

/** The columns of an image's row, from the placeholders of an upload. */
const IMAGE_ROW = ':imageId::uuid, :projectKey::varchar, %s, :sha256::text, :contentType::text, :size::integer, :image::text::jsonb, :createdAt::timestamptz';
const UPLOAD = ['resourceId', 'projectKey', 'image', 'by', 'imageId', 'sha256', 'contentType', 'size', 'createdAt'] as const;

/** The SQL of the images module: `image`, `image_job`, and the attach to `resource`. */
export const IMAGES_SQL = {
  resourceIdByKey: namedStatement('images_resource_id_by_key', ['projectKey', 'key'], `
    SELECT r.id FROM resource r WHERE r.project_key = :projectKey AND r.key = :key`),
  /** Records the image and attaches it to the resource at once (IMAGES_ATTACH=sync). */
  attachNow: namedStatement('images_attach_now', UPLOAD, attach(
    `saved AS (
             INSERT INTO image (id, project_key, resource_id, sha256, content_type, size, image, created_at)
             SELECT ${IMAGE_ROW.replace('%s', 'w.id')} FROM w
           )`,
    'SELECT w.json FROM w',
  )),
  /** Records the image and a pending attach job. */
  enqueue: namedStatement('images_enqueue', UPLOAD, `
    WITH target AS (
      SELECT r.id FROM resource r WHERE r.id = :resourceId AND r.project_key = :projectKey
    ), saved AS (
      INSERT INTO image (id, project_key, resource_id, sha256, content_type, size, image, created_at)
      SELECT ${IMAGE_ROW.replace('%s', 'target.id')} FROM target
      RETURNING id
    )
    INSERT INTO image_job (image_id, project_key, resource_id, modified_by)
    SELECT saved.id, :projectKey::varchar, :resourceId::uuid, :by::jsonb FROM saved
    RETURNING image_id AS id`),
  find: namedStatement('images_find', ['id', 'projectKey'], `
    SELECT i.sha256, i.content_type AS "contentType", i.size, i.image->>'filename' AS filename
    FROM image i WHERE i.id = :id AND i.project_key = :projectKey`),
  /** Locks the next due job; another worker's `SKIP LOCKED` passes it by. */
  claimJob: namedStatement('images_claim_job', [], `
    SELECT j.image_id AS "imageId", j.project_key AS "projectKey", j.resource_id AS "resourceId",
           j.modified_by::text AS "modifiedBy", i.image::text AS image, j.attempts
    FROM image_job j JOIN image i ON i.id = j.image_id
    WHERE j.run_after <= now()
    ORDER BY j.run_after, j.created_at
    LIMIT 1
    FOR UPDATE OF j SKIP LOCKED`),
  /** A claimed job's attach. */
  attachJob: namedStatement('images_attach_job', ['resourceId', 'projectKey', 'image', 'by', 'imageId'], attach('', 'SELECT w.id FROM w')),
  resourceExists: namedStatement('images_resource_exists', ['resourceId', 'projectKey'], `
    SELECT 1 FROM resource r WHERE r.id = :resourceId AND r.project_key = :projectKey`),
  deleteImage: namedStatement('images_delete_image', ['imageId'], 'DELETE FROM image WHERE id = :imageId'),
  deleteJob: namedStatement('images_delete_job', ['imageId'], 'DELETE FROM image_job WHERE image_id = :imageId'),
  /** After a failed attempt: try again later (exponential back-off, at most 5 minutes). */
  postponeJob: namedStatement('images_postpone_job', ['imageId', 'error'], `
    UPDATE image_job SET attempts = attempts + 1, last_error = left(:error, 1000),
      run_after = now() + make_interval(secs => least(power(2, attempts), 300))
    WHERE image_id = :imageId`),
};
const SQL = IMAGES_SQL;

/** An upload's values, as `attachNow` and `enqueue` take them. */
const uploadValues = (image: NewImage) => ({
  resourceId: image.resourceId, projectKey: image.projectKey, image: image.json, by: image.modifiedBy, imageId: image.id,
  sha256: image.sha256, contentType: image.contentType, size: image.size, createdAt: image.createdAt,
});

/** The SQL of the images module: `image`, `image_job`, and the attach to `resource`. */
@Injectable()
export class ImagesRepository {
  constructor(private readonly db: Database) {}

  async findResourceIdByKey(projectKey: string, key: string): Promise<string | undefined> {
    return (await this.db.one<{ id: string }>(SQL.resourceIdByKey, SQL.resourceIdByKey.values({ projectKey, key }), projectKey))?.id;
  }

  /**
   * Records the image and attaches it to the resource in one statement; the resource as JSON text,
   * or undefined when the resource no longer exists (nothing is recorded then).
   */
  async attachNow(image: NewImage): Promise<string | undefined> {
    return (await this.db.one<{ json: string }>(SQL.attachNow, SQL.attachNow.values(uploadValues(image)), image.projectKey))?.json;
  }

  /**
   * Records the image and a pending attach job in one statement (both durable when it returns);
   * false when the resource no longer exists (nothing is recorded then).
   */
  async enqueue(image: NewImage): Promise<boolean> {
    const row = await this.db.one<{ id: string }>(SQL.enqueue, SQL.enqueue.values(uploadValues(image)), image.projectKey);
    return row !== undefined;
  }

  async findImage(projectKey: string, id: string): Promise<StoredImage | undefined> {
    return this.db.one<StoredImage>(SQL.find, SQL.find.values({ id, projectKey }), projectKey);
  }

  /* ---------------------------------------------------------------- the worker's statements */

  /**
   * Claims the next due job and completes it, in one transaction: the job and what happened, or undefined
   * when none is due. A failure after the claim rolls back (the job stays due) and throws AttachFailed;
   * an unreachable database is thrown as it is (not the job's failed attempt).
   */
  async attachNextJob(): Promise<{ job: ClaimedJob; outcome: AttachOutcome } | undefined> {
    let job: ClaimedJob | undefined;
    try {
      return await this.db.transaction(async (client) => {
        job = (await client.query<ClaimedJob>(SQL.claimJob.text)).rows[0];
        return job && { job, outcome: await this.completeJob(client, job) };
      });
    } catch (error) {
      if (job === undefined || isDatabaseUnavailable(error)) throw error;
      throw new AttachFailed(job.imageId, error);
    }
  }

  /**
   * Attaches a claimed job's image and deletes the job, in the caller's transaction. When the
   * resource is gone, the image is dropped with its job.
   */
  private async completeJob(client: PoolClient, job: ClaimedJob): Promise<AttachOutcome> {
    const ids = { resourceId: job.resourceId, projectKey: job.projectKey };
    const attached = await client.query(SQL.attachJob.text, SQL.attachJob.values({ ...ids, image: job.image, by: job.modifiedBy, imageId: job.imageId }));
    let outcome: AttachOutcome = 'attached';
    if (attached.rowCount === 0) {
      const exists = await client.query(SQL.resourceExists.text, SQL.resourceExists.values(ids));
      outcome = exists.rowCount === 0 ? 'resource-gone' : 'already-attached';
    }
    const done = outcome === 'resource-gone' ? SQL.deleteImage : SQL.deleteJob;
    await client.query(done.text, done.values({ imageId: job.imageId }));
    return outcome;
  }

  /** After a failed attempt: try again later (exponential back-off, at most 5 minutes). */
  async postponeJob(imageId: string, error: string): Promise<void> {
    await this.db.query(SQL.postponeJob, SQL.postponeJob.values({ imageId, error }));
  }
}

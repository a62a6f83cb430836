import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';

import { isDatabaseUnavailable } from '../common/database-errors.js';
import { IMAGE_STORE, type ImageStore } from './image-store.js';
import { imagesConfig, type ImagesConfig } from './images.config.js';
import { ImagesRepository } from './images.repository.js';

/** Jobs one round attaches at most before yielding to the next interval. */
const ROUND_LIMIT = 50;
/** Blobs one round checks for reclaim at most. */
const RECLAIM_LIMIT = 100;

/**
 * Attaches the images accepted with 202 (docs/rules.md#images). Every server process runs one; they share
 * the `image_job` table: each job is claimed with `FOR UPDATE SKIP LOCKED` in a transaction that
 * attaches the image and deletes the job, so two workers never attach one job twice and a crash
 * leaves the job for the next round (also after a restart). A failed attempt is retried later with
 * exponential back-off. The same code runs on the embedded database. While the database is
 * unreachable every round fails the same way: that is logged once, and once more when it answers again.
 * Each round then reclaims the bytes no image has used for `IMAGES_BLOB_RECLAIM_DELAY_MS`
 * (`ImageStore.reclaim`; deleted resources' images, failed uploads).
 */
@Injectable()
export class ImagesWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ImagesWorker');
  private timer?: NodeJS.Timeout;
  private round?: Promise<unknown>;
  private stopped = false;
  private databaseDown = false;

  constructor(
    private readonly images: ImagesRepository,
    @Inject(IMAGE_STORE) private readonly store: ImageStore,
    @Inject(imagesConfig.KEY) private readonly config: ImagesConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.round;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.round = this.attachPending(ROUND_LIMIT)
        .then(() => this.reclaimBlobs())
        .then(() => this.databaseAnswered())
        .catch((error: unknown) => this.roundFailed(error))
        .finally(() => this.schedule());
    }, this.config.workerIntervalMs);
    this.timer.unref();
  }

  private roundFailed(error: unknown): void {
    if (!isDatabaseUnavailable(error)) return this.logger.warn(`attach round failed: ${describe(error)}`);
    if (!this.databaseDown) this.logger.warn(`database unavailable, images wait until it answers: ${describe(error)}`);
    this.databaseDown = true;
  }

  private databaseAnswered(): void {
    if (!this.databaseDown) return;
    this.databaseDown = false;
    this.logger.log('database answers again, attaching images');
  }

  /** Deletes unused image bytes (one statement, at most RECLAIM_LIMIT blobs). */
  private async reclaimBlobs(): Promise<void> {
    if (this.stopped) return;
    const reclaimed = await this.store.reclaim(this.config.blobReclaimDelayMs, RECLAIM_LIMIT);
    if (reclaimed > 0) this.logger.debug(`reclaimed the bytes of ${reclaimed} unused images`);
  }

  /** Attaches due jobs one by one (each in its own transaction), up to `limit`; how many were done. */
  async attachPending(limit: number): Promise<number> {
    let done = 0;
    while (done < limit && !this.stopped) {
      if (!(await this.attachOne())) break;
      done++;
    }
    return done;
  }

  /** Claims and completes one job; false when no job is due. */
  private async attachOne(): Promise<boolean> {
    const client = await this.images.connect();
    let imageId: string | undefined;
    let failure: unknown;
    // A checked-out pg client has no 'error' listener of the pool's: a connection the database ends
    // (restart, crash) would be an unhandled 'error' event and end the process. The query in flight
    // fails with the same error, which is handled below.
    const onConnectionError = (error: Error) => (failure ??= error);
    client.on('error', onConnectionError);
    try {
      await client.query('BEGIN');
      const job = await this.images.claimJob(client);
      if (!job) {
        await client.query('COMMIT');
        return false;
      }
      imageId = job.imageId;
      const outcome = await this.images.completeJob(client, job);
      await client.query('COMMIT');
      if (outcome === 'resource-gone') this.logger.warn(`image ${job.imageId} dropped: its resource ${job.resourceId} was deleted`);
      return true;
    } catch (error) {
      failure = error;
      await client.query('ROLLBACK').catch(() => undefined);
      // The rolled-back job stays due; an unreachable database is not the job's failed attempt.
      if (imageId === undefined || isDatabaseUnavailable(error)) throw error;
    } finally {
      // A connection that failed mid-transaction is closed rather than returned to the pool. It is
      // released before the job is postponed: on the embedded database the pool has one connection.
      client.removeListener('error', onConnectionError);
      client.release(failure !== undefined);
    }
    this.logger.warn(`attaching image ${imageId} failed, will retry: ${describe(failure)}`);
    await this.images.postponeJob(imageId, describe(failure));
    return true;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

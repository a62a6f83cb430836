import { Inject, Injectable } from '@nestjs/common';

import { PollingWorker } from '../common/polling-worker.js';
import { IMAGE_STORE, type ImageStore } from './image-store.js';
import { imagesConfig, type ImagesConfig } from './images.config.js';
import { AttachFailed, ImagesRepository } from './images.repository.js';

/** Jobs one round attaches at most before yielding to the next interval. */
const ROUND_LIMIT = 50;
/** Blobs one round checks for reclaim at most. */
const RECLAIM_LIMIT = 100;

/**
 * Attaches the images accepted with 202 (docs/rules.md#images). Every server process runs one; they share
 * the `image_job` table: each job is claimed with `FOR UPDATE SKIP LOCKED` in a transaction that
 * attaches the image and deletes the job, so two workers never attach one job twice and a crash
 * leaves the job for the next round (also after a restart). A failed attempt is retried later with
 * exponential back-off. The same code runs on the embedded database. Schedule, stop and the logs of
 * failed rounds are the polling worker's (common/polling-worker.ts).
 * Each round then reclaims the bytes no image has used for `IMAGES_BLOB_RECLAIM_DELAY_MS`
 * (`ImageStore.reclaim`; deleted resources' images, failed uploads).
 */
@Injectable()
export class ImagesWorker extends PollingWorker {
  constructor(
    private readonly images: ImagesRepository,
    @Inject(IMAGE_STORE) private readonly store: ImageStore,
    @Inject(imagesConfig.KEY) private readonly config: ImagesConfig,
  ) {
    super({ name: 'ImagesWorker', intervalMs: config.workerIntervalMs, cadence: 'after-round', round: 'attach', waiting: 'images', resuming: 'attaching images' });
  }

  protected async round(): Promise<void> {
    await this.attachPending(ROUND_LIMIT);
    await this.reclaimBlobs();
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
    try {
      const attached = await this.images.attachNextJob();
      if (!attached) return false;
      const { job, outcome } = attached;
      if (outcome === 'resource-gone') this.logger.warn(`image ${job.imageId} dropped: its resource ${job.resourceId} was deleted`);
      return true;
    } catch (error) {
      if (!(error instanceof AttachFailed)) throw error;
      this.logger.warn(`attaching image ${error.imageId} failed, will retry: ${error.message}`);
      await this.images.postponeJob(error.imageId, error.message);
      return true;
    }
  }
}

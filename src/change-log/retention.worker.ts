import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { isDatabaseUnavailable } from '../common/database-errors.js';
import { changeLogConfig, type ChangeLogConfig } from './change-log.config.js';
import { RETENTION_BATCH, RetentionRepository, type RetainedKind } from './retention.repository.js';

/**
 * Deletes the messages older than MESSAGES_RETENTION_DAYS and the versions older than
 * HISTORY_RETENTION_DAYS (docs/change-log-and-subscriptions.md#change-log). Every server process runs one, every
 * CHANGE_LOG_RETENTION_INTERVAL_SECONDS; a round deletes in batches of at most RETENTION_BATCH rows, each
 * its own short transaction under an advisory lock (one replica at a time; the others skip the round),
 * and goes on while a batch was full. Shaped like the images worker: stops between batches on shutdown,
 * waits for the batch under way, logs an unreachable database once. The same code runs on the embedded database.
 */
@Injectable()
export class RetentionWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ChangeLogRetention');
  private timer?: NodeJS.Timeout;
  private round?: Promise<unknown>;
  private stopped = false;
  private databaseDown = false;

  constructor(
    private readonly retention: RetentionRepository,
    @Inject(changeLogConfig.KEY) private readonly config: ChangeLogConfig,
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
      this.round = this.sweep()
        .then(() => this.databaseAnswered())
        .catch((error: unknown) => this.roundFailed(error))
        .finally(() => this.schedule());
    }, this.config.retentionIntervalSeconds * 1000);
    this.timer.unref();
  }

  /** One round: every expired row of both tables, batch by batch. How many rows of each it deleted. */
  async sweep(): Promise<Record<RetainedKind, number>> {
    const deleted = {
      messages: await this.deleteExpired('messages', this.config.messagesRetentionDays),
      versions: await this.deleteExpired('versions', this.config.historyRetentionDays),
    };
    if (deleted.messages + deleted.versions > 0) {
      this.logger.log(`deleted ${deleted.messages} messages and ${deleted.versions} versions past their retention`);
    }
    return deleted;
  }

  private async deleteExpired(kind: RetainedKind, days: number): Promise<number> {
    let total = 0;
    while (!this.stopped) {
      const deleted = await this.retention.deleteExpiredBatch(kind, days);
      if (deleted === undefined) break; // another process holds the lock: it deletes them
      total += deleted;
      if (deleted < RETENTION_BATCH) break;
    }
    return total;
  }

  private roundFailed(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    if (!isDatabaseUnavailable(error)) return this.logger.warn(`retention round failed: ${message}`);
    if (!this.databaseDown) this.logger.warn(`database unavailable, expired messages and versions wait until it answers: ${message}`);
    this.databaseDown = true;
  }

  private databaseAnswered(): void {
    if (!this.databaseDown) return;
    this.databaseDown = false;
    this.logger.log('database answers again, deleting expired messages and versions');
  }
}

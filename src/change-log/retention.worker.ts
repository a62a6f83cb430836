import { Inject, Injectable } from '@nestjs/common';
import { PollingWorker } from '../common/polling-worker.js';
import { changeLogConfig, type ChangeLogConfig } from './change-log.config.js';
import { RETENTION_BATCH, RetentionRepository, type RetainedKind } from './retention.repository.js';

/**
 * Deletes the messages older than MESSAGES_RETENTION_DAYS and the versions older than
 * HISTORY_RETENTION_DAYS (docs/change-log-and-subscriptions.md#change-log). Every server process runs one, every
 * CHANGE_LOG_RETENTION_INTERVAL_SECONDS; a round deletes in batches of at most RETENTION_BATCH rows, each
 * its own short transaction under an advisory lock (one replica at a time; the others skip the round),
 * and goes on while a batch was full; on shutdown it stops between batches. Schedule, stop and the logs of
 * failed rounds are the polling worker's (common/polling-worker.ts). The same code runs on the embedded database.
 */
@Injectable()
export class RetentionWorker extends PollingWorker {
  constructor(
    private readonly retention: RetentionRepository,
    @Inject(changeLogConfig.KEY) private readonly config: ChangeLogConfig,
  ) {
    super({
      name: 'ChangeLogRetention',
      intervalMs: config.retentionIntervalSeconds * 1000,
      cadence: 'after-round',
      round: 'retention',
      waiting: 'expired messages and versions',
      resuming: 'deleting expired messages and versions',
    });
  }

  protected async round(): Promise<void> {
    await this.sweep();
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
}

import { configSection } from '../config/env-reader.js';

/** The change log (docs/change-log-and-subscriptions.md#change-log): how long messages and versions are kept, and how often the expired ones are deleted. */
export interface ChangeLogConfig {
  /** MESSAGES_RETENTION_DAYS: a message is deleted this many days after it was written. */
  messagesRetentionDays: number;
  /** HISTORY_RETENTION_DAYS: a version of the history is deleted this many days after it was written. */
  historyRetentionDays: number;
  /** CHANGE_LOG_RETENTION_INTERVAL_SECONDS: how often each server process deletes the expired rows. */
  retentionIntervalSeconds: number;
}

export const changeLogConfig = configSection('changeLog', (read): ChangeLogConfig => ({
  messagesRetentionDays: read.int('MESSAGES_RETENTION_DAYS', 15, 1, 3650),
  historyRetentionDays: read.int('HISTORY_RETENTION_DAYS', 90, 1, 3650),
  retentionIntervalSeconds: read.int('CHANGE_LOG_RETENTION_INTERVAL_SECONDS', 300, 1, 86_400),
}));

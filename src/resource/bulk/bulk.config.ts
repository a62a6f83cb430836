import { configSection } from '../../config/env-reader.js';

/** Bulk export and import (docs/bulk-and-cli.md). */
export interface BulkConfig {
  /** Largest import body: 413 before anything is written when Content-Length says more; else the import stops there. */
  importMaxBytes: number;
  /**
   * An import's body may take as long as it needs (HTTP_REQUEST_TIMEOUT_MS does not apply to it), but no
   * bytes for this long while the server waits for them end it.
   */
  importIdleTimeoutMs: number;
}

const IMPORT_MAX_BYTES_DEFAULT = 1_073_741_824;

export const bulkConfig = configSection('bulk', (read): BulkConfig => ({
  importMaxBytes: read.int('IMPORT_MAX_BYTES', IMPORT_MAX_BYTES_DEFAULT, 1024, 64 * IMPORT_MAX_BYTES_DEFAULT),
  importIdleTimeoutMs: read.int('IMPORT_IDLE_TIMEOUT_MS', 60_000, 100, 3_600_000),
}));

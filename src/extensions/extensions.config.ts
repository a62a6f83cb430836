import { configSection } from '../config/env-reader.js';
import { TIMEOUT_CEILING_MS } from './extension.dto.js';

/** API extensions (docs/extensions.md); where a destination may be: outbound.config.ts. */
export interface ExtensionsConfig {
  /** `EXTENSIONS_MAX_TIMEOUT_MS`: the largest `timeoutInMs` an extension may have (default 2000, at most 10000). */
  maxTimeoutMs: number;
  /** `EXTENSIONS_REFRESH_MS`: how often each server process looks for extensions changed through another one. */
  refreshMs: number;
  /** `EXTENSIONS_IMPORT_CONCURRENCY`: import lines of one import whose extensions are called at once. */
  importConcurrency: number;
}

export const extensionsConfig = configSection('extensions', (read): ExtensionsConfig => ({
  maxTimeoutMs: read.int('EXTENSIONS_MAX_TIMEOUT_MS', 2_000, 1, TIMEOUT_CEILING_MS),
  refreshMs: read.int('EXTENSIONS_REFRESH_MS', 500, 50, 1_000),
  importConcurrency: read.int('EXTENSIONS_IMPORT_CONCURRENCY', 16, 1, 256),
}));

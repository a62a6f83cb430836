import { BEARER_TOKEN } from '../common/bearer-token.js';
import { configSection } from '../config/env-reader.js';

const LOG_LEVELS = ['error', 'warn', 'log', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const logLevelConfig = configSection('logLevel', (read): LogLevel => read.oneOf('LOG_LEVEL', 'log', LOG_LEVELS));

/** Prometheus metrics at `/metrics` (docs/operations.md#logs-request-ids-and-metrics): off unless METRICS_TOKEN is set. */
export interface MetricsConfig {
  /** The bearer token a scraper sends; absent → `/metrics` does not exist (404). */
  token?: string;
}

export const metricsConfig = configSection('metrics', (read): MetricsConfig => {
  const token = read.string('METRICS_TOKEN');
  // Sendable as a bearer token, and long enough not to be guessed; the value itself is never echoed.
  if (token !== undefined && !(BEARER_TOKEN.test(token) && token.length >= 16 && token.length <= 512)) {
    read.problems.push("METRICS_TOKEN: 16 to 512 characters of A-Z, a-z, 0-9 and -._~+/ ('=' only at the end)");
  }
  return { token };
});

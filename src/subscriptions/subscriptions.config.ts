import { configSection } from '../config/env-reader.js';

/** Subscriptions and their delivery (where a destination may be: outbound.config.ts). */
export interface SubscriptionsConfig {
  /** How long a destination has to accept a notification (10 s by default). */
  deliveryTimeoutMs: number;
  /** How often each dispatcher looks for new messages and due notifications (no work: two cheap queries). */
  pollIntervalMs: number;
  /** How often one dispatcher rescans the last `lookbackMs` of the change log for messages committed late. */
  sweepIntervalMs: number;
  /** How far back the sweep looks: longer than any write transaction may take to commit. */
  lookbackMs: number;
  /** The first retry's delay, doubled per attempt up to `retryMaxMs` (with jitter). */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Notifications one server process delivers at the same time (each of another stream). */
  concurrency: number;
  /** CloudEvents `type` prefix: `<ns>.resource.message.<Type>`, `<ns>.resource.change.<Kind>`. */
  cloudEventsNamespace: string;
}

export const subscriptionsConfig = configSection('subscriptions', (read): SubscriptionsConfig => {
  const namespace = read.string('SUBSCRIPTION_CLOUDEVENTS_NAMESPACE', 'org.resource-api');
  if (!/^[A-Za-z0-9][A-Za-z0-9.-]{0,99}$/.test(namespace)) {
    read.problems.push(`SUBSCRIPTION_CLOUDEVENTS_NAMESPACE: must be a dotted name of letters, digits, '.', '-' (got '${namespace}')`);
  }
  return {
    deliveryTimeoutMs: read.int('SUBSCRIPTION_DELIVERY_TIMEOUT_MS', 10_000, 100, 60_000),
    pollIntervalMs: read.int('SUBSCRIPTION_POLL_INTERVAL_MS', 100, 10, 60_000),
    sweepIntervalMs: read.int('SUBSCRIPTION_SWEEP_INTERVAL_MS', 60_000, 100, 600_000),
    lookbackMs: read.int('SUBSCRIPTION_LOOKBACK_MS', 60_000, 1_000, 86_400_000),
    retryBaseMs: read.int('SUBSCRIPTION_RETRY_BASE_MS', 1_000, 10, 600_000),
    retryMaxMs: read.int('SUBSCRIPTION_RETRY_MAX_MS', 600_000, 10, 86_400_000),
    concurrency: read.int('SUBSCRIPTION_CONCURRENCY', 64, 1, 1_000),
    cloudEventsNamespace: namespace,
  };
});


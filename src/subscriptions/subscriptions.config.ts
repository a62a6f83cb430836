import { isIP } from 'node:net';
import { configSection } from '../config/env-reader.js';

/** Subscriptions and their delivery (CONTRACT.md §12). */
export interface SubscriptionsConfig {
  /** `SUBSCRIPTION_DESTINATION_HOSTS`: host names and CIDRs a destination may name; empty = any but link-local. */
  destinationHosts: string[];
  /** How long a destination has to accept a notification (the contract's 10 s). */
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
  const destinationHosts = read.list('SUBSCRIPTION_DESTINATION_HOSTS');
  for (const entry of destinationHosts) {
    if (!isHostEntry(entry)) read.problems.push(`SUBSCRIPTION_DESTINATION_HOSTS: '${entry}' is neither a host name nor a CIDR (10.0.0.0/8, fd00::/8)`);
  }
  const namespace = read.string('SUBSCRIPTION_CLOUDEVENTS_NAMESPACE', 'org.resource-api');
  if (!/^[A-Za-z0-9][A-Za-z0-9.-]{0,99}$/.test(namespace)) {
    read.problems.push(`SUBSCRIPTION_CLOUDEVENTS_NAMESPACE: must be a dotted name of letters, digits, '.', '-' (got '${namespace}')`);
  }
  return {
    destinationHosts: destinationHosts.map((h) => h.toLowerCase()),
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

function isHostEntry(entry: string): boolean {
  const [address, bits, ...rest] = entry.split('/');
  if (rest.length > 0) return false;
  if (bits !== undefined) {
    const family = isIP(address);
    const n = Number(bits);
    return family !== 0 && Number.isInteger(n) && n >= 0 && n <= (family === 4 ? 32 : 128);
  }
  return isIP(address) !== 0 || /^[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*\.?$/.test(address);
}

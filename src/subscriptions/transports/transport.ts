import type { RenderedNotification } from '../notification-format.js';
import type { DestinationType } from '../subscription.dto.js';

/** A destination as delivery needs it: the stored public part and the credentials the API never shows. */
export interface DestinationTarget {
  type: DestinationType;
  /** As answered: `{type, url}`, `{type, uri (no password), exchange, routingKey?}`, `{type, url, subject}`. */
  destination: Record<string, string>;
  /** `{secret}` of a webhook, `{uri}` (with its password) of a RabbitMQ destination. */
  credentials: Record<string, string>;
}

/**
 * One kind of destination. `deliver` resolves when the destination accepted the notification and throws
 * a `DeliveryError` otherwise; it is called only after the host was allowed (`hosts`).
 */
export interface Transport {
  /** The host names delivery connects to, checked by the outbound policy first. */
  hosts(target: DestinationTarget): string[];
  deliver(target: DestinationTarget, notification: RenderedNotification, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

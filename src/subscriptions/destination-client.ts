import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { DeliveryError } from './delivery-error.js';
import { DestinationHosts } from './destination-hosts.js';
import type { RenderedNotification } from './notification-format.js';
import { subscriptionsConfig, type SubscriptionsConfig } from './subscriptions.config.js';
import { HttpTransport } from './transports/http.transport.js';
import { NatsTransport } from './transports/nats.transport.js';
import { RabbitMqTransport } from './transports/rabbitmq.transport.js';
import type { DestinationTarget, Transport } from './transports/transport.js';
import type { DestinationType } from './subscription.dto.js';

/** How long a host's verdict is reused by deliveries (a create or changeDestination always checks anew). */
const HOST_CHECK_TTL_MS = 30_000;

/**
 * Sends a rendered notification to a destination: checks the destination's hosts first (never a
 * connection to a refused host), then hands it to its transport within the delivery timeout.
 */
@Injectable()
export class DestinationClient implements OnApplicationShutdown {
  private readonly hostPolicy: DestinationHosts;
  private readonly transports: Partial<Record<DestinationType, Transport>>;
  private readonly verdicts = new Map<string, { refusal: string | undefined; until: number }>();

  constructor(@Inject(subscriptionsConfig.KEY) private readonly config: SubscriptionsConfig) {
    this.hostPolicy = new DestinationHosts(config.destinationHosts);
    this.transports = { HTTP: new HttpTransport(this.hostPolicy, config.deliveryTimeoutMs), RabbitMQ: new RabbitMqTransport(), NATS: new NatsTransport() };
  }

  supports(type: DestinationType): boolean {
    return this.transports[type] !== undefined;
  }

  /** Why the destination's hosts may not be connected to, or undefined. */
  async refusal(target: DestinationTarget, fresh = true): Promise<string | undefined> {
    for (const host of this.transport(target).hosts(target)) {
      const cached = this.verdicts.get(host);
      let refusal: string | undefined;
      if (!fresh && cached && cached.until > Date.now()) refusal = cached.refusal;
      else {
        refusal = await this.hostPolicy.refusal(host);
        this.verdicts.set(host, { refusal, until: Date.now() + HOST_CHECK_TTL_MS });
      }
      if (refusal) return refusal;
    }
    return undefined;
  }

  /** Delivers or throws a DeliveryError; a refused host is a configuration error, nothing is sent. */
  async deliver(target: DestinationTarget, notification: RenderedNotification, fresh = false): Promise<void> {
    const refusal = await this.refusal(target, fresh);
    if (refusal) throw new DeliveryError('ConfigurationError', refusal);
    await this.transport(target).deliver(target, notification, this.config.deliveryTimeoutMs);
  }

  private transport(target: DestinationTarget): Transport {
    const transport = this.transports[target.type];
    if (!transport) throw new DeliveryError('ConfigurationError', `${target.type} destinations are not supported by this server`);
    return transport;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(Object.values(this.transports).map((t) => t.close()));
  }
}

import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { HostPolicy } from '../outbound/host-policy.js';
import { HostVerdicts } from '../outbound/host-verdicts.js';
import { OutboundPolicy } from '../outbound/outbound-policy.service.js';
import { DeliveryError } from './delivery-error.js';
import type { RenderedNotification } from './notification-format.js';
import { subscriptionsConfig, type SubscriptionsConfig } from './subscriptions.config.js';
import { HttpTransport } from './transports/http.transport.js';
import { NatsTransport } from './transports/nats.transport.js';
import { RabbitMqTransport } from './transports/rabbitmq.transport.js';
import type { DestinationTarget, Transport } from './transports/transport.js';
import type { DestinationType } from './subscription.dto.js';

/**
 * Sends a rendered notification to a destination: asks the outbound policy about the destination's
 * hosts first (never a connection to a refused host), then hands it to its transport within the
 * delivery timeout. The transports connect through the policy's lookup, to the addresses it checked.
 */
@Injectable()
export class DestinationClient implements OnApplicationShutdown {
  private readonly hosts: HostPolicy;
  private readonly transports: Partial<Record<DestinationType, Transport>>;
  private readonly verdicts: HostVerdicts;

  constructor(
    @Inject(subscriptionsConfig.KEY) private readonly config: SubscriptionsConfig,
    outbound: OutboundPolicy,
  ) {
    this.hosts = outbound.for('project');
    this.verdicts = new HostVerdicts(this.hosts);
    this.transports = { HTTP: new HttpTransport(this.hosts, config.deliveryTimeoutMs), RabbitMQ: new RabbitMqTransport(this.hosts), NATS: new NatsTransport(this.hosts) };
  }

  supports(type: DestinationType): boolean {
    return this.transports[type] !== undefined;
  }

  /** Why the destination's hosts may not be connected to (a DeliveryError), or undefined. */
  async refusal(target: DestinationTarget, fresh = true): Promise<DeliveryError | undefined> {
    for (const host of this.transport(target).hosts(target)) {
      const verdict = await this.verdicts.check(host, fresh);
      if ('refusal' in verdict) return new DeliveryError(verdict.refusal === 'host not allowed' ? 'ConfigurationError' : 'TemporaryError', verdict.refusal, verdict.detail);
    }
    return undefined;
  }

  /** Delivers or throws a DeliveryError; nothing is sent to a refused host. */
  async deliver(target: DestinationTarget, notification: RenderedNotification, fresh = false): Promise<void> {
    const refusal = await this.refusal(target, fresh);
    if (refusal) throw refusal;
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

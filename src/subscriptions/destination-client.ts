import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { HostPolicy, HostVerdict } from '../outbound/host-policy.js';
import { OutboundPolicy } from '../outbound/outbound-policy.service.js';
import { DeliveryError } from './delivery-error.js';
import type { RenderedNotification } from './notification-format.js';
import { subscriptionsConfig, type SubscriptionsConfig } from './subscriptions.config.js';
import { HttpTransport } from './transports/http.transport.js';
import { NatsTransport } from './transports/nats.transport.js';
import { RabbitMqTransport } from './transports/rabbitmq.transport.js';
import type { DestinationTarget, Transport } from './transports/transport.js';
import type { DestinationType } from './subscription.dto.js';

/** How long a host's verdict is reused by deliveries (a create or changeDestination always checks anew). */
const HOST_CHECK_TTL_MS = 30_000;
/** Hosts whose verdicts are kept at most: a bound on the cache, which projects fill by naming hosts. */
const MAX_VERDICTS = 10_000;

/**
 * Sends a rendered notification to a destination: asks the outbound policy about the destination's
 * hosts first (never a connection to a refused host), then hands it to its transport within the
 * delivery timeout. The transports connect through the policy's lookup, to the addresses it checked.
 */
@Injectable()
export class DestinationClient implements OnApplicationShutdown {
  private readonly hosts: HostPolicy;
  private readonly transports: Partial<Record<DestinationType, Transport>>;
  private readonly verdicts = new Map<string, { verdict: HostVerdict; until: number }>();

  constructor(
    @Inject(subscriptionsConfig.KEY) private readonly config: SubscriptionsConfig,
    outbound: OutboundPolicy,
  ) {
    this.hosts = outbound.for('project');
    this.transports = { HTTP: new HttpTransport(this.hosts, config.deliveryTimeoutMs), RabbitMQ: new RabbitMqTransport(this.hosts), NATS: new NatsTransport(this.hosts) };
  }

  supports(type: DestinationType): boolean {
    return this.transports[type] !== undefined;
  }

  /** Why the destination's hosts may not be connected to (a DeliveryError), or undefined. */
  async refusal(target: DestinationTarget, fresh = true): Promise<DeliveryError | undefined> {
    for (const host of this.transport(target).hosts(target)) {
      const cached = this.verdicts.get(host);
      let verdict: HostVerdict;
      if (!fresh && cached && cached.until > Date.now()) verdict = cached.verdict;
      else {
        verdict = await this.hosts.check(host);
        this.remember(host, verdict);
      }
      if ('refusal' in verdict) return new DeliveryError(verdict.refusal === 'host not allowed' ? 'ConfigurationError' : 'TemporaryError', verdict.refusal, verdict.detail);
    }
    return undefined;
  }

  /** Keeps a verdict for HOST_CHECK_TTL_MS; past MAX_VERDICTS hosts the lapsed ones go (each create names a host). */
  private remember(host: string, verdict: HostVerdict): void {
    const now = Date.now();
    if (this.verdicts.size >= MAX_VERDICTS) for (const [key, kept] of this.verdicts) if (kept.until <= now) this.verdicts.delete(key);
    if (this.verdicts.size < MAX_VERDICTS) this.verdicts.set(host, { verdict, until: now + HOST_CHECK_TTL_MS });
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

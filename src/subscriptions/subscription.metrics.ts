import { Inject, Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { METRICS_REGISTRY } from '../observability/metrics-registry.js';
import type { FailureKind } from './delivery-error.js';

/** The dispatcher's Prometheus metrics (docs/operations.md#logs-request-ids-and-metrics). */
@Injectable()
export class SubscriptionMetrics {
  private readonly deliveredTotal: Counter<'transport'>;
  private readonly failedTotal: Counter<'transport' | 'kind'>;
  private readonly latency: Histogram<'transport'>;
  private readonly attempt: Histogram<'transport'>;
  private pendingCount?: number;

  constructor(@Inject(METRICS_REGISTRY) registry: Registry) {
    const registers = [registry];
    this.deliveredTotal = new Counter({ name: 'subscription_notifications_delivered_total', help: 'Notifications the destination accepted, by transport.', labelNames: ['transport'], registers });
    this.failedTotal = new Counter({
      name: 'subscription_notifications_failed_total',
      help: 'Delivery attempts that failed (each is retried), by transport and kind (TemporaryError, ConfigurationError).',
      labelNames: ['transport', 'kind'],
      registers,
    });
    this.latency = new Histogram({
      name: 'subscription_delivery_latency_seconds',
      help: 'From the change being recorded to the destination accepting its notification, by transport.',
      labelNames: ['transport'],
      buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900],
      registers,
    });
    this.attempt = new Histogram({
      name: 'subscription_delivery_attempt_seconds',
      help: 'Duration of a successful delivery attempt (the destination\'s answer time), by transport.',
      labelNames: ['transport'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    const pending = () => this.pendingCount;
    new Gauge({
      name: 'subscription_notifications_pending',
      help: 'Notifications not yet accepted by their destination (all server processes; counted in the database every few seconds by the dispatcher).',
      registers,
      collect() {
        const count = pending();
        if (count === undefined) this.reset();
        else this.set(count);
      },
    });
  }

  /**
   * The pending count, as the dispatcher last counted it (undefined: unknown). Counted by the dispatcher's
   * round rather than at the scrape: a scrape then queries nothing (on the embedded database's one
   * connection it would queue behind the other gauges' queries).
   */
  pending(count: number | undefined): void {
    this.pendingCount = count;
  }

  delivered(transport: string, latencyMs: number, attemptMs: number): void {
    this.deliveredTotal.inc({ transport });
    this.latency.observe({ transport }, Math.max(0, latencyMs) / 1000);
    this.attempt.observe({ transport }, attemptMs / 1000);
  }

  failed(transport: string, kind: FailureKind): void {
    this.failedTotal.inc({ transport, kind });
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { Counter, Gauge, Registry } from 'prom-client';
import { METRICS_REGISTRY } from '../observability/metrics-registry.js';
import { LiveChangesReader } from './live-changes.reader.js';

/** The live streams' Prometheus metrics (docs/operations.md#logs-request-ids-and-metrics). */
@Injectable()
export class LiveMetrics {
  constructor(@Inject(METRICS_REGISTRY) registry: Registry, reader: LiveChangesReader) {
    const registers = [registry];
    new Gauge({ name: 'live_streams_open', help: 'Live streams (text/event-stream) open on this server process.', registers, collect() { this.set(reader.openStreams); } });
    let counted = 0;
    new Counter({
      name: 'live_events_sent_total',
      help: 'Messages sent to live streams by this server process (one per stream that got it).',
      registers,
      collect() {
        this.inc(reader.sent - counted);
        counted = reader.sent;
      },
    });
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { Database } from '../database/database.js';
import { METRICS_REGISTRY } from './metrics-registry.js';

/**
 * The Prometheus metrics of one server process, in a registry of its own: HTTP requests by method,
 * route pattern and status code (count and latency), the database pool, the image job queue, and
 * prom-client's default process metrics (CPU, memory, event loop lag, GC, handles).
 */
@Injectable()
export class MetricsService {
  private readonly requests: Counter<'method' | 'route' | 'status_code'>;
  private readonly duration: Histogram<'method' | 'route' | 'status_code'>;

  constructor(
    db: Database,
    @Inject(METRICS_REGISTRY) readonly registry: Registry,
  ) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    const labelNames = ['method', 'route', 'status_code'] as const;
    this.requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered, by method, route pattern and status code.', labelNames, registers });
    this.duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from the request to the end of its answer, by method, route pattern and status code.',
      labelNames,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    const pool = db.pool;
    new Gauge({ name: 'db_pool_max_connections', help: 'Size of the database connection pool.', registers, collect() { this.set(pool.options.max ?? 10); } });
    new Gauge({ name: 'db_pool_connections', help: 'Open connections of the database pool.', registers, collect() { this.set(pool.totalCount); } });
    new Gauge({ name: 'db_pool_idle_connections', help: 'Open connections of the pool not in use.', registers, collect() { this.set(pool.idleCount); } });
    new Gauge({ name: 'db_pool_waiting_clients', help: 'Queries waiting for a connection of the pool.', registers, collect() { this.set(pool.waitingCount); } });
    new Gauge({
      name: 'image_jobs_pending',
      help: 'Images accepted with 202 and not attached yet (all server processes; counted at each scrape).',
      registers,
      async collect() {
        // While the database is unreachable the scrape still answers, without this value.
        const row = await db.one<{ count: number }>('SELECT count(*)::int AS count FROM image_job').catch(() => undefined);
        if (row) this.set(row.count);
        else this.reset();
      },
    });
  }

  /** One answered request; `ms` is Fastify's elapsed time of the reply. */
  observe(method: string, route: string, statusCode: number, ms: number): void {
    const labels = { method, route, status_code: String(statusCode) };
    this.requests.inc(labels);
    this.duration.observe(labels, ms / 1000);
  }
}

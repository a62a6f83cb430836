import { Inject, Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { Database } from '../database/database.js';
import type { ReadReplicas, ReplicaStatus } from '../database/read-replicas.js';
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
    if (db.replicas) this.replicaMetrics(db.replicas, registers);
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

  /**
   * With DATABASE_REPLICA_URLS: each replica's pool, state and lag (labelled `replica="host:port/database"`),
   * and which pool answered the list reads (`pool="primary"` or the replica's name).
   */
  private replicaMetrics(replicas: ReadReplicas, registers: Registry[]): void {
    const labelNames = ['replica'] as const;
    const pools = (pick: (status: ReplicaStatus) => number) =>
      function (this: Gauge<'replica'>) {
        for (const status of replicas.status()) this.set({ replica: status.name }, pick(status));
      };
    new Gauge({ name: 'db_replica_pool_max_connections', help: 'Size of a read replica\'s connection pool.', labelNames, registers, collect: pools((s) => s.pool.options.max ?? 10) });
    new Gauge({ name: 'db_replica_pool_connections', help: 'Open connections of a read replica\'s pool.', labelNames, registers, collect: pools((s) => s.pool.totalCount) });
    new Gauge({ name: 'db_replica_pool_idle_connections', help: 'Open connections of a read replica\'s pool not in use.', labelNames, registers, collect: pools((s) => s.pool.idleCount) });
    new Gauge({ name: 'db_replica_pool_waiting_clients', help: 'Queries waiting for a connection of a read replica\'s pool.', labelNames, registers, collect: pools((s) => s.pool.waitingCount) });
    new Gauge({
      name: 'db_replica_up',
      help: 'Whether a read replica answers the list reads (1): reachable, a standby, and behind by at most DATABASE_REPLICA_MAX_LAG_MS.',
      labelNames,
      registers,
      collect: pools((s) => (s.state === 'up' ? 1 : 0)),
    });
    new Gauge({
      name: 'db_replica_lag_seconds',
      help: 'How far behind the primary a read replica is at most (absent while unknown: unreachable, or not checked yet).',
      labelNames,
      registers,
      collect() {
        this.reset();
        for (const s of replicas.status()) if (s.lagMs !== null) this.set({ replica: s.name }, s.lagMs / 1000);
      },
    });
    new Counter({
      name: 'db_list_reads_total',
      help: 'Statements of the read-only list endpoints (query, exists, sorted-query-parameters, search), by the pool that answered them.',
      labelNames: ['pool'],
      registers,
      collect() {
        this.reset();
        this.inc({ pool: 'primary' }, replicas.primaryReads);
        for (const s of replicas.status()) this.inc({ pool: s.name }, s.reads);
      },
    });
    new Counter({
      name: 'db_replica_retries_total',
      help: 'List reads that failed on a read replica (unreachable, cancelled by a conflict with its replay, or behind a migration) and were answered by the primary.',
      labelNames,
      registers,
      collect() {
        this.reset();
        for (const s of replicas.status()) this.inc({ replica: s.name }, s.retries);
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

import { type DynamicModule, Module } from '@nestjs/common';
import { Registry } from 'prom-client';
import { METRICS_REGISTRY } from './metrics-registry.js';
import type { MetricsConfig } from './observability.config.js';
import { MetricsController } from './metrics.controller.js';
import { MetricsService } from './metrics.service.js';
import { MetricsTokenGuard } from './metrics-token.guard.js';

/**
 * `/metrics` and what it reports, only with METRICS_TOKEN set: otherwise the route does not exist (404).
 * The registry is global either way: features register their metrics in it (METRICS_REGISTRY).
 */
@Module({})
export class MetricsModule {
  static forRoot(config: MetricsConfig): DynamicModule {
    const registry = { provide: METRICS_REGISTRY, useValue: new Registry() };
    if (!config.token) return { module: MetricsModule, global: true, providers: [registry], exports: [METRICS_REGISTRY] };
    return {
      module: MetricsModule,
      global: true,
      controllers: [MetricsController],
      providers: [registry, MetricsService, MetricsTokenGuard],
      exports: [MetricsService, METRICS_REGISTRY],
    };
  }
}

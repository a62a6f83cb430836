import { DynamicModule, Module } from '@nestjs/common';
import type { MetricsConfig } from './observability.config.js';
import { MetricsController } from './metrics.controller.js';
import { MetricsService } from './metrics.service.js';
import { MetricsTokenGuard } from './metrics-token.guard.js';

/** `/metrics` and what it reports, only with METRICS_TOKEN set: otherwise the route does not exist (404). */
@Module({})
export class MetricsModule {
  static forRoot(config: MetricsConfig): DynamicModule {
    if (!config.token) return { module: MetricsModule };
    return { module: MetricsModule, controllers: [MetricsController], providers: [MetricsService, MetricsTokenGuard], exports: [MetricsService] };
  }
}

import { Controller, Get, Header, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { prometheusContentType } from 'prom-client';
import { Public } from '../auth/access.decorator.js';
import { MetricsService } from './metrics.service.js';
import { MetricsTokenGuard } from './metrics-token.guard.js';

/** Prometheus scrape endpoint: no OAuth scope, its own token (docs/operations.md#logs-request-ids-and-metrics); not part of the API document. */
@ApiExcludeController()
@Public()
@UseGuards(MetricsTokenGuard)
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @Header('Content-Type', prometheusContentType)
  @Header('Cache-Control', 'no-store')
  scrapeMetrics(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}

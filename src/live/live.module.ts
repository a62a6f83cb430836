import { Module } from '@nestjs/common';
import { LiveChangesController } from './live-changes.controller.js';
import { LiveChangesReader } from './live-changes.reader.js';
import { LiveChangesRepository } from './live-changes.repository.js';
import { LiveChangesService } from './live-changes.service.js';
import { LiveMetrics } from './live.metrics.js';

/** Live changes: the change log as Server-Sent Events (docs/live-changes.md). */
@Module({
  controllers: [LiveChangesController],
  providers: [LiveChangesRepository, LiveChangesReader, LiveChangesService, LiveMetrics],
})
export class LiveModule {}

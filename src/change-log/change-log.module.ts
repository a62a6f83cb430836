import { Module } from '@nestjs/common';
import { MessagesController } from './messages.controller.js';
import { MessagesRepository } from './messages.repository.js';
import { MessagesService } from './messages.service.js';
import { RetentionRepository } from './retention.repository.js';
import { RetentionWorker } from './retention.worker.js';
import { VersionsController } from './versions.controller.js';
import { VersionsRepository } from './versions.repository.js';
import { VersionsService } from './versions.service.js';

/**
 * The read side of the change log (docs/change-log-and-subscriptions.md#change-log): messages, the version history of resources, and the
 * retention job. The rows are written by the writes themselves (resource and images repositories), in
 * the writing transaction.
 */
@Module({
  controllers: [MessagesController, VersionsController],
  providers: [MessagesService, MessagesRepository, VersionsService, VersionsRepository, RetentionRepository, RetentionWorker],
  exports: [MessagesService, VersionsService],
})
export class ChangeLogModule {}

import { Module } from '@nestjs/common';
import { MessagesController } from './messages.controller.js';
import { MessagesRepository } from './messages.repository.js';
import { MessagesService } from './messages.service.js';
import { VersionsController } from './versions.controller.js';
import { VersionsRepository } from './versions.repository.js';
import { VersionsService } from './versions.service.js';

/**
 * The read side of the change log (CONTRACT.md §11): messages and the version history of resources. The rows are written by the writes themselves (resource and images repositories), in
 * the writing transaction.
 */
@Module({
  controllers: [MessagesController, VersionsController],
  providers: [MessagesService, MessagesRepository, VersionsService, VersionsRepository],
})
export class ChangeLogModule {}

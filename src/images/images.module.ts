import { Module } from '@nestjs/common';
import { DatabaseImageStore } from './database-image-store.js';
import { IMAGE_STORE } from './image-store.js';
import { ImagesController } from './images.controller.js';
import { ImagesRepository } from './images.repository.js';
import { ImagesService } from './images.service.js';
import { ImagesWorker } from './images.worker.js';

/** Image upload, storage, background attach and serving (docs/rules.md#images). */
@Module({
  controllers: [ImagesController],
  providers: [ImagesRepository, ImagesService, ImagesWorker, { provide: IMAGE_STORE, useClass: DatabaseImageStore }],
})
export class ImagesModule {}

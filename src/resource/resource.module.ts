import { Module } from '@nestjs/common';
import { ResourceController } from './resource.controller.js';
import { ResourceItemController } from './resource-item.controller.js';
import { ResourceRepository } from './resource.repository.js';
import { ResourceService } from './resource.service.js';

@Module({
  controllers: [ResourceController, ResourceItemController],
  providers: [ResourceService, ResourceRepository],
  exports: [ResourceService, ResourceRepository],
})
export class ResourceModule {}

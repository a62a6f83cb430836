import { Module } from '@nestjs/common';
import { ResourceController } from './resource.controller.js';
import { ResourceItemController } from './resource-item.controller.js';
import { ResourceRepository } from './resource.repository.js';
import { ResourceService } from './resource.service.js';
import { ResourceQueryController } from './resource-query.controller.js';
import { ResourceQueryRepository } from './resource-query.repository.js';
import { ResourceQueryService } from './resource-query.service.js';

@Module({
  controllers: [ResourceController, ResourceItemController, ResourceQueryController],
  providers: [ResourceService, ResourceRepository, ResourceQueryService, ResourceQueryRepository],
  exports: [ResourceService, ResourceRepository],
})
export class ResourceModule {}

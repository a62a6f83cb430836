import { Module } from '@nestjs/common';
import { ExtensionsModule } from '../extensions/extensions.module.js';
import { ResourceController } from './resource.controller.js';
import { ResourceItemController } from './resource-item.controller.js';
import { ResourceRepository } from './resource.repository.js';
import { ResourceService } from './resource.service.js';
import { ExtendedWrites } from './extended-writes.js';
import { ResourceQueryController } from './resource-query.controller.js';
import { ResourceQueryRepository } from './resource-query.repository.js';
import { ResourceQueryService } from './resource-query.service.js';
import { BulkController } from './bulk/bulk.controller.js';
import { BulkRepository } from './bulk/bulk.repository.js';
import { ExportService } from './bulk/export.service.js';
import { ImportService } from './bulk/import.service.js';

@Module({
  imports: [ExtensionsModule],
  controllers: [ResourceController, ResourceItemController, ResourceQueryController, BulkController],
  providers: [ResourceService, ExtendedWrites, ResourceRepository, ResourceQueryService, ResourceQueryRepository, BulkRepository, ExportService, ImportService],
  exports: [ResourceService, ResourceRepository, ResourceQueryService],
})
export class ResourceModule {}

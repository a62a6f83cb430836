import { Module } from '@nestjs/common';
import { ResourceItemController } from './resource-item.controller.js';
import { ResourceModule } from './resource.module.js';

/**
 * Holds only the `/{projectKey}/resource/{id}` routes. AppModule imports it last, so Nest registers
 * these routes after every static path under /resource, which then win for every method.
 */
@Module({
  imports: [ResourceModule],
  controllers: [ResourceItemController],
})
export class ResourceItemModule {}

import { Module } from '@nestjs/common';
import { ChangeLogModule } from '../change-log/change-log.module.js';
import { ResourceModule } from '../resource/resource.module.js';
import { GraphqlController } from './graphql.controller.js';
import { GraphqlService } from './graphql.service.js';

/** GraphQL over the resources (docs/graphql.md): a second door onto the services of the resource and change-log modules. */
@Module({
  imports: [ResourceModule, ChangeLogModule],
  controllers: [GraphqlController],
  providers: [GraphqlService],
})
export class GraphqlModule {}

import { Module } from '@nestjs/common';
import { OutboundModule } from '../outbound/outbound.module.js';
import { ActionStoreRepository } from './action-store.repository.js';
import { BackendClient } from './backend-client.js';
import { NamespaceActionsController } from './namespace-actions.controller.js';
import { NamespaceActionsService } from './namespace-actions.service.js';

/** The namespace-action endpoints (docs/rules.md#namespace-actions): declared actions, their store and backends. */
@Module({
  imports: [OutboundModule],
  controllers: [NamespaceActionsController],
  providers: [NamespaceActionsService, ActionStoreRepository, BackendClient],
})
export class NamespaceActionsModule {}

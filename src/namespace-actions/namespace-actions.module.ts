import { Module } from '@nestjs/common';
import { ComplexPathModule } from '../complex-path/complex-path.module.js';
import { ActionStoreRepository } from './action-store.repository.js';
import { BackendClient } from './backend-client.js';
import { NamespaceActionsController } from './namespace-actions.controller.js';
import { NamespaceActionsService } from './namespace-actions.service.js';

/**
 * The namespace-action endpoints (spec §4.6, CONTRACT.md §8): declared actions, their store and
 * backends. Brings the complex-path module (spec §4.4) along, so that the two "other endpoints" of
 * CONTRACT.md §8 are wired by the one import in AppModule.
 */
@Module({
  imports: [ComplexPathModule],
  controllers: [NamespaceActionsController],
  providers: [NamespaceActionsService, ActionStoreRepository, BackendClient],
})
export class NamespaceActionsModule {}

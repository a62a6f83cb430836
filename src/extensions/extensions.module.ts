import { Module } from '@nestjs/common';
import { OutboundModule } from '../outbound/outbound.module.js';
import { ExtensionCaller } from './extension-caller.js';
import { ExtensionGate } from './extension-gate.js';
import { ExtensionRegistry } from './extension-registry.js';
import { ExtensionsController } from './extensions.controller.js';
import { ExtensionsRepository } from './extensions.repository.js';
import { ExtensionsService } from './extensions.service.js';

/** API extensions: their API, and the calls before resource writes (docs/extensions.md). */
@Module({
  imports: [OutboundModule],
  controllers: [ExtensionsController],
  providers: [ExtensionsRepository, ExtensionsService, ExtensionRegistry, ExtensionCaller, ExtensionGate],
  exports: [ExtensionGate],
})
export class ExtensionsModule {}

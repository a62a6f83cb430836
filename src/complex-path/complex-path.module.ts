import { Module } from '@nestjs/common';
import { ComplexPathController } from './complex-path.controller.js';
import { ComplexPathRepository } from './complex-path.repository.js';
import { ComplexPathService } from './complex-path.service.js';

/** POST /{projectKey}/resource/artificially-complex/path/uri-parameter-one={uriParameterOne}/{uriParameterTwo} (docs/api-guide.md#complex-path). */
@Module({
  controllers: [ComplexPathController],
  providers: [ComplexPathService, ComplexPathRepository],
})
export class ComplexPathModule {}

import { ApiPropertyOptional } from '@nestjs/swagger';
import { Optional, WholeNumber } from '../common/validation/decorators.js';

/** Query of DELETE /resource/{id}. */
export class DeleteResourceQueryDto {
  @Optional()
  @WholeNumber(1, 2_147_483_647)
  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'Expected version (409 on mismatch).' })
  version?: number;
}

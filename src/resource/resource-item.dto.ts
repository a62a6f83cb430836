import { ApiPropertyOptional } from '@nestjs/swagger';
import { Optional, QueryString, WholeNumber } from '../common/validation/decorators.js';

/** Query of DELETE /resource/{id}. */
export class DeleteResourceQueryDto {
  @Optional()
  @WholeNumber(1, 2_147_483_647)
  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'Expected version (409 on mismatch).' })
  version?: number;
}

/** Query of GET /resource/{id}: the API description's two optional parameters, accepted as text; they change nothing. */
export class GetResourceQueryDto {
  @Optional()
  @QueryString()
  @ApiPropertyOptional({ type: 'string' })
  optionalQueryParameter?: string;

  @Optional()
  @QueryString()
  @ApiPropertyOptional({ type: 'string' })
  secondOptionalQueryParameter?: string;
}

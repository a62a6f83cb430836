import { ApiPropertyOptional } from '@nestjs/swagger';
import { Optional, WholeNumber } from './validation/decorators.js';

/** Paging of a list: `limit` 0–500 (default 20), `offset` 0–10,000 (default 0), whole numbers. */
export class PageQueryDto {
  @Optional()
  @WholeNumber(0, 500)
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 500, default: 20 })
  limit: number = 20;

  @Optional()
  @WholeNumber(0, 10_000)
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 10_000, default: 0 })
  offset: number = 0;
}

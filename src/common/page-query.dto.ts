import { ApiPropertyOptional } from '@nestjs/swagger';
import { Optional, WholeNumber } from './validation/decorators.js';

/** Paging bounds of every list (docs/rules.md#limits). */
const PAGE_LIMITS = { defaultLimit: 20, maxLimit: 500, maxOffset: 10_000 } as const;

/** Paging of a list: `limit` 0–500 (default 20), `offset` 0–10,000 (default 0), whole numbers. */
export class PageQueryDto {
  @Optional()
  @WholeNumber(0, PAGE_LIMITS.maxLimit)
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: PAGE_LIMITS.maxLimit,
    default: PAGE_LIMITS.defaultLimit,
    description: 'Page size; a whole number (`5.0` counts, `5.5` does not).',
  })
  limit: number = PAGE_LIMITS.defaultLimit;

  @Optional()
  @WholeNumber(0, PAGE_LIMITS.maxOffset)
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: PAGE_LIMITS.maxOffset, default: 0, description: 'Results to skip; a whole number.' })
  offset: number = 0;
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Optional, Repeatable } from '../../common/validation/decorators.js';
import { ErrorDetailDto } from '../../common/error.dto.js';
import { AtMost, PREDICATE_LIMITS } from '../../query-language/predicate-query.dto.js';
import { WHERE_LIMITS } from '../../query-language/where-parser.js';

/** Media type of both bulk operations' streams: one JSON document per line. */
export const NDJSON = 'application/x-ndjson';

/** Query parameters of GET /{projectKey}/resource/export: `where` (and `var.<name>`) as in sorted-query-parameters. */
export class ExportQueryDto {
  @Optional()
  @Repeatable()
  @AtMost(PREDICATE_LIMITS.maxWhere)
  @ApiPropertyOptional({
    type: [String],
    description:
      'Repeatable; ANDed. The query-predicate language of `GET /{projectKey}/resource/sorted-query-parameters` over the same fields, ' +
      `with \`var.<name>\` variables. At most ${PREDICATE_LIMITS.maxWhere} predicates of at most ${WHERE_LIMITS.length} characters each. Absent: every resource.`,
    example: ['version >= 1'],
  })
  where?: string[];
}

/** The last line of an export. */
export class ExportSummaryDto {
  @ApiProperty({ type: 'object', properties: { count: { type: 'integer', description: 'Resources exported.' } }, required: ['count'] })
  summary: { count: number };
}

/** One line of an import's answer, for the body's line `line`. */
export class ImportResultDto {
  @ApiProperty({ type: 'integer', minimum: 1, description: '1-based line number in the body (blank lines count, and have no result).' })
  line: number;

  @ApiProperty({
    enum: [201, 200, 400, 409, 500, 503],
    description: '201 created, 200 overwritten or unchanged, 400 invalid line, 409 version mismatch; 503 the database was unavailable, 500 an internal error (the line was not written; send it again).',
  })
  status: number;

  @ApiPropertyOptional({ format: 'uuid', description: 'The resource (201, 200).' })
  id?: string;

  @ApiPropertyOptional({ type: 'integer', description: 'Its version after the line (201, 200).' })
  version?: number;

  @ApiPropertyOptional({ enum: [true], description: 'The line equals the stored resource: nothing written, no new version, no message.' })
  unchanged?: boolean;

  @ApiPropertyOptional({ type: () => [ErrorDetailDto], description: 'Why the line was refused (400, 409: with `currentVersion`), as in an error answer.' })
  errors?: ErrorDetailDto[];
}

class ImportCountsDto {
  @ApiProperty({ type: 'integer', description: 'Non-blank lines read.' }) lines: number;
  @ApiProperty({ type: 'integer' }) created: number;
  @ApiProperty({ type: 'integer' }) updated: number;
  @ApiProperty({ type: 'integer' }) unchanged: number;
  @ApiProperty({ type: 'integer' }) failed: number;
}

/** The last line of an import that read its whole body. */
export class ImportSummaryDto {
  @ApiProperty({ type: () => ImportCountsDto }) summary: ImportCountsDto;
}

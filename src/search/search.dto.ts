import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsOptional } from 'class-validator';
import { QueryBoolean, Repeatable, WholeNumber } from '../common/validation/decorators.js';
import { ObjectTestTypeDto } from '../resource/resource.dto.js';
import { RESOURCE_CATALOGUE } from '../query-language/resource.catalogue.js';

/** Limits on the repeatable parameters (each expression's own limits are in the parser). */
export const SEARCH_LIMITS = { limit: 500, defaultLimit: 20, offset: 10000, expressions: 50, facets: 20, sorts: 10, texts: 10 };

const FILTER_SYNTAX =
  '`<path>:<values>`: values `"a","b"`, numbers, `range (1 to 5), (10 to *)` (both ends included), `missing`, `exists`, `true`/`false` (published); ' +
  'any value matches. Paths: objectTypeProperty.<array> (arrayOfIntExample, arrayOfUniqueIntExample, arrayOfTwonumbersExample, arrayOfFloatExample, ' +
  'arrayOfNumberNoDefaultsExample, arrayOfStringExample), objectTypeProperty.arrayOfObjectType.integerExample, ' +
  'objectTypeProperty.arrayOfObjectType.integerExampleInt32, key, published, version. Repeatable, ANDed.';

/** The typed query parameters of GET /{projectKey}/resource/searchApiPattern (`text.<lang>` are read apart). */
export class SearchQueryDto {
  @ApiPropertyOptional({ type: 'boolean', default: false, description: 'Tolerate typos: each word also matches words within its Levenshtein distance.' })
  @IsOptional()
  @QueryBoolean()
  fuzzy?: boolean;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 2,
    description:
      'Edit distance when fuzzy=true. Default by length of the text: 0 for 1–2 characters, 1 for 3–5, 2 for more; a higher value is refused (400). ' +
      'Each word gets the smaller of this and the default for its own length. Validated and ignored without fuzzy=true.',
  })
  @IsOptional()
  @WholeNumber(0, 2)
  fuzzyLevel?: number;

  @ApiPropertyOptional({ type: 'boolean', default: false, description: 'false: published resources only; true: all resources.' })
  @IsOptional()
  @QueryBoolean()
  staged?: boolean;

  @ApiPropertyOptional({ type: [String], description: `Filters the results only, after the facets are counted. ${FILTER_SYNTAX}` })
  @IsOptional()
  @Repeatable()
  @ArrayMaxSize(SEARCH_LIMITS.expressions)
  filter?: string[];

  @ApiPropertyOptional({ name: 'filter.query', type: [String], description: `Filters results and facets. ${FILTER_SYNTAX}` })
  @IsOptional()
  @Repeatable()
  @ArrayMaxSize(SEARCH_LIMITS.expressions)
  'filter.query'?: string[];

  @ApiPropertyOptional({ name: 'filter.facets', type: [String], description: `Filters the facets only. ${FILTER_SYNTAX}` })
  @IsOptional()
  @Repeatable()
  @ArrayMaxSize(SEARCH_LIMITS.expressions)
  'filter.facets'?: string[];

  @ApiPropertyOptional({
    type: [String],
    description:
      'Repeatable. Terms facet `<path>`; range facet `<path>:range (0 to 10), (10 to *)` (from ≤ v < to); filtered facet `<path>:<values>`; ' +
      'then optionally `counting resources` and `as <alias>`. Keyed in `facets` by the alias, else by the parameter text.',
  })
  @IsOptional()
  @Repeatable()
  @ArrayMaxSize(SEARCH_LIMITS.facets)
  facet?: string[];

  @ApiPropertyOptional({
    type: [String],
    description:
      `Repeatable: \`<field> asc|desc\`; fields score (relevance), ${[...RESOURCE_CATALOGUE.sortFields.keys()].join(', ')}. ` +
      `Default: score desc with a text, else createdAt asc; ties by ${RESOURCE_CATALOGUE.id.name} asc.`,
  })
  @IsOptional()
  @Repeatable()
  @ArrayMaxSize(SEARCH_LIMITS.sorts)
  sort?: string[];

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: SEARCH_LIMITS.limit, default: SEARCH_LIMITS.defaultLimit })
  @IsOptional()
  @WholeNumber(0, SEARCH_LIMITS.limit)
  limit?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: SEARCH_LIMITS.offset, default: 0 })
  @IsOptional()
  @WholeNumber(0, SEARCH_LIMITS.offset)
  offset?: number;
}

/* ------------------------------------------------------------------ response (documentation) */

export class TermDto {
  @ApiProperty({ description: 'The value: a string, a number (exact, 64-bit included) or a boolean, as the path holds it.', oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] })
  term: unknown;
  @ApiProperty({ type: 'integer', description: 'Matching values (array elements).' }) count: number;
  @ApiPropertyOptional({ type: 'integer', description: 'Resources holding the term (with `counting resources`).' }) resourceCount?: number;
}

export class TermsFacetResultDto {
  @ApiProperty({ enum: ['terms'] }) type: 'terms';
  @ApiProperty({ enum: ['text', 'number', 'boolean'] }) dataType: string;
  @ApiProperty({ type: 'integer', description: 'Resources without any value at the path.' }) missing: number;
  @ApiProperty({ type: 'integer', description: 'Values counted (sum of all term counts, `other` included).' }) total: number;
  @ApiProperty({ type: 'integer', description: 'Values of terms beyond the first 200.' }) other: number;
  @ApiProperty({ type: [TermDto], description: 'At most 200, by count desc then term.' }) terms: TermDto[];
}

export class RangeDto {
  @ApiProperty({ type: 'number', nullable: true, description: 'Lower end (included); null for `*`.' }) from: number | null;
  @ApiProperty({ description: 'The lower end as written, or `*`.' }) fromStr: string;
  @ApiProperty({ type: 'number', nullable: true, description: 'Upper end (excluded); null for `*`.' }) to: number | null;
  @ApiProperty({ description: 'The upper end as written, or `*`.' }) toStr: string;
  @ApiProperty({ type: 'integer', description: 'Values with from ≤ v < to.' }) count: number;
  @ApiPropertyOptional({ type: 'integer', description: 'Resources with such a value (with `counting resources`).' }) resourceCount?: number;
  @ApiProperty({ type: 'number', description: 'Sum of those values (exact).' }) total: number;
  @ApiProperty({ type: 'number', nullable: true, description: 'null when count is 0.' }) min: number | null;
  @ApiProperty({ type: 'number', nullable: true }) max: number | null;
  @ApiProperty({ type: 'number', nullable: true }) mean: number | null;
}

export class RangeFacetResultDto {
  @ApiProperty({ enum: ['range'] }) type: 'range';
  @ApiProperty({ enum: ['number'] }) dataType: string;
  @ApiProperty({ type: [RangeDto] }) ranges: RangeDto[];
}

export class FilterFacetResultDto {
  @ApiProperty({ enum: ['filter'] }) type: 'filter';
  @ApiProperty({ type: 'integer', description: 'Matching values; a resource matching `missing` counts once.' }) count: number;
  @ApiPropertyOptional({ type: 'integer', description: 'Matching resources (with `counting resources`).' }) resourceCount?: number;
}

export class SearchResponseDto {
  @ApiProperty({ type: 'integer' }) limit: number;
  @ApiProperty({ type: 'integer' }) offset: number;
  @ApiProperty({ type: 'integer', description: 'Results on this page.' }) count: number;
  @ApiProperty({ type: 'integer', description: 'All matching resources.' }) total: number;
  @ApiProperty({ type: [ObjectTestTypeDto], description: 'Resources as GET by id answers them.' }) results: ObjectTestTypeDto[];
  @ApiProperty({
    type: 'object',
    description: 'One entry per facet, keyed by its alias or its expression.',
    additionalProperties: { oneOf: [{ $ref: '#/components/schemas/TermsFacetResultDto' }, { $ref: '#/components/schemas/RangeFacetResultDto' }, { $ref: '#/components/schemas/FilterFacetResultDto' }] },
  })
  facets: Record<string, TermsFacetResultDto | RangeFacetResultDto | FilterFacetResultDto>;
}

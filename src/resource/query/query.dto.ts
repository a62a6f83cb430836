import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Optional, Repeatable } from '../../common/validation/decorators.js';
import { ObjectTestTypeDto } from '../resource.dto.js';
import { RESOURCE_CATALOGUE } from '../../query-language/resource.catalogue.js';
import { expandError } from '../../query-language/sort-expand.js';
import { AtMost, EachValue, PredicateQueryDto } from '../../query-language/predicate-query.dto.js';

/** How many `expand` paths one query may name. */
export const MAX_EXPAND = 10;

// The page's "Try it out" sends this as is: it matches the POST example's resource and needs no variable (Swagger UI cannot name `var.<name>`).
const WHERE_EXAMPLE = 'objectTypeProperty(arrayOfObjectType(integerExample >= 1 and integerExampleInt32 = 2)) and version >= 1';

/**
 * The query parameters of GET /{projectKey}/resource/sorted-query-parameters (docs/rules.md#query-language): the
 * predicate query's over the resource catalogue, and `expand`.
 */
export class ResourceQueryDto extends PredicateQueryDto(RESOURCE_CATALOGUE, {
  whereFields:
    'Fields: id, key, version, createdAt, lastModifiedAt, published, someProperty, secondPropertyToUpdate, and `objectTypeProperty(…)` with its ' +
    'seven arrays (a comparison on an array matches when any element does) and `arrayOfObjectType(integerExample > 5 and integerExampleInt32 = 1)` ' +
    '(one element satisfies all of it).',
  whereExample: WHERE_EXAMPLE,
  defaultOrder: '`id asc`',
  sortExample: 'version desc',
}) {
  @Optional()
  @Repeatable()
  @AtMost(MAX_EXPAND)
  @EachValue('expandSyntax', expandError)
  @ApiPropertyOptional({
    type: [String],
    description: `Repeatable: dotted identifiers, each optionally followed by \`[*]\`. Checked for syntax only: this model has no references to expand. At most ${MAX_EXPAND}.`,
    example: ['objectTypeProperty.arrayOfObjectType[*]'],
  })
  expand?: string[];
}

/** The answer: a page of resources, exactly as GET by id shows them. */
export class ResourcePagedQueryResponseDto {
  @ApiProperty({ type: 'integer', example: 20 }) limit: number;
  @ApiProperty({ type: 'integer', example: 0 }) offset: number;
  @ApiProperty({ type: 'integer', description: 'Number of results in this page.', example: 1 }) count: number;
  @ApiPropertyOptional({ type: 'integer', description: 'Number of matches; absent with withTotal=false.', example: 1 }) total?: number;
  @ApiProperty({ type: () => [ObjectTestTypeDto] }) results: ObjectTestTypeDto[];
}

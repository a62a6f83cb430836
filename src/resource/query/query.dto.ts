import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Optional, Repeatable } from '../../common/validation/decorators.js';
import { ObjectTestTypeDto } from '../resource.dto.js';
import type { ObjectArraySpec } from '../../query-language/catalogue.js';
import { OBJECT_TYPE_PROPERTY, RESOURCE_CATALOGUE } from '../../query-language/resource.catalogue.js';
import { expandError } from '../../query-language/sort-expand.js';
import { AtMost, EachValue, PredicateQueryDto } from '../../query-language/predicate-query.dto.js';

/** How many `expand` paths one query may name. */
export const MAX_EXPAND = 10;

// The page's "Try it out" sends this as is: it matches the POST example's resource and needs no variable (Swagger UI cannot name `var.<name>`).
const WHERE_EXAMPLE = 'objectTypeProperty(arrayOfObjectType(integerExample >= 1 and integerExampleInt32 = 2)) and version >= 1';

/** The document's array of objects, the example of a predicate on one element. */
const OBJECT_ARRAY = OBJECT_TYPE_PROPERTY.members.find((m): m is ObjectArraySpec => m.kind === 'objectArray')!;

/**
 * The query parameters of GET /{projectKey}/resource/sorted-query-parameters (docs/rules.md#query-language): the
 * predicate query's over the resource catalogue, and `expand`.
 */
export class ResourceQueryDto extends PredicateQueryDto(RESOURCE_CATALOGUE, {
  whereFields:
    `Fields: ${RESOURCE_CATALOGUE.where.leaves.join(', ')}, and \`${OBJECT_TYPE_PROPERTY.name}(…)\` with its ${OBJECT_TYPE_PROPERTY.members.length} ` +
    `arrays (a comparison on an array matches when any element does) and \`${OBJECT_ARRAY.name}(${OBJECT_ARRAY.members.map((m) => `${m.name} = 1`).join(' and ')})\` ` +
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

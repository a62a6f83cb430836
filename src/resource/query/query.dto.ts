import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiQuery } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Optional, QueryBoolean, Repeatable, rule, WholeNumber } from '../../common/validation/decorators.js';
import { ObjectTestTypeDto } from '../resource.dto.js';
import { RESOURCE_CATALOGUE } from '../../query-language/resource.catalogue.js';
import { expandError, sortError } from '../../query-language/sort-expand.js';
import type { Variables } from '../../query-language/where-sql.js';
import { WHERE_LIMITS } from '../../query-language/where-parser.js';

/** Paging bounds and parameter counts of the query endpoint (CONTRACT.md §5, README "Limits"). */
export const QUERY_LIMITS = { defaultLimit: 20, maxLimit: 500, maxOffset: 10_000, maxWhere: 10, maxSort: 10, maxExpand: 10 } as const;

/** Every element of a repeatable parameter satisfies `check` (the first failure is reported). */
const EachValue = (name: string, check: (value: string) => string | undefined): PropertyDecorator =>
  rule(name, (value) => {
    if (!Array.isArray(value)) return undefined; // Repeatable() reports it
    for (const item of value) {
      const reason = typeof item === 'string' ? check(item) : undefined;
      if (reason !== undefined) return reason;
    }
    return undefined;
  });

const AtMost = (max: number): PropertyDecorator =>
  rule('repeatedAtMost', (value) => (Array.isArray(value) && value.length > max ? `may be given at most ${max} times` : undefined));

// The page's "Try it out" sends this as is: it matches the POST example's resource and needs no variable (Swagger UI cannot name `var.<name>`).
const WHERE_EXAMPLE = 'objectTypeProperty(arrayOfObjectType(integerExample >= 1 and integerExampleInt32 = 2)) and version >= 1';

/**
 * The query parameters of GET /{projectKey}/resource/sorted-query-parameters (CONTRACT.md §5, §10).
 * `where` is checked by the predicate parser (errors with line and column); `var.<name>` parameters
 * are read by `@QueryVariables()` (a name pattern cannot be a DTO property).
 */
export class ResourceQueryDto {
  @Optional()
  @Repeatable()
  @AtMost(QUERY_LIMITS.maxWhere)
  @ApiPropertyOptional({
    type: [String],
    description:
      `Repeatable; the predicates are ANDed. The commercetools query-predicate language: \`= != <> < > <= >=\`, \`in (…)\`, \`not in (…)\`, ` +
      '`contains any (…)`, `contains all (…)`, `is empty`, `is not empty`, `is defined`, `is not defined`, `and`, `or`, `not (…)` ' +
      '(precedence not > and > or; keywords case-insensitive), strings in double quotes with `\\"` and `\\\\`, numbers (negative, decimal), ' +
      '`true`/`false`, and `:name` variables bound from `var.name`. Fields: id, key, version, createdAt, lastModifiedAt, published, ' +
      'someProperty, secondPropertyToUpdate, and `objectTypeProperty(…)` with its seven arrays (a comparison on an array matches when any ' +
      'element does) and `arrayOfObjectType(integerExample > 5 and integerExampleInt32 = 1)` (one element satisfies all of it). ' +
      `At most ${QUERY_LIMITS.maxWhere} predicates of at most ${WHERE_LIMITS.length} characters each; lists of at most ${WHERE_LIMITS.listSize} values.`,
    example: [WHERE_EXAMPLE],
  })
  where?: string[];

  @Optional()
  @Repeatable()
  @AtMost(QUERY_LIMITS.maxSort)
  @EachValue('sortSyntax', (text) => sortError(RESOURCE_CATALOGUE, text))
  @ApiPropertyOptional({
    type: [String],
    description:
      'Repeatable: `<field> asc|desc` (direction required) over id, key, version, createdAt, lastModifiedAt, published, someProperty, ' +
      `secondPropertyToUpdate; strings sort byte-wise. Ties are always broken by \`id asc\`. At most ${QUERY_LIMITS.maxSort}.`,
    example: ['version desc'],
  })
  sort?: string[];

  @Optional()
  @WholeNumber(0, QUERY_LIMITS.maxLimit)
  @ApiPropertyOptional({ type: 'number', minimum: 0, maximum: QUERY_LIMITS.maxLimit, default: QUERY_LIMITS.defaultLimit, description: 'Page size; a whole number (`5.0` counts, `5.5` does not).' })
  limit?: number;

  @Optional()
  @WholeNumber(0, QUERY_LIMITS.maxOffset)
  @ApiPropertyOptional({ type: 'number', minimum: 0, maximum: QUERY_LIMITS.maxOffset, default: 0, description: 'Matches to skip; a whole number.' })
  offset?: number;

  @Optional()
  @QueryBoolean()
  @ApiPropertyOptional({ type: 'boolean', default: true, description: 'false: the answer has no `total` (faster).' })
  withTotal?: boolean;

  @Optional()
  @Repeatable()
  @AtMost(QUERY_LIMITS.maxExpand)
  @EachValue('expandSyntax', expandError)
  @ApiPropertyOptional({
    type: [String],
    description: `Repeatable: dotted identifiers, each optionally followed by \`[*]\`. Checked for syntax only: this model has no references to expand. At most ${QUERY_LIMITS.maxExpand}.`,
    example: ['objectTypeProperty.arrayOfObjectType[*]'],
  })
  expand?: string[];
}

const VARIABLE = /^var\.([A-Za-z0-9]+)$/;

/** The `var.<name>` query parameters (spec: name `^var[.][a-zA-Z0-9]+$`, repeatable) by name. */
export const QueryVariables = createParamDecorator((_data: unknown, context: ExecutionContext): Variables => {
  const query = (context.switchToHttp().getRequest<FastifyRequest>().query ?? {}) as Record<string, unknown>;
  const variables = new Map<string, string[]>();
  for (const [name, value] of Object.entries(query)) {
    const match = VARIABLE.exec(name);
    if (match) variables.set(match[1], [value].flat().map(String));
  }
  return variables;
});

/** OpenAPI for the `var.<name>` pattern, which no parameter declaration can express by itself. */
export const ApiQueryVariables = (): MethodDecorator =>
  ApiQuery({
    name: 'var.<name>',
    required: false,
    description:
      'Input variables: every parameter whose name matches `^var[.][a-zA-Z0-9]+$` binds `:<name>` in `where`; repeatable (a repeated ' +
      'variable is a list, usable after `in`, `not in`, `contains any/all`; a one-element list is a list). Its text is typed by where the ' +
      'variable stands (an integer for version, a date-time for createdAt, …). Unused variables are ignored; an unbound one is a 400. ' +
      'Example: `where=key in :keys and version >= :v&var.keys=alpha&var.keys=beta&var.v=2`.',
    schema: { type: 'array', items: { type: 'string' } },
    style: 'form',
    explode: true,
    example: ['alpha', 'beta'],
  });

/** The answer: a page of resources, exactly as GET by id shows them. */
export class ResourcePagedQueryResponseDto {
  @ApiProperty({ type: 'integer', example: 20 }) limit: number;
  @ApiProperty({ type: 'integer', example: 0 }) offset: number;
  @ApiProperty({ type: 'integer', description: 'Number of results in this page.', example: 1 }) count: number;
  @ApiPropertyOptional({ type: 'integer', description: 'Number of matches; absent with withTotal=false.', example: 1 }) total?: number;
  @ApiProperty({ type: () => [ObjectTestTypeDto] }) results: ObjectTestTypeDto[];
}

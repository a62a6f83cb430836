import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiPropertyOptional, ApiQuery } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';
import { PageQueryDto } from '../common/page-query.dto.js';
import { Optional, QueryBoolean, Repeatable, rule } from '../common/validation/decorators.js';
import type { Catalogue } from './catalogue.js';
import { sortError } from './sort-expand.js';
import type { Variables } from './where-sql.js';
import { WHERE_LIMITS } from './where-parser.js';

/*
 * The query parameters every predicate query shares (docs/rules.md#query-language): `where`, `var.<name>`,
 * `sort`, `limit`, `offset`, `withTotal`, stated once for every model that has a catalogue
 * (GET /resource/sorted-query-parameters, GET /messages). A model adds its own parameters by extending
 * the class `PredicateQueryDto` makes for its catalogue.
 */

/** How many times the repeatable parameters may be given. */
export const PREDICATE_LIMITS = { maxWhere: 10, maxSort: 10 } as const;

/** Every element of a repeatable parameter satisfies `check` (the first failure is reported). */
export const EachValue = (name: string, check: (value: string) => string | undefined): PropertyDecorator =>
  rule(name, (value) => {
    if (!Array.isArray(value)) return undefined; // Repeatable() reports it
    for (const item of value) {
      const reason = typeof item === 'string' ? check(item) : undefined;
      if (reason !== undefined) return reason;
    }
    return undefined;
  });

export const AtMost = (max: number): PropertyDecorator =>
  rule('repeatedAtMost', (value) => (Array.isArray(value) && value.length > max ? `may be given at most ${max} times` : undefined));

/** What the OpenAPI document says of a model's `where` and `sort`; the rules come from the catalogue. */
export interface PredicateQueryDocs {
  /** The model's fields as `where` sees them (the language itself is described here). */
  whereFields: string;
  /** Sent as is by the Swagger page's "Try it out": it must need no variable. */
  whereExample: string;
  /** The default order when no `sort` is given. */
  defaultOrder: string;
  sortExample: string;
}

export interface PredicateQuery {
  where?: string[];
  sort?: string[];
  limit: number;
  offset: number;
  withTotal: boolean;
}

/**
 * The DTO class of a predicate query over `catalogue`: `sort` is checked against its sortable fields, `where`
 * by the predicate parser when the query is translated (errors with line and column); `var.<name>` parameters
 * are read by `@QueryVariables()` (a name pattern cannot be a DTO property).
 */
export function PredicateQueryDto(catalogue: Catalogue, docs: PredicateQueryDocs) {
  const sortFields = [...catalogue.sortFields.keys()].join(', ');
  class PredicateQueryParameters extends PageQueryDto implements PredicateQuery {
    @Optional()
    @Repeatable()
    @AtMost(PREDICATE_LIMITS.maxWhere)
    @ApiPropertyOptional({
      type: [String],
      description:
        `Repeatable; the predicates are ANDed. The commercetools query-predicate language: \`= != <> < > <= >=\`, \`in (…)\`, \`not in (…)\`, ` +
        '`contains any (…)`, `contains all (…)`, `is empty`, `is not empty`, `is defined`, `is not defined`, `and`, `or`, `not (…)` ' +
        '(precedence not > and > or; keywords case-insensitive), strings in double quotes with `\\"` and `\\\\`, numbers (negative, decimal), ' +
        `\`true\`/\`false\`, and \`:name\` variables bound from \`var.name\`. ${docs.whereFields} ` +
        `At most ${PREDICATE_LIMITS.maxWhere} predicates of at most ${WHERE_LIMITS.length} characters each; lists of at most ${WHERE_LIMITS.listSize} values.`,
      example: [docs.whereExample],
    })
    where?: string[];

    @Optional()
    @Repeatable()
    @AtMost(PREDICATE_LIMITS.maxSort)
    @EachValue('sortSyntax', (text) => sortError(catalogue, text))
    @ApiPropertyOptional({
      type: [String],
      description:
        `Repeatable: \`<field> asc|desc\` (direction required) over ${sortFields}; strings sort byte-wise. ` +
        `Ties are always broken by \`${catalogue.id.name} asc\`. Without \`sort\`: ${docs.defaultOrder}. At most ${PREDICATE_LIMITS.maxSort}.`,
      example: [docs.sortExample],
    })
    sort?: string[];

    @Optional()
    @QueryBoolean()
    @ApiPropertyOptional({ type: 'boolean', default: true, description: 'false: the answer has no `total` (faster).' })
    withTotal: boolean = true;
  }
  return PredicateQueryParameters;
}

const VARIABLE = /^var\.([A-Za-z0-9]+)$/;
const VARIABLE_NAME = /^[A-Za-z0-9]+$/;

/** A variable given by name and values, as GraphQL's list fields take them beside `where`. */
export interface NamedVariable {
  name: string;
  values: readonly string[];
}

/**
 * Variables given as a list (GraphQL's `variables` argument) by name, under the rules of `var.<name>`: the name
 * is letters and digits (else `InvalidField`), and a name given twice adds its values, as a repeated parameter does.
 */
export function variablesOf(list: readonly NamedVariable[], member: string): Variables {
  const variables = new Map<string, string[]>();
  list.forEach(({ name, values }, index) => {
    if (!VARIABLE_NAME.test(name)) {
      const field = `${member}[${index}].name`;
      throw DomainError.of(ErrorCode.InvalidField, `Malformed parameter: ${field}: must be letters and digits, as in var.<name>.`, { field, invalidValue: name });
    }
    variables.set(name, [...(variables.get(name) ?? []), ...values]);
  });
  return variables;
}

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

/** OpenAPI for the `var.<name>` pattern, which no parameter declaration can express by itself; `example` is a query string using variables. */
export const ApiQueryVariables = (example: string): MethodDecorator =>
  ApiQuery({
    name: 'var.<name>',
    required: false,
    description:
      'Input variables: every parameter whose name matches `^var[.][a-zA-Z0-9]+$` binds `:<name>` in `where`; repeatable (a repeated ' +
      'variable is a list, usable after `in`, `not in`, `contains any/all`; a one-element list is a list). Its text is typed by where the ' +
      'variable stands (an integer for version, a date-time for createdAt, …). Unused variables are ignored; an unbound one is a 400. ' +
      `Example: \`${example}\`.`,
    schema: { type: 'array', items: { type: 'string' } },
    style: 'form',
    explode: true,
    example: ['alpha', 'beta'],
  });

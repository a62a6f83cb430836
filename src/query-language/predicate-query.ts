import { tooLarge } from '../database/bounded-list.js';
import { DomainError } from '../common/domain-error.js';
import type { Catalogue } from './catalogue.js';
import { QuerySyntaxError } from './lexer.js';
import type { PredicateQuery } from './predicate-query.dto.js';
import { orderBy, parseSort, type SortItem } from './sort-expand.js';
import { parseWhere } from './where-parser.js';
import { SqlParams, type Variables, whereToSql } from './where-sql.js';

/** A validated predicate query as SQL over the catalogue's table (its alias), for the model's repository. */
export interface PredicatePlan {
  /** Condition whose placeholders start at $2 ($1 is the project key). */
  where: string;
  values: unknown[];
  /** ORDER BY list (total: ties by the catalogue's id). */
  orderBy: string;
  limit: number;
  offset: number;
  withTotal: boolean;
  /** The condition has a GIN containment conjunct: find the matches through it first (see WhereHints). */
  matchesFirst: boolean;
}

/**
 * Translates a predicate query (docs/rules.md#query-language): a malformed `where` is 400 InvalidInput
 * "Malformed parameter: where: …" with line and column, whatever the model. `defaultSort` applies when the
 * query names no `sort`.
 */
export function predicatePlan(
  catalogue: Catalogue,
  query: PredicateQuery,
  variables: Variables,
  projectKey: string,
  defaultSort: readonly SortItem[] = [],
): PredicatePlan {
  const params = new SqlParams(2);
  const hints = { containment: false };
  let where: string;
  try {
    where = whereToSql(catalogue, query.where ?? [], variables, params, projectKey, hints);
  } catch (error) {
    if (error instanceof QuerySyntaxError) throw DomainError.invalidInput(malformedWhere(error));
    throw error;
  }
  const sorts = query.sort?.length ? query.sort.map(parseSort) : defaultSort;
  return {
    where,
    values: params.values,
    orderBy: orderBy(catalogue, sorts),
    limit: query.limit,
    offset: query.offset,
    withTotal: query.withTotal,
    matchesFirst: hints.containment,
  };
}

const malformedWhere = (error: QuerySyntaxError): string => `Malformed parameter: where: ${error.message}`;

/**
 * The message a malformed `where` text is answered with, as the parser writes it from the catalogue: the
 * OpenAPI example of a model's 400, which then lists the model's fields as the server does.
 */
export function malformedWhereExample(catalogue: Catalogue, text: string): string {
  try {
    parseWhere(catalogue, text);
  } catch (error) {
    if (error instanceof QuerySyntaxError) return malformedWhere(error);
    throw error;
  }
  throw new Error(`not a malformed where: ${text}`);
}

/** One page of a query as its repository reads it: the results as one JSON array text, built by PostgreSQL. */
export interface QueryPage {
  count: number;
  total?: number;
  /** `[…]`: each result exactly as the model's item endpoint answers it; null when it would pass the byte bound (`boundedItems`). */
  results: string | null;
}

/** The page envelope `{limit, offset, count, total?, results}`; 400 when its results passed `maxBytes` (docs/rules.md#limits). */
export function pageJson(plan: Pick<PredicatePlan, 'limit' | 'offset' | 'withTotal'>, page: QueryPage, maxBytes: number): string {
  if (page.results === null) throw tooLarge(maxBytes);
  const total = plan.withTotal ? `"total":${page.total},` : '';
  return `{"limit":${plan.limit},"offset":${plan.offset},"count":${page.count},${total}"results":${page.results}}`;
}

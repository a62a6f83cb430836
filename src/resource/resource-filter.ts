import { canonicalNumber, queryParam, RawQuery } from '../common/query-params.js';
import { Violations } from './array-test-type.validator.js';
import { checkObjectPattern, ObjectPattern, throwIfAny } from './resource-draft.js';
import { parseJson } from '../common/lossless-json.js';
import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';

/** A SQL condition over `resource r` with its bound values (placeholders numbered from `offset`). */
export interface SqlCondition {
  sql: string;
  values: unknown[];
}

const NUMERIC_ARRAYS = [
  'arrayOfIntExample',
  'arrayOfUniqueIntExample',
  'arrayOfTwonumbersExample',
  'arrayOfFloatExample',
  'arrayOfNumberNoDefaultsExample',
];

/** The spec's defaults for HEAD /resource, applied to absent parameters (CONTRACT.md §10). */
export const HEAD_DEFAULTS: Readonly<Record<string, string>> = {
  stringParameter: 'test',
  booleanParameter: 'false',
  floatParameter: '10',
  integerParameter: '5',
  withMarkdownDescription: '1500',
};

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/;

/**
 * Translates the query parameters of GET and HEAD /resource (CONTRACT.md §3) into one SQL condition.
 * Containment is written against the whole `object_type_property` column so the GIN index serves it;
 * every value is a bound parameter.
 */
export function buildResourceFilter(raw: RawQuery, mode: 'get' | 'head', firstPlaceholder: number): SqlCondition {
  const query = mode === 'head' ? { ...HEAD_DEFAULTS, ...raw } : raw;
  const values: unknown[] = [];
  const conditions: string[] = [];
  const bind = (value: unknown): string => {
    values.push(value);
    return `$${firstPlaceholder + values.length - 1}`;
  };
  const contains = (field: string, items: string[]): string =>
    `r.object_type_property @> ${bind(`{"${field}":[${items.join(',')}]}`)}::jsonb`;

  const string = queryParam.string(query, 'stringParameter');
  if (string !== undefined) conditions.push(contains('arrayOfStringExample', [JSON.stringify(string)]));
  const integer = queryParam.int64(query, 'integerParameter');
  if (integer !== undefined) conditions.push(contains('arrayOfIntExample', [integer]));
  const float = queryParam.number(query, 'floatParameter');
  if (float !== undefined) conditions.push(contains('arrayOfFloatExample', [float]));
  const markdown = queryParam.number(query, 'withMarkdownDescription');
  if (markdown !== undefined) conditions.push(contains('arrayOfNumberNoDefaultsExample', [markdown]));
  const all = queryParam.strings(query, 'arrayOfString');
  if (all.length > 0) conditions.push(contains('arrayOfStringExample', all.map((s) => JSON.stringify(s))));
  const any = queryParam.strings(query, 'arrayOfStringWithDescription');
  if (any.length > 0) {
    conditions.push(`(${any.map((s) => contains('arrayOfStringExample', [JSON.stringify(s)])).join(' OR ')})`);
  }
  const objectParameter = queryParam.string(query, 'objectParameter');
  if (objectParameter !== undefined) {
    conditions.push(patternCondition(parsePattern(objectParameter, 'objectParameter'), bind));
  }
  if (mode === 'get') {
    const union = queryParam.string(query, 'unionParameter');
    if (union !== undefined) conditions.push(unionCondition(union, bind, contains));
  } else {
    const published = queryParam.boolean(query, 'booleanParameter');
    conditions.push(published ? 'NOT r.published' : 'r.published');
  }
  return { sql: conditions.length > 0 ? conditions.join(' AND ') : 'TRUE', values };
}

function unionCondition(
  text: string,
  bind: (value: unknown) => string,
  contains: (field: string, items: string[]) => string,
): string {
  if (ISO_DATE_TIME.test(text) && !Number.isNaN(Date.parse(text))) {
    return `r.last_modified_at >= ${bind(new Date(text).toISOString())}::timestamptz`;
  }
  if (text.trimStart().startsWith('{')) return patternCondition(parsePattern(text, 'unionParameter'), bind);
  const number = canonicalNumber(text);
  if (number === undefined) {
    throw DomainError.of(
      ErrorCode.InvalidField,
      'Malformed parameter: unionParameter: must be a number, an ISO 8601 date-time or a JSON object.',
      { field: 'unionParameter', invalidValue: text },
    );
  }
  return `(${NUMERIC_ARRAYS.map((field) => contains(field, [number])).join(' OR ')})`;
}

function parsePattern(text: string, name: string): ObjectPattern {
  let value: unknown;
  try {
    value = parseJson(text);
  } catch {
    throw DomainError.of(ErrorCode.InvalidField, `Malformed parameter: ${name}: must be JSON of an ObjectTestType.`, {
      field: name,
      invalidValue: text,
    });
  }
  const violations = new Violations();
  const pattern = checkObjectPattern(value, name, violations);
  throwIfAny(violations);
  return pattern!;
}

function patternCondition(pattern: ObjectPattern, bind: (value: unknown) => string): string {
  const parts: string[] = [];
  if (pattern.version !== undefined) parts.push(`r.version = ${bind(pattern.version)}`);
  if (pattern.objectTypeProperty !== undefined) {
    parts.push(`r.object_type_property @> ${bind(pattern.objectTypeProperty)}::jsonb`);
  }
  return parts.length > 0 ? `(${parts.join(' AND ')})` : 'TRUE';
}

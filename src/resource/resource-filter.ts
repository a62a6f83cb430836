import { ApiPropertyOptional } from '@nestjs/swagger';
import { canonicalNumber } from '../common/query-params.js';
import { parseJson } from '../common/lossless-json.js';
import { Optional, QueryBoolean, QueryInt64, QueryNumber, QueryString, Repeatable } from '../common/validation/decorators.js';
import { type ObjectPattern, toObjectPattern } from '../common/object-pattern.js';
import { documentArrays } from '../query-language/catalogue.js';
import { OBJECT_TYPE_PROPERTY } from '../query-language/resource.catalogue.js';
import { ResourceErrors } from './resource.errors.js';

/** A SQL condition over `resource r` with its bound values (placeholders numbered from `offset`). */
export interface SqlCondition {
  sql: string;
  values: unknown[];
}

/** The arrays of numbers in objectTypeProperty: a numeric `unionParameter` matches when any contains it. */
const NUMERIC_ARRAYS = documentArrays(OBJECT_TYPE_PROPERTY)
  .filter((f) => f.type !== 'string')
  .map((f) => f.name);

/** The filters GET and HEAD /resource share (docs/api-guide.md#query); numbers are kept as exact text. */
export abstract class ResourceFilterQueryDto {
  @Optional()
  @QueryString()
  @ApiPropertyOptional({ type: 'string', description: 'arrayOfStringExample contains the value.' })
  stringParameter?: string;

  @Optional()
  @QueryNumber()
  @ApiPropertyOptional({ type: 'number', description: 'arrayOfFloatExample contains the value.' })
  floatParameter?: string;

  @Optional()
  @QueryInt64()
  @ApiPropertyOptional({ type: 'integer', format: 'int64', description: 'arrayOfIntExample contains the value (exact over 64 bits).' })
  integerParameter?: string;

  @Optional()
  @QueryNumber()
  @ApiPropertyOptional({ type: 'number', description: 'arrayOfNumberNoDefaultsExample contains the value.' })
  withMarkdownDescription?: string;

  @Optional()
  @QueryString()
  @ApiPropertyOptional({ type: 'string', description: 'JSON of a (partial) ObjectTestType `{version?, objectTypeProperty?}`: the resource contains it.' })
  objectParameter?: string;

  @Optional()
  @Repeatable()
  @ApiPropertyOptional({ type: [String], description: 'Repeatable: arrayOfStringExample contains all values.' })
  arrayOfString?: string[];

  @Optional()
  @Repeatable()
  @ApiPropertyOptional({ type: [String], description: 'Repeatable: arrayOfStringExample contains any value.' })
  arrayOfStringWithDescription?: string[];
}

/** GET /resource: published and unpublished resources. */
export class GetResourcesQueryDto extends ResourceFilterQueryDto {
  @Optional()
  @QueryString()
  @ApiPropertyOptional({ type: 'string', description: 'A number (any numeric array contains it), an ISO 8601 date-time (lastModifiedAt >=) or a JSON ObjectTestType (containment).' })
  unionParameter?: string;
}

/** The defaults of HEAD /resource, applied to absent parameters (docs/api-guide.md#exists). */
const HEAD_DEFAULTS = {
  stringParameter: 'test',
  booleanParameter: false,
  floatParameter: '10',
  integerParameter: '5',
  withMarkdownDescription: '1500',
} as const;

/** HEAD /resource: the same filters with the API description's defaults, and `booleanParameter`. */
export class HeadResourcesQueryDto extends ResourceFilterQueryDto {
  @Optional()
  @QueryBoolean()
  @ApiPropertyOptional({ type: 'boolean', default: HEAD_DEFAULTS.booleanParameter, description: 'true: unpublished resources only; false: published only.' })
  booleanParameter?: boolean;

  constructor() {
    super();
    Object.assign(this, HEAD_DEFAULTS);
  }
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/;

/**
 * Translates the validated filters of GET or HEAD /resource into one SQL condition. Containment is
 * written against the document tagged with its project (the expression of the GIN index
 * `resource_project_document_idx`, which the query predicates use too), so that index serves it and finds
 * only the project's resources; every value is a bound parameter.
 */
export function buildResourceFilter(query: GetResourcesQueryDto | HeadResourcesQueryDto, projectKey: string, firstPlaceholder: number): SqlCondition {
  const values: unknown[] = [];
  const conditions: string[] = [];
  const bind = (value: unknown): string => {
    values.push(value);
    return `$${firstPlaceholder + values.length - 1}`;
  };
  const inProject = projectContainment(projectKey, bind);
  const contains = arrayContainment(inProject);

  if (query.stringParameter !== undefined) conditions.push(contains('arrayOfStringExample', [JSON.stringify(query.stringParameter)]));
  if (query.integerParameter !== undefined) conditions.push(contains('arrayOfIntExample', [query.integerParameter]));
  if (query.floatParameter !== undefined) conditions.push(contains('arrayOfFloatExample', [query.floatParameter]));
  if (query.withMarkdownDescription !== undefined) {
    conditions.push(contains('arrayOfNumberNoDefaultsExample', [query.withMarkdownDescription]));
  }
  const all = query.arrayOfString ?? [];
  if (all.length > 0) conditions.push(contains('arrayOfStringExample', all.map((s) => JSON.stringify(s))));
  const any = query.arrayOfStringWithDescription ?? [];
  if (any.length > 0) {
    conditions.push(`(${any.map((s) => contains('arrayOfStringExample', [JSON.stringify(s)])).join(' OR ')})`);
  }
  if (query.objectParameter !== undefined) {
    conditions.push(patternCondition(parsePattern(query.objectParameter, 'objectParameter'), bind, inProject));
  }
  if (query instanceof HeadResourcesQueryDto) {
    conditions.push(query.booleanParameter ? 'NOT r.published' : 'r.published');
  } else if (query.unionParameter !== undefined) {
    conditions.push(unionCondition(query.unionParameter, bind, inProject));
  }
  return { sql: conditions.length > 0 ? conditions.join(' AND ') : 'TRUE', values };
}

function unionCondition(
  text: string,
  bind: (value: unknown) => string,
  inProject: (pattern: string) => string,
): string {
  if (ISO_DATE_TIME.test(text) && !Number.isNaN(Date.parse(text))) {
    return `r.last_modified_at >= ${bind(new Date(text).toISOString())}::timestamptz`;
  }
  if (text.trimStart().startsWith('{')) return patternCondition(parsePattern(text, 'unionParameter'), bind, inProject);
  const number = canonicalNumber(text);
  if (number === undefined) {
    throw ResourceErrors.malformedUnionParameter(text);
  }
  const contains = arrayContainment(inProject);
  return `(${NUMERIC_ARRAYS.map((field) => contains(field, [number])).join(' OR ')})`;
}

function parsePattern(text: string, name: string): ObjectPattern {
  let value: unknown;
  try {
    value = parseJson(text);
  } catch {
    throw ResourceErrors.malformedPattern(name, text);
  }
  return toObjectPattern(value, name);
}

/** `objectTypeProperty` contains `pattern` (JSON text of an object), for a resource of the project. */
function projectContainment(projectKey: string, bind: (value: unknown) => string): (pattern: string) => string {
  return (pattern) => `${OBJECT_TYPE_PROPERTY.projectIndex} @> ${bind(`{${JSON.stringify(projectKey)}:${pattern}}`)}::jsonb`;
}

/** The array `field` contains every one of `items` (JSON texts). */
function arrayContainment(inProject: (pattern: string) => string): (field: string, items: string[]) => string {
  return (field, items) => inProject(`{"${field}":[${items.join(',')}]}`);
}

function patternCondition(pattern: ObjectPattern, bind: (value: unknown) => string, inProject: (pattern: string) => string): string {
  const parts: string[] = [];
  if (pattern.version !== undefined) parts.push(`r.version = ${bind(pattern.version)}`);
  if (pattern.objectTypeProperty !== undefined) parts.push(inProject(pattern.objectTypeProperty));
  return parts.length > 0 ? `(${parts.join(' AND ')})` : 'TRUE';
}

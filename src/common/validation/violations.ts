import type { ValidationError } from 'class-validator';
import { type ErrorDetail } from '../domain-error.js';
import { ErrorCode } from '../error-code.js';
import { ELEMENTS_CONSTRAINT, type ElementsContext } from './decorators.js';

/** Where the violations of a DTO are reported: a JSON body (paths) or query parameters (names). */
export type ViolationSource = 'body' | 'query';

/**
 * Constraints that make the others of the same property meaningless: only the first of these that
 * failed is reported (a value that is not an array has no elements to blame).
 */
const EXCLUSIVE = ['isDefined', 'whitelistValidation', 'isObject', 'isArray', 'nestedValidation', 'arrayMaxSize'];

const REASONS: Record<string, string> = {
  isDefined: 'a value is required',
  whitelistValidation: 'unknown field',
  isObject: 'must be an object',
  nestedValidation: 'must be an object',
  isArray: 'must be an array',
};

/**
 * class-validator's `ValidationError` tree → the envelope's error details (docs/rules.md#errors): one
 * entry per violation with its JSON path (`objectTypeProperty.arrayOfObjectType[1].integerExampleInt32`),
 * `RequiredField` for a missing value and `InvalidField` (with `invalidValue`) for everything else.
 * Element rules (`@Elements`) are expanded to the offending elements, `a.b[3]`.
 */
export function toErrorDetails(errors: ValidationError[], source: ViolationSource, prefix = ''): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const error of errors) collect(error, prefix, source, details);
  return details;
}

function collect(error: ValidationError, parentPath: string, source: ViolationSource, details: ErrorDetail[]): void {
  const path = source === 'query' ? error.property : childPath(parentPath, error.property);
  const constraints = error.constraints ?? {};
  const names = Object.keys(constraints);
  const exclusive = EXCLUSIVE.find((name) => names.includes(name));
  for (const name of exclusive ? [exclusive] : names) {
    if (name === ELEMENTS_CONSTRAINT) {
      details.push(...elementDetails(error, path, source));
    } else if (name === 'isDefined') {
      details.push(detail(ErrorCode.RequiredField, path, REASONS.isDefined, source));
    } else {
      const value = name === 'arrayMaxSize' && Array.isArray(error.value) ? error.value.length : error.value;
      details.push(detail(ErrorCode.InvalidField, path, REASONS[name] ?? constraints[name], source, value));
    }
  }
  if (!exclusive) {
    for (const child of error.children ?? []) {
      collect(child, path, source, details);
    }
  }
}

/** `a` + `b` → `a.b`; an index under an array → `a[1]`. */
function childPath(parent: string, property: string): string {
  if (/^\d+$/.test(property) && parent !== '') return `${parent}[${property}]`;
  return parent ? `${parent}.${property}` : property;
}

function elementDetails(error: ValidationError, path: string, source: ViolationSource): ErrorDetail[] {
  const context = error.contexts?.[ELEMENTS_CONSTRAINT] as ElementsContext;
  const items = error.value as unknown[];
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  items.forEach((item, index) => {
    const at = `${path}[${index}]`;
    const reason = context.rule(item);
    if (reason !== undefined) {
      details.push(detail(ErrorCode.InvalidField, at, reason, source, item));
    } else if (context.unique) {
      const id = String(item);
      if (seen.has(id)) details.push(detail(ErrorCode.InvalidField, at, 'duplicate element; elements must be unique', source, item));
      seen.add(id);
    }
  });
  return details;
}

function detail(code: ErrorCode, field: string, reason: string, source: ViolationSource, value?: unknown): ErrorDetail {
  const message = source === 'query' ? `Malformed parameter: ${field}: ${reason}.` : `${field}: ${reason}.`;
  const result: ErrorDetail = { code, message, field };
  if (code === ErrorCode.InvalidField) result.invalidValue = typeof value === 'bigint' ? value.toString() : value;
  return result;
}

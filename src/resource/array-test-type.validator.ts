import { ErrorDetail } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';
import { stringifyJson } from '../common/lossless-json.js';

/** Size limits of one ArrayTestType (documented in the README and the OpenAPI document). */
export const MAX_ARRAY_LENGTH = 10_000;
export const MAX_STRING_LENGTH = 10_000;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

export const ARRAY_FIELDS = [
  'arrayOfIntExample',
  'arrayOfUniqueIntExample',
  'arrayOfTwonumbersExample',
  'arrayOfFloatExample',
  'arrayOfNumberNoDefaultsExample',
  'arrayOfStringExample',
  'arrayOfObjectType',
] as const;
type ArrayField = (typeof ARRAY_FIELDS)[number];

const OBJECT_MEMBERS = ['integerExample', 'integerExampleInt32'] as const;

/** Collects every violation of a body, each with its JSON path (CONTRACT.md §1, §10). */
export class Violations {
  readonly list: ErrorDetail[] = [];
  /** Set when a value had to be kept as `bigint`: the body then needs the lossless serialiser. */
  containsBigInt = false;

  required(field: string): void {
    this.list.push({ code: ErrorCode.RequiredField, message: `${field}: a value is required.`, field });
  }

  invalid(field: string, value: unknown, reason: string): void {
    this.list.push({
      code: ErrorCode.InvalidField,
      message: `${field}: ${reason}.`,
      field,
      invalidValue: typeof value === 'bigint' ? value.toString() : value,
    });
  }

  unknownMembers(object: Record<string, unknown>, allowed: readonly string[], path: string): void {
    for (const name of Object.keys(object)) {
      if (!allowed.includes(name)) this.invalid(join(path, name), object[name], 'unknown field');
    }
  }
}

export function join(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An integer in the signed 64-bit range (`1.0` counts), as an exact number or bigint; else undefined. */
export function asInt64(value: unknown): number | bigint | undefined {
  if (typeof value === 'bigint') return value >= INT64_MIN && value <= INT64_MAX ? value : undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) return undefined;
  if (Number.isSafeInteger(value)) return value;
  const big = BigInt(value);
  return big >= INT64_MIN && big <= INT64_MAX ? big : undefined;
}

function asNumber(value: unknown): number | bigint | undefined {
  return typeof value === 'bigint' || (typeof value === 'number' && Number.isFinite(value)) ? value : undefined;
}

export interface ArrayTestTypeOptions {
  /** Partial (a containment pattern): arrays optional, pairs may hold fewer than two numbers. */
  partial: boolean;
}

/**
 * Checks an ArrayTestType and returns it normalised (integers as numbers or exact bigints), or
 * undefined when it has violations (recorded in `violations`).
 */
export function checkArrayTestType(
  value: unknown,
  path: string,
  violations: Violations,
  { partial }: ArrayTestTypeOptions,
): Record<string, unknown[]> | undefined {
  if (!isPlainObject(value)) {
    violations.invalid(path, value, 'must be an object');
    return undefined;
  }
  const before = violations.list.length;
  violations.unknownMembers(value, ARRAY_FIELDS, path);
  const result: Record<string, unknown[]> = {};
  for (const field of ARRAY_FIELDS) {
    const fieldPath = join(path, field);
    const items = value[field];
    if (items === undefined) {
      if (!partial) violations.required(fieldPath);
      continue;
    }
    if (!Array.isArray(items)) {
      violations.invalid(fieldPath, items, 'must be an array');
      continue;
    }
    if (items.length > MAX_ARRAY_LENGTH) {
      violations.invalid(fieldPath, items.length, `must have at most ${MAX_ARRAY_LENGTH} elements`);
      continue;
    }
    result[field] = checkItems(field, items, fieldPath, violations, partial);
  }
  return violations.list.length === before ? result : undefined;
}

function checkItems(field: ArrayField, items: unknown[], path: string, violations: Violations, partial: boolean): unknown[] {
  switch (field) {
    case 'arrayOfIntExample':
      return items.map((item, i) => checkInt64(item, `${path}[${i}]`, violations));
    case 'arrayOfUniqueIntExample': {
      const seen = new Set<string>();
      return items.map((item, i) => {
        const value = checkInt64(item, `${path}[${i}]`, violations);
        if (value === undefined) return value;
        const id = String(value);
        if (seen.has(id) && !partial) violations.invalid(`${path}[${i}]`, value, 'duplicate element; elements must be unique');
        seen.add(id);
        return value;
      });
    }
    case 'arrayOfTwonumbersExample':
      if (partial ? items.length > 2 : items.length !== 2) {
        violations.invalid(path, items, partial ? 'must have at most two numbers' : 'must have exactly two numbers');
      }
      return items.map((item, i) => checkNumber(item, `${path}[${i}]`, violations));
    case 'arrayOfFloatExample':
    case 'arrayOfNumberNoDefaultsExample':
      return items.map((item, i) => checkNumber(item, `${path}[${i}]`, violations));
    case 'arrayOfStringExample':
      return items.map((item, i) => checkString(item, `${path}[${i}]`, violations));
    case 'arrayOfObjectType':
      return items.map((item, i) => checkObjectType(item, `${path}[${i}]`, violations, partial));
  }
}

export function checkInt64(value: unknown, path: string, violations: Violations): number | bigint | undefined {
  const int = asInt64(value);
  if (int === undefined) violations.invalid(path, value, 'must be an integer in the signed 64-bit range');
  else if (typeof int === 'bigint') violations.containsBigInt = true;
  return int;
}

function checkNumber(value: unknown, path: string, violations: Violations): number | bigint | undefined {
  const number = asNumber(value);
  if (number === undefined) violations.invalid(path, value, 'must be a number');
  else if (typeof number === 'bigint') violations.containsBigInt = true;
  return number;
}

export function checkString(value: unknown, path: string, violations: Violations, max = MAX_STRING_LENGTH): string | undefined {
  if (typeof value !== 'string') {
    violations.invalid(path, value, 'must be a string');
    return undefined;
  }
  if (value.length > max) {
    violations.invalid(path, value.slice(0, 64), `must have at most ${max} characters`);
    return undefined;
  }
  if (value.includes('\u0000')) {
    violations.invalid(path, value, 'must not contain NUL characters');
    return undefined;
  }
  return value;
}

function checkObjectType(value: unknown, path: string, violations: Violations, partial: boolean): unknown {
  if (!isPlainObject(value)) {
    violations.invalid(path, value, 'must be an object');
    return undefined;
  }
  violations.unknownMembers(value, OBJECT_MEMBERS, path);
  const result: Record<string, unknown> = {};
  const int64 = value.integerExample;
  if (int64 === undefined) {
    if (!partial) violations.required(`${path}.integerExample`);
  } else {
    result.integerExample = checkInt64(int64, `${path}.integerExample`, violations);
  }
  const int32 = value.integerExampleInt32;
  if (int32 === undefined) {
    if (!partial) violations.required(`${path}.integerExampleInt32`);
  } else if (typeof int32 !== 'number' || !Number.isInteger(int32) || int32 < INT32_MIN || int32 > INT32_MAX) {
    violations.invalid(`${path}.integerExampleInt32`, int32, 'must be an integer in the signed 32-bit range');
  } else {
    result.integerExampleInt32 = int32;
  }
  return result;
}

/** JSON text of a checked value, exact for 64-bit integers. */
export function toJsonText(value: unknown, violations: Violations): string {
  return stringifyJson(value, violations.containsBigInt);
}

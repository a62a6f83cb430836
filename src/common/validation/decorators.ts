import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { registerDecorator, ValidateIf, type ValidationOptions } from 'class-validator';
import { canonicalInt64, canonicalNumber } from '../query-params.js';

/*
 * The input rules that class-validator's built-ins do not express (docs/rules.md#addressing-and-input): exact
 * signed 64-bit integers (the `bigint` values the lossless JSON parser yields), int32, a zero fraction
 * counting as an integer, rules per array element with the element's index in the error path, and
 * typed query parameters. Each rule is stated here once and used by the DTO classes.
 */

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** An integer in the signed 64-bit range (`1.0` counts), as an exact number or bigint; else undefined. */
function asInt64(value: unknown): number | bigint | undefined {
  if (typeof value === 'bigint') return value >= INT64_MIN && value <= INT64_MAX ? value : undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) return undefined;
  if (Number.isSafeInteger(value)) return value;
  const big = BigInt(value);
  return big >= INT64_MIN && big <= INT64_MAX ? big : undefined;
}

function isInt32(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX;
}

/** A JSON number, exact (`bigint`) or not. */
function isJsonNumber(value: unknown): boolean {
  return typeof value === 'bigint' || (typeof value === 'number' && Number.isFinite(value));
}

/** A rule for one element of an array: the reason it fails, or undefined when it holds. */
export type ElementRule = (value: unknown) => string | undefined;

export const int64Element: ElementRule = (value) =>
  asInt64(value) === undefined ? 'must be an integer in the signed 64-bit range' : undefined;

export const numberElement: ElementRule = (value) => (isJsonNumber(value) ? undefined : 'must be a number');

export function boundedString(max: number): ElementRule {
  return (value) => {
    if (typeof value !== 'string') return 'must be a string';
    if (value.length > max) return `must have at most ${max} characters`;
    if (value.includes('\u0000')) return 'must not contain NUL characters';
    return undefined;
  };
}

/** Registers a one-constraint decorator whose failure message is computed from the value. */
export function rule(name: string, check: (value: unknown) => string | undefined, options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) => check(value) === undefined,
        defaultMessage: (args) => check(args?.value) ?? 'is invalid',
      },
    });
}

export const IsInt64 = (options?: ValidationOptions): PropertyDecorator => rule('isInt64', int64Element, options);

export const IsInt32 = (options?: ValidationOptions): PropertyDecorator =>
  rule('isInt32', (value) => (isInt32(value) ? undefined : 'must be an integer in the signed 32-bit range'), options);

/** A string of at most `max` characters without NUL characters. */
export const BoundedString = (max: number, options?: ValidationOptions): PropertyDecorator =>
  rule('boundedString', boundedString(max), options);

/** A string matching `pattern`; `reason` says what it must be. */
export const MatchesRule = (pattern: RegExp, reason: string): PropertyDecorator =>
  rule('matches', (value) => (typeof value === 'string' && pattern.test(value) ? undefined : reason));

/** A whole number from `min` to `max` in a JSON body (`3.0` counts). */
export const WholeNumberValue = (min: number, max: number): PropertyDecorator =>
  rule('wholeNumber', (value) =>
    typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max ? undefined : `must be a whole number from ${min}`,
  );

export const IsBooleanValue = (): PropertyDecorator =>
  rule('isBoolean', (value) => (typeof value === 'boolean' ? undefined : 'must be a boolean'));

export const ELEMENTS_CONSTRAINT = 'elements';

export interface ElementsContext {
  rule: ElementRule;
  unique: boolean;
}

/**
 * Every element of the array satisfies `rule` (and, with `unique`, no element repeats). The error
 * mapper reports each offending element at its own path, `field[i]`.
 */
export function Elements(elementRule: ElementRule, options: { unique?: boolean } = {}): PropertyDecorator {
  const context: ElementsContext = { rule: elementRule, unique: options.unique ?? false };
  return (target, propertyName) =>
    registerDecorator({
      name: ELEMENTS_CONSTRAINT,
      target: target.constructor,
      propertyName: propertyName as string,
      options: { context },
      validator: {
        validate(value: unknown) {
          if (!Array.isArray(value)) return false;
          const seen = context.unique ? new Set<string>() : undefined;
          for (const item of value) {
            if (elementRule(item) !== undefined) return false;
            if (seen) {
              const id = String(item);
              if (seen.has(id)) return false;
              seen.add(id);
            }
          }
          return true;
        },
        defaultMessage: () => 'has invalid elements',
      },
    });
}

/**
 * A member that must be present. Unlike class-validator's `IsDefined`, `null` counts as present (and
 * then fails the member's type rule: InvalidField, not RequiredField).
 */
export const Required = (): PropertyDecorator =>
  rule('isDefined', (value) => (value === undefined ? 'a value is required' : undefined));

/** Validated only when present (`undefined`); `null` is a value and is checked. */
export const Optional = (): PropertyDecorator => ValidateIf((_object, value) => value !== undefined);

/* ------------------------------------------------------------------ query parameters */
/*
 * Fastify hands a query parameter to the handler as a string, or an array of strings when it is
 * repeated. These decorators convert the text to its type and leave anything unconvertible as it
 * was, so the constraint reports the value the client sent.
 */

/** A single parameter: a repeated one is an error. */
const single = (value: unknown): value is string => typeof value === 'string' && !value.includes('\u0000');

/** A repeatable parameter: always an array of strings. */
export const Repeatable = (): PropertyDecorator =>
  applyDecorators(
    Transform(({ value }) => (value === undefined ? undefined : [value].flat())),
    rule('repeatable', (value) =>
      Array.isArray(value) && value.every(single) ? undefined : 'must be text without NUL characters',
    ),
  );

/** A query parameter given at most once, as text. */
export const QueryString = (): PropertyDecorator =>
  rule('queryString', (value) => (Array.isArray(value) ? 'may be given only once' : single(value) ? undefined : 'must be text without NUL characters'));

/** Decimal digits with an optional sign and a zero fraction: `5`, `-5`, `5.0`; not `5.5`, `1e3`, `0x10`, ` 5`. */
const WHOLE = /^[+-]?\d+(?:\.0*)?$/;

/** A whole number from `min` to `max` (`5` and `5.0` count, `5.5` does not). */
export function WholeNumber(min: number, max: number): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }) => {
      if (!single(value) || !WHOLE.test(value)) return value;
      const number = Number(value);
      return Number.isInteger(number) && number >= min && number <= max ? number : value;
    }),
    rule('wholeNumber', (value) => (typeof value === 'number' ? undefined : `must be a whole number from ${min} to ${max}`)),
  );
}

/** `true` or `false`. */
export const QueryBoolean = (): PropertyDecorator =>
  applyDecorators(
    Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value)),
    rule('queryBoolean', (value) => (typeof value === 'boolean' ? undefined : 'must be true or false')),
  );

/** A number, kept as canonical JSON number text (exact for integers of any size). */
export const QueryNumber = (): PropertyDecorator =>
  applyDecorators(
    Transform(({ value }) => (single(value) ? (canonicalNumber(value) ?? value) : value)),
    rule('queryNumber', (value) => (typeof value === 'string' && canonicalNumber(value) === value ? undefined : 'must be a number')),
  );

/** A signed 64-bit integer, kept as canonical decimal text. */
export const QueryInt64 = (): PropertyDecorator =>
  applyDecorators(
    Transform(({ value }) => (single(value) ? (canonicalInt64(value) ?? value) : value)),
    rule('queryInt64', (value) =>
      typeof value === 'string' && canonicalInt64(value) === value ? undefined : 'must be an integer in the signed 64-bit range',
    ),
  );

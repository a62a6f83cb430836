import { DomainError } from './domain-error.js';
import { ErrorCode } from './error-code.js';

/** Raw query parameters as parsed by the HTTP server (a repeated name becomes an array). */
export type RawQuery = Record<string, unknown>;

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const INTEGER = /^[+-]?\d+(?:\.0*)?$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function invalid(name: string, value: unknown, reason: string): DomainError {
  return DomainError.of(ErrorCode.InvalidField, `Malformed parameter: ${name}: ${reason}.`, {
    field: name,
    invalidValue: value,
  });
}

/** Typed readers of query parameters; each rejects a bad value with 400 naming the parameter. */
export const queryParam = {
  /** All values of a repeatable parameter. */
  strings(query: RawQuery, name: string): string[] {
    const value = query[name];
    if (value === undefined) return [];
    const values = Array.isArray(value) ? value : [value];
    if (!values.every((v) => typeof v === 'string')) throw invalid(name, value, 'must be a string');
    if (values.some((v) => (v as string).includes('\u0000'))) throw invalid(name, value, 'must not contain NUL characters');
    return values as string[];
  },

  /** A parameter given at most once. */
  string(query: RawQuery, name: string): string | undefined {
    const values = queryParam.strings(query, name);
    if (values.length > 1) throw invalid(name, values, 'may be given only once');
    return values[0];
  },

  /** A number, as canonical JSON number text (exact for integers of any size). */
  number(query: RawQuery, name: string): string | undefined {
    const raw = queryParam.string(query, name);
    if (raw === undefined) return undefined;
    const text = canonicalNumber(raw);
    if (text === undefined) throw invalid(name, raw, 'must be a number');
    return text;
  },

  /** A signed 64-bit integer, as canonical decimal text. */
  int64(query: RawQuery, name: string): string | undefined {
    const raw = queryParam.string(query, name);
    if (raw === undefined) return undefined;
    const text = canonicalInt64(raw);
    if (text === undefined) throw invalid(name, raw, 'must be an integer in the signed 64-bit range');
    return text;
  },

  /** A whole number within [min, max] (`5.0` counts, `5.5` does not). */
  wholeNumber(query: RawQuery, name: string, min: number, max: number): number | undefined {
    const raw = queryParam.string(query, name);
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isInteger(value) || value < min || value > max) {
      throw invalid(name, raw, `must be a whole number from ${min} to ${max}`);
    }
    return value;
  },

  boolean(query: RawQuery, name: string): boolean | undefined {
    const raw = queryParam.string(query, name);
    if (raw === undefined) return undefined;
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    throw invalid(name, raw, 'must be true or false');
  },
};

export function canonicalInt64(raw: string): string | undefined {
  if (!INTEGER.test(raw)) return undefined;
  const value = BigInt(raw.replace(/\.0*$/, '').replace(/^\+/, ''));
  return value >= INT64_MIN && value <= INT64_MAX ? value.toString() : undefined;
}

export function canonicalNumber(raw: string): string | undefined {
  if (!DECIMAL.test(raw)) return undefined;
  const asInt = canonicalInt64(raw);
  if (asInt !== undefined) return asInt;
  const value = Number(raw);
  return Number.isFinite(value) ? JSON.stringify(value) : undefined;
}

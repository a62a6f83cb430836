/** Raw query parameters as parsed by the HTTP server (a repeated name becomes an array). */
export type RawQuery = Record<string, unknown>;

/** Written so that no digit can be matched two ways: `\d+\.?\d*` took seconds to refuse 30,000 digits and a letter. */
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const INTEGER = /^[+-]?\d+(?:\.0*)?$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

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

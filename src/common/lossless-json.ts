import { parse as losslessParse, stringify as losslessStringify } from 'lossless-json';

/**
 * JSON that keeps 64-bit integers exact (CONTRACT.md §1). `JSON.parse` rounds integers beyond 2^53,
 * so text with a long digit run takes a lossless path where such integers become `bigint`; the
 * common case stays on the native parser (a regex test costs about 0.5 µs).
 */
const LONG_DIGITS = /\d{16}/;
const INTEGER = /^-?\d+(?:\.0+)?$/;

function parseNumber(text: string): number | bigint {
  const value = Number(text);
  if (Number.isSafeInteger(value) || !INTEGER.test(text)) return value;
  const dot = text.indexOf('.');
  return BigInt(dot === -1 ? text : text.slice(0, dot));
}

export function parseJson(text: string): unknown {
  return LONG_DIGITS.test(text) ? losslessParse(text, null, parseNumber) : JSON.parse(text);
}

/** Serialises values that may hold `bigint`s exactly; plain values take the native path. */
export function stringifyJson(value: unknown, containsBigInt: boolean): string {
  return containsBigInt ? (losslessStringify(value) as string) : JSON.stringify(value);
}

/** JSON text of a value that may hold `bigint`s, found out by trying the native path first. */
export function toJsonText(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return losslessStringify(value) as string;
  }
}

/** The position (1-based line and column) of a JSON syntax error, as far as it can be told. */
export function describeJsonError(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const match = /position (\d+)/.exec(message);
  if (!match) return message;
  const offset = Number(match[1]);
  const before = text.slice(0, offset).split('\n');
  return `${message.replace(/ in JSON at position \d+.*$/s, '')} (line ${before.length}, column ${before[before.length - 1].length + 1})`;
}

import { parse as losslessParse, stringify as losslessStringify } from 'lossless-json';

/**
 * JSON that keeps 64-bit integers exact (docs/rules.md#addressing-and-input). `JSON.parse` rounds integers beyond 2^53,
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
  if (!LONG_DIGITS.test(text)) return JSON.parse(text);
  // Integers past 2^53 become marked strings for the native parser, then `bigint`s: on a page of 100 resources
  // with 64-bit integers this took 1.5 ms where lossless-json's parser took 4–5 (docs/performance.md, "GraphQL").
  // A text that already holds the mark, or that the native parser refuses, takes lossless-json's path (and its errors).
  if (!text.includes('\\u0000')) {
    const marked = markLongIntegers(text);
    if (marked === undefined) return JSON.parse(text);
    let value: unknown;
    try {
      value = JSON.parse(marked);
    } catch {
      return losslessParse(text, null, parseNumber);
    }
    return unmark(value);
  }
  return losslessParse(text, null, parseNumber);
}

/** The mark before the digits of an integer past 2^53 (NUL: no JSON string reaches here holding one). */
const MARK = '\u0000';
/** An integer as JSON writes it (no leading zero), with an optional zero fraction. */
const JSON_INTEGER = /^-?[1-9]\d*(?:\.0+)?$/;

/** `text` with each integer past 2^53 outside strings written as the string `"\u0000<digits>"`; undefined when there is none. */
function markLongIntegers(text: string): string | undefined {
  let marked = '';
  let copied = 0;
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = stringEnd(text, i);
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      for (let d = text.charCodeAt(end); (d >= 0x30 && d <= 0x39) || d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d; d = text.charCodeAt(++end));
      if (end - i >= 16) {
        const token = text.slice(i, end);
        // Only a number JSON allows: a marked `-0922…` would be a string the native parser takes.
        if (JSON_INTEGER.test(token) && typeof parseNumber(token) === 'bigint') {
          marked += `${text.slice(copied, i)}"\\u0000${token}"`;
          copied = end;
        }
      }
      i = end;
    } else {
      i++;
    }
  }
  return copied === 0 ? undefined : marked + text.slice(copied);
}

/** The index after the string that opens at `start` (its closing quote is the first one not escaped). */
function stringEnd(text: string, start: number): number {
  for (let quote = text.indexOf('"', start + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
  }
  return text.length;
}

/** The value with every marked string turned back into its `bigint` (without recursion). */
function unmark(root: unknown): unknown {
  if (typeof root === 'string') return root.startsWith(MARK) ? parseNumber(root.slice(1)) : root;
  const pending: unknown[] = [root];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next !== 'object' || next === null) continue;
    if (Array.isArray(next)) {
      for (let i = 0; i < next.length; i++) next[i] = unmarked(next[i], pending);
    } else {
      const members = next as Record<string, unknown>;
      for (const key in members) members[key] = unmarked(members[key], pending);
    }
  }
  return root;
}

/** A member as it was before marking; an object or array is queued to be looked into. */
function unmarked(member: unknown, pending: unknown[]): unknown {
  if (typeof member === 'string') return member.charCodeAt(0) === 0 ? parseNumber(member.slice(1)) : member;
  if (typeof member === 'object' && member !== null) pending.push(member);
  return member;
}

/** Serialises values that may hold `bigint`s exactly; plain values take the native path. */
export function stringifyJson(value: unknown, containsBigInt: boolean): string {
  return containsBigInt ? (losslessStringify(value) as string) : JSON.stringify(value);
}

/**
 * JSON text of a value that may hold `bigint`s. Looking for one first is cheaper than letting
 * `JSON.stringify` find it: it throws a `TypeError` there, after serialising what came before, and a body
 * without any pays little for the look (docs/performance.md#memory).
 */
export function toJsonText(value: unknown): string {
  return containsBigInt(value) ? (losslessStringify(value) as string) : JSON.stringify(value);
}

/** Whether a value parsed from JSON holds a `bigint` at any depth (without recursion). */
function containsBigInt(root: unknown): boolean {
  if (typeof root === 'bigint') return true;
  const pending: unknown[] = [root];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next !== 'object' || next === null) continue;
    if (Array.isArray(next)) {
      for (let i = 0; i < next.length; i++) {
        const member: unknown = next[i];
        if (typeof member === 'bigint') return true;
        if (typeof member === 'object' && member !== null) pending.push(member);
      }
    } else {
      for (const key in next) {
        const member: unknown = (next as Record<string, unknown>)[key];
        if (typeof member === 'bigint') return true;
        if (typeof member === 'object' && member !== null) pending.push(member);
      }
    }
  }
  return false;
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

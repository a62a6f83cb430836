import { stringifyJson } from '../common/lossless-json.js';

/** Deepest nesting of arrays and objects a stored or declared JSON value may have. */
export const MAX_JSON_DEPTH = 64;

/**
 * JSON text of a parsed JSON value (what the lossless body parser or the YAML reader produced), or
 * the reason it cannot be stored as JSON exactly: non-finite numbers, NUL characters (PostgreSQL's
 * jsonb refuses them), nesting deeper than MAX_JSON_DEPTH, values JSON has no form for. Integers kept
 * as `bigint` are written exactly.
 */
export function jsonText(value: unknown): { text: string } | { problem: string } {
  let containsBigInt = false;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item === 'boolean') continue;
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return { problem: 'strings must not contain NUL characters' };
      continue;
    }
    if (typeof item === 'bigint') {
      containsBigInt = true;
      continue;
    }
    if (typeof item === 'number') {
      if (!Number.isFinite(item)) return { problem: 'numbers must be finite' };
      continue;
    }
    if (typeof item !== 'object') return { problem: `a ${typeof item} is not a JSON value` };
    if (depth >= MAX_JSON_DEPTH) return { problem: `arrays and objects must not be nested deeper than ${MAX_JSON_DEPTH} levels` };
    if (Array.isArray(item)) {
      for (const element of item) stack.push([element, depth + 1]);
      continue;
    }
    const prototype = Object.getPrototypeOf(item);
    if (prototype !== Object.prototype && prototype !== null) return { problem: 'only arrays, objects, strings, numbers, booleans and null are JSON values' };
    for (const [name, member] of Object.entries(item)) {
      if (name.includes('\u0000')) return { problem: 'member names must not contain NUL characters' };
      stack.push([member, depth + 1]);
    }
  }
  return { text: stringifyJson(value, containsBigInt) };
}

/**
 * Text PostgreSQL refuses to store: a NUL character (neither `text` nor `jsonb` can hold one) and a lone
 * UTF-16 surrogate (`"\ud800"` is valid JSON, but a surrogate escape that is not half of a pair is refused
 * by `jsonb`, and cannot be encoded as UTF-8 for `text`).
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * In JSON text, the only spellings of those characters: an escape `\u0000` or `\uD800`…`\uDFFF` (a raw NUL
 * is not valid JSON, and UTF-8 has no encoding of a surrogate). A line without one needs no further look.
 * It may match where there is nothing to refuse (`"\\u0000"`, a pair); the parsed value then decides.
 */
const SUSPECT_ESCAPE = /\\u(?:0000|[dD][89a-fA-F])/;

/** What in `text` PostgreSQL cannot store, in words; undefined when it can store all of it. */
export function unstorableText(text: string): string | undefined {
  if (text.includes('\u0000')) return 'a NUL character (\\u0000)';
  const lone = LONE_SURROGATE.exec(text);
  if (lone) return `a lone UTF-16 surrogate (\\u${lone[0].charCodeAt(0).toString(16)})`;
  return undefined;
}

/** Where a parsed JSON value holds text PostgreSQL cannot store, and what it is. */
interface UnstorableText {
  /** The path of the string, or of the object whose member name it is (`objectTypeProperty.arrayOfStringExample[0]`; '' for the value itself). */
  path: string;
  /** `a lone UTF-16 surrogate (\ud800) in a member name`. */
  problem: string;
}

/**
 * The first string or member name of `value` (parsed from `text`) that PostgreSQL cannot store, or
 * undefined. Text without a suspect escape is not walked. Depth-first without recursion, so a deeply
 * nested value cannot exhaust the stack.
 */
export function findUnstorableText(text: string, value: unknown): UnstorableText | undefined {
  if (!SUSPECT_ESCAPE.test(text)) return undefined;
  const pending: Array<[unknown, string]> = [[value, '']];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, path] = next;
    if (typeof item === 'string') {
      const problem = unstorableText(item);
      if (problem) return { path, problem };
      continue;
    }
    if (typeof item !== 'object' || item === null) continue;
    if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) pending.push([item[i], `${path}[${i}]`]);
      continue;
    }
    const names = Object.keys(item);
    for (const name of names) {
      const problem = unstorableText(name);
      if (problem) return { path, problem: `${problem} in a member name` };
    }
    for (let i = names.length - 1; i >= 0; i--) pending.push([(item as Record<string, unknown>)[names[i]], path ? `${path}.${names[i]}` : names[i]]);
  }
  return undefined;
}

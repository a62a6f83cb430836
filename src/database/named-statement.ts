import type { Statement } from './database.js';

/**
 * A statement whose placeholders are names (`:id`, `:projectKey::jsonb`), not positions: its text for the
 * driver has `$1…` in the order `parameters` lists the names, and `values` puts an object's members in that
 * order. A name used and not declared, or declared and not used, fails at module load, so a statement and
 * its values cannot drift apart.
 */
export interface NamedStatement<N extends string> extends Statement {
  /** The text as written, with its `:name` placeholders (what `npm run sql` renders). */
  readonly source: string;
  readonly parameters: readonly N[];
  values(args: Readonly<Record<N, unknown>>): unknown[];
}

/** `:name`, but not the second colon of a cast (`::jsonb`) nor a colon inside a word. */
const PLACEHOLDER = /(?<![:\w]):([a-z][A-Za-z0-9]*)\b/g;

export function namedStatement<const N extends string>(name: string, parameters: readonly N[], source: string): NamedStatement<N> {
  const position = new Map<string, number>(parameters.map((p, i) => [p, i + 1]));
  const used = new Set<string>();
  const text = source.replace(PLACEHOLDER, (_, p: string) => {
    const n = position.get(p);
    if (n === undefined) throw new Error(`Statement ${name} uses :${p}, which is not among its parameters.`);
    used.add(p);
    return `$${n}`;
  });
  const unused = parameters.filter((p) => !used.has(p));
  if (unused.length > 0) throw new Error(`Statement ${name} declares ${unused.map((p) => `:${p}`).join(', ')} and never uses them.`);
  return { name, text, source, parameters, values: (args) => parameters.map((p) => args[p]) };
}

/**
 * A statement whose text is built from its arguments (a `where` translated from a query, placeholders
 * numbered after its values), with examples of them: what `npm run sql` renders, one statement each.
 */
export function statementTemplate<A extends unknown[]>(examples: A[], build: (...args: A) => string): ((...args: A) => string) & { examples: A[] } {
  return Object.assign(build, { examples });
}

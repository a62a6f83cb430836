import type { Catalogue } from './catalogue.js';

/*
 * `sort` and `expand` of the query endpoint (docs/rules.md#query-language) over a catalogue's sortable fields.
 * Pure functions: the DTO's constraints call the `…Error` checks (the one statement of the syntax),
 * the repository the builders.
 */

export interface SortItem {
  field: string;
  direction: 'asc' | 'desc';
}

const SORT = /^\s*([A-Za-z]+)\s+([A-Za-z]+)\s*$/;

/** Why a `sort` value is malformed, or undefined when it is `<field> asc|desc` with a sortable field. */
export function sortError(catalogue: Catalogue, text: string): string | undefined {
  const match = SORT.exec(text);
  const fields = () => [...catalogue.sortFields.keys()].join(', ');
  if (!match) return `expected "<field> asc" or "<field> desc" (field one of ${fields()}) but found ${JSON.stringify(text)}`;
  if (!catalogue.sortFields.has(match[1])) return `expected a field to sort by (${fields()}) but found ${JSON.stringify(match[1])}`;
  const direction = match[2].toLowerCase();
  if (direction !== 'asc' && direction !== 'desc') return `expected asc or desc after ${match[1]} but found ${JSON.stringify(match[2])}`;
  return undefined;
}

/** A valid `sort` value (checked by `sortError`) as its field and direction. */
export function parseSort(text: string): SortItem {
  const match = SORT.exec(text)!;
  return { field: match[1], direction: match[2].toLowerCase() as 'asc' | 'desc' };
}

/**
 * The ORDER BY list: the sorts in order, a field sorted twice counts once (the first), and ties are
 * broken by the catalogue's id ascending (docs/rules.md#query-language), so every order is total and paging
 * is stable.
 */
export function orderBy(catalogue: Catalogue, sorts: readonly SortItem[]): string {
  const seen = new Set<string>();
  const items: string[] = [];
  for (const { field, direction } of sorts) {
    if (seen.has(field)) continue;
    seen.add(field);
    items.push(`${catalogue.sortFields.get(field)!.sql} ${direction.toUpperCase()}`);
  }
  if (!seen.has(catalogue.id.name)) items.push(`${catalogue.id.sql} ASC`);
  return items.join(', ');
}

const EXPAND = /^[A-Za-z_][A-Za-z0-9_]*(?:\[\*\])?(?:\.[A-Za-z_][A-Za-z0-9_]*(?:\[\*\])?)*$/;

/** Why an `expand` path is malformed (dotted identifiers, each with an optional `[*]`), or undefined. */
export function expandError(text: string): string | undefined {
  return EXPAND.test(text) ? undefined : `expected a path of dotted identifiers, each optionally followed by [*] (such as "a.b[*].c"), but found ${JSON.stringify(text)}`;
}

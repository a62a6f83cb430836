/**
 * The filter and facet expressions of GET /{projectKey}/resource/searchApiPattern (CONTRACT.md §5, §10):
 * pure functions from the parameter text to a typed expression. Every failure is a `SearchExpressionError`
 * carrying the 1-based column; nothing else is ever thrown.
 *
 *   filter  := path ':' item (',' item)*
 *   item    := string | number | true | false | missing | exists | range range (',' range)*
 *   range   := '(' (number | '*') to (number | '*') ')'
 *   facet   := path [':' (range ranges | item (',' item)*)] modifier*
 *   modifier:= counting resources | as alias
 *
 * Strings are double-quoted with `\"` and `\\` escapes; numbers are JSON numbers; keywords are
 * case-insensitive. A path must be one of `SEARCH_PATHS`, and its values must fit its data type.
 */

export type SearchDataType = 'text' | 'number' | 'boolean';

/** Where a path's values live: an array of `objectTypeProperty`, a member of its object array, or a column. */
export interface SearchPath {
  name: string;
  dataType: SearchDataType;
  source: { kind: 'array'; field: string } | { kind: 'member'; field: string; member: string } | { kind: 'column'; column: 'key' | 'version' | 'published' };
}

const array = (field: string, dataType: SearchDataType): SearchPath => ({
  name: `objectTypeProperty.${field}`,
  dataType,
  source: { kind: 'array', field },
});
const member = (name: string): SearchPath => ({
  name: `objectTypeProperty.arrayOfObjectType.${name}`,
  dataType: 'number',
  source: { kind: 'member', field: 'arrayOfObjectType', member: name },
});

/** Every path filters and facets may name. */
export const SEARCH_PATHS: ReadonlyMap<string, SearchPath> = new Map(
  [
    array('arrayOfIntExample', 'number'),
    array('arrayOfUniqueIntExample', 'number'),
    array('arrayOfTwonumbersExample', 'number'),
    array('arrayOfFloatExample', 'number'),
    array('arrayOfNumberNoDefaultsExample', 'number'),
    array('arrayOfStringExample', 'text'),
    member('integerExample'),
    member('integerExampleInt32'),
    { name: 'key', dataType: 'text', source: { kind: 'column', column: 'key' } } as SearchPath,
    { name: 'version', dataType: 'number', source: { kind: 'column', column: 'version' } } as SearchPath,
    { name: 'published', dataType: 'boolean', source: { kind: 'column', column: 'published' } } as SearchPath,
  ].map((p) => [p.name, p]),
);

/** An end of a range: a JSON number as text (exact), or undefined for `*`. */
export interface NumericRange {
  from?: string;
  to?: string;
}

export type FilterItem =
  | { kind: 'text'; value: string }
  | { kind: 'number'; value: string }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'range'; range: NumericRange }
  | { kind: 'missing' }
  | { kind: 'exists' };

export interface FilterExpression {
  path: SearchPath;
  /** Alternatives: a resource matches when any item does. */
  items: FilterItem[];
}

interface FacetBase {
  path: SearchPath;
  alias?: string;
  countingResources: boolean;
}
export type FacetExpression =
  | (FacetBase & { kind: 'terms' })
  | (FacetBase & { kind: 'range'; ranges: NumericRange[] })
  | (FacetBase & { kind: 'filter'; items: FilterItem[] });

export class SearchExpressionError extends Error {
  constructor(
    readonly reason: string,
    readonly column: number,
  ) {
    super(`${reason} (column ${column})`);
  }
}

/** Limits that keep one expression's SQL small. */
export const EXPRESSION_LIMITS = { length: 2000, items: 100, ranges: 50, aliasLength: 100 };

type TokenKind = 'word' | 'string' | 'number' | 'punct' | 'end';
interface Token {
  kind: TokenKind;
  text: string;
  /** The decoded value of a string token. */
  value?: string;
  column: number;
}

const WORD = /[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)*/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?(\d+))?/y;
/** Exponents beyond this are refused: PostgreSQL's numeric would overflow or allocate huge values. */
const MAX_EXPONENT = 1000;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const column = i + 1;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
    } else if (c === '"') {
      let value = '';
      let j = i + 1;
      for (;;) {
        if (j >= text.length) throw new SearchExpressionError('unterminated string', column);
        const d = text[j];
        if (d === '"') break;
        if (d === '\\') {
          const e = text[j + 1];
          if (e !== '"' && e !== '\\') throw new SearchExpressionError('only \\" and \\\\ may follow a backslash in a string', j + 1);
          value += e;
          j += 2;
        } else {
          value += d;
          j++;
        }
      }
      tokens.push({ kind: 'string', text: text.slice(i, j + 1), value, column });
      i = j + 1;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      if (!m || /[0-9A-Za-z_.]/.test(text[NUMBER.lastIndex] ?? '')) throw new SearchExpressionError('malformed number', column);
      if (m[1] !== undefined && Number(m[1]) > MAX_EXPONENT) throw new SearchExpressionError('number out of range', column);
      tokens.push({ kind: 'number', text: m[0], column });
      i = NUMBER.lastIndex;
    } else if (/[A-Za-z_]/.test(c)) {
      WORD.lastIndex = i;
      const m = WORD.exec(text)!;
      tokens.push({ kind: 'word', text: m[0], column });
      i = WORD.lastIndex;
    } else if (c === ':' || c === ',' || c === '(' || c === ')' || c === '*') {
      tokens.push({ kind: 'punct', text: c, column });
      i++;
    } else {
      throw new SearchExpressionError(`unexpected character '${c}'`, column);
    }
  }
  tokens.push({ kind: 'end', text: '', column: text.length + 1 });
  return tokens;
}

class Parser {
  private pos = 0;
  constructor(private readonly tokens: Token[]) {}

  peek(): Token {
    return this.tokens[this.pos];
  }
  next(): Token {
    const token = this.tokens[this.pos];
    if (token.kind !== 'end') this.pos++;
    return token;
  }
  isWord(keyword: string, token = this.peek()): boolean {
    return token.kind === 'word' && token.text.toLowerCase() === keyword;
  }
  isPunct(p: string, token = this.peek()): boolean {
    return token.kind === 'punct' && token.text === p;
  }
  expectPunct(p: string, what: string): Token {
    const token = this.next();
    if (!this.isPunct(p, token)) throw unexpected(token, what);
    return token;
  }
  expectWord(keyword: string): void {
    const token = this.next();
    if (!this.isWord(keyword, token)) throw unexpected(token, `'${keyword}'`);
  }

  path(): SearchPath {
    const token = this.next();
    if (token.kind !== 'word') throw unexpected(token, 'a path');
    const path = SEARCH_PATHS.get(token.text);
    if (!path) {
      throw new SearchExpressionError(`unknown path '${token.text}' (one of ${[...SEARCH_PATHS.keys()].join(', ')})`, token.column);
    }
    return path;
  }

  /** item (',' item)*, each fitting the path's data type. */
  items(path: SearchPath): FilterItem[] {
    const items: FilterItem[] = [];
    for (;;) {
      const token = this.peek();
      if (this.isWord('range')) {
        this.next();
        for (const range of this.ranges(path, token)) items.push({ kind: 'range', range });
      } else {
        items.push(this.item(path));
      }
      if (items.length > EXPRESSION_LIMITS.items) {
        throw new SearchExpressionError(`at most ${EXPRESSION_LIMITS.items} values`, token.column);
      }
      if (!this.isPunct(',')) return items;
      this.next();
    }
  }

  item(path: SearchPath): FilterItem {
    const token = this.next();
    if (this.isWord('missing', token)) return { kind: 'missing' };
    if (this.isWord('exists', token)) return { kind: 'exists' };
    const fits = (dataType: SearchDataType): void => {
      if (path.dataType !== dataType) {
        throw new SearchExpressionError(`${path.name} holds ${describe(path.dataType)}, not ${describe(dataType)}`, token.column);
      }
    };
    if (token.kind === 'string') {
      fits('text');
      return { kind: 'text', value: token.value! };
    }
    if (token.kind === 'number') {
      fits('number');
      return { kind: 'number', value: token.text };
    }
    if (this.isWord('true', token) || this.isWord('false', token)) {
      fits('boolean');
      return { kind: 'boolean', value: token.text.toLowerCase() === 'true' };
    }
    throw unexpected(token, 'a value ("text", a number, true, false, range, missing or exists)');
  }

  /** After `range`: '(' a to b ')' (',' '(' … ')')*. A comma not followed by '(' ends the list. */
  ranges(path: SearchPath, at: Token): NumericRange[] {
    if (path.dataType !== 'number') throw new SearchExpressionError(`range needs a numeric path; ${path.name} holds ${describe(path.dataType)}`, at.column);
    const ranges: NumericRange[] = [];
    for (;;) {
      this.expectPunct('(', "'('");
      const from = this.rangeEnd();
      this.expectWord('to');
      const to = this.rangeEnd();
      this.expectPunct(')', "')'");
      ranges.push({ from, to });
      if (ranges.length > EXPRESSION_LIMITS.ranges) throw new SearchExpressionError(`at most ${EXPRESSION_LIMITS.ranges} ranges`, at.column);
      if (!(this.isPunct(',') && this.isPunct('(', this.tokens[this.pos + 1]))) return ranges;
      this.next();
    }
  }

  rangeEnd(): string | undefined {
    const token = this.next();
    if (this.isPunct('*', token)) return undefined;
    if (token.kind === 'number') return token.text;
    throw unexpected(token, 'a number or *');
  }

  end(): void {
    const token = this.peek();
    if (token.kind !== 'end') throw unexpected(token, 'the end of the expression');
  }
}

function describe(dataType: SearchDataType): string {
  return dataType === 'text' ? 'strings' : dataType === 'number' ? 'numbers' : 'booleans';
}

function unexpected(token: Token, expected: string): SearchExpressionError {
  const found = token.kind === 'end' ? 'the end' : `'${token.text.length > 40 ? token.text.slice(0, 40) + '…' : token.text}'`;
  return new SearchExpressionError(`expected ${expected} but found ${found}`, token.column);
}

function start(text: string): Parser {
  if (typeof text !== 'string') throw new SearchExpressionError('must be a string', 1);
  if (text.length > EXPRESSION_LIMITS.length) throw new SearchExpressionError(`longer than ${EXPRESSION_LIMITS.length} characters`, EXPRESSION_LIMITS.length + 1);
  return new Parser(tokenize(text));
}

/** `<path>:<values>`, as `filter`, `filter.query` and `filter.facets` take it. */
export function parseFilter(text: string): FilterExpression {
  const p = start(text);
  const path = p.path();
  p.expectPunct(':', "':'");
  const items = p.items(path);
  p.end();
  return { path, items };
}

/** A terms facet `<path>`, a range facet `<path>:range (…)`, or a filtered facet `<path>:<values>`, with modifiers. */
export function parseFacet(text: string): FacetExpression {
  const p = start(text);
  const path = p.path();
  let facet: FacetExpression;
  if (p.isPunct(':')) {
    p.next();
    const items = p.items(path);
    // Only ranges: a range facet (counts per range). Anything else, ranges mixed in or not: a filtered facet.
    facet = items.every((i) => i.kind === 'range')
      ? { kind: 'range', path, ranges: items.map((i) => (i as { range: NumericRange }).range), countingResources: false }
      : { kind: 'filter', path, items, countingResources: false };
  } else {
    facet = { kind: 'terms', path, countingResources: false };
  }
  let counting = false;
  let alias: string | undefined;
  while (p.peek().kind !== 'end') {
    const token = p.next();
    if (p.isWord('counting', token) && !counting) {
      p.expectWord('resources');
      counting = true;
    } else if (p.isWord('as', token) && alias === undefined) {
      const name = p.next();
      if (name.kind !== 'word') throw unexpected(name, 'an alias');
      if (name.text.length > EXPRESSION_LIMITS.aliasLength) throw new SearchExpressionError(`alias longer than ${EXPRESSION_LIMITS.aliasLength} characters`, name.column);
      alias = name.text;
    } else {
      throw unexpected(token, counting && alias !== undefined ? 'the end of the expression' : "'counting resources', 'as <alias>' or the end");
    }
  }
  return { ...facet, countingResources: counting, ...(alias !== undefined ? { alias } : {}) };
}

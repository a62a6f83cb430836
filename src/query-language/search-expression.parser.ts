import type { Catalogue, SearchDataType, SearchPath } from './catalogue.js';
import { COLUMN, type Lexicon, matchAt, QuerySyntaxError, type Token, tokenize } from './lexer.js';

/**
 * The filter and facet expressions of GET /{projectKey}/resource/searchApiPattern (docs/rules.md#search):
 * pure functions from the parameter text to a typed expression. Every failure is a `QuerySyntaxError`
 * carrying the 1-based column; nothing else is ever thrown.
 *
 *   filter  := path ':' item (',' item)*
 *   item    := string | number | true | false | missing | exists | range range (',' range)*
 *   range   := '(' (number | '*') to (number | '*') ')'
 *   facet   := path [':' (range ranges | item (',' item)*)] modifier*
 *   modifier:= counting resources | as alias
 *
 * Strings are double-quoted with `\"` and `\\` escapes; numbers are JSON numbers; keywords are
 * case-insensitive. A path must be one of the catalogue's `searchPaths`, and its values must fit its data type.
 */

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

/** Limits that keep one expression's SQL small. */
const EXPRESSION_LIMITS = { length: 2000, items: 100, ranges: 50, aliasLength: 100 };

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?(\d+))?/y;
/** Exponents beyond this are refused: PostgreSQL's numeric would overflow or allocate huge values. */
const MAX_EXPONENT = 1000;

/** JSON numbers, dotted paths, no variables; failures at a column. */
const SEARCH_LEXICON: Lexicon = {
  positions: COLUMN,
  maxLength: EXPRESSION_LIMITS.length,
  tooLong: `longer than ${EXPRESSION_LIMITS.length} characters`,
  word: /[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)*/y,
  punctuation: [':', ',', '(', ')', '*'],
  number(text, at, fail) {
    const m = matchAt(NUMBER, text, at);
    if (!m || /[0-9A-Za-z_.]/.test(text[NUMBER.lastIndex] ?? '')) fail(at, 'malformed number');
    if (m![1] !== undefined && Number(m![1]) > MAX_EXPONENT) fail(at, 'number out of range');
    return m![0];
  },
  strings: { unterminated: 'unterminated string', badEscape: 'only \\" and \\\\ may follow a backslash in a string' },
  unexpected: (text, at) => `unexpected character '${text[at]}'`,
};

/** A failure of a search expression at `offset`. */
function failure(text: string, offset: number, reason: string): QuerySyntaxError {
  return new QuerySyntaxError(text, offset, reason, SEARCH_LEXICON.positions);
}

class Parser {
  private pos = 0;
  constructor(
    private readonly text: string,
    private readonly tokens: Token[],
    private readonly paths: ReadonlyMap<string, SearchPath>,
  ) {}

  fail(at: number, reason: string): QuerySyntaxError {
    return failure(this.text, at, reason);
  }
  unexpected(token: Token, expected: string): QuerySyntaxError {
    const found = token.kind === 'end' ? 'the end' : `'${token.text.length > 40 ? token.text.slice(0, 40) + '…' : token.text}'`;
    return this.fail(token.at, `expected ${expected} but found ${found}`);
  }

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
    if (!this.isPunct(p, token)) throw this.unexpected(token, what);
    return token;
  }
  expectWord(keyword: string): void {
    const token = this.next();
    if (!this.isWord(keyword, token)) throw this.unexpected(token, `'${keyword}'`);
  }

  path(): SearchPath {
    const token = this.next();
    if (token.kind !== 'word') throw this.unexpected(token, 'a path');
    const path = this.paths.get(token.text);
    if (!path) throw this.fail(token.at, `unknown path '${token.text}' (one of ${[...this.paths.keys()].join(', ')})`);
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
        throw this.fail(token.at, `at most ${EXPRESSION_LIMITS.items} values`);
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
        throw this.fail(token.at, `${path.name} holds ${describe(path.dataType)}, not ${describe(dataType)}`);
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
    throw this.unexpected(token, 'a value ("text", a number, true, false, range, missing or exists)');
  }

  /** After `range`: '(' a to b ')' (',' '(' … ')')*. A comma not followed by '(' ends the list. */
  ranges(path: SearchPath, at: Token): NumericRange[] {
    if (path.dataType !== 'number') throw this.fail(at.at, `range needs a numeric path; ${path.name} holds ${describe(path.dataType)}`);
    const ranges: NumericRange[] = [];
    for (;;) {
      this.expectPunct('(', "'('");
      const from = this.rangeEnd();
      this.expectWord('to');
      const to = this.rangeEnd();
      this.expectPunct(')', "')'");
      ranges.push({ from, to });
      if (ranges.length > EXPRESSION_LIMITS.ranges) throw this.fail(at.at, `at most ${EXPRESSION_LIMITS.ranges} ranges`);
      if (!(this.isPunct(',') && this.isPunct('(', this.tokens[this.pos + 1]))) return ranges;
      this.next();
    }
  }

  rangeEnd(): string | undefined {
    const token = this.next();
    if (this.isPunct('*', token)) return undefined;
    if (token.kind === 'number') return token.text;
    throw this.unexpected(token, 'a number or *');
  }

  end(): void {
    const token = this.peek();
    if (token.kind !== 'end') throw this.unexpected(token, 'the end of the expression');
  }
}

function describe(dataType: SearchDataType): string {
  return dataType === 'text' ? 'strings' : dataType === 'number' ? 'numbers' : 'booleans';
}

function start(catalogue: Catalogue, text: string): Parser {
  if (typeof text !== 'string') throw failure(String(text), 0, 'must be a string');
  return new Parser(text, tokenize(SEARCH_LEXICON, text), catalogue.searchPaths);
}

/** `<path>:<values>`, as `filter`, `filter.query` and `filter.facets` take it. */
export function parseFilter(catalogue: Catalogue, text: string): FilterExpression {
  const p = start(catalogue, text);
  const path = p.path();
  p.expectPunct(':', "':'");
  const items = p.items(path);
  p.end();
  return { path, items };
}

/** A terms facet `<path>`, a range facet `<path>:range (…)`, or a filtered facet `<path>:<values>`, with modifiers. */
export function parseFacet(catalogue: Catalogue, text: string): FacetExpression {
  const p = start(catalogue, text);
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
      if (name.kind !== 'word') throw p.unexpected(name, 'an alias');
      if (name.text.length > EXPRESSION_LIMITS.aliasLength) throw p.fail(name.at, `alias longer than ${EXPRESSION_LIMITS.aliasLength} characters`);
      alias = name.text;
    } else {
      throw p.unexpected(token, counting && alias !== undefined ? 'the end of the expression' : "'counting resources', 'as <alias>' or the end");
    }
  }
  return { ...facet, countingResources: counting, ...(alias !== undefined ? { alias } : {}) };
}

import type { Catalogue, QueryField, Scope } from './catalogue.js';
import { LINE_AND_COLUMN, type Lexicon, matchAt, QuerySyntaxError, type Token, tokenize } from './lexer.js';

/*
 * The query-predicate language of `where` (docs/rules.md#query-language), after commercetools':
 *
 *   predicate  := or
 *   or         := and ("or" and)*
 *   and        := unary ("and" unary)*
 *   unary      := "not" "(" predicate ")" | "(" predicate ")" | condition
 *   condition  := field ( op value | ["not"] "in" list | "contains" ("any"|"all") list
 *                       | "is" ["not"] ("empty"|"defined") | "(" predicate ")" )
 *   op         := "=" | "!=" | "<>" | "<" | ">" | "<=" | ">="
 *   value      := string | number | "true" | "false" | ":" variable
 *   list       := "(" value ("," value)* ")" | ":" variable
 *
 * Keywords are case-insensitive, field names are not. Strings are double-quoted with `\"` and `\\`;
 * numbers may be negative or decimal. Field names are those of a catalogue's `where` scopes. Pure
 * functions: text in, AST out, or a QuerySyntaxError that says what was expected and where (line, column).
 */

export type CompareOp = '=' | '!=' | '<' | '>' | '<=' | '>=';

/** A value in the text; `at` is its offset in the predicate (for type errors found later). */
export type ValueNode =
  | { kind: 'string'; value: string; at: number }
  | { kind: 'number'; text: string; at: number }
  | { kind: 'boolean'; value: boolean; at: number }
  | { kind: 'variable'; name: string; at: number };

type VariableNode = Extract<ValueNode, { kind: 'variable' }>;
export type ListNode = { kind: 'list'; items: ValueNode[]; at: number } | VariableNode;

export type Predicate =
  | { kind: 'and'; operands: Predicate[] }
  | { kind: 'or'; operands: Predicate[] }
  | { kind: 'not'; operand: Predicate }
  | { kind: 'compare'; field: string; op: CompareOp; value: ValueNode }
  | { kind: 'in'; field: string; negated: boolean; values: ListNode }
  | { kind: 'contains'; field: string; mode: 'any' | 'all'; values: ListNode }
  | { kind: 'empty'; field: string; negated: boolean }
  | { kind: 'defined'; field: string; negated: boolean }
  | { kind: 'nested'; field: string; predicate: Predicate };

/** Limits that keep one predicate's work bounded. */
export const WHERE_LIMITS = { length: 10_000, depth: 32, listSize: 500 } as const;

/* ------------------------------------------------------------------ tokens */

/** The comparison each operator token stands for (`<>` is `!=`). */
const OPERATORS: ReadonlyMap<string, CompareOp> = new Map([
  ['<=', '<='],
  ['>=', '>='],
  ['<>', '!='],
  ['!=', '!='],
  ['=', '='],
  ['<', '<'],
  ['>', '>'],
]);

const NUMBER = /-?[0-9]+(?:\.[0-9]+)?/y;

/** Decimal numbers, `:variables`, comparison operators; failures at a line and column. */
const WHERE_LEXICON: Lexicon = {
  positions: LINE_AND_COLUMN,
  maxLength: WHERE_LIMITS.length,
  tooLong: `expected a predicate of at most ${WHERE_LIMITS.length} characters`,
  word: /[A-Za-z_][A-Za-z0-9_]*/y,
  punctuation: [...OPERATORS.keys(), '(', ')', ','],
  variables: { name: /[A-Za-z0-9]+/y, missingName: 'expected a variable name (letters and digits) after ":"' },
  number(text, at, fail) {
    const number = matchAt(NUMBER, text, at)?.[0];
    if (!number) fail(at, 'expected a digit after "-"');
    const after = text[at + number!.length];
    if (after === '.') fail(at + number!.length + 1, 'expected a digit after the decimal point');
    if (after !== undefined && /[A-Za-z0-9_]/.test(after)) fail(at + number!.length, 'expected a space, an operator or a parenthesis after a number');
    return number!;
  },
  strings: {
    unterminated: 'expected a closing " for this string',
    badEscape: 'expected \\" or \\\\ after a backslash in a string',
    nul: 'expected a string without NUL characters',
  },
  unexpected(text, at) {
    if (text[at] === '!') return 'expected "!=" (an exclamation mark must be followed by =)';
    return `expected a field, a value, an operator or a parenthesis but found ${JSON.stringify(String.fromCodePoint(text.codePointAt(at)!))}`;
  },
};

/** A failure of a `where` text (or of its values, found while translating) at `offset`. */
export function predicateError(text: string, offset: number, reason: string): QuerySyntaxError {
  return new QuerySyntaxError(text, offset, reason, WHERE_LEXICON.positions);
}

function describe(token: Token): string {
  switch (token.kind) {
    case 'end':
      return 'the end of the predicate';
    case 'string':
      return `the string ${JSON.stringify(token.value)}`;
    case 'number':
      return `the number ${token.text}`;
    case 'variable':
      return `the variable :${token.name}`;
    case 'punct':
      return `"${OPERATORS.get(token.text) ?? token.text}"`;
    default:
      return `"${token.text}"`;
  }
}

/* ------------------------------------------------------------------ parser */

const OPERATORS_TEXT = '=, !=, <>, <, >, <=, >=, in, not in, contains any, contains all, is empty, is defined';

/** Parses one `where` text into its AST, resolving field names against the catalogue's fields. */
export function parseWhere(catalogue: Catalogue, text: string): Predicate {
  return new Parser(text, tokenize(WHERE_LEXICON, text), catalogue.where).parse();
}

class Parser {
  private i = 0;

  constructor(
    private readonly text: string,
    private readonly tokens: Token[],
    private readonly top: Scope,
  ) {}

  parse(): Predicate {
    const predicate = this.predicate(this.top, 0);
    const next = this.peek();
    if (next.kind !== 'end') {
      const expected = next.kind === 'punct' && next.text === ')' ? 'expected "and", "or" or the end (this ")" closes nothing)' : 'expected "and", "or" or the end';
      this.fail(next, `${expected} but found ${describe(next)}`);
    }
    return predicate;
  }

  private peek(): Token {
    return this.tokens[this.i];
  }

  private next(): Token {
    return this.tokens[this.i++];
  }

  private fail(token: Token | number, expected: string): never {
    throw predicateError(this.text, typeof token === 'number' ? token : token.at, expected);
  }

  private isKeyword(token: Token, keyword: string): boolean {
    return token.kind === 'word' && token.text.toLowerCase() === keyword;
  }

  private isPunct(token: Token, punct: '(' | ')' | ','): boolean {
    return token.kind === 'punct' && token.text === punct;
  }

  private expectPunct(punct: '(' | ')', context: string): Token {
    const token = this.next();
    if (!this.isPunct(token, punct)) this.fail(token, `expected "${punct}" ${context} but found ${describe(token)}`);
    return token;
  }

  private predicate(scope: Scope, depth: number): Predicate {
    if (depth > WHERE_LIMITS.depth) this.fail(this.peek(), `expected at most ${WHERE_LIMITS.depth} levels of nesting`);
    const operands = [this.conjunction(scope, depth)];
    while (this.isKeyword(this.peek(), 'or')) {
      this.next();
      operands.push(this.conjunction(scope, depth));
    }
    return operands.length === 1 ? operands[0] : { kind: 'or', operands };
  }

  private conjunction(scope: Scope, depth: number): Predicate {
    const operands = [this.unary(scope, depth)];
    while (this.isKeyword(this.peek(), 'and')) {
      this.next();
      operands.push(this.unary(scope, depth));
    }
    return operands.length === 1 ? operands[0] : { kind: 'and', operands };
  }

  private unary(scope: Scope, depth: number): Predicate {
    const token = this.peek();
    if (this.isKeyword(token, 'not')) {
      this.next();
      this.expectPunct('(', 'after "not"');
      const operand = this.predicate(scope, depth + 1);
      this.expectPunct(')', 'to close "not ("');
      return { kind: 'not', operand };
    }
    if (this.isPunct(token, '(')) {
      this.next();
      const inner = this.predicate(scope, depth + 1);
      this.expectPunct(')', 'to close "("');
      return inner;
    }
    return this.condition(scope, depth);
  }

  private field(scope: Scope): QueryField {
    const token = this.next();
    const expected = `expected a field${scope.of === undefined ? '' : ` of ${scope.of}`} (${scope.names.join(', ')})`;
    if (token.kind !== 'word') this.fail(token, `${expected} but found ${describe(token)}`);
    const field = scope.fields.get(token.text);
    if (!field) this.fail(token, `${expected} but found unknown field ${describe(token)}`);
    return field!;
  }

  private condition(scope: Scope, depth: number): Predicate {
    const field = this.field(scope);
    const name = field.name;
    const token = this.next();
    const hasMembers = field.kind === 'object' || field.kind === 'objectArray';
    const isArray = field.kind === 'array' || field.kind === 'objectArray';

    if (this.isPunct(token, '(')) {
      if (!hasMembers) this.fail(token, `expected an operator (${OPERATORS_TEXT}) after ${name}, which has no members, but found "("`);
      const predicate = this.predicate((field as { scope: Scope }).scope, depth + 1);
      this.expectPunct(')', `to close "${name}("`);
      return { kind: 'nested', field: name, predicate };
    }
    if (this.isKeyword(token, 'is')) {
      let negated = false;
      if (this.isKeyword(this.peek(), 'not')) {
        this.next();
        negated = true;
      }
      const what = this.next();
      if (this.isKeyword(what, 'defined')) return { kind: 'defined', field: name, negated };
      if (this.isKeyword(what, 'empty')) {
        if (!isArray) this.fail(what, `expected "defined" after "is${negated ? ' not' : ''}" (${name} is not an array; "is empty" applies to arrays)`);
        return { kind: 'empty', field: name, negated };
      }
      this.fail(what, `expected "empty" or "defined" after "is${negated ? ' not' : ''}" but found ${describe(what)}`);
    }
    if (hasMembers) {
      const form = field.kind === 'objectArray' ? `${name}(<predicate on its elements>), ${name} is empty or ${name} is defined` : `${name}(<predicate on its fields>) or ${name} is defined`;
      this.fail(token, `expected ${form} but found ${describe(token)}`);
    }
    const op = token.kind === 'punct' ? OPERATORS.get(token.text) : undefined;
    if (op !== undefined) return { kind: 'compare', field: name, op, value: this.value() };
    if (this.isKeyword(token, 'in')) return { kind: 'in', field: name, negated: false, values: this.list() };
    if (this.isKeyword(token, 'not')) {
      const after = this.next();
      if (!this.isKeyword(after, 'in')) this.fail(after, `expected "in" after "${name} not" but found ${describe(after)}`);
      return { kind: 'in', field: name, negated: true, values: this.list() };
    }
    if (this.isKeyword(token, 'contains')) {
      if (!isArray) this.fail(token, `expected an operator (=, !=, <>, <, >, <=, >=, in, not in, is defined) after ${name}: "contains" applies to arrays`);
      const mode = this.next();
      const word = mode.kind === 'word' ? mode.text.toLowerCase() : '';
      if (word !== 'any' && word !== 'all') this.fail(mode, `expected "any" or "all" after "contains" but found ${describe(mode)}`);
      return { kind: 'contains', field: name, mode: word as 'any' | 'all', values: this.list() };
    }
    return this.fail(token, `expected an operator (${OPERATORS_TEXT}) after ${name} but found ${describe(token)}`);
  }

  private value(): ValueNode {
    const token = this.next();
    switch (token.kind) {
      case 'string':
        return { kind: 'string', value: token.value, at: token.at };
      case 'number':
        return { kind: 'number', text: token.text, at: token.at };
      case 'variable':
        return { kind: 'variable', name: token.name, at: token.at };
      case 'word': {
        const word = token.text.toLowerCase();
        if (word === 'true' || word === 'false') return { kind: 'boolean', value: word === 'true', at: token.at };
        break;
      }
    }
    return this.fail(token, `expected a value (a "string", a number, true, false or a :variable) but found ${describe(token)}`);
  }

  private list(): ListNode {
    const token = this.peek();
    if (token.kind === 'variable') {
      this.next();
      return { kind: 'variable', name: token.name, at: token.at };
    }
    if (!this.isPunct(token, '(')) this.fail(token, `expected a list of values in parentheses ("a", "b") or a :variable but found ${describe(token)}`);
    this.next();
    const items = [this.value()];
    while (this.isPunct(this.peek(), ',')) {
      const comma = this.next();
      if (items.length >= WHERE_LIMITS.listSize) this.fail(comma, `expected at most ${WHERE_LIMITS.listSize} values in a list`);
      items.push(this.value());
    }
    const close = this.next();
    if (!this.isPunct(close, ')')) this.fail(close, `expected "," or ")" in a list of values but found ${describe(close)}`);
    return { kind: 'list', items, at: token.at };
  }
}

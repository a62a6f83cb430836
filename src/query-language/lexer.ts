/**
 * The one lexer of the query languages (`where`, and the search's filters and facets). It skips white
 * space and reads double-quoted strings (with `\"` and `\\` as the only escapes), words, punctuation,
 * `:variables` and numbers; a `Lexicon` says which of these a language has, how its numbers are written,
 * and in which words it reports a failure. Every failure, the lexer's and the grammars', is a
 * `QuerySyntaxError` with its position in the text.
 */

export type Token =
  | { kind: 'word'; text: string; at: number }
  /** `text` is the source, quotes and escapes included; `value` the decoded string. */
  | { kind: 'string'; text: string; value: string; at: number }
  | { kind: 'number'; text: string; at: number }
  | { kind: 'variable'; text: string; name: string; at: number }
  | { kind: 'punct'; text: string; at: number }
  | { kind: 'end'; text: ''; at: number };

export interface Position {
  line: number;
  column: number;
}

/** How a language states a position: where `offset` (0-based, in UTF-16 units) is, and how its messages say so. */
interface PositionFormat {
  locate(text: string, offset: number): Position;
  describe(position: Position): string;
}

/** 1-based line, and column in characters within that line: for texts that may span lines (`where`). */
export const LINE_AND_COLUMN: PositionFormat = {
  locate(text, offset) {
    const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
    const lines = before.split('\n');
    return { line: lines.length, column: [...lines[lines.length - 1]].length + 1 };
  },
  describe: ({ line, column }) => `line ${line}, column ${column}`,
};

/** The text read as one line: the column is the offset + 1 (search expressions). */
export const COLUMN: PositionFormat = {
  locate: (_text, offset) => ({ line: 1, column: offset + 1 }),
  describe: ({ column }) => `column ${column}`,
};

/** A query text that cannot be used: `reason` says why, at `offset` (reported as `line` and `column`). */
export class QuerySyntaxError extends Error {
  readonly line: number;
  readonly column: number;

  constructor(
    readonly text: string,
    readonly offset: number,
    readonly reason: string,
    format: PositionFormat,
  ) {
    const position = format.locate(text, offset);
    super(`${reason} (${format.describe(position)})`);
    this.line = position.line;
    this.column = position.column;
  }
}

type Fail = (offset: number, reason: string) => never;

/** What one language's texts are made of. */
export interface Lexicon {
  positions: PositionFormat;
  /** Longer texts are refused before they are read (the failure is at this offset). */
  maxLength: number;
  tooLong: string;
  /** Words (fields, paths, keywords): a sticky pattern starting with a letter or `_`. */
  word: RegExp;
  /** Punctuation and operators, longer before shorter: at each position the first that matches is taken. */
  punctuation: readonly string[];
  /** `:name`, when the language has variables. */
  variables?: { name: RegExp; missingName: string };
  /** Reads the number that starts at `at` (with `-` or a digit), returning its text, or fails. */
  number(text: string, at: number, fail: Fail): string;
  strings: { unterminated: string; badEscape: string; nul?: string };
  /** Why the character at `at` starts no token. */
  unexpected(text: string, at: number): string;
}

const SPACE = /[ \t\r\n]+/y;

/** The sticky `pattern`'s match at `at`, if any. */
export function matchAt(pattern: RegExp, text: string, at: number): RegExpExecArray | null {
  pattern.lastIndex = at;
  return pattern.exec(text);
}

/** The tokens of `text`, ending with an `end` token; or a QuerySyntaxError. */
export function tokenize(lexicon: Lexicon, text: string): Token[] {
  const fail: Fail = (offset, reason) => {
    throw new QuerySyntaxError(text, offset, reason, lexicon.positions);
  };
  if (text.length > lexicon.maxLength) fail(lexicon.maxLength, lexicon.tooLong);
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const space = matchAt(SPACE, text, i);
    if (space) {
      i += space[0].length;
      continue;
    }
    const c = text[i];
    const at = i;
    if (c === '"') {
      i = readString(lexicon, text, at, fail, tokens);
    } else if (c === ':' && lexicon.variables) {
      const name = matchAt(lexicon.variables.name, text, i + 1)?.[0];
      if (!name) fail(i + 1, lexicon.variables.missingName);
      tokens.push({ kind: 'variable', text: `:${name}`, name: name!, at });
      i += 1 + name!.length;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      const number = lexicon.number(text, i, fail);
      tokens.push({ kind: 'number', text: number, at });
      i += number.length;
    } else {
      const punct = lexicon.punctuation.find((p) => text.startsWith(p, i));
      const word = punct === undefined ? matchAt(lexicon.word, text, i)?.[0] : undefined;
      if (punct !== undefined) tokens.push({ kind: 'punct', text: punct, at });
      else if (word) tokens.push({ kind: 'word', text: word, at });
      else fail(i, lexicon.unexpected(text, i));
      i += (punct ?? word)!.length;
    }
  }
  tokens.push({ kind: 'end', text: '', at: text.length });
  return tokens;
}

/** Reads the string starting with the quote at `at`; returns the offset after its closing quote. */
function readString(lexicon: Lexicon, text: string, at: number, fail: Fail, tokens: Token[]): number {
  let value = '';
  let i = at + 1;
  for (;;) {
    if (i >= text.length) fail(at, lexicon.strings.unterminated);
    const ch = text[i];
    if (ch === '"') break;
    if (ch === '\\') {
      const next = text[i + 1];
      if (next !== '"' && next !== '\\') fail(i, lexicon.strings.badEscape);
      value += next;
      i += 2;
      continue;
    }
    if (ch === '\u0000' && lexicon.strings.nul !== undefined) fail(i, lexicon.strings.nul);
    value += ch;
    i++;
  }
  tokens.push({ kind: 'string', text: text.slice(at, i + 1), value, at });
  return i + 1;
}

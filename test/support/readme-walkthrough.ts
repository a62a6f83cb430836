/**
 * The documentation's examples as a runnable walk-through (test/e2e/readme-walkthrough.e2e-spec.ts).
 *
 * Which blocks: the ```sh blocks of the README's "## A first tour" (it sets $TOKEN), then every one of
 * docs/api-guide.md, in their order, as one bash session (a block may set variables and files for the next).
 *
 * The documented answers: a comment `# → <status> [<body>] [prose]`, at the end of a command's line or on
 * the line after it (continued on following lines that start with `#` and two or more spaces), states
 * the answer to that command's last request. `<body>` is JSON in which `…` stands for what varies:
 *   - `…` as an object member: more members may follow (without it the members must be exactly those);
 *   - `…` as an array element: any number of elements (`[…]` any array);
 *   - `…` as a value: any value (`{…}` any object); inside a string: any characters ("/demo/resource/images/…");
 *   - numbers compare exactly (64-bit integers too).
 * A body may also be form-encoded text (`a=1&b=…`), matched the same way. Anything after the body (or a status
 * without a body) is prose for the reader and not checked. A request no comment speaks of must answer 2xx/3xx.
 */
import { isLosslessNumber, parse as parseLossless, stringify as stringifyLossless } from 'lossless-json';

/** A document and the heading whose ```sh blocks run (the blocks up to the next heading of its level or above). */
export interface WalkthroughSource {
  file: string;
  text: string;
  heading: string;
}

export interface WalkthroughStep {
  index: number;
  /** The document the step comes from, e.g. "docs/api-guide.md". */
  file: string;
  /** The heading the block is under, e.g. "Create — `POST /{projectKey}/resource`". */
  section: string;
  /** The shell text of this step (commands and comments), as in the document. */
  code: string;
  /** The documented answer of the step's last request, when the step has one. */
  answer?: DocumentedAnswer;
}

export interface DocumentedAnswer {
  /** The comment's text after `→`, continuation lines joined. */
  text: string;
  status: number;
  body?: Pattern;
  /** The body's text as written. */
  bodyText?: string;
}

export type Pattern =
  | { kind: 'any' }
  | { kind: 'object'; members: Array<[string, Pattern]>; open: boolean }
  | { kind: 'array'; items: Array<Pattern | 'gap'> }
  | { kind: 'string'; text: string }
  | { kind: 'number'; text: string }
  | { kind: 'literal'; value: boolean | null }
  | { kind: 'form'; text: string };

const ARROW = '→';
const ELLIPSIS = '…';

/** The ```sh blocks of a document's section, each with the nearest heading above it. */
function shBlocks({ file, text, heading }: WalkthroughSource): Array<{ section: string; code: string }> {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.trim() === heading);
  if (start < 0) throw new Error(`${file} has no heading '${heading}'`);
  const level = heading.indexOf(' ');
  const blocks: Array<{ section: string; code: string }> = [];
  let section = heading.replace(/^#+\s*/, '');
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i];
    const h = /^(#+)\s+(.*)$/.exec(line);
    if (h && h[1].length <= level) break;
    if (h) section = h[2];
    if (line.trim() === '```sh') {
      const code: string[] = [];
      for (i++; i < lines.length && lines[i].trim() !== '```'; i++) code.push(lines[i]);
      blocks.push({ section, code: code.join('\n') });
    }
  }
  return blocks;
}

/** Splits blocks into steps: each step ends with the command a `# →` comment speaks of (or the block's end). */
export function walkthroughSteps(sources: WalkthroughSource[]): WalkthroughStep[] {
  const blocks = sources.flatMap((source) => shBlocks(source).map((block) => ({ ...block, file: source.file })));
  const steps: WalkthroughStep[] = [];
  for (const block of blocks) {
    const lines = block.code.split('\n');
    let current: string[] = [];
    const flush = (answer?: DocumentedAnswer) => {
      if (current.some((line) => line.trim() && !line.trim().startsWith('#'))) {
        steps.push({ index: steps.length, file: block.file, section: block.section, code: current.join('\n'), answer });
      } else if (answer) {
        throw new Error(`${block.file} (${block.section}): a '# ${ARROW}' comment with no command before it: ${answer.text}`);
      }
      current = [];
    };
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      current.push(line);
      const at = line.indexOf(`# ${ARROW}`);
      if (at < 0) continue;
      let text = line.slice(at + 3).trim();
      while (i + 1 < lines.length && /^\s*#\s{2,}\S/.test(lines[i + 1])) {
        current.push(lines[++i]);
        text += lines[i].replace(/^\s*#\s+/, '');
      }
      flush(parseAnswer(text, `${block.file} (${block.section})`));
    }
    flush();
  }
  return steps;
}

/** `<status> [<body>] [prose]` of a `# →` comment. */
export function parseAnswer(text: string, where = ''): DocumentedAnswer {
  const m = /^(\d{3})\b\s*(.*)$/s.exec(text);
  if (!m) throw new Error(`${where}: '# ${ARROW} ${text}' does not start with a status code`);
  const answer: DocumentedAnswer = { text, status: Number(m[1]) };
  const rest = m[2];
  if (/^[{["]/.test(rest)) {
    const parser = new PatternParser(rest);
    answer.body = parser.value();
    answer.bodyText = rest.slice(0, parser.at);
  } else if (/^[A-Za-z_][\w.[\]]*=/.test(rest)) {
    const form = rest.split(/\s/)[0];
    answer.body = { kind: 'form', text: form };
    answer.bodyText = form;
  }
  return answer;
}

class PatternParser {
  at = 0;
  constructor(private readonly text: string) {}

  value(): Pattern {
    this.space();
    const c = this.text[this.at];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return { kind: 'string', text: this.string() };
    if (c === ELLIPSIS) {
      this.at++;
      return { kind: 'any' };
    }
    const word = /^(true|false|null|-?\d+(\.\d+)?([eE][+-]?\d+)?)/.exec(this.text.slice(this.at));
    if (!word) this.fail('a value');
    this.at += word[0].length;
    if (word[0] === 'true' || word[0] === 'false') return { kind: 'literal', value: word[0] === 'true' };
    if (word[0] === 'null') return { kind: 'literal', value: null };
    return { kind: 'number', text: word[0] };
  }

  private object(): Pattern {
    this.at++;
    const members: Array<[string, Pattern]> = [];
    let open = false;
    this.space();
    if (this.text[this.at] === '}') return this.close({ kind: 'object', members, open });
    for (;;) {
      this.space();
      if (this.text[this.at] === ELLIPSIS) {
        this.at++;
        open = true;
      } else {
        const name = this.string();
        this.space();
        this.expect(':');
        members.push([name, this.value()]);
      }
      this.space();
      if (this.text[this.at] === ',') {
        this.at++;
        continue;
      }
      this.expect('}');
      return { kind: 'object', members, open };
    }
  }

  private array(): Pattern {
    this.at++;
    const items: Array<Pattern | 'gap'> = [];
    this.space();
    if (this.text[this.at] === ']') return this.close({ kind: 'array', items });
    for (;;) {
      this.space();
      if (this.text[this.at] === ELLIPSIS) {
        this.at++;
        items.push('gap');
      } else {
        items.push(this.value());
      }
      this.space();
      if (this.text[this.at] === ',') {
        this.at++;
        continue;
      }
      this.expect(']');
      return { kind: 'array', items };
    }
  }

  private close(pattern: Pattern): Pattern {
    this.at++;
    return pattern;
  }

  private string(): string {
    this.expect('"');
    let out = '';
    while (this.at < this.text.length && this.text[this.at] !== '"') {
      if (this.text[this.at] === '\\') {
        const escaped = JSON.parse(`"${this.text.slice(this.at, this.at + 2)}"`) as string;
        out += escaped;
        this.at += 2;
      } else {
        out += this.text[this.at++];
      }
    }
    this.expect('"');
    return out;
  }

  private space(): void {
    while (/\s/.test(this.text[this.at] ?? '')) this.at++;
  }

  private expect(c: string): void {
    if (this.text[this.at] !== c) this.fail(`'${c}'`);
    this.at++;
  }

  private fail(what: string): never {
    throw new Error(`documented answer: expected ${what} at column ${this.at + 1} of ${this.text}`);
  }
}

/** `…` in a documented string matches any characters. */
function globMatches(glob: string, actual: string): boolean {
  const source = glob
    .split(ELLIPSIS)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*');
  return new RegExp(`^${source}$`).test(actual);
}

/** Parses an answer body losslessly (64-bit integers stay exact); undefined when it is not JSON. */
export function parseBody(text: string): { json: unknown } | undefined {
  try {
    return { json: parseLossless(text) };
  } catch {
    return undefined;
  }
}

export const show = (value: unknown): string => {
  const text = typeof value === 'string' ? JSON.stringify(value) : (stringifyLossless(value) ?? String(value));
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
};

/** What differs between a documented body and an actual one, by JSON path (empty: it matches). */
export function mismatches(pattern: Pattern, actual: unknown, path = '$'): string[] {
  switch (pattern.kind) {
    case 'any':
      return [];
    case 'form':
      return typeof actual === 'string' && globMatches(pattern.text, actual) ? [] : [`${path}: expected ${pattern.text}, got ${show(actual)}`];
    case 'string':
      return typeof actual === 'string' && globMatches(pattern.text, actual) ? [] : [`${path}: expected "${pattern.text}", got ${show(actual)}`];
    case 'number': {
      const text = isLosslessNumber(actual) ? actual.value : typeof actual === 'number' ? String(actual) : undefined;
      // Equal texts, or equal values where a double holds them exactly (not 64-bit integers past 2^53).
      const unsafe = (t: string) => /^-?\d+$/.test(t) && !Number.isSafeInteger(Number(t));
      const same = text !== undefined && (text === pattern.text || (!unsafe(text) && !unsafe(pattern.text) && Number(text) === Number(pattern.text)));
      return same ? [] : [`${path}: expected ${pattern.text}, got ${show(actual)}`];
    }
    case 'literal':
      return actual === pattern.value ? [] : [`${path}: expected ${String(pattern.value)}, got ${show(actual)}`];
    case 'object': {
      if (typeof actual !== 'object' || actual === null || Array.isArray(actual) || isLosslessNumber(actual)) {
        return [`${path}: expected an object, got ${show(actual)}`];
      }
      const record = actual as Record<string, unknown>;
      const problems: string[] = [];
      for (const [name, member] of pattern.members) {
        if (!(name in record)) problems.push(`${path}.${name}: missing`);
        else problems.push(...mismatches(member, record[name], `${path}.${name}`));
      }
      if (!pattern.open) {
        const listed = new Set(pattern.members.map(([name]) => name));
        const extra = Object.keys(record).filter((name) => !listed.has(name));
        if (extra.length) problems.push(`${path}: members not documented (write '…' if more may come): ${extra.join(', ')}`);
      }
      return problems;
    }
    case 'array': {
      if (!Array.isArray(actual)) return [`${path}: expected an array, got ${show(actual)}`];
      const fits = (i: number, j: number): boolean => {
        if (i === pattern.items.length) return j === actual.length;
        const item = pattern.items[i];
        if (item === 'gap') {
          for (let k = j; k <= actual.length; k++) if (fits(i + 1, k)) return true;
          return false;
        }
        return j < actual.length && mismatches(item, actual[j], `${path}[${j}]`).length === 0 && fits(i + 1, j + 1);
      };
      if (fits(0, 0)) return [];
      // Without gaps, name the first element that differs; with gaps, the whole array.
      if (!pattern.items.includes('gap') && pattern.items.length === actual.length) {
        return pattern.items.flatMap((item, j) => mismatches(item as Pattern, actual[j], `${path}[${j}]`));
      }
      return [`${path}: ${actual.length} elements do not match the documented ${pattern.items.length}${pattern.items.includes('gap') ? ' (with …)' : ''}: ${show(actual)}`];
    }
  }
}

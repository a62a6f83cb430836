import { canonicalInt64 } from '../common/query-params.js';
import { unstorableText } from '../common/storable-text.js';
import type { Catalogue, DocumentSql, QueryField, Scope, ValueType } from './catalogue.js';
import { type CompareOp, type ListNode, parseWhere, type Predicate, predicateError, type ValueNode, WHERE_LIMITS } from './where-parser.js';

/*
 * Translates a parsed `where` predicate into a SQL condition over a catalogue's table (`resource r`:
 * its alias). Every value is a bound parameter; the SQL text is built only from the fixed fragments
 * below and the catalogue's fields.
 *
 * Shapes, chosen for the indexes (migration 1763700000002):
 * - scalar fields compare their columns directly (btree per project; strings byte-wise, COLLATE "C");
 * - `=`, `in`, `contains any/all` on the arrays of a document (objectTypeProperty) are containment (`@>`)
 *   of the whole document, which the GIN jsonb_path_ops index serves; an array of objects
 *   (`arrayOfObjectType(…)`) adds the containment of its equalities as an indexable pre-filter, then
 *   checks the element with EXISTS;
 * - ranges and `!=` on array elements have no index shape: EXISTS over the elements.
 *
 * Semantics: a comparison on an array is true when any element satisfies it; `arrayOfObjectType(P)` when
 * one element satisfies all of P; a comparison with an absent field is false; `not (P)` is true exactly
 * when P is not (SQL's NULL never leaks: `(P) IS NOT TRUE`).
 */

/** Values of the `var.<name>` query parameters, by name (a repeated parameter gives several). */
export type Variables = ReadonlyMap<string, readonly string[]>;

type Cast = 'text' | 'uuid' | 'bigint' | 'numeric' | 'boolean' | 'timestamptz' | 'jsonb';

/**
 * List values one query may hold in all, a variable's values counting each time the variable is used:
 * `contains any` binds each value on its own, so a long variable used many times would otherwise build
 * more parameters than PostgreSQL takes (65,535) and a statement too large to plan.
 */
const MAX_LIST_VALUES = 20_000;

/** Collects bound values; placeholders are numbered from `first`. */
export class SqlParams {
  readonly values: unknown[] = [];
  /** Values of the lists translated so far (see MAX_LIST_VALUES). */
  listValues = 0;

  constructor(private readonly first = 1) {}

  bind(value: unknown, cast: Cast | `${Cast}[]`): string {
    this.values.push(value);
    return `$${this.first + this.values.length - 1}::${cast}`;
  }
}

/** What the translation learnt about the condition, for the shape of the query around it. */
export interface WhereHints {
  /**
   * A containment the GIN index answers is one of the condition's conjuncts: the matches are best found
   * through that index first (a plan that walks an ordered index and filters may read the whole project).
   */
  containment: boolean;
}

/** Parses every `where` text and translates their conjunction; `TRUE` when there is none. */
export function whereToSql(
  catalogue: Catalogue,
  wheres: readonly string[],
  variables: Variables,
  params: SqlParams,
  projectKey: string,
  hints?: WhereHints,
): string {
  const parts = wheres.map((text) => translateWhere(catalogue, text, parseWhere(catalogue, text), variables, params, projectKey, hints));
  return parts.length === 0 ? 'TRUE' : parts.map((p) => `(${p})`).join(' AND ');
}

/**
 * The SQL condition for one parsed predicate; `text` is its source (for error positions). `projectKey`
 * is the project the query runs in: containment is written against the project-tagged document, so the
 * index returns the project's resources only.
 */
export function translateWhere(
  catalogue: Catalogue,
  text: string,
  predicate: Predicate,
  variables: Variables,
  params: SqlParams,
  projectKey: string,
  hints?: WhereHints,
): string {
  const translator = new Translator(text, variables, params, projectKey);
  const sql = translator.predicate(predicate, catalogue.where);
  if (hints && translator.containment) hints.containment = true;
  return sql;
}

const SQL_OP: Record<CompareOp, string> = { '=': '=', '!=': '<>', '<': '<', '>': '>', '<=': '<=', '>=': '>=' };
/** An element of an array of objects, in the EXISTS that checks it. */
const ELEMENT = 'e.o';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DECIMAL = /^-?[0-9]+(?:\.[0-9]+)?$/;
const MAX_NUMBER_LENGTH = 100;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):?(\d{2})))?$/;

const TYPE_TEXT: Record<ValueType, string> = {
  id: 'a string',
  string: 'a string',
  integer: 'an integer in the signed 64-bit range',
  number: 'a number',
  boolean: 'true or false',
  datetime: 'a date-time string such as "2026-01-05T10:00:00.000Z" or a date "2026-01-05"',
};

/** A checked value: canonical text (numbers, strings, date-times) or a boolean. */
type Typed = string | boolean;

class Translator {
  constructor(
    private readonly text: string,
    private readonly variables: Variables,
    private readonly params: SqlParams,
    private readonly projectKey: string,
  ) {}

  private fail(at: number, expected: string): never {
    throw predicateError(this.text, at, expected);
  }

  /** Set when an index containment is emitted in a conjunctive position (not under `or` or `not`). */
  containment = false;
  private underOrNot = 0;

  predicate(node: Predicate, scope: Scope): string {
    switch (node.kind) {
      case 'and':
        return `(${node.operands.map((p) => this.predicate(p, scope)).join(' AND ')})`;
      case 'or':
        return this.within(() => `(${node.operands.map((p) => this.predicate(p, scope)).join(' OR ')})`);
      case 'not':
        return this.within(() => `((${this.predicate(node.operand, scope)}) IS NOT TRUE)`);
      default:
        return this.condition(node, scope.fields.get(node.field)!);
    }
  }

  /** Translates the operands of `or` and `not`: nothing there narrows the whole condition. */
  private within(translate: () => string): string {
    this.underOrNot++;
    try {
      return translate();
    } finally {
      this.underOrNot--;
    }
  }

  private condition(node: Exclude<Predicate, { kind: 'and' | 'or' | 'not' }>, field: QueryField): string {
    switch (field.kind) {
      case 'scalar':
        return this.scalar(node, field);
      case 'array':
        return this.array(node, field);
      case 'member':
        return this.member(node, field);
      case 'object':
        if (node.kind === 'nested') return `(${this.predicate(node.predicate, field.scope)})`;
        return this.defined(node);
      case 'objectArray':
        if (node.kind === 'nested') return this.anyElement(field, node.predicate);
        if (node.kind === 'empty') return `(jsonb_array_length(${field.sql}) ${node.negated ? '<>' : '='} 0)`;
        return this.defined(node);
    }
  }

  /** Always-present fields: `is defined` is true, `is not defined` false. */
  private defined(node: { kind: string; negated?: boolean }): string {
    return node.kind === 'defined' && !node.negated ? 'TRUE' : 'FALSE';
  }

  /* ---------------------------------------------------------------- columns */

  private scalar(node: Exclude<Predicate, { kind: 'and' | 'or' | 'not' }>, field: Extract<QueryField, { kind: 'scalar' }>): string {
    switch (node.kind) {
      case 'compare': {
        const value = this.typed(node.value, field);
        return `(${this.column(field, node.op, [value])} ${SQL_OP[node.op]} ${this.bindScalar(field, value)})`;
      }
      case 'in': {
        const values = this.typedList(node.values, field);
        const column = this.column(field, '=', values);
        const list = field.type === 'id' && !values.every((v) => UUID.test(String(v)))
          ? this.params.bind(values.map((v) => String(v).toLowerCase()), 'text[]')
          : this.params.bind(values, `${castOf(field.type)}[]`);
        return node.negated ? `(${column} <> ALL(${list}))` : `(${column} = ANY(${list}))`;
      }
      case 'defined':
        if (!field.nullable) return this.defined(node);
        return `(${field.sql} IS ${node.negated ? '' : 'NOT '}NULL)`;
      default:
        throw new Error(`unreachable: ${node.kind} on ${field.name}`);
    }
  }

  /** The column as compared: ids that are not UUIDs compare as text; string order is byte-wise. */
  private column(field: Extract<QueryField, { kind: 'scalar' }>, op: CompareOp, values: Typed[]): string {
    if (field.type === 'id' && !values.every((v) => UUID.test(String(v)))) return `${field.sql}::text COLLATE "C"`;
    if (field.type === 'string' && op !== '=' && op !== '!=') return `${field.sql} COLLATE "C"`;
    return field.sql;
  }

  private bindScalar(field: Extract<QueryField, { kind: 'scalar' }>, value: Typed): string {
    if (field.type === 'id') return UUID.test(String(value)) ? this.params.bind(value, 'uuid') : this.params.bind(String(value).toLowerCase(), 'text');
    return this.params.bind(value, castOf(field.type));
  }

  /* ---------------------------------------------------------------- arrays of primitives */

  private array(node: Exclude<Predicate, { kind: 'and' | 'or' | 'not' }>, field: Extract<QueryField, { kind: 'array' }>): string {
    const path = field.sql;
    const element = field.type === 'string' ? 'e.v COLLATE "C"' : 'e.v::numeric';
    const exists = (condition: string) => `EXISTS (SELECT 1 FROM jsonb_array_elements_text(${path}) AS e(v) WHERE ${condition})`;
    switch (node.kind) {
      case 'compare': {
        const value = this.typed(node.value, field);
        if (node.op === '=') return this.contains(field, [value]);
        return exists(`${element} ${SQL_OP[node.op]} ${this.params.bind(value, castOf(field.type))}`);
      }
      case 'in': {
        const values = this.typedList(node.values, field);
        if (!node.negated) return this.containsAny(field, values);
        return exists(`${element} <> ALL(${this.params.bind(values, `${castOf(field.type)}[]`)})`);
      }
      case 'contains': {
        const values = this.typedList(node.values, field);
        return node.mode === 'all' ? this.contains(field, values) : this.containsAny(field, values);
      }
      case 'empty':
        return `(jsonb_array_length(${path}) ${node.negated ? '<>' : '='} 0)`;
      default:
        return this.defined(node);
    }
  }

  /** The document contains all `values` in the array `name` (GIN-indexed containment). */
  private contains(field: Extract<QueryField, { kind: 'array' }>, values: Typed[]): string {
    const items = [...new Set(values.map((v) => jsonValue(v, field.type)))];
    return `(${this.documentContains(field.document, `{"${field.name}":[${items.join(',')}]}`)})`;
  }

  private containsAny(field: Extract<QueryField, { kind: 'array' }>, values: Typed[]): string {
    const items = [...new Set(values.map((v) => jsonValue(v, field.type)))];
    return `(${items.map((item) => this.documentContains(field.document, `{"${field.name}":[${item}]}`)).join(' OR ')})`;
  }

  /** The document contains `pattern` (JSON text), through the project's part of its GIN index. */
  private documentContains(document: DocumentSql, pattern: string): string {
    if (this.underOrNot === 0) this.containment = true;
    return `${document.projectIndex} @> ${this.params.bind(`{${JSON.stringify(this.projectKey)}:${pattern}}`, 'jsonb')}`;
  }

  /* ---------------------------------------------------------------- arrayOfObjectType(…) */

  /**
   * True when one element satisfies `predicate`. The equalities the predicate requires of that element
   * become a containment pre-filter the GIN index serves; when they are all of it, they are enough.
   */
  private anyElement(field: Extract<QueryField, { kind: 'objectArray' }>, predicate: Predicate): string {
    const { name, scope } = field;
    const conjuncts = predicate.kind === 'and' ? predicate.operands : [predicate];
    const equalities = new Map<string, string>();
    let onlyEqualities = true;
    for (const conjunct of conjuncts) {
      if (conjunct.kind === 'compare' && conjunct.op === '=' && !equalities.has(conjunct.field)) {
        const member = scope.fields.get(conjunct.field) as Extract<QueryField, { kind: 'member' }>;
        equalities.set(conjunct.field, jsonValue(this.typed(conjunct.value, member), member.type));
      } else {
        onlyEqualities = false;
      }
    }
    const parts: string[] = [];
    if (equalities.size > 0) {
      const element = [...equalities].map(([member, value]) => `"${member}":${value}`).join(',');
      parts.push(this.documentContains(field.document, `{"${name}":[{${element}}]}`));
    }
    if (!onlyEqualities) {
      parts.push(`EXISTS (SELECT 1 FROM jsonb_array_elements(${field.sql}) AS e(o) WHERE ${this.predicate(predicate, scope)})`);
    }
    return `(${parts.join(' AND ')})`;
  }

  private member(node: Exclude<Predicate, { kind: 'and' | 'or' | 'not' }>, field: Extract<QueryField, { kind: 'member' }>): string {
    const value = `(${ELEMENT}->>'${field.name}')::numeric`;
    switch (node.kind) {
      case 'compare':
        return `(${value} ${SQL_OP[node.op]} ${this.params.bind(this.typed(node.value, field), 'numeric')})`;
      case 'in': {
        const list = this.params.bind(this.typedList(node.values, field), 'numeric[]');
        return node.negated ? `(${value} <> ALL(${list}))` : `(${value} = ANY(${list}))`;
      }
      case 'defined':
        return `(${ELEMENT}->'${field.name}' IS ${node.negated ? '' : 'NOT '}NULL)`;
      default:
        throw new Error(`unreachable: ${node.kind} on ${field.name}`);
    }
  }

  /* ---------------------------------------------------------------- values */

  private typed(node: ValueNode, field: { name: string; type: ValueType }): Typed {
    if (node.kind === 'variable') {
      const values = this.variable(node.name, node.at);
      if (values.length !== 1) {
        this.fail(node.at, `expected one value for :${node.name} here, but var.${node.name} was given ${values.length} times`);
      }
      return this.fromText(values[0], field, node.at, `:${node.name} = ${JSON.stringify(values[0])}`);
    }
    const found = () =>
      node.kind === 'string' ? `the string ${JSON.stringify(node.value)}` : node.kind === 'number' ? `the number ${node.text}` : String(node.value);
    switch (field.type) {
      case 'id':
      case 'string':
        if (node.kind === 'string') return this.fromText(node.value, field, node.at, found());
        break;
      case 'datetime':
        if (node.kind === 'string') return this.fromText(node.value, field, node.at, found());
        break;
      case 'integer':
      case 'number':
        if (node.kind === 'number') return this.fromText(node.text, field, node.at, found());
        break;
      case 'boolean':
        if (node.kind === 'boolean') return node.value;
        break;
    }
    return this.fail(node.at, `expected ${TYPE_TEXT[field.type]} for ${field.name} but found ${found()}`);
  }

  private typedList(list: ListNode, field: { name: string; type: ValueType }): Typed[] {
    if (list.kind === 'list') {
      this.countListValues(list.items.length, list.at);
      return list.items.map((item) => this.typed(item, field));
    }
    const texts = this.variable(list.name, list.at);
    if (texts.length > WHERE_LIMITS.listSize) {
      this.fail(list.at, `expected at most ${WHERE_LIMITS.listSize} values in a list, but var.${list.name} was given ${texts.length} times`);
    }
    this.countListValues(texts.length, list.at);
    return texts.map((value) => this.fromText(value, field, list.at, `:${list.name} = ${JSON.stringify(value)}`));
  }

  private countListValues(size: number, at: number): void {
    this.params.listValues += size;
    if (this.params.listValues > MAX_LIST_VALUES) {
      this.fail(at, `expected at most ${MAX_LIST_VALUES} list values in all the where parameters together (a variable counts each time it is used)`);
    }
  }

  private variable(name: string, at: number): readonly string[] {
    const values = this.variables.get(name);
    if (values === undefined || values.length === 0) {
      this.fail(at, `expected a value for the variable :${name} (the query parameter var.${name} is missing)`);
    }
    return values!;
  }

  /** Text (a literal's or a variable's) as a value of the field's type. */
  private fromText(text: string, field: { name: string; type: ValueType }, at: number, found: string): Typed {
    const wrong = (): never => this.fail(at, `expected ${TYPE_TEXT[field.type]} for ${field.name} but found ${found}`);
    switch (field.type) {
      case 'id':
      case 'string':
        if (unstorableText(text)) this.fail(at, `expected a string of Unicode characters other than NUL for ${field.name}`);
        return text;
      case 'integer':
        return (DECIMAL.test(text) && canonicalInt64(text)) || wrong();
      case 'number':
        return (text.length <= MAX_NUMBER_LENGTH && DECIMAL.test(text) && canonicalDecimal(text)) || wrong();
      case 'boolean':
        return text === 'true' ? true : text === 'false' ? false : wrong();
      case 'datetime':
        return checkDateTime(text) ?? wrong();
    }
  }
}

function castOf(type: ValueType): Cast {
  switch (type) {
    case 'id':
      return 'uuid';
    case 'string':
      return 'text';
    case 'integer':
      return 'bigint';
    case 'number':
      return 'numeric';
    case 'boolean':
      return 'boolean';
    case 'datetime':
      return 'timestamptz';
  }
}

/** A checked value as a JSON value: strings quoted, numbers as their canonical text. */
function jsonValue(value: Typed, type: ValueType): string {
  return type === 'string' || type === 'id' || type === 'datetime' ? JSON.stringify(value) : String(value);
}

/** `-007.50` → `-7.50`: JSON's number syntax (no leading zeros), the value unchanged. */
function canonicalDecimal(text: string): string {
  const negative = text.startsWith('-');
  const [int, fraction] = (negative ? text.slice(1) : text).split('.');
  const digits = int.replace(/^0+(?=\d)/, '');
  return `${negative && !/^0*$/.test(digits + (fraction ?? '')) ? '-' : ''}${digits}${fraction !== undefined ? `.${fraction}` : ''}`;
}

/** An ISO 8601 date-time with a zone (or a date, meaning UTC midnight) that exists; else undefined. */
export function checkDateTime(text: string): string | undefined {
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const lastDay = month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > lastDay) return undefined;
  if (m[4] === undefined) return `${m[1]}-${m[2]}-${m[3]}T00:00:00Z`;
  if (Number(m[4]) > 23 || Number(m[5]) > 59 || (m[6] !== undefined && Number(m[6]) > 59)) return undefined;
  if (m[8] !== undefined && (Number(m[8]) > 14 || Number(m[9]) > 59)) return undefined;
  return text;
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

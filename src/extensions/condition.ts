import type { QueryField, Scope } from '../query-language/catalogue.js';
import { RESOURCE_CATALOGUE } from '../query-language/resource.catalogue.js';
import type { CompareOp, ListNode, Predicate, ValueNode } from '../query-language/where-parser.js';
import { parseWhere } from '../query-language/where-parser.js';
import { checkDateTime, SqlParams, translateWhere } from '../query-language/where-sql.js';

/*
 * An extension's trigger condition (docs/extensions.md#conditions): a `where` predicate of the query
 * language, evaluated in memory on the resource as the client's request would leave it (its JSON shape,
 * 64-bit integers as `bigint`). The semantics are those of the SQL translation (where-sql.ts), which
 * `checkCondition` runs once to type-check the values; a test runs the same predicates both ways on the
 * database. A comparison with an absent field is false; `not (P)` is true exactly when P is not.
 */

/** The resource as JSON values (what GET by id answers, parsed). */
export type ResourceValue = Record<string, unknown>;
/** The test, and the resource's top-level fields it reads (`objectTypeProperty(…)` reads `objectTypeProperty`). */
export type Condition = ((resource: ResourceValue) => boolean) & { readonly fields: readonly string[] };

/** The predicate, parsed and type-checked as a `where` would be (throws a QuerySyntaxError naming line and column). */
export function checkCondition(text: string): Predicate {
  const predicate = parseWhere(RESOURCE_CATALOGUE, text);
  translateWhere(RESOURCE_CATALOGUE, text, predicate, new Map(), new SqlParams(), 'p');
  return predicate;
}

/** The condition as a function of the resource; `text` must have passed `checkCondition`. */
export function compileCondition(text: string): Condition {
  const predicate = checkCondition(text);
  const test = compile(predicate, RESOURCE_CATALOGUE.where);
  return Object.assign((resource: ResourceValue) => test(resource), { fields: [...fieldsOf(predicate, new Set<string>())] });
}

/** The fields of the scope a predicate names, nested predicates counting as their field. */
function fieldsOf(node: Predicate, into: Set<string>): Set<string> {
  switch (node.kind) {
    case 'and':
    case 'or':
      for (const operand of node.operands) fieldsOf(operand, into);
      return into;
    case 'not':
      return fieldsOf(node.operand, into);
    default:
      return into.add(node.field);
  }
}

type Test = (value: ResourceValue) => boolean;
/** A literal as compared: text, a number's decimal text, a boolean, or a date-time's epoch milliseconds. */
type Literal = string | boolean | number;

function compile(node: Predicate, scope: Scope): Test {
  switch (node.kind) {
    case 'and': {
      const tests = node.operands.map((p) => compile(p, scope));
      return (v) => tests.every((t) => t(v));
    }
    case 'or': {
      const tests = node.operands.map((p) => compile(p, scope));
      return (v) => tests.some((t) => t(v));
    }
    case 'not': {
      const test = compile(node.operand, scope);
      return (v) => !test(v);
    }
    default:
      return condition(node, scope.fields.get(node.field)!);
  }
}

type Leaf = Exclude<Predicate, { kind: 'and' | 'or' | 'not' }>;

function condition(node: Leaf, field: QueryField): Test {
  const name = field.name;
  switch (field.kind) {
    case 'object':
      if (node.kind === 'nested') {
        const inner = compile(node.predicate, field.scope);
        return (v) => isObject(v[name]) && inner(v[name] as ResourceValue);
      }
      return constant(node);
    case 'objectArray':
      if (node.kind === 'nested') {
        const inner = compile(node.predicate, field.scope);
        return (v) => elements(v[name]).some((e) => isObject(e) && inner(e as ResourceValue));
      }
      if (node.kind === 'empty') return (v) => (elements(v[name]).length === 0) !== node.negated;
      return constant(node);
    case 'array':
      return array(node, name, field.type);
    case 'scalar':
    case 'member':
      return scalar(node, name, field.type, field.kind === 'scalar' ? field.nullable : true);
  }
}

/** Fields that are always present: `is defined` holds, `is not defined` does not. */
function constant(node: Leaf): Test {
  const result = node.kind === 'defined' && !node.negated;
  return () => result;
}

function scalar(node: Leaf, name: string, type: string, nullable: boolean): Test {
  switch (node.kind) {
    case 'compare': {
      const literal = toLiteral(node.value, type);
      const op = node.op;
      return (v) => present(v[name]) && holds(compareValues(v[name], literal, type), op);
    }
    case 'in': {
      const literals = listOf(node.values, type);
      return (v) => {
        const value = v[name];
        if (!present(value)) return false;
        const found = literals.some((l) => compareValues(value, l, type) === 0);
        return node.negated ? !found : found;
      };
    }
    case 'defined':
      if (!nullable) return constant(node);
      return (v) => present(v[name]) !== node.negated;
    default:
      throw new Error(`unreachable: ${node.kind} on ${name}`);
  }
}

function array(node: Leaf, name: string, type: string): Test {
  const items = (v: ResourceValue) => elements(v[name]);
  const contains = (values: unknown[], literal: Literal) => values.some((e) => present(e) && compareValues(e, literal, type) === 0);
  switch (node.kind) {
    case 'compare': {
      const literal = toLiteral(node.value, type);
      const op = node.op;
      return (v) => items(v).some((e) => present(e) && holds(compareValues(e, literal, type), op));
    }
    case 'in': {
      const literals = listOf(node.values, type);
      if (!node.negated) return (v) => literals.some((l) => contains(items(v), l));
      return (v) => items(v).some((e) => present(e) && literals.every((l) => compareValues(e, l, type) !== 0));
    }
    case 'contains': {
      const literals = listOf(node.values, type);
      return node.mode === 'all' ? (v) => literals.every((l) => contains(items(v), l)) : (v) => literals.some((l) => contains(items(v), l));
    }
    case 'empty':
      return (v) => (items(v).length === 0) !== node.negated;
    default:
      return constant(node);
  }
}

/* ------------------------------------------------------------------ values */

function toLiteral(node: ValueNode, type: string): Literal {
  switch (node.kind) {
    case 'string':
      if (type === 'datetime') return Date.parse(checkDateTime(node.value)!);
      return type === 'id' ? node.value.toLowerCase() : node.value;
    case 'number':
      return node.text;
    case 'boolean':
      return node.value;
    case 'variable':
      throw new Error('a condition has no variables');
  }
}

function listOf(list: ListNode, type: string): Literal[] {
  if (list.kind === 'variable') throw new Error('a condition has no variables');
  return list.items.map((item) => toLiteral(item, type));
}

const present = (value: unknown) => value !== undefined && value !== null;
const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);
const elements = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

function holds(order: number | undefined, op: CompareOp): boolean {
  if (order === undefined) return false;
  switch (op) {
    case '=':
      return order === 0;
    case '!=':
      return order !== 0;
    case '<':
      return order < 0;
    case '>':
      return order > 0;
    case '<=':
      return order <= 0;
    case '>=':
      return order >= 0;
  }
}

/** The order of a resource's value and a literal of the field's type (undefined: they do not compare, like SQL's NULL). */
function compareValues(value: unknown, literal: Literal, type: string): number | undefined {
  switch (type) {
    case 'integer':
    case 'number':
      return typeof value === 'number' || typeof value === 'bigint' ? compareNumbers(value, literal as string) : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? (value === literal ? 0 : value ? 1 : -1) : undefined;
    case 'datetime': {
      const ms = typeof value === 'string' ? Date.parse(value) : NaN;
      return Number.isNaN(ms) ? undefined : Math.sign(ms - (literal as number));
    }
    case 'id':
      return typeof value === 'string' ? compareCodePoints(value.toLowerCase(), literal as string) : undefined;
    default:
      return typeof value === 'string' ? compareCodePoints(value, literal as string) : undefined;
  }
}

const INTEGER_TEXT = /^-?\d+$/;

/** A number of the resource against a literal's decimal text, exact for 64-bit integers (PostgreSQL's numeric). */
function compareNumbers(value: number | bigint, text: string): number {
  if (INTEGER_TEXT.test(text) && (typeof value === 'bigint' || Number.isInteger(value)) && (typeof value === 'bigint' || !Number.isSafeInteger(Number(text)) || !Number.isSafeInteger(value))) {
    const a = BigInt(value);
    const b = BigInt(text);
    return a === b ? 0 : a < b ? -1 : 1;
  }
  const a = Number(value);
  const b = Number(text);
  return a === b ? 0 : a < b ? -1 : 1;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** Byte-wise order of the UTF-8 texts (COLLATE "C"), which is the order of their code points. */
function compareCodePoints(a: string, b: string): number {
  if (!SURROGATE.test(a) && !SURROGATE.test(b)) return a === b ? 0 : a < b ? -1 : 1;
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d !== 0) return Math.sign(d);
  }
  return Math.sign(x.length - y.length);
}

import {
  getArgumentValues,
  getVariableValues,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLLeafType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

/*
 * Queries answered without graphql-js's executor (docs/performance.md, "GraphQL"). A page of 100 resources holds
 * about 10,000 array members; the executor completes each one through its generic machinery (a path, a type switch,
 * a promise check) into a result object that is then serialised again, and that cost 80 % of the server's time on
 * such a page. A read plan is compiled once per document and operation: for each selection, the response key, the
 * field, its arguments and its type. Running it calls the same resolvers with the same arguments (the resources
 * of a page still ask for their versions in one tick, so the loader batches them), then writes the JSON text of
 * `{data}` straight from the resolvers' values, each leaf through its scalar's `serialize`, in the selection's order.
 *
 * What a plan covers is the common read: a query of fields, aliases, `__typename` and fragments. A document with a
 * directive, an introspection field or a mutation has no plan; a run that meets anything but plain success (a
 * resolver's error, such as a missing scope or a refused `where`; a null where the schema says non-null; a value
 * its scalar refuses) gives up, and the request is executed by graphql-js as if the plan did not exist, which
 * reports it with GraphQL's partial answers and paths. Reads have no side effects, so running them again is safe.
 */

/** `resolves`: whether a resolver other than the default one is at or below this point (else resolving skips it). */
type Shape =
  | { kind: 'nonNull'; of: Shape; resolves: boolean }
  | { kind: 'list'; of: Shape; resolves: boolean }
  | { kind: 'leaf'; type: GraphQLLeafType; resolves: false }
  | { kind: 'object'; typeName: string; fields: FieldPlan[]; resolves: boolean };

interface FieldPlan {
  /** `"<response key>":` */
  jsonKey: string;
  name: string;
  /** Absent for `__typename`. */
  field?: GraphQLField<unknown, unknown>;
  node: FieldNode;
  shape: Shape;
}

export interface ReadPlan {
  operation: OperationDefinitionNode;
  root: Extract<Shape, { kind: 'object' }>;
}

/** The run gave up: graphql-js answers the request instead. */
class GiveUp extends Error {}

/** The plan of `operationName` in a validated document, or undefined when it holds something a plan does not cover. */
export function compileRead(schema: GraphQLSchema, document: DocumentNode, operationName: unknown): ReadPlan | undefined {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const operation = typeof operationName === 'string' ? operations.find((o) => o.name?.value === operationName) : operations.length === 1 ? operations[0] : undefined;
  const queryType = schema.getQueryType();
  if (!operation || operation.operation !== 'query' || !queryType || operation.directives?.length) return undefined;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  try {
    return { operation, root: objectShape(queryType, [operation.selectionSet], fragments, true) };
  } catch (error) {
    if (error instanceof GiveUp) return undefined;
    throw error;
  }
}

function objectShape(type: GraphQLObjectType, sets: SelectionSetNode[], fragments: Map<string, FragmentDefinitionNode>, root = false): Extract<Shape, { kind: 'object' }> {
  const byKey = new Map<string, FieldNode[]>();
  for (const set of sets) collect(type, set, fragments, byKey);
  const fields: FieldPlan[] = [];
  for (const [key, nodes] of byKey) {
    const name = nodes[0].name.value;
    const jsonKey = `${JSON.stringify(key)}:`;
    if (name === '__typename') {
      fields.push({ jsonKey, name, node: nodes[0], shape: { kind: 'leaf', type: undefined as never, resolves: false } });
      continue;
    }
    const field = type.getFields()[name];
    // Introspection (`__schema`, `__type`) and resolvers off the root other than the API's own are not planned.
    if (!field || name.startsWith('__') || (root && !field.resolve)) throw new GiveUp();
    const subSets = nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
    fields.push({ jsonKey, name, field, node: nodes[0], shape: shapeOf(field.type, subSets, fragments) });
  }
  return { kind: 'object', typeName: type.name, fields, resolves: fields.some((f) => f.field?.resolve !== undefined || f.shape.resolves) };
}

function shapeOf(type: GraphQLOutputType, sets: SelectionSetNode[], fragments: Map<string, FragmentDefinitionNode>): Shape {
  if (isNonNullType(type) || isListType(type)) {
    const of = shapeOf(type.ofType, sets, fragments);
    return { kind: isNonNullType(type) ? 'nonNull' : 'list', of, resolves: of.resolves };
  }
  if (isLeafType(type)) return { kind: 'leaf', type, resolves: false };
  if (isObjectType(type)) return objectShape(type, sets, fragments);
  throw new GiveUp(); // interfaces and unions: this schema has none
}

/** The fields of a selection set by response key, in first-seen order, fragments spread (as graphql-js collects them). */
function collect(type: GraphQLObjectType, set: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, byKey: Map<string, FieldNode[]>, spread = new Set<string>()): void {
  for (const selection of set.selections) {
    if (selection.directives?.length) throw new GiveUp();
    if (selection.kind === Kind.FIELD) {
      const key = selection.alias?.value ?? selection.name.value;
      const nodes = byKey.get(key);
      if (nodes) nodes.push(selection);
      else byKey.set(key, [selection]);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      if (selection.typeCondition && selection.typeCondition.name.value !== type.name) throw new GiveUp();
      collect(type, selection.selectionSet, fragments, byKey, spread);
    } else {
      const fragment = fragments.get(selection.name.value);
      if (spread.has(selection.name.value)) continue;
      if (!fragment || fragment.directives?.length || fragment.typeCondition.name.value !== type.name) throw new GiveUp();
      collect(type, fragment.selectionSet, fragments, byKey, new Set(spread).add(selection.name.value));
    }
  }
}

/**
 * The JSON text of `{data}` for `plan`, or undefined when the run gave up (the caller then executes the
 * document with graphql-js). `context` is the request's, as the executor would pass it.
 */
export async function runRead(schema: GraphQLSchema, plan: ReadPlan, inputs: Record<string, unknown>, context: unknown): Promise<string | undefined> {
  const coerced = getVariableValues(schema, plan.operation.variableDefinitions ?? [], inputs, { maxErrors: 1 });
  if (coerced.errors) return undefined;
  const run = new ReadRun(coerced.coerced, context);
  try {
    const rootValue = {};
    run.resolveObject(plan.root, rootValue);
    await run.settle();
    const out = ['{"data":'];
    run.write(plan.root, rootValue, out);
    out.push('}');
    return out.join('');
  } catch {
    // A resolver's error (a scope, a refused argument) or a value the schema refuses: graphql-js reports it.
    return undefined;
  }
}

class ReadRun {
  /** The values of fields with a resolver, by the object they were resolved on. */
  private readonly resolved = new Map<unknown, Map<FieldPlan, unknown>>();
  private pending: Array<Promise<void>> = [];
  private failed = false;

  constructor(
    private readonly variables: Record<string, unknown>,
    private readonly context: unknown,
  ) {}

  /** Calls the resolvers of `shape`'s fields on `source` (and below, as far as values are known). */
  resolveObject(shape: Extract<Shape, { kind: 'object' }>, source: unknown): void {
    for (const plan of shape.fields) {
      const field = plan.field;
      if (!field) continue;
      if (!field.resolve) {
        this.resolveValue(plan.shape, (source as Record<string, unknown>)[plan.name]);
        continue;
      }
      let values = this.resolved.get(source);
      if (!values) this.resolved.set(source, (values = new Map()));
      const answer = field.resolve(source, getArgumentValues(field, plan.node, this.variables), this.context, undefined as never);
      const target = values;
      // Never rejects: a failure is noted, and the run gives up once the resolvers of this round have settled.
      this.pending.push(
        Promise.resolve(answer).then(
          (value) => {
            target.set(plan, value);
            try {
              this.resolveValue(plan.shape, value);
            } catch {
              this.failed = true;
            }
          },
          () => {
            this.failed = true;
          },
        ),
      );
    }
  }

  private resolveValue(shape: Shape, value: unknown): void {
    if (!shape.resolves || value === null || value === undefined) return;
    if (shape.kind === 'nonNull') this.resolveValue(shape.of, value);
    else if (shape.kind === 'list' && Array.isArray(value)) for (const item of value) this.resolveValue(shape.of, item);
    else if (shape.kind === 'object' && typeof value === 'object') this.resolveObject(shape, value);
  }

  /** Waits for every resolver, including those the answers of others called. */
  async settle(): Promise<void> {
    while (this.pending.length > 0 && !this.failed) {
      const round = this.pending;
      this.pending = [];
      await Promise.all(round);
    }
    if (this.failed) throw new GiveUp();
  }

  /** Appends the JSON text of `value` to `out`, piece by piece (joined once: a string built by `+=` is a rope that must be flattened again before it is sent). */
  write(shape: Shape, value: unknown, out: string[]): void {
    if (shape.kind === 'nonNull') {
      if (value === null || value === undefined) throw new GiveUp();
      return this.write(shape.of, value, out);
    }
    if (value === null || value === undefined) {
      out.push('null');
      return;
    }
    switch (shape.kind) {
      case 'list':
        if (!Array.isArray(value)) throw new GiveUp();
        out.push('[');
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out.push(',');
          this.write(shape.of, value[i], out);
        }
        out.push(']');
        return;
      case 'leaf':
        out.push(leafText(shape.type, value));
        return;
      case 'object': {
        if (typeof value !== 'object') throw new GiveUp();
        const values = this.resolved.get(value);
        for (let i = 0; i < shape.fields.length; i++) {
          const plan = shape.fields[i];
          out.push(i === 0 ? `{${plan.jsonKey}` : `,${plan.jsonKey}`);
          if (!plan.field) out.push(JSON.stringify(shape.typeName));
          else this.write(plan.shape, plan.field.resolve ? values?.get(plan) : (value as Record<string, unknown>)[plan.name], out);
        }
        out.push(shape.fields.length === 0 ? '{}' : '}');
        return;
      }
    }
  }

}

/** A leaf as its scalar serialises it, as JSON text (a `bigint` with every digit). */
function leafText(type: GraphQLLeafType, value: unknown): string {
  let serialized: unknown;
  try {
    serialized = type.serialize(value);
  } catch {
    throw new GiveUp();
  }
  switch (typeof serialized) {
    case 'number':
      if (Number.isFinite(serialized)) return String(serialized); // as JSON.stringify writes a finite number
      break;
    case 'bigint':
      return serialized.toString();
    case 'boolean':
      return serialized ? 'true' : 'false';
    case 'string':
      return JSON.stringify(serialized);
  }
  throw new GiveUp();
}

import { GraphQLError, Kind, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode, type ValueNode } from 'graphql';

/**
 * What a GraphQL document may ask (docs/graphql.md#limits), checked after parsing and before anything runs:
 * - depth: at most 10 levels of the API's own fields; under an introspection field (`__schema`, `__type`),
 *   15 (GraphiQL's own introspection query needs 13);
 * - cost: at most 500 result objects, counted from the paging arguments: each resource, message or version a
 *   page may hold (its `limit`, 20 when absent) and each single resource or message field counts one, nested
 *   pages multiply (100 resources with 20 versions each cost 2,100);
 * - size: 64 KiB of document text (checked before parsing), 20,000 tokens, and at most 2,000 selections once its
 *   fragments are spread (fragments that each spread the next one twice would otherwise expand exponentially, and validation's work
 *   grows with the square of the fields of one selection set).
 */
export const GRAPHQL_LIMITS = { maxDepth: 10, maxIntrospectionDepth: 15, maxCost: 500, maxDocumentBytes: 65_536, maxTokens: 20_000, maxExpandedSelections: 2_000 } as const;

/** Fields that answer a page; `results` under them holds up to `limit` items. */
const PAGED_FIELDS = new Set(['resources', 'messages', 'resourceVersions', 'versions']);
/** Fields that answer one resource or message. */
const SINGLE_FIELDS = new Set(['resource', 'message', 'createResource', 'updateResource', 'deleteResource']);
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 500;

/**
 * The limit errors of the operation `operationName` selects (all operations when it selects none): `depth`
 * right after parsing (before validation, whose work grows with it), `cost` once the variables are known.
 */
export function checkDocumentLimits(check: 'depth' | 'cost', document: DocumentNode, variables: Record<string, unknown>, operationName?: string | null): GraphQLError[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  const operations: OperationDefinitionNode[] = [];
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    else if (definition.kind === Kind.OPERATION_DEFINITION) operations.push(definition);
  }
  const selected = operationName ? operations.filter((o) => o.name?.value === operationName) : operations;
  const errors: GraphQLError[] = [];
  for (const operation of selected) {
    const walker = new Walker(fragments, variables);
    walker.walk(operation.selectionSet, 0, false, 1, new Set());
    const name = operation.name ? `operation '${operation.name.value}'` : 'the operation';
    if (check === 'depth' && walker.tooLarge) {
      errors.push(limitError(`${name} has more than ${GRAPHQL_LIMITS.maxExpandedSelections} selections, counting each fragment spread in full.`));
    }
    if (check === 'depth' && walker.tooDeep) {
      errors.push(limitError(`${name} is nested too deeply: at most ${GRAPHQL_LIMITS.maxDepth} levels of fields (${GRAPHQL_LIMITS.maxIntrospectionDepth} under __schema or __type).`, walker.tooDeep));
    }
    if (check === 'cost' && walker.cost > GRAPHQL_LIMITS.maxCost) {
      errors.push(limitError(`${name} may answer up to ${walker.cost} result objects; at most ${GRAPHQL_LIMITS.maxCost} per request. Ask for smaller pages (limit).`));
    }
  }
  return errors;
}

export function limitError(message: string, node?: FieldNode): GraphQLError {
  return new GraphQLError(message, { nodes: node, extensions: { code: 'InvalidInput' } });
}

class Walker {
  cost = 0;
  tooDeep: FieldNode | undefined;
  /** Set once the walk has visited more selections than a document may spread to: the walk stops there. */
  tooLarge = false;
  private visits = 0;

  constructor(
    private readonly fragments: Map<string, FragmentDefinitionNode>,
    private readonly variables: Record<string, unknown>,
  ) {}

  /** `multiplier`: how many times this selection may be answered. `inFragments` stops cycles (refused by validation anyway). */
  walk(selectionSet: SelectionSetNode, depth: number, introspection: boolean, multiplier: number, inFragments: Set<string>): void {
    for (const selection of selectionSet.selections) {
      if (this.tooDeep || this.spent()) return;
      if (selection.kind === Kind.FIELD) {
        this.field(selection, depth + 1, introspection, multiplier, inFragments);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        this.walk(selection.selectionSet, depth, introspection, multiplier, inFragments);
      } else {
        const name = selection.name.value;
        const fragment = this.fragments.get(name);
        if (!fragment || inFragments.has(name)) continue;
        this.walk(fragment.selectionSet, depth, introspection, multiplier, new Set(inFragments).add(name));
      }
    }
  }

  private field(field: FieldNode, depth: number, introspection: boolean, multiplier: number, inFragments: Set<string>): void {
    const name = field.name.value;
    const inIntrospection = introspection || name === '__schema' || name === '__type';
    if (depth > (inIntrospection ? GRAPHQL_LIMITS.maxIntrospectionDepth : GRAPHQL_LIMITS.maxDepth)) {
      this.tooDeep = field;
      return;
    }
    if (!field.selectionSet) return;
    if (SINGLE_FIELDS.has(name)) this.cost += multiplier;
    if (!inIntrospection && PAGED_FIELDS.has(name)) {
      const limit = this.limitOf(field);
      for (const selection of field.selectionSet.selections) this.page(selection, depth, multiplier, limit, inFragments);
      return;
    }
    this.walk(field.selectionSet, depth, inIntrospection, multiplier, inFragments);
  }

  /** A selection inside a page: `results` holds `limit` items, the rest is the page's own. */
  private page(selection: SelectionSetNode['selections'][number], depth: number, multiplier: number, limit: number, inFragments: Set<string>): void {
    if (this.tooDeep || this.spent()) return;
    if (selection.kind === Kind.FIELD && selection.name.value === 'results') {
      const items = multiplier * limit;
      this.cost += items;
      if (depth + 1 > GRAPHQL_LIMITS.maxDepth) this.tooDeep = selection;
      else if (selection.selectionSet) this.walk(selection.selectionSet, depth + 1, false, items, inFragments);
      return;
    }
    const nested = selection.kind === Kind.FIELD ? undefined : selection.kind === Kind.INLINE_FRAGMENT ? selection.selectionSet : this.fragments.get(selection.name.value)?.selectionSet;
    if (selection.kind === Kind.FIELD) return void (depth + 1 > GRAPHQL_LIMITS.maxDepth && (this.tooDeep = selection));
    if (!nested || (selection.kind === Kind.FRAGMENT_SPREAD && inFragments.has(selection.name.value))) return;
    const seen = selection.kind === Kind.FRAGMENT_SPREAD ? new Set(inFragments).add(selection.name.value) : inFragments;
    for (const inner of nested.selections) this.page(inner, depth, multiplier, limit, seen);
  }

  /** Counts one visited selection; true once there were more than a document may spread to. */
  private spent(): boolean {
    if (++this.visits > GRAPHQL_LIMITS.maxExpandedSelections) this.tooLarge = true;
    return this.tooLarge;
  }

  /** The page size a field asks for: its `limit` argument (a literal or a variable), 20 when absent, at most 500. */
  private limitOf(field: FieldNode): number {
    const argument = field.arguments?.find((a) => a.name.value === 'limit');
    const value = argument ? this.valueOf(argument.value) : undefined;
    if (typeof value !== 'number' || !Number.isFinite(value)) return DEFAULT_LIMIT;
    return Math.min(Math.max(Math.trunc(value), 0), MAX_LIMIT);
  }

  private valueOf(node: ValueNode): unknown {
    if (node.kind === Kind.VARIABLE) return this.variables[node.name.value];
    if (node.kind === Kind.INT) return Number(node.value);
    return undefined;
  }
}

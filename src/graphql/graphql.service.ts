import { Injectable, Logger } from '@nestjs/common';
import { execute, GraphQLError, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode, Kind } from 'graphql';
import { insufficientScope } from '../auth/auth.errors.js';
import { describeRule, grant } from '../auth/scopes.js';
import type { WhenSent } from '../common/answer-sent.js';
import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';
import { parseJson, toJsonText } from '../common/lossless-json.js';
import { PageQueryDto } from '../common/page-query.dto.js';
import type { Principal } from '../common/principal.js';
import { UUID_PATTERN } from '../common/route-params.js';
import { validateBody, validateQuery } from '../common/validation/validation.pipe.js';
import { MessageQueryDto } from '../change-log/messages.dto.js';
import { variablesOf } from '../query-language/predicate-query.dto.js';
import { MessagesService } from '../change-log/messages.service.js';
import { VersionsService } from '../change-log/versions.service.js';
import { ResourceQueryDto } from '../resource/query/query.dto.js';
import { DeleteResourceQueryDto } from '../resource/resource-item.dto.js';
import { ObjectTestTypeDraftDto, UpdateRequestDto } from '../resource/resource.dto.js';
import { ResourceQueryService } from '../resource/resource-query.service.js';
import { ResourceService } from '../resource/resource.service.js';
import { FIELD_ACCESS } from './graphql-access.js';
import { compileRead, runRead, type ReadPlan } from './compiled-read.js';
import { formatErrors, requestErrors } from './graphql-errors.js';
import { checkDocumentLimits, GRAPHQL_LIMITS, limitError } from './graphql-limits.js';
import { buildResourceSchema, type GraphqlOperations, type QueryArgs } from './resource-schema.js';

/** One GraphQL request: who asks, for which project, and when its answer has been sent. */
export interface GraphqlContext {
  projectKey: string;
  principal: Principal;
  whenSent: WhenSent;
  /** `Resource.versions` batches, per page size: the ids waiting and their answers. */
  versionBatches: Map<string, VersionBatch>;
}

interface VersionBatch {
  ids: string[];
  answer: Promise<Map<string, string | undefined>>;
}

export interface GraphqlRequest {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
}

/** An answer: the HTTP status and the JSON text of `{data?, errors?}`. */
export interface GraphqlAnswer {
  status: number;
  body: string;
}

/** Parsed and validated documents, by text: a client sends the same few again and again. */
const DOCUMENT_CACHE_SIZE = 500;

/**
 * `POST /{projectKey}/graphql` (docs/graphql.md): a second door onto the services REST uses. Each field
 * calls the service of its REST twin (the same validation DTOs, the same errors, the same write path with
 * its version checks, extensions, messages and notifications); the limits are checked before any field runs.
 */
@Injectable()
export class GraphqlService implements GraphqlOperations<GraphqlContext> {
  readonly schema: GraphQLSchema;
  private readonly logger = new Logger('GraphQL');
  private readonly documents = new Map<string, DocumentNode | readonly GraphQLError[]>();
  /** Read plans by document (which the cache above keeps alive while it holds it) and operation name. */
  private readonly plans = new WeakMap<DocumentNode, Map<string, ReadPlan | null>>();

  constructor(
    private readonly resourceService: ResourceService,
    private readonly queries: ResourceQueryService,
    private readonly messageService: MessagesService,
    private readonly versions: VersionsService,
  ) {
    this.schema = buildResourceSchema<GraphqlContext>(this, authorize);
  }

  async execute(request: GraphqlRequest, context: GraphqlContext, method: 'GET' | 'POST'): Promise<GraphqlAnswer> {
    if (Array.isArray(request)) return badRequest([limitError('Batching is not supported: send one operation per request.')]);
    const { query, operationName } = request ?? {};
    if (typeof query !== 'string' || query.trim() === '') return badRequest([limitError('`query` must be a non-empty string.')]);
    if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return badRequest([limitError('`operationName` must be a string.')]);
    let variables = request.variables;
    if (typeof variables === 'string' && method === 'GET') {
      try {
        variables = parseJson(variables);
      } catch {
        return badRequest([limitError('`variables` must be JSON of an object.')]);
      }
    }
    if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) {
      return badRequest([limitError('`variables` must be an object.')]);
    }
    if (Buffer.byteLength(query) > GRAPHQL_LIMITS.maxDocumentBytes) {
      return badRequest([limitError(`The document is larger than ${GRAPHQL_LIMITS.maxDocumentBytes} bytes.`)]);
    }
    const document = this.document(query);
    if (!('kind' in document)) return badRequest(document);
    const values = (variables ?? {}) as Record<string, unknown>;
    const limits = checkDocumentLimits('cost', document, values, operationName);
    if (limits.length > 0) return badRequest(limits);
    if (method === 'GET' && operationOf(document, operationName)?.operation === 'mutation') {
      return { status: 405, body: JSON.stringify({ errors: requestErrors([limitError('Mutations are sent with POST.')]) }) };
    }
    const plan = this.readPlan(document, operationName);
    const read = plan && (await runRead(this.schema, plan, values, context));
    if (read !== undefined) return { status: 200, body: read };
    const result = await execute({ schema: this.schema, document, variableValues: values, operationName, contextValue: context });
    if (result.data === undefined) return badRequest(result.errors ?? []);
    const errors = result.errors ? formatErrors(result.errors, (error) => this.logger.error(error instanceof Error ? error.stack : String(error))) : undefined;
    return { status: 200, body: toJsonText(errors ? { errors, data: result.data } : { data: result.data }) };
  }

  /** The document of `query`, parsed and validated once, or its errors. */
  private document(query: string): DocumentNode | readonly GraphQLError[] {
    const cached = this.documents.get(query);
    if (cached) return cached;
    let outcome: DocumentNode | readonly GraphQLError[];
    try {
      const document = parse(query, { noLocation: false, maxTokens: GRAPHQL_LIMITS.maxTokens });
      const tooDeep = checkDocumentLimits('depth', document, {});
      const errors = tooDeep.length > 0 ? tooDeep : validate(this.schema, document, specifiedRules);
      outcome = errors.length > 0 ? errors : document;
    } catch (error) {
      // The parser recurses once per nesting level: a document nested thousands deep overflows its stack.
      outcome = [error instanceof GraphQLError ? error : limitError(error instanceof RangeError ? 'The document is nested too deeply to parse.' : 'The document cannot be parsed.')];
    }
    if (this.documents.size >= DOCUMENT_CACHE_SIZE) this.documents.delete(this.documents.keys().next().value!);
    this.documents.set(query, outcome);
    return outcome;
  }

  /** The read plan of an operation (compiled-read.ts), once per document and operation name; null when it has none. */
  private readPlan(document: DocumentNode, operationName: unknown): ReadPlan | undefined {
    let plans = this.plans.get(document);
    if (!plans) this.plans.set(document, (plans = new Map()));
    const name = typeof operationName === 'string' ? operationName : '';
    if (!plans.has(name)) plans.set(name, compileRead(this.schema, document, operationName) ?? null);
    return plans.get(name) ?? undefined;
  }

  /* ------------------------------------------------------------------ fields */

  async resource({ id, key }: { id?: string; key?: string }, { projectKey }: GraphqlContext): Promise<unknown> {
    const text = await orNull(id !== undefined && id !== null ? byId(id, (uuid) => this.resourceService.getById(projectKey, uuid)) : this.resourceService.getByKey(projectKey, oneOf(id, key)));
    return text === null ? null : parseJson(text);
  }

  async resources({ variables, ...args }: QueryArgs, { projectKey, whenSent }: GraphqlContext): Promise<unknown> {
    const query = validateQuery(ResourceQueryDto, queryParameters(args));
    return parseJson(await this.queries.query(projectKey, query, variablesOf(variables ?? [], 'variables'), whenSent));
  }

  async message({ id }: { id: string }, { projectKey }: GraphqlContext): Promise<unknown> {
    const text = await orNull(byId(id, (uuid) => this.messageService.getById(projectKey, uuid)));
    return text === null ? null : parseJson(text);
  }

  async messages({ variables, ...args }: QueryArgs, { projectKey, whenSent }: GraphqlContext): Promise<unknown> {
    const query = validateQuery(MessageQueryDto, queryParameters(args));
    return parseJson(await this.messageService.query(projectKey, query, variablesOf(variables ?? [], 'variables'), whenSent));
  }

  async resourceVersions({ id, ...page }: { id: string; limit?: number; offset?: number }, { projectKey, whenSent }: GraphqlContext): Promise<unknown> {
    const query = validateQuery(PageQueryDto, queryParameters(page));
    const text = await orNull(byId(id, (uuid) => this.versions.list(projectKey, uuid, query, whenSent)));
    return text === null ? null : parseJson(text);
  }

  /**
   * `Resource.versions`: the resources of one page ask in the same tick; their ids are gathered and read
   * in one statement per page size (`VersionsService.listMany`), whatever the number of resources.
   */
  async versionsOf({ id }: { id: string }, page: { limit?: number; offset?: number }, context: GraphqlContext): Promise<unknown> {
    const size = `${page.limit ?? ''}:${page.offset ?? ''}`;
    let batch = context.versionBatches.get(size);
    if (!batch) {
      const query = validateQuery(PageQueryDto, queryParameters(page));
      const ids: string[] = [];
      const answer = new Promise<void>((resolve) => process.nextTick(resolve)).then(() => {
        context.versionBatches.delete(size);
        return this.versions.listMany(context.projectKey, ids, query, context.whenSent);
      });
      batch = { ids, answer };
      context.versionBatches.set(size, batch);
    }
    batch.ids.push(id);
    const text = (await batch.answer).get(id);
    return text === undefined ? null : parseJson(text);
  }

  async createResource({ draft }: { draft: Record<string, unknown> }, context: GraphqlContext): Promise<unknown> {
    const body = validateBody(ObjectTestTypeDraftDto, withoutNulls(draft));
    const customerOnly = grant(FIELD_ACCESS['Mutation.createResource'], context.principal.scopeSet, context.projectKey)?.customerOnly ?? false;
    const written = await this.resourceService.createOrReplace(context.projectKey, body, { ...context.principal, customerOnly });
    return parseJson(written.json);
  }

  async updateResource({ id, key, version, actions }: { id?: string; key?: string; version: number | bigint; actions: Array<Record<string, unknown>> }, context: GraphqlContext): Promise<unknown> {
    const target = await this.targetId(id, key, context.projectKey);
    const request = validateBody(UpdateRequestDto, { version, actions: actions.map(restAction) });
    return parseJson(await this.resourceService.update(context.projectKey, target, request, context.principal));
  }

  async deleteResource({ id, key, version }: { id?: string; key?: string; version: number | bigint }, context: GraphqlContext): Promise<unknown> {
    const target = await this.targetId(id, key, context.projectKey);
    const query = validateQuery(DeleteResourceQueryDto, { version: String(version) });
    return parseJson(await this.resourceService.delete(context.projectKey, target, query.version, context.principal));
  }

  /** The id of the resource a mutation names by id or by key (404 as REST when there is none). */
  private async targetId(id: string | undefined, key: string | undefined, projectKey: string): Promise<string> {
    if (id !== undefined && id !== null) {
      oneOf(id, key);
      if (!UUID_PATTERN.test(id)) throw DomainError.notFound(`The resource with ID '${id}' was not found.`);
      return id;
    }
    const text = await this.resourceService.getByKey(projectKey, oneOf(id, key));
    return (parseJson(text) as { id: string }).id;
  }
}

/** The field's scopes (graphql-access.ts), as REST checks its route's: `insufficient_scope` for this field alone. */
function authorize(coordinate: string, { principal, projectKey }: GraphqlContext): void {
  const rule = FIELD_ACCESS[coordinate];
  if (rule && !grant(rule, principal.scopeSet, projectKey)) {
    const needed = describeRule(rule, projectKey);
    throw insufficientScope(`${coordinate.split('.')[1]} requires the scope ${needed}.`, needed);
  }
}

function badRequest(errors: readonly GraphQLError[]): GraphqlAnswer {
  return { status: 400, body: JSON.stringify({ errors: requestErrors(errors) }) };
}

function operationOf(document: DocumentNode, name: unknown): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return typeof name === 'string' ? operations.find((o) => o.name?.value === name) : operations.length === 1 ? operations[0] : undefined;
}

/** Exactly one of `id` and `key`: the key, or a 400. */
function oneOf(id: string | undefined | null, key: string | undefined | null): string {
  const given = [id, key].filter((v) => v !== undefined && v !== null).length;
  if (given !== 1) throw DomainError.of(ErrorCode.InvalidInput, 'Give exactly one of `id` and `key`.');
  return key ?? '';
}

/** A UUID read; any other id names nothing (REST: a plain 404). */
function byId(id: string, read: (uuid: string) => Promise<string>): Promise<string> {
  return UUID_PATTERN.test(id) ? read(id) : Promise.reject(DomainError.notFound());
}

/** A read's text, or null for a 404: GraphQL answers a missing object as null. */
async function orNull(read: Promise<string>): Promise<string | null> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof DomainError && error.errors[0].code === ErrorCode.ResourceNotFound) return null;
    throw error;
  }
}

/** GraphQL arguments as the REST query string carries them, so the same query DTO validates them. */
function queryParameters(args: object): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined || value === null) continue;
    query[name] = name === 'where' ? [String(value)] : Array.isArray(value) ? value.map(String) : String(value);
  }
  return query;
}

/** An input object without the members set to null (GraphQL's "absent"). */
function withoutNulls(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== null && member !== undefined));
}

/** `{changeSomeProperty: {someProperty}}` → `{action: 'changeSomeProperty', someProperty}`; exactly one member set. */
function restAction(action: Record<string, unknown>, index: number): Record<string, unknown> {
  const set = Object.entries(action).filter(([, value]) => value !== null && value !== undefined);
  if (set.length !== 1) {
    throw DomainError.of(ErrorCode.InvalidInput, `actions[${index}]: exactly one action must be set (${set.length} are).`, { actionIndex: index });
  }
  const [name, value] = set[0];
  if (value === true) return { action: name };
  if (typeof value !== 'object') throw DomainError.of(ErrorCode.InvalidField, `actions[${index}]: ${name} must be true.`, { actionIndex: index, field: `actions[${index}].${name}`, invalidValue: value });
  return { action: name, ...(value as object) };
}

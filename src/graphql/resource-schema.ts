import {
  GraphQLBoolean,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfigMap,
  type GraphQLOutputType,
  type GraphQLScalarType,
} from 'graphql';
import { MessageDto } from '../change-log/messages.dto.js';
import { ResourceVersionDto } from '../change-log/versions.dto.js';
import type { FieldSpec } from '../query-language/catalogue.js';
import type { NamedVariable } from '../query-language/predicate-query.dto.js';
import { RESOURCE_CATALOGUE } from '../query-language/resource.catalogue.js';
import { ACTION_CLASSES, ObjectTestTypeDraftDto, ObjectTestTypeDto } from '../resource/resource.dto.js';
import { dtoProperties, DtoTypes, GraphQLLong, GraphQLNumber } from './dto-types.js';

/*
 * The GraphQL schema of `POST /{projectKey}/graphql` (docs/graphql.md), derived at start-up: the `Resource`
 * type has the catalogue's fields in the catalogue's order, each typed by the response DTO's OpenAPI metadata;
 * `ResourceDraft` is the draft DTO; `ResourceUpdateAction` has one member per update action class. The
 * resolvers are the operations the GraphQL service gives: the same services REST calls.
 */

/** What the resolvers call; `context` is the request's (graphql.service.ts). */
export interface GraphqlOperations<C> {
  resource(args: { id?: string; key?: string }, context: C): Promise<unknown>;
  resources(args: QueryArgs, context: C): Promise<unknown>;
  message(args: { id: string }, context: C): Promise<unknown>;
  messages(args: QueryArgs, context: C): Promise<unknown>;
  resourceVersions(args: { id: string; limit?: number; offset?: number }, context: C): Promise<unknown>;
  /** `Resource.versions`: batched by the request's loader. */
  versionsOf(resource: { id: string }, args: { limit?: number; offset?: number }, context: C): Promise<unknown>;
  createResource(args: { draft: Record<string, unknown> }, context: C): Promise<unknown>;
  updateResource(args: { id?: string; key?: string; version: number | bigint; actions: Array<Record<string, unknown>> }, context: C): Promise<unknown>;
  deleteResource(args: { id?: string; key?: string; version: number | bigint }, context: C): Promise<unknown>;
}

/** The arguments of a list field with a predicate: those of the REST query. */
export interface QueryArgs extends PageArgs {
  where?: string;
  sort?: string[];
  variables?: NamedVariable[];
}

export interface PageArgs {
  limit?: number;
  offset?: number;
  withTotal?: boolean;
}

/** Checks the field's scopes (graphql-access.ts) before its resolver runs. */
export type Authorize<C> = (coordinate: string, context: C) => void;

const CATALOGUE_SCALARS: Record<string, GraphQLScalarType> = {
  id: GraphQLString,
  string: GraphQLString,
  datetime: GraphQLString,
  integer: GraphQLLong,
  number: GraphQLNumber,
  boolean: GraphQLBoolean,
};

/** Names of the DTOs' GraphQL types where the class name without `Dto` is not the API's word. */
const TYPE_NAMES = new Map<Function, string>([
  [ObjectTestTypeDto, 'Resource'],
  [MessageDto, 'Message'],
  [ResourceVersionDto, 'ResourceVersion'],
]);

const nonNull = <T extends GraphQLOutputType | GraphQLInputObjectType | GraphQLScalarType>(type: T) => new GraphQLNonNull(type);
const listOf = <T extends GraphQLOutputType>(type: T) => new GraphQLList(new GraphQLNonNull(type));

/** `{limit, offset, count, total, results}` of `item`. */
function pageType(name: string, item: GraphQLObjectType): GraphQLObjectType {
  return new GraphQLObjectType({
    name,
    fields: {
      limit: { type: nonNull(GraphQLInt) },
      offset: { type: nonNull(GraphQLInt) },
      count: { type: nonNull(GraphQLInt), description: 'Number of results in this page.' },
      total: { type: GraphQLInt, description: 'Number of matches; null with withTotal: false.' },
      results: { type: nonNull(listOf(item)) },
    },
  });
}

const PAGE_ARGS = {
  limit: { type: GraphQLInt, description: 'Page size, 0–500 (default 20).' },
  offset: { type: GraphQLInt, description: 'Results to skip, 0–10000 (default 0).' },
};
const WHERE_VARIABLE = new GraphQLInputObjectType({
  name: 'WhereVariable',
  description: 'A value of `:name` in `where`, as REST\'s `var.<name>` query parameter: one value, or a list (usable after `in`, `contains any`, …).',
  fields: {
    name: { type: nonNull(GraphQLString), description: 'Letters and digits.' },
    values: { type: nonNull(new GraphQLList(nonNull(GraphQLString))), description: 'Typed by where the variable stands (an integer for version, a date-time for createdAt, …).' },
  },
});
const QUERY_ARGS = {
  where: { type: GraphQLString, description: 'A predicate of the query language (as REST `where`).' },
  variables: { type: new GraphQLList(nonNull(WHERE_VARIABLE)), description: 'The values of the `:name` variables in `where` (REST: `var.<name>`); unused ones are ignored.' },
  sort: { type: new GraphQLList(new GraphQLNonNull(GraphQLString)), description: '`<field> asc|desc`, in order; ties by id.' },
  ...PAGE_ARGS,
  withTotal: { type: GraphQLBoolean, description: 'false: no `total` (faster). Default true.' },
};

/**
 * The type of a catalogue field: the response DTO's property of that name when it documents one, else
 * the catalogue's own value type (a field added to the catalogue alone still appears).
 */
function catalogueFieldType(types: DtoTypes, field: FieldSpec, documented: Map<string, Parameters<DtoTypes['outputType']>[0]>): GraphQLOutputType {
  const metadata = documented.get(field.name);
  if (metadata) return types.outputType(metadata);
  const scalar = 'type' in field && typeof field.type === 'string' ? CATALOGUE_SCALARS[field.type] : undefined;
  if (!scalar) throw new Error(`catalogue field '${field.name}' has no type the GraphQL schema can show; document it on ObjectTestTypeDto`);
  return 'nullable' in field && field.nullable ? scalar : nonNull(scalar);
}

export function buildResourceSchema<C>(operations: GraphqlOperations<C>, authorize: Authorize<C>): GraphQLSchema {
  const types = new DtoTypes(TYPE_NAMES as Map<never, string>);
  const guarded = <S, A>(coordinate: string, resolve: (source: S, args: A, context: C) => Promise<unknown>) =>
    (source: S, args: A, context: C) => {
      authorize(coordinate, context);
      return resolve(source, args, context);
    };

  const version = types.output(ResourceVersionDto);
  const versionPage = pageType('ResourceVersionQueryResult', version);
  const documented = new Map(dtoProperties(ObjectTestTypeDto));
  const resource: GraphQLObjectType = new GraphQLObjectType({
    name: 'Resource',
    description: 'A resource, as GET /{projectKey}/resource/{id} answers it.',
    fields: () => {
      const fields: GraphQLFieldConfigMap<unknown, C> = {};
      for (const field of RESOURCE_CATALOGUE.fields) fields[field.name] = { type: catalogueFieldType(types, field, documented) };
      fields.versions = {
        type: versionPage,
        description: 'The version history, newest first (as GET /{projectKey}/resource/{id}/versions); null when none is kept.',
        args: PAGE_ARGS,
        resolve: guarded('Resource.versions', (source: unknown, args: PageArgs, context) => operations.versionsOf(source as { id: string }, args, context)),
      };
      return fields;
    },
  });
  types.define(ObjectTestTypeDto, resource);
  const message = types.output(MessageDto);

  const draft = types.input(ObjectTestTypeDraftDto, 'ResourceDraft');
  const action = new GraphQLInputObjectType({
    name: 'ResourceUpdateAction',
    description: 'One update action: exactly one member set. Actions without fields take `true`.',
    fields: () => {
      const fields: GraphQLInputFieldConfigMap = {};
      for (const [name, cls] of Object.entries(ACTION_CLASSES)) {
        const members = dtoProperties(cls).filter(([property]) => property !== 'action');
        const pascal = name[0].toUpperCase() + name.slice(1);
        fields[name] = { type: members.length === 0 ? GraphQLBoolean : types.input(cls, `${pascal}Action`, ['action']) };
      }
      return fields;
    },
  });

  const query = new GraphQLObjectType<unknown, C>({
    name: 'Query',
    fields: {
      resource: {
        type: resource,
        description: 'A resource by id or by key (exactly one); null when there is none.',
        args: { id: { type: GraphQLString }, key: { type: GraphQLString } },
        resolve: guarded('Query.resource', (_s, args: { id?: string; key?: string }, context) => operations.resource(args, context)),
      },
      resources: {
        type: nonNull(pageType('ResourceQueryResult', resource)),
        description: 'Resources matching `where`, sorted and paged (as GET /{projectKey}/resource/sorted-query-parameters).',
        args: QUERY_ARGS,
        resolve: guarded('Query.resources', (_s, args: QueryArgs, context) => operations.resources(args, context)),
      },
      message: {
        type: message,
        description: 'A message of the change log by id; null when there is none.',
        args: { id: { type: nonNull(GraphQLString) } },
        resolve: guarded('Query.message', (_s, args: { id: string }, context) => operations.message(args, context)),
      },
      messages: {
        type: nonNull(pageType('MessageQueryResult', message)),
        description: 'Messages of the change log (as GET /{projectKey}/messages).',
        args: QUERY_ARGS,
        resolve: guarded('Query.messages', (_s, args: QueryArgs, context) => operations.messages(args, context)),
      },
      resourceVersions: {
        type: versionPage,
        description: 'The version history of a resource, deleted ones included; null when none is kept.',
        args: { id: { type: nonNull(GraphQLString) }, ...PAGE_ARGS },
        resolve: guarded('Query.resourceVersions', (_s, args: { id: string; limit?: number; offset?: number }, context) => operations.resourceVersions(args, context)),
      },
    },
  });

  const target = { id: { type: GraphQLString }, key: { type: GraphQLString } };
  const mutation = new GraphQLObjectType<unknown, C>({
    name: 'Mutation',
    fields: {
      createResource: {
        type: nonNull(resource),
        description: 'POST /{projectKey}/resource: creates, or overwrites the resource with the draft\'s key.',
        args: { draft: { type: nonNull(draft) } },
        resolve: guarded('Mutation.createResource', (_s, args: { draft: Record<string, unknown> }, context) => operations.createResource(args, context)),
      },
      updateResource: {
        type: resource,
        description: 'POST /{projectKey}/resource/{id}: the actions in order, all or nothing (by id or key).',
        args: { ...target, version: { type: nonNull(GraphQLLong) }, actions: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(action))) } },
        resolve: guarded('Mutation.updateResource', (_s, args: Parameters<GraphqlOperations<C>['updateResource']>[0], context) => operations.updateResource(args, context)),
      } satisfies GraphQLFieldConfig<unknown, C>,
      deleteResource: {
        type: resource,
        description: 'DELETE /{projectKey}/resource/{id} (by id or key): answers the deleted resource.',
        args: { ...target, version: { type: nonNull(GraphQLLong) } },
        resolve: guarded('Mutation.deleteResource', (_s, args: Parameters<GraphqlOperations<C>['deleteResource']>[0], context) => operations.deleteResource(args, context)),
      },
    },
  });

  return new GraphQLSchema({ query, mutation, types: [GraphQLLong] });
}

import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Database, PROJECT_WAIT_MS, projectBusy } from '../database/database.js';
import { namedStatement, statementTemplate } from '../database/named-statement.js';
import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';
import { isDatabaseUnavailable, isStatementTimeout, isUniqueViolation } from '../common/database-errors.js';
import { Coalescer } from '../common/coalescer.js';
import type { Modifier } from './resource.entity.js';
import type { ActionMessage, ResourceChanges } from './update-actions.js';
import type { Merge } from '../query-language/catalogue.js';
import { OBJECT_TYPE_PROPERTY } from '../query-language/resource.catalogue.js';
import { messageTypeSql as type } from '../query-language/message.catalogue.js';
import type { SqlCondition } from './resource-filter.js';
import {
  deletedColumns, insertResources, member, modifierJson, overwriteMessages, RESOURCE_JSON, resourceWrite, stamp, writtenColumns,
} from './resource-write.js';

const KEY_CONSTRAINT = 'resource_project_key_key_unique';

/** The elements `x.e` (with their index `x.i`) of one array of the matches `m` (`m.n`: a match's rank). */
const elements = (field: string) => `FROM m, jsonb_array_elements(m.o->'${field}') WITH ORDINALITY AS x(e, i)`;

/** How GET /resource combines an array over the matches, in the order of the matches and of their elements. */
const MERGE_SQL: Record<Merge, (field: string) => string> = {
  concat: (field) => `COALESCE((SELECT jsonb_agg(x.e ORDER BY m.n, x.i) ${elements(field)}), '[]'::jsonb)`,
  distinct: (field) =>
    `COALESCE((SELECT jsonb_agg(u.e ORDER BY u.first) FROM (SELECT x.e, min(ARRAY[m.n, x.i]) AS first ${elements(field)} GROUP BY x.e) u), '[]'::jsonb)`,
  bounds: (field) =>
    `(SELECT CASE WHEN count(*) = 0 THEN '[]'::jsonb ELSE jsonb_build_array(min((x.e)::numeric), max((x.e)::numeric)) END ${elements(field)})`,
};

/** The arguments of json_build_object that merge `objectTypeProperty` over the matches `m`, in the schema's order. */
const MERGED_ARRAYS = OBJECT_TYPE_PROPERTY.members.map((f) => `'${f.name}', ${MERGE_SQL[f.merge](f.name)}`).join(',\n        ');
/** `GET /resource` merges at most this many resources. */
export const MERGE_LIMIT = 500;

/**
 * Replaces the locked row `o` (the resource with the draft's key): the document, `published` when the draft
 * gives it (`:publishGiven`), and one or two messages' worth of sequence, if the row has the `:expected`
 * version (when given) and, for a customer-bound client, was created by `owner`'s customer (an SQL
 * expression: `:owner`, or NULL for none).
 */
const replaceFromO = (owner: string) => {
  const flagChanged = `(:publishGiven::boolean AND o.published IS DISTINCT FROM :publish::boolean)`;
  const messages = `CASE WHEN ${flagChanged} THEN 2 ELSE 1 END`;
  return `UPDATE resource r SET object_type_property = :document::text::jsonb,
               published = CASE WHEN :publishGiven::boolean THEN :publish::boolean ELSE r.published END,
               ${stamp(':by', messages)}
             FROM o WHERE r.id = o.id AND (:expected::integer IS NULL OR r.version = :expected::integer)
               AND (${owner}::text IS NULL OR r.created_by->>'customerId' = ${owner}::text)
             RETURNING ${writtenColumns(messages)}, false AS created, ${flagChanged} AS flag_changed, r.published`;
};

/** The fields an update's actions may set: whether they set each (`…Set`), its value, and the messages. */
const UPDATE_FIELDS = [
  'someSet', 'some', 'secondSet', 'second', 'keySet', 'key', 'documentSet', 'document', 'published', 'publishImages', 'count', 'messages',
] as const;
type UpdateField = (typeof UPDATE_FIELDS)[number];

/** Every update action reduces to field assignments (`v`: the SQL expression of each field's input). */
const updateSet = (by: string, v: Record<Exclude<UpdateField, 'messages'>, string>) => `
               some_property = CASE WHEN ${v.someSet} THEN ${v.some} ELSE r.some_property END,
               second_property_to_update = CASE WHEN ${v.secondSet} THEN ${v.second} ELSE r.second_property_to_update END,
               key = CASE WHEN ${v.keySet} THEN ${v.key} ELSE r.key END,
               object_type_property = CASE WHEN ${v.documentSet} THEN ${v.document} ELSE r.object_type_property END,
               published = COALESCE(${v.published}, r.published),
               images = CASE WHEN ${v.publishImages} THEN
                 (SELECT COALESCE(jsonb_agg(i.image || '{"staged": false}' ORDER BY i.n), '[]'::jsonb)
                    FROM jsonb_array_elements(r.images) WITH ORDINALITY AS i(image, n))
                 ELSE r.images END,
               ${stamp(by, v.count)}`;

/**
 * The messages of an update come from its actions (`messages`: JSON `[{t: type, p: payload, o?: the field
 * whose value before the write the payload names}]`); `o` holds the row's values before the write, under its lock.
 */
const updateMessages = (messages: string, resourceId: string) => `
             SELECT ${resourceId}x.n, x.e->>'t' AS type, concat_ws(',', NULLIF(x.e->>'p', ''), CASE x.e->>'o'
                 WHEN 'someProperty' THEN ${member('oldSomeProperty', 'to_json(w.old_some_property)::text')}
                 WHEN 'key' THEN ${member('oldKey', 'to_json(w.old_key)::text')} END) AS payload
             FROM w, json_array_elements(${messages}) WITH ORDINALITY AS x(e, n)`;

/** The statements of the hot paths; `bench/baseline-server.mjs` runs the very same SQL. */
export const RESOURCE_SQL = {
  byId: namedStatement('resource_by_id', ['id', 'projectKey'], `
    SELECT ${RESOURCE_JSON} AS json FROM resource r WHERE r.id = :id AND r.project_key = :projectKey`),
  byKey: namedStatement('resource_by_key', ['projectKey', 'key'], `
    SELECT ${RESOURCE_JSON} AS json FROM resource r WHERE r.project_key = :projectKey AND r.key = :key`),
  stateById: namedStatement('resource_state_by_id', ['id', 'projectKey'], `
    SELECT r.version, r.created_by->>'customerId' AS "customerId", ${RESOURCE_JSON} AS json
    FROM resource r WHERE r.id = :id AND r.project_key = :projectKey`),
  // `stateById` for any number of resources of one project (ResourceRepository.stateOf).
  statesById: namedStatement('resource_states_by_id', ['ids', 'projectKey'], `
    SELECT r.id, r.version, r.created_by->>'customerId' AS "customerId", ${RESOURCE_JSON} AS json
    FROM resource r WHERE r.id = ANY (:ids::uuid[]) AND r.project_key = :projectKey`),
  stateByKey: namedStatement('resource_state_by_key', ['projectKey', 'key'], `
    SELECT r.version, r.created_by->>'customerId' AS "customerId" FROM resource r WHERE r.project_key = :projectKey AND r.key = :key`),
  // Create, or replace the resource with that key, and record the change. The existing row is read under
  // its lock first (`o`): the replace sees exactly that row, so whether `published` changed is known, and
  // the version and owner checks are part of the write. A key first inserted by another writer after `o`
  // was read is left alone (DO NOTHING): no row comes back, and the service tries again. Without a key, a
  // resource is always created.
  upsert: namedStatement('resource_upsert', ['id', 'projectKey', 'key', 'by', 'publish', 'document', 'expected', 'owner', 'publishGiven'], resourceWrite({
    write: `o AS (
             SELECT r.id, r.published FROM resource r WHERE r.project_key = :projectKey AND r.key = :key FOR UPDATE
           ), u AS (
             ${replaceFromO(':owner')}
           ), i AS (
             ${insertResources(
               { id: ':id', projectKey: ':projectKey', key: ':key', by: ':by', publish: ':publish', document: ':document::text' },
               'WHERE NOT EXISTS (SELECT FROM o) ON CONFLICT (project_key, key) DO NOTHING',
               ', true AS created, false AS flag_changed, r.published',
             )}
           ), w AS (SELECT * FROM i UNION ALL SELECT * FROM u)`,
    messages: overwriteMessages(':document::text'),
    answer: 'SELECT w.id, w.created, w.json FROM w',
  })),
  // `upsert` without a key for any number of creates in one statement (ResourceRepository.create): each row
  // with its `ResourceCreated` message and version 1; arrays, one element per resource.
  createMany: namedStatement('resource_create_many', ['projectKey', 'ids', 'by', 'publish', 'documents'], resourceWrite({
    write: `t AS (
             SELECT * FROM unnest(:ids::uuid[], :by::text[], :publish::boolean[], :documents::text[]) WITH ORDINALITY AS t(id, by_json, publish, document, n)
           ), w AS (
             ${insertResources({ id: 't.id', projectKey: ':projectKey', key: 'NULL', by: 't.by_json', publish: 't.publish', document: 't.document' }, 'FROM t ORDER BY t.n', '')}
           )`,
    messages: `SELECT w.id AS resource_id, 1 AS n, ${type('ResourceCreated')} AS type, ${member('representation', 'w.json')} AS payload FROM w`,
    many: true,
    answer: 'SELECT w.id, w.json FROM w',
  })),
  // A create whose extensions were called (docs/extensions.md): the resource with the id the extensions saw
  // and the fields their actions set, at version 1, with its `ResourceCreated` message (the representation
  // as written) followed by the messages of the actions (`[{t, p}]`). A key another writer created
  // meanwhile writes nothing (no row: the service answers 409).
  createComplete: namedStatement(
    'resource_create_complete',
    ['id', 'projectKey', 'key', 'by', 'publish', 'document', 'some', 'second', 'count', 'messages'],
    resourceWrite({
      write: `w AS (
             ${insertResources(
               {
                 id: ':id', projectKey: ':projectKey', key: ':key', by: ':by', publish: ':publish', document: ':document::text',
                 someProperty: ':some', secondPropertyToUpdate: ':second', messages: ':count::integer',
               },
               'ON CONFLICT (project_key, key) DO NOTHING',
               '',
             )}
           )`,
      messages: `SELECT 1 AS n, ${type('ResourceCreated')} AS type, ${member('representation', 'w.json')} AS payload FROM w
           UNION ALL
           SELECT 1 + x.n, x.e->>'t', x.e->>'p' FROM w, json_array_elements(:messages::json) WITH ORDINALITY AS x(e, n)`,
      answer: 'SELECT w.id, w.json FROM w',
    }),
  ),
  // `createComplete` for any number of creates in one statement, some of them plain (`createMany`'s: no key,
  // no messages but `ResourceCreated`), when creates with extensions are written together with others
  // (ResourceRepository.createComplete); arrays, one element per resource. A create whose key another
  // writer took meanwhile writes nothing and returns no row.
  createManyComplete: namedStatement(
    'resource_create_many_complete',
    ['projectKey', 'ids', 'by', 'publish', 'documents', 'keys', 'some', 'second', 'counts', 'messages'],
    resourceWrite({
      write: `t AS (
             SELECT * FROM unnest(:ids::uuid[], :by::text[], :publish::boolean[], :documents::text[], :keys::text[], :some::text[], :second::text[],
                                  :counts::integer[], :messages::text[])
               WITH ORDINALITY AS t(id, by_json, publish, document, key, some_value, second_value, message_count, messages, n)
           ), w AS (
             ${insertResources(
               {
                 id: 't.id', projectKey: ':projectKey', key: 't.key', by: 't.by_json', publish: 't.publish', document: 't.document',
                 someProperty: 't.some_value', secondPropertyToUpdate: 't.second_value', messages: 't.message_count',
               },
               'FROM t ORDER BY t.n ON CONFLICT (project_key, key) DO NOTHING',
               '',
             )}
           )`,
      messages: `SELECT w.id AS resource_id, 1 AS n, ${type('ResourceCreated')} AS type, ${member('representation', 'w.json')} AS payload FROM w
           UNION ALL
           SELECT w.id, 1 + x.n, x.e->>'t', x.e->>'p' FROM w JOIN t ON t.id = w.id, json_array_elements(t.messages::json) WITH ORDINALITY AS x(e, n)`,
      many: true,
      answer: 'SELECT w.id, w.json FROM w',
    }),
  ),
  replaceByKey: namedStatement('resource_replace_by_key', ['projectKey', 'key', 'document', 'by', 'publish', 'publishGiven', 'expected'], resourceWrite({
    write: `o AS (
             SELECT r.id, r.published FROM resource r WHERE r.project_key = :projectKey AND r.key = :key FOR UPDATE
           ), w AS (
             ${replaceFromO('NULL')}
           )`,
    messages: overwriteMessages(':document::text'),
    answer: 'SELECT w.id, w.json FROM w',
  })),
  // An update of resource `id` at the `expected` version by its fields (UPDATE_FIELDS).
  update: namedStatement('resource_update', ['id', 'projectKey', 'expected', 'by', ...UPDATE_FIELDS], resourceWrite({
    write: `o AS (
             SELECT r.id, r.some_property, r.key FROM resource r WHERE r.id = :id AND r.project_key = :projectKey FOR UPDATE
           ), w AS (
             UPDATE resource r SET ${updateSet(':by', {
               someSet: ':someSet::boolean', some: ':some::text', secondSet: ':secondSet::boolean', second: ':second::text',
               keySet: ':keySet::boolean', key: ':key::varchar', documentSet: ':documentSet::boolean', document: ':document::jsonb',
               published: ':published::boolean', publishImages: ':publishImages::boolean', count: ':count::integer',
             })}
             FROM o WHERE r.id = o.id AND r.version = :expected
             RETURNING ${writtenColumns(':count::integer')}, o.some_property AS old_some_property, o.key AS old_key
           )`,
    messages: updateMessages(':messages::json', ''),
    answer: 'SELECT w.json FROM w',
  })),
  // `update` for any number of updates of distinct resources of one project in one statement
  // (ResourceRepository.update); arrays, one element per update. `o` holds the rows' values before the
  // write, locked in id order (two statements never wait for each other's rows crosswise). An update whose
  // version does not match writes nothing and returns no row.
  updateMany: namedStatement('resource_update_many', ['projectKey', 'ids', 'expected', 'by', ...UPDATE_FIELDS], resourceWrite({
    write: `t AS (
             SELECT * FROM unnest(:ids::uuid[], :expected::integer[], :by::text[], :someSet::boolean[], :some::text[], :secondSet::boolean[],
                                  :second::text[], :keySet::boolean[], :key::text[], :documentSet::boolean[], :document::text[], :published::boolean[],
                                  :publishImages::boolean[], :count::integer[], :messages::text[])
               WITH ORDINALITY AS t(id, expected, by_json, some_set, some_value, second_set, second_value, key_set, key_value, document_set, document_value,
                                    published, publish_images, message_count, messages, n)
           ), o AS MATERIALIZED (
             SELECT r.id, r.some_property, r.key FROM resource r
             WHERE r.id = ANY (:ids::uuid[]) AND r.project_key = :projectKey ORDER BY r.id FOR UPDATE
           ), w AS (
             UPDATE resource r SET ${updateSet('t.by_json', {
               someSet: 't.some_set', some: 't.some_value', secondSet: 't.second_set', second: 't.second_value',
               keySet: 't.key_set', key: 't.key_value::varchar', documentSet: 't.document_set', document: 't.document_value::jsonb',
               published: 't.published', publishImages: 't.publish_images', count: 't.message_count',
             })}
             FROM o JOIN t ON t.id = o.id
             WHERE r.id = o.id AND r.version = t.expected
             RETURNING ${writtenColumns('t.message_count')}, o.some_property AS old_some_property, o.key AS old_key, t.messages, t.n
           )`,
    messages: updateMessages('w.messages::json', 'w.id AS resource_id, '),
    many: true,
    answer: 'SELECT w.n::integer AS n, w.json FROM w',
  })),
  delete: namedStatement('resource_delete', ['id', 'projectKey', 'expected', 'by'], resourceWrite({
    write: `w AS (
             DELETE FROM resource r WHERE r.id = :id AND r.project_key = :projectKey AND (:expected::integer IS NULL OR r.version = :expected)
             RETURNING ${deletedColumns(':by')}
           )`,
    messages: `SELECT 1 AS n, ${type('ResourceDeleted')} AS type, '' AS payload`,
    version: false,
    answer: 'SELECT w.json FROM w',
  })),
  /**
   * GET /resource: the merged ArrayTestType of the first MERGE_LIMIT matches of `where` (its values from $2)
   * and the number of matches; the merge is NULL when longer than the bytes given as `maxBytes`.
   */
  merge: statementTemplate([["r.some_property = $2", '$3']], (where: string, maxBytes: string) => `
    WITH m AS (
      SELECT r.${OBJECT_TYPE_PROPERTY.column} AS o, row_number() OVER (ORDER BY r.created_at, r.id) AS n
      FROM resource r WHERE r.project_key = $1 AND ${where} ORDER BY r.created_at, r.id LIMIT ${MERGE_LIMIT}
    ), merged AS (
      SELECT json_strip_nulls(json_build_object(
        ${MERGED_ARRAYS}
      ))::text AS json
    )
    SELECT (SELECT count(*) FROM resource r WHERE r.project_key = $1 AND ${where})::integer AS total,
           CASE WHEN octet_length(merged.json) > ${maxBytes}::bigint THEN NULL ELSE merged.json END AS json
    FROM merged`),
  /** HEAD /resource: whether a resource of project $1 matches `where` (its values from $2). */
  exists: statementTemplate([['r.some_property = $2']], (where: string) => `
    SELECT EXISTS (SELECT 1 FROM resource r WHERE r.project_key = $1 AND ${where}) AS found`),
};
const SQL = RESOURCE_SQL;

export interface WrittenResource {
  id: string;
  json: string;
  created?: boolean;
}

export interface UpsertInput {
  key?: string;
  objectTypeProperty: string;
  publish?: boolean;
  expectedVersion?: number;
  /** A customer-bound client may only update resources it created. */
  ownerCustomerId?: string;
}

/** A create whose values are all chosen before the write: the id, and the fields update actions set. */
export interface CompleteCreate {
  id: string;
  key?: string;
  published: boolean;
  /** JSON text. */
  objectTypeProperty: string;
  someProperty?: string;
  secondPropertyToUpdate?: string;
  /** The messages of the actions after `ResourceCreated`, payloads complete. */
  messages: ActionMessage[];
}

/** A create as `createMany` writes it: without a key, or complete (`createComplete`'s). */
interface NewResource {
  id: string;
  /** The modifier's JSON text. */
  by: string;
  publish: boolean;
  /** `objectTypeProperty` as JSON text. */
  document: string;
  complete?: {
    key: string | null;
    some: string | null;
    second: string | null;
    /** The messages after `ResourceCreated`, as JSON `[{t, p}]`, and how many with it. */
    messages: string;
    count: number;
  };
}

/** The outcome of a complete create whose key another writer took meanwhile (no row written). */
class KeyTaken extends Error {}

/** An update as `updateMany` writes it. */
interface ResourceUpdate {
  id: string;
  expectedVersion: number;
  /** The modifier's JSON text. */
  by: string;
  changes: ResourceChanges;
}

/** Statements of one project's creates (or updates) running at once; those arriving meanwhile wait to go together. */
const WRITES_IN_FLIGHT = 2;
const MAX_WRITES_PER_STATEMENT = 50;
/** Characters of documents (and update messages) in one statement, at most (a single larger write goes alone). */
const MAX_WRITE_BYTES_PER_STATEMENT = 2 * 1024 * 1024;

/**
 * Whether the writes of a failed statement are run again one by one: one resource's value (a key taken, a
 * value PostgreSQL refuses) or a deadlock with another statement fails them all. An unreachable database,
 * a timeout or a refused turn would fail each alone too.
 */
const alone = (error: unknown) => !(isDatabaseUnavailable(error) || isStatementTimeout(error) || error instanceof DomainError);

export interface ResourceState {
  version: number;
  customerId: string | null;
  json: string;
}

/** The outcome of a create that returned no row: a complete create's key was taken, a plain one failed. */
function notWritten(r: NewResource): Error {
  return r.complete ? new KeyTaken() : new Error(`the create of ${r.id} returned no row`);
}

/** The values of an update's fields (UPDATE_FIELDS). */
function updateFields(changes: ResourceChanges): Record<UpdateField, unknown> {
  return {
    someSet: changes.someProperty !== undefined,
    some: changes.someProperty ?? null,
    secondSet: changes.secondPropertyToUpdate !== undefined,
    second: changes.secondPropertyToUpdate ?? null,
    keySet: changes.key !== undefined,
    key: changes.key ?? null,
    documentSet: changes.objectTypeProperty !== undefined,
    document: changes.objectTypeProperty ?? null,
    published: changes.published ?? null,
    publishImages: changes.publishImages,
    count: changes.messages.length,
    messages: JSON.stringify(changes.messages),
  };
}

/**
 * Creates, reads, overwrites, updates and deletes resources. The `resource` table is also written by
 * ImagesRepository (an image's attach is a new version) and read by ResourceQueryRepository and
 * SearchRepository, all through RESOURCE_JSON.
 */
@Injectable()
export class ResourceRepository {
  /** Concurrent creates without a key and complete creates, written together per project (see `create`); two of one key never share a statement. */
  private readonly creates = new Coalescer<NewResource, WrittenResource>({
    inFlight: WRITES_IN_FLIGHT,
    maxItems: MAX_WRITES_PER_STATEMENT,
    maxWeight: MAX_WRITE_BYTES_PER_STATEMENT,
    weigh: (r) => r.document.length + (r.complete?.messages.length ?? 0),
    identify: (r) => r.complete?.key ?? r.id,
    run: (projectKey, resources) => this.createMany(projectKey, resources),
    retryAlone: alone,
    maxWaitMs: PROJECT_WAIT_MS,
    expired: projectBusy,
  });

  /** Concurrent updates, written together per project like creates; two of one resource never share a statement. */
  private readonly updates = new Coalescer<ResourceUpdate, string | null>({
    inFlight: WRITES_IN_FLIGHT,
    maxItems: MAX_WRITES_PER_STATEMENT,
    maxWeight: MAX_WRITE_BYTES_PER_STATEMENT,
    weigh: (u) => (u.changes.objectTypeProperty?.length ?? 0) + u.changes.messages.reduce((sum, m) => sum + m.p.length, 0),
    identify: (u) => u.id,
    run: (projectKey, updates) => this.updateMany(projectKey, updates),
    retryAlone: alone,
    maxWaitMs: PROJECT_WAIT_MS,
    expired: projectBusy,
  });

  /** Concurrent reads of stored resources before their writes (see `stateOf`), read together per project. */
  private readonly states = new Coalescer<string, ResourceState | null>({
    inFlight: WRITES_IN_FLIGHT,
    maxItems: MAX_WRITES_PER_STATEMENT,
    maxWeight: MAX_WRITES_PER_STATEMENT,
    weigh: () => 1,
    run: (projectKey, ids) => this.statesById(projectKey, ids),
    retryAlone: alone,
    maxWaitMs: PROJECT_WAIT_MS,
    expired: projectBusy,
  });

  constructor(private readonly db: Database) {}

  /**
   * Creates a resource without a key. Creates of one project that arrive while WRITES_IN_FLIGHT of its
   * statements run are written together in the next one, with a row, a `ResourceCreated` message and a
   * version each, as if written one by one: a statement's fixed cost (its executor, the trigger's
   * statements being set up, the commit and its flush, the round trip) is most of a create's cost in
   * PostgreSQL, so under load PostgreSQL spends about half as much per create. A lone create is written at once.
   */
  create(projectKey: string, input: { objectTypeProperty: string; publish?: boolean }, by: Modifier): Promise<WrittenResource> {
    return this.creates.submit(projectKey, { id: randomUUID(), by: modifierJson(by), publish: input.publish ?? true, document: input.objectTypeProperty });
  }

  /**
   * A lone create runs `upsert`, as before batching; `createMany` only for two or more. With one element
   * of each array, PostgreSQL kept planning `createMany` anew (its plan for an array of known length looked
   * cheaper than the generic one), and a create cost it about twice as much.
   */
  private async createMany(projectKey: string, resources: NewResource[]): Promise<(WrittenResource | Error)[]> {
    if (resources.length === 1) {
      const [r] = resources;
      const row = r.complete
        ? await this.db.one<WrittenResource>(SQL.createComplete, SQL.createComplete.values({
          id: r.id, projectKey, key: r.complete.key, by: r.by, publish: r.publish, document: r.document,
          some: r.complete.some, second: r.complete.second, count: r.complete.count, messages: r.complete.messages,
        }), projectKey)
        : await this.db.one<WrittenResource>(SQL.upsert, SQL.upsert.values({
          id: r.id, projectKey, key: null, by: r.by, publish: r.publish, document: r.document, expected: null, owner: null, publishGiven: false,
        }), projectKey);
      return [row ?? notWritten(r)];
    }
    const columns = {
      projectKey,
      ids: resources.map((r) => r.id),
      by: resources.map((r) => r.by),
      publish: resources.map((r) => r.publish),
      documents: resources.map((r) => r.document),
    };
    const rows = resources.some((r) => r.complete)
      ? await this.db.query<WrittenResource>(SQL.createManyComplete, SQL.createManyComplete.values({
        ...columns,
        keys: resources.map((r) => r.complete?.key ?? null),
        some: resources.map((r) => r.complete?.some ?? null),
        second: resources.map((r) => r.complete?.second ?? null),
        counts: resources.map((r) => r.complete?.count ?? 1),
        messages: resources.map((r) => r.complete?.messages ?? '[]'),
      }), projectKey)
      : await this.db.query<WrittenResource>(SQL.createMany, SQL.createMany.values(columns), projectKey);
    const written = new Map(rows.map((row) => [row.id, row]));
    return resources.map((r) => written.get(r.id) ?? notWritten(r));
  }

  /**
   * A create with the id and fields a caller chose (see `createComplete`); undefined when its key was taken
   * meanwhile. Written together with the project's concurrent creates, like `create`.
   */
  async createComplete(projectKey: string, c: CompleteCreate, by: Modifier): Promise<WrittenResource | undefined> {
    try {
      return await this.creates.submit(projectKey, {
        id: c.id,
        by: modifierJson(by),
        publish: c.published,
        document: c.objectTypeProperty,
        complete: {
          key: c.key ?? null,
          some: c.someProperty ?? null,
          second: c.secondPropertyToUpdate ?? null,
          messages: JSON.stringify(c.messages.map((m) => ({ t: m.t, p: m.p }))),
          count: 1 + c.messages.length,
        },
      });
    } catch (error) {
      if (error instanceof KeyTaken) return undefined;
      throw this.translate(error, c.key);
    }
  }

  async findJsonById(projectKey: string, id: string): Promise<string | undefined> {
    return (await this.db.one<{ json: string }>(SQL.byId, SQL.byId.values({ id, projectKey }), projectKey))?.json;
  }

  async findJsonByKey(projectKey: string, key: string): Promise<string | undefined> {
    return (await this.db.one<{ json: string }>(SQL.byKey, SQL.byKey.values({ projectKey, key }), projectKey))?.json;
  }

  async findStateById(projectKey: string, id: string): Promise<ResourceState | undefined> {
    return this.db.one<ResourceState>(SQL.stateById, SQL.stateById.values({ id, projectKey }), projectKey);
  }

  /**
   * `findStateById` of a resource about to be written (an update whose extensions are called), read
   * together with the project's other such reads that arrive meanwhile, like creates (see `create`).
   */
  async stateOf(projectKey: string, id: string): Promise<ResourceState | undefined> {
    return (await this.states.submit(projectKey, id)) ?? undefined;
  }

  /** A lone read runs `stateById`, two or more `statesById` (see `createMany`). */
  private async statesById(projectKey: string, ids: string[]): Promise<(ResourceState | null)[]> {
    if (ids.length === 1) return [(await this.findStateById(projectKey, ids[0])) ?? null];
    const rows = await this.db.query<ResourceState & { id: string }>(SQL.statesById, SQL.statesById.values({ ids, projectKey }), projectKey);
    const found = new Map(rows.map(({ id, ...state }) => [id, state]));
    return ids.map((id) => found.get(id) ?? null);
  }

  async findStateByKey(projectKey: string, key: string): Promise<Omit<ResourceState, 'json'> | undefined> {
    return this.db.one(SQL.stateByKey, SQL.stateByKey.values({ projectKey, key }), projectKey);
  }

  /** Creates, or replaces the resource with the same key if the checks pass; undefined if they fail. */
  async upsert(projectKey: string, input: UpsertInput, by: Modifier): Promise<WrittenResource | undefined> {
    return this.db.one<WrittenResource>(SQL.upsert, SQL.upsert.values({
      id: randomUUID(),
      projectKey,
      key: input.key ?? null,
      by: modifierJson(by),
      publish: input.publish ?? true,
      document: input.objectTypeProperty,
      expected: input.expectedVersion ?? null,
      owner: input.ownerCustomerId ?? null,
      publishGiven: input.publish !== undefined,
    }), projectKey);
  }

  async replaceByKey(projectKey: string, key: string, input: UpsertInput, by: Modifier): Promise<WrittenResource | undefined> {
    return this.db.one<WrittenResource>(SQL.replaceByKey, SQL.replaceByKey.values({
      projectKey,
      key,
      document: input.objectTypeProperty,
      by: modifierJson(by),
      publish: input.publish ?? true,
      publishGiven: input.publish !== undefined,
      expected: input.expectedVersion ?? null,
    }), projectKey);
  }

  /**
   * Applies an update's changes if the resource has `expectedVersion`; its JSON after the write, or
   * undefined when nothing was written (no such resource, or another version). Concurrent updates of one
   * project are written together like creates (see `create`), never two of one resource in a statement.
   */
  async update(projectKey: string, id: string, expectedVersion: number, changes: ResourceChanges, by: Modifier): Promise<string | undefined> {
    try {
      return (await this.updates.submit(projectKey, { id, expectedVersion, by: modifierJson(by), changes })) ?? undefined;
    } catch (error) {
      throw this.translate(error, changes.key);
    }
  }

  /** A lone update runs `update`, two or more `updateMany` (see `createMany`). */
  private async updateMany(projectKey: string, updates: ResourceUpdate[]): Promise<(string | null)[]> {
    if (updates.length === 1) {
      const [u] = updates;
      const row = await this.db.one<{ json: string }>(
        SQL.update,
        SQL.update.values({ id: u.id, projectKey, expected: u.expectedVersion, by: u.by, ...updateFields(u.changes) }),
        projectKey,
      );
      return [row?.json ?? null];
    }
    // `updateMany` takes the values of `update`, each as an array over the updates.
    const fields = updates.map((u) => updateFields(u.changes));
    const columns = Object.fromEntries(UPDATE_FIELDS.map((f) => [f, fields.map((row) => row[f])])) as Record<UpdateField, unknown[]>;
    const rows = await this.db.query<{ n: number; json: string }>(
      SQL.updateMany,
      SQL.updateMany.values({ projectKey, ids: updates.map((u) => u.id), expected: updates.map((u) => u.expectedVersion), by: updates.map((u) => u.by), ...columns }),
      projectKey,
    );
    const written = new Map(rows.map((row) => [row.n, row.json]));
    return updates.map((_, i) => written.get(i + 1) ?? null);
  }

  async delete(projectKey: string, id: string, expectedVersion: number | undefined, by: Modifier): Promise<string | undefined> {
    return (await this.db.one<{ json: string }>(SQL.delete, SQL.delete.values({ id, projectKey, expected: expectedVersion ?? null, by: modifierJson(by) }), projectKey))?.json;
  }

  /**
   * The merged ArrayTestType of GET /resource and the number of matches (docs/api-guide.md#query). `json` is null
   * when the merge is longer than `maxBytes` (the bound of `ListAnswers`): PostgreSQL then
   * keeps it, and this process never receives it.
   */
  async merge(projectKey: string, filter: SqlCondition, maxBytes: number): Promise<{ json: string | null; total: number }> {
    const text = SQL.merge(filter.sql, `$${filter.values.length + 2}`);
    const row = await this.db.reader().one<{ json: string | null; total: number }>(text, [projectKey, ...filter.values, maxBytes], projectKey);
    return row!;
  }

  async exists(projectKey: string, filter: SqlCondition): Promise<boolean> {
    const row = await this.db.reader().one<{ found: boolean }>(SQL.exists(filter.sql), [projectKey, ...filter.values], projectKey);
    return row!.found;
  }

  /** A taken key is the client's error (400 DuplicateField), never a 500. */
  translate(error: unknown, key: string | null | undefined): unknown {
    if (isUniqueViolation(error, KEY_CONSTRAINT)) {
      return DomainError.of(ErrorCode.DuplicateField, `A resource with the key '${key}' already exists.`, {
        field: 'key',
        duplicateValue: key,
      });
    }
    return error;
  }
}

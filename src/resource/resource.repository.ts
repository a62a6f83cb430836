import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Database, PROJECT_WAIT_MS, projectBusy, type Statement } from '../database/database.js';
import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';
import { isDatabaseUnavailable, isStatementTimeout, isUniqueViolation } from '../common/database-errors.js';
import { Coalescer } from '../common/coalescer.js';
import type { Modifier } from './resource.entity.js';
import type { ResourceChanges } from './update-actions.js';
import type { Merge } from '../query-language/catalogue.js';
import { OBJECT_TYPE_PROPERTY, RESOURCE_CATALOGUE } from '../query-language/resource.catalogue.js';
import type { SqlCondition } from './resource-filter.js';
import { member, recordChanges, writtenColumns } from '../change-log/record-changes.js';

/**
 * The resource as the API shows it, built by PostgreSQL as JSON text from the catalogue's fields: one
 * round-trip, no hydration, and 64-bit integers in `objectTypeProperty` stay exact because no JavaScript
 * number ever holds them. Absent optional fields are stripped (docs/rules.md#addressing-and-input).
 */
export const RESOURCE_JSON = RESOURCE_CATALOGUE.json;

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
/** `GET /resource` merges at most this many resources (docs/api-guide.md#query). */
export const MERGE_LIMIT = 500;

/**
 * Replaces the locked row `o` (the resource with the draft's key): the document, `published` when the draft
 * gives it, and one or two messages' worth of sequence. Arguments are placeholders: the document's JSON
 * text, the modifier, the draft's `publish` value, whether it was given, the expected version, the owner.
 */
const REPLACE_FROM_O = (document: string, by: string, publish: string, publishGiven: string, expected: string, owner: string) => {
  const flagChanged = `(${publishGiven}::boolean AND o.published IS DISTINCT FROM ${publish}::boolean)`;
  return `UPDATE resource r SET object_type_property = ${document}::text::jsonb,
               published = CASE WHEN ${publishGiven}::boolean THEN ${publish}::boolean ELSE r.published END,
               version = r.version + 1, last_modified_at = now(), last_modified_by = ${by}::jsonb,
               message_sequence = r.message_sequence + CASE WHEN ${flagChanged} THEN 2 ELSE 1 END
             FROM o WHERE r.id = o.id AND (${expected}::integer IS NULL OR r.version = ${expected}::integer)
               AND (${owner}::text IS NULL OR r.created_by->>'customerId' = ${owner}::text)
             RETURNING ${writtenColumns(RESOURCE_JSON, `CASE WHEN ${flagChanged} THEN 2 ELSE 1 END`)},
                       false AS created, ${flagChanged} AS flag_changed, r.published`;
};

/**
 * The messages of a create or replace by a draft (docs/change-log-and-subscriptions.md#change-log): `ResourceCreated` with the new
 * representation, or `ObjectTypePropertySet` (the draft's document) followed by `ResourcePublished` or
 * `ResourceUnpublished` when the flag changed.
 */
const OVERWRITE_MESSAGES = (document: string) => `
  SELECT 1 AS n, CASE WHEN w.created THEN 'ResourceCreated' ELSE 'ObjectTypePropertySet' END AS type,
         CASE WHEN w.created THEN ${member('representation', 'w.json')} ELSE ${member('objectTypeProperty', `${document}::text`)} END AS payload
  FROM w
  UNION ALL
  SELECT 2, CASE WHEN w.published THEN 'ResourcePublished' ELSE 'ResourceUnpublished' END, '' FROM w WHERE w.flag_changed`;

/** Where an update's inputs come from: the parameters of `update`, or the row of `t` in `updateMany`. */
interface UpdateInputs {
  by: string;
  someSet: string;
  some: string;
  secondSet: string;
  second: string;
  keySet: string;
  key: string;
  documentSet: string;
  document: string;
  published: string;
  publishImages: string;
  count: string;
}
const SINGLE_UPDATE: UpdateInputs = {
  by: '$4::jsonb', someSet: '$5::boolean', some: '$6::text', secondSet: '$7::boolean', second: '$8::text', keySet: '$9::boolean',
  key: '$10::varchar', documentSet: '$11::boolean', document: '$12::jsonb', published: '$13::boolean', publishImages: '$14::boolean',
  count: '$15::integer',
};
const MANY_UPDATES: UpdateInputs = {
  by: 't.by_json::jsonb', someSet: 't.some_set', some: 't.some_value', secondSet: 't.second_set', second: 't.second_value',
  keySet: 't.key_set', key: 't.key_value::varchar', documentSet: 't.document_set', document: 't.document_value::jsonb',
  published: 't.published', publishImages: 't.publish_images', count: 't.message_count',
};

/** Every update action reduces to field assignments; flags say which fields the actions touched. */
const UPDATE_SET = (v: UpdateInputs) => `
               version = r.version + 1, last_modified_at = now(), last_modified_by = ${v.by},
               some_property = CASE WHEN ${v.someSet} THEN ${v.some} ELSE r.some_property END,
               second_property_to_update = CASE WHEN ${v.secondSet} THEN ${v.second} ELSE r.second_property_to_update END,
               key = CASE WHEN ${v.keySet} THEN ${v.key} ELSE r.key END,
               object_type_property = CASE WHEN ${v.documentSet} THEN ${v.document} ELSE r.object_type_property END,
               published = COALESCE(${v.published}, r.published),
               images = CASE WHEN ${v.publishImages} THEN
                 (SELECT COALESCE(jsonb_agg(i.image || '{"staged": false}' ORDER BY i.n), '[]'::jsonb)
                    FROM jsonb_array_elements(r.images) WITH ORDINALITY AS i(image, n))
                 ELSE r.images END,
               message_sequence = r.message_sequence + ${v.count}`;

/**
 * The messages of an update come from its actions (`messages`: JSON `[{t: type, p: payload, o?: the field
 * whose value before the write the payload names}]`); `o` holds the row's values before the write, under its lock.
 */
const UPDATE_MESSAGES = (messages: string, resourceId: string) => `
             SELECT ${resourceId}x.n, x.e->>'t' AS type, concat_ws(',', NULLIF(x.e->>'p', ''), CASE x.e->>'o'
                 WHEN 'someProperty' THEN ${member('oldSomeProperty', 'to_json(w.old_some_property)::text')}
                 WHEN 'key' THEN ${member('oldKey', 'to_json(w.old_key)::text')} END) AS payload
             FROM w, json_array_elements(${messages}) WITH ORDINALITY AS x(e, n)`;

/** The statements of the hot paths; `bench/baseline-server.mjs` runs the very same SQL. */
export const RESOURCE_SQL = {
  byId: {
    name: 'resource_by_id',
    text: `SELECT ${RESOURCE_JSON} AS json FROM resource r WHERE r.id = $1 AND r.project_key = $2`,
  },
  byKey: {
    name: 'resource_by_key',
    text: `SELECT ${RESOURCE_JSON} AS json FROM resource r WHERE r.project_key = $1 AND r.key = $2`,
  },
  stateById: {
    name: 'resource_state_by_id',
    text: `SELECT r.version, r.created_by->>'customerId' AS "customerId", ${RESOURCE_JSON} AS json
           FROM resource r WHERE r.id = $1 AND r.project_key = $2`,
  },
  stateByKey: {
    name: 'resource_state_by_key',
    text: `SELECT r.version, r.created_by->>'customerId' AS "customerId" FROM resource r WHERE r.project_key = $1 AND r.key = $2`,
  },
  // Create, or replace the resource with that key, and record the change (docs/change-log-and-subscriptions.md#change-log). The existing
  // row is read under its lock first (`o`): the replace sees exactly that row, so whether `published`
  // changed is known, and the version and owner checks are part of the write. A key first inserted by
  // another writer after `o` was read is left alone (DO NOTHING): no row comes back, and the service
  // tries again. Without a key, a resource is always created.
  upsert: {
    name: 'resource_upsert',
    text: `WITH o AS (
             SELECT r.id, r.published FROM resource r WHERE r.project_key = $2 AND r.key = $3 FOR UPDATE
           ), u AS (
             ${REPLACE_FROM_O('$6', '$4', '$5', '$9', '$7', '$8')}
           ), i AS (
             INSERT INTO resource AS r (id, project_key, key, version, created_at, last_modified_at,
               created_by, last_modified_by, published, object_type_property, message_sequence)
             SELECT $1, $2, $3, 1, now(), now(), $4::jsonb, $4::jsonb, $5, $6::text::jsonb, 1
             WHERE NOT EXISTS (SELECT FROM o)
             ON CONFLICT (project_key, key) DO NOTHING
             RETURNING ${writtenColumns(RESOURCE_JSON, '1')}, true AS created, false AS flag_changed, r.published
           ), w AS (SELECT * FROM i UNION ALL SELECT * FROM u),
           c AS (${OVERWRITE_MESSAGES('$6')}),
           ${recordChanges({ version: true })}
           SELECT w.id, w.created, w.json FROM w`,
  },
  // `upsert` without a key for any number of creates in one statement (ResourceRepository.create): each row with its
  // `ResourceCreated` message and version 1. $1 project; arrays, one element per resource: $2 ids, $3
  // modifiers (JSON text), $4 `published`, $5 documents (JSON text).
  createMany: {
    name: 'resource_create_many',
    text: `WITH t AS (
             SELECT * FROM unnest($2::uuid[], $3::text[], $4::boolean[], $5::text[]) WITH ORDINALITY AS t(id, by_json, publish, document, n)
           ), w AS (
             INSERT INTO resource AS r (id, project_key, key, version, created_at, last_modified_at,
               created_by, last_modified_by, published, object_type_property, message_sequence)
             SELECT t.id, $1, NULL, 1, now(), now(), t.by_json::jsonb, t.by_json::jsonb, t.publish, t.document::jsonb, 1
             FROM t ORDER BY t.n
             RETURNING ${writtenColumns(RESOURCE_JSON, '1')}
           ), c AS (
             SELECT w.id AS resource_id, 1 AS n, 'ResourceCreated' AS type, ${member('representation', 'w.json')} AS payload FROM w
           ),
           ${recordChanges({ version: true, manyResources: true })}
           SELECT w.id, w.json FROM w`,
  },
  replaceByKey: {
    name: 'resource_replace_by_key',
    text: `WITH o AS (
             SELECT r.id, r.published FROM resource r WHERE r.project_key = $1 AND r.key = $2 FOR UPDATE
           ), w AS (
             ${REPLACE_FROM_O('$3', '$4', '$5', '$6', '$7', 'NULL')}
           ), c AS (${OVERWRITE_MESSAGES('$3')}),
           ${recordChanges({ version: true })}
           SELECT w.id, w.json FROM w`,
  },
  // An update (UPDATE_SET, UPDATE_MESSAGES): $1 id, $2 project, $3 expected version, $4 modifier, $5–$14
  // the fields (whether the actions set each, and its value), $15 the message count, $16 the messages.
  update: {
    name: 'resource_update',
    text: `WITH o AS (
             SELECT r.id, r.some_property, r.key FROM resource r WHERE r.id = $1 AND r.project_key = $2 FOR UPDATE
           ), w AS (
             UPDATE resource r SET ${UPDATE_SET(SINGLE_UPDATE)}
             FROM o WHERE r.id = o.id AND r.version = $3
             RETURNING ${writtenColumns(RESOURCE_JSON, SINGLE_UPDATE.count)}, o.some_property AS old_some_property, o.key AS old_key
           ), c AS (${UPDATE_MESSAGES('$16::json', '')}),
           ${recordChanges({ version: true })}
           SELECT w.json FROM w`,
  },
  // `update` for any number of updates of distinct resources of project $1 in one statement (ResourceRepository.update);
  // arrays, one element per update, in the order of `update`'s parameters from $3 on: $2 ids, $3 expected
  // versions, $4 modifiers, $5–$14 the fields, $15 message counts, $16 messages. `o` holds the rows' values
  // before the write, locked in id order (two statements never wait for each other's rows crosswise). An
  // update whose version does not match writes nothing and returns no row.
  updateMany: {
    name: 'resource_update_many',
    text: `WITH t AS (
             SELECT * FROM unnest($2::uuid[], $3::integer[], $4::text[], $5::boolean[], $6::text[], $7::boolean[], $8::text[],
                                  $9::boolean[], $10::text[], $11::boolean[], $12::text[], $13::boolean[], $14::boolean[], $15::integer[], $16::text[])
               WITH ORDINALITY AS t(id, expected, by_json, some_set, some_value, second_set, second_value, key_set, key_value, document_set, document_value,
                                    published, publish_images, message_count, messages, n)
           ), o AS MATERIALIZED (
             SELECT r.id, r.some_property, r.key FROM resource r
             WHERE r.id = ANY ($2::uuid[]) AND r.project_key = $1 ORDER BY r.id FOR UPDATE
           ), w AS (
             UPDATE resource r SET ${UPDATE_SET(MANY_UPDATES)}
             FROM o JOIN t ON t.id = o.id
             WHERE r.id = o.id AND r.version = t.expected
             RETURNING ${writtenColumns(RESOURCE_JSON, MANY_UPDATES.count)}, o.some_property AS old_some_property, o.key AS old_key,
                       t.messages, t.n
           ), c AS (${UPDATE_MESSAGES('w.messages::json', 'w.id AS resource_id, ')}),
           ${recordChanges({ version: true, manyResources: true })}
           SELECT w.n::integer AS n, w.json FROM w`,
  },
  delete: {
    name: 'resource_delete',
    text: `WITH w AS (
             DELETE FROM resource r WHERE r.id = $1 AND r.project_key = $2 AND ($3::integer IS NULL OR r.version = $3)
             RETURNING r.id, r.project_key, r.key, r.version + 1 AS version, now() AS changed_at, $4::jsonb AS changed_by,
                       r.message_sequence + 1 AS first_sequence, gen_random_uuid() AS change_id, ${RESOURCE_JSON} AS json
           ), c AS (SELECT 1 AS n, 'ResourceDeleted' AS type, '' AS payload),
           ${recordChanges({ version: false })}
           SELECT w.json FROM w`,
  },
} satisfies Record<string, Statement>;
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

/** A create without a key, as `createMany` writes it. */
interface NewResource {
  id: string;
  /** The modifier's JSON text. */
  by: string;
  publish: boolean;
  /** `objectTypeProperty` as JSON text. */
  document: string;
}

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

/** The parameters $5–$16 of `update`: per field whether the actions set it and its value, then the messages. */
function updateValues(changes: ResourceChanges): unknown[] {
  return [
    changes.someProperty !== undefined,
    changes.someProperty ?? null,
    changes.secondPropertyToUpdate !== undefined,
    changes.secondPropertyToUpdate ?? null,
    changes.key !== undefined,
    changes.key ?? null,
    changes.objectTypeProperty !== undefined,
    changes.objectTypeProperty ?? null,
    changes.published ?? null,
    changes.publishImages,
    changes.messages.length,
    JSON.stringify(changes.messages),
  ];
}

/** Only the fields the API shows: `{clientId, customerId?}`. */
export function modifierJson(by: Modifier): string {
  return JSON.stringify({ clientId: by.clientId, customerId: by.customerId });
}

/**
 * Creates, reads, overwrites, updates and deletes resources. The `resource` table is also written by
 * ImagesRepository (an image's attach is a new version) and read by ResourceQueryRepository and
 * SearchRepository, all through RESOURCE_JSON.
 */
@Injectable()
export class ResourceRepository {
  /** Concurrent creates without a key, written together per project (see `create`). */
  private readonly creates = new Coalescer<NewResource, WrittenResource>({
    inFlight: WRITES_IN_FLIGHT,
    maxItems: MAX_WRITES_PER_STATEMENT,
    maxWeight: MAX_WRITE_BYTES_PER_STATEMENT,
    weigh: (r) => r.document.length,
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
      const row = await this.db.one<WrittenResource>(SQL.upsert, [r.id, projectKey, null, r.by, r.publish, r.document, null, null, false], projectKey);
      return [row ?? new Error(`the create of ${r.id} returned no row`)];
    }
    const rows = await this.db.query<WrittenResource>(
      SQL.createMany,
      [projectKey, resources.map((r) => r.id), resources.map((r) => r.by), resources.map((r) => r.publish), resources.map((r) => r.document)],
      projectKey,
    );
    const written = new Map(rows.map((row) => [row.id, row]));
    return resources.map((r) => written.get(r.id) ?? new Error(`the create of ${r.id} returned no row`));
  }

  async findJsonById(projectKey: string, id: string): Promise<string | undefined> {
    return (await this.db.one<{ json: string }>(SQL.byId, [id, projectKey], projectKey))?.json;
  }

  async findJsonByKey(projectKey: string, key: string): Promise<string | undefined> {
    return (await this.db.one<{ json: string }>(SQL.byKey, [projectKey, key], projectKey))?.json;
  }

  async findStateById(projectKey: string, id: string): Promise<ResourceState | undefined> {
    return this.db.one<ResourceState>(SQL.stateById, [id, projectKey], projectKey);
  }

  async findStateByKey(projectKey: string, key: string): Promise<Omit<ResourceState, 'json'> | undefined> {
    return this.db.one(SQL.stateByKey, [projectKey, key], projectKey);
  }

  /** Creates, or replaces the resource with the same key if the checks pass; undefined if they fail. */
  async upsert(projectKey: string, input: UpsertInput, by: Modifier): Promise<WrittenResource | undefined> {
    return this.db.one<WrittenResource>(SQL.upsert, [
      randomUUID(),
      projectKey,
      input.key ?? null,
      modifierJson(by),
      input.publish ?? true,
      input.objectTypeProperty,
      input.expectedVersion ?? null,
      input.ownerCustomerId ?? null,
      input.publish !== undefined,
    ], projectKey);
  }

  async replaceByKey(projectKey: string, key: string, input: UpsertInput, by: Modifier): Promise<WrittenResource | undefined> {
    return this.db.one<WrittenResource>(SQL.replaceByKey, [
      projectKey,
      key,
      input.objectTypeProperty,
      modifierJson(by),
      input.publish ?? true,
      input.publish !== undefined,
      input.expectedVersion ?? null,
    ], projectKey);
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
      const row = await this.db.one<{ json: string }>(SQL.update, [u.id, projectKey, u.expectedVersion, u.by, ...updateValues(u.changes)], projectKey);
      return [row?.json ?? null];
    }
    // `updateMany` takes the values of `update` from $3 on, each as an array over the updates.
    const values = updates.map((u) => [u.expectedVersion, u.by, ...updateValues(u.changes)]);
    const columns = values[0].map((_, i) => values.map((row) => row[i]));
    const rows = await this.db.query<{ n: number; json: string }>(SQL.updateMany, [projectKey, updates.map((u) => u.id), ...columns], projectKey);
    const written = new Map(rows.map((row) => [row.n, row.json]));
    return updates.map((_, i) => written.get(i + 1) ?? null);
  }

  async delete(projectKey: string, id: string, expectedVersion: number | undefined, by: Modifier): Promise<string | undefined> {
    return (await this.db.one<{ json: string }>(SQL.delete, [id, projectKey, expectedVersion ?? null, modifierJson(by)], projectKey))?.json;
  }

  /**
   * The merged ArrayTestType of GET /resource and the number of matches (docs/api-guide.md#query). `json` is null
   * when the merge is longer than `maxBytes` (the bound of `ListAnswers`): PostgreSQL then
   * keeps it, and this process never receives it.
   */
  async merge(projectKey: string, filter: SqlCondition, maxBytes: number): Promise<{ json: string | null; total: number }> {
    const where = `r.project_key = $1 AND ${filter.sql}`;
    const text = `
      WITH m AS (
        SELECT r.${OBJECT_TYPE_PROPERTY.column} AS o, row_number() OVER (ORDER BY r.created_at, r.id) AS n
        FROM resource r WHERE ${where} ORDER BY r.created_at, r.id LIMIT ${MERGE_LIMIT}
      ), merged AS (
        SELECT json_strip_nulls(json_build_object(
          ${MERGED_ARRAYS}
        ))::text AS json
      )
      SELECT (SELECT count(*) FROM resource r WHERE ${where})::integer AS total,
             CASE WHEN octet_length(merged.json) > $${filter.values.length + 2}::bigint THEN NULL ELSE merged.json END AS json
      FROM merged`;
    const row = await this.db.reader().one<{ json: string | null; total: number }>(text, [projectKey, ...filter.values, maxBytes], projectKey);
    return row!;
  }

  async exists(projectKey: string, filter: SqlCondition): Promise<boolean> {
    const row = await this.db.reader().one<{ found: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM resource r WHERE r.project_key = $1 AND ${filter.sql}) AS found`,
      [projectKey, ...filter.values],
      projectKey,
    );
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

/* ------------------------------------------------------------------ bulk export and import (docs/bulk-and-cli.md) */

/** The change of one row of `w` as an import writes it: the per-resource form of OVERWRITE_MESSAGES. */
const IMPORT_MESSAGES = `
  SELECT w.id AS resource_id, 1 AS n, CASE WHEN w.created THEN 'ResourceCreated' ELSE 'ObjectTypePropertySet' END AS type,
         CASE WHEN w.created THEN ${member('representation', 'w.json')} ELSE ${member('objectTypeProperty', 'w.document')} END AS payload
  FROM w
  UNION ALL
  SELECT w.id, 2, CASE WHEN w.published THEN 'ResourcePublished' ELSE 'ResourceUnpublished' END, '' FROM w WHERE w.flag_changed`;

/** The first id of the keyset order (the nil UUID sorts before every other). */
export const FIRST_ID = '00000000-0000-0000-0000-000000000000';

/** What an import did with one line of a batch (see `IMPORT_SQL`). */
export interface ImportedRow {
  /** The line's index in the batch's arrays (1-based). */
  n: number;
  /** create, update: written when `written`; unchanged: equal to the stored resource; conflict: `version` mismatch. */
  action: 'create' | 'update' | 'unchanged' | 'conflict';
  written: boolean;
  /** The resource's id and version after the statement (null for a create that was not written). */
  id: string | null;
  version: number | null;
}

/**
 * Resources per row of an export page: about 40 KB of text for 800-byte resources. A page read as one
 * string (200 KB and more) is a large object in V8 (over 128 KB), allocated in the old generation: garbage
 * that only a full collection frees. Strings of tens of KB are allocated young, and most die there.
 */
export const EXPORT_CHUNK_ROWS = 50;

/**
 * The statements of bulk export and import (docs/bulk-and-cli.md). Not prepared: the export's text depends on
 * its `where`, and the import's arrays vary in length.
 */
export const BULK_SQL = {
  /**
   * One batch of import lines, each a PUT by key (create or overwrite, `version` checked when given) with
   * the messages and version a PUT records, in one statement: the lines' keys are distinct (the caller
   * splits a batch at a repeated key). The existing rows are locked in id order (`o`, so that two imports
   * do not deadlock over them); each line is then decided on its own row: a line equal to the stored
   * resource (document and flag, compared as jsonb) writes nothing, whatever its `version`; a version
   * mismatch writes nothing; the others update or insert. A key another writer inserted since `o` was
   * read is left alone (DO NOTHING): that line comes back unwritten and is run again.
   * $1 project key, $2 modifier; arrays: $3 line indexes, $4 keys, $5 documents (JSON text), $6 publish,
   * $7 expected versions (NULL elements: none), $8 new ids.
   */
  importBatch: `WITH t AS (
      SELECT * FROM unnest($3::integer[], $4::text[], $5::text[], $6::boolean[], $7::integer[], $8::uuid[])
        AS t(n, key, document, publish, expected, new_id)
    ), o AS MATERIALIZED (
      SELECT r.id, r.key, r.version, r.published, r.object_type_property AS document
      FROM resource r WHERE r.project_key = $1 AND r.key = ANY ($4::text[]) ORDER BY r.id FOR UPDATE
    ), d AS MATERIALIZED (
      SELECT t.n, t.key, t.document, t.publish, t.new_id, o.id AS old_id, o.version AS old_version,
             o.published IS DISTINCT FROM t.publish AS flag_changed,
             CASE WHEN o.id IS NULL THEN 'create'
                  WHEN o.document = t.document::jsonb AND o.published = t.publish THEN 'unchanged'
                  WHEN t.expected IS NOT NULL AND t.expected <> o.version THEN 'conflict'
                  ELSE 'update' END AS action
      FROM t LEFT JOIN o ON o.key = t.key
    ), u AS (
      UPDATE resource r SET object_type_property = d.document::jsonb, published = d.publish,
             version = r.version + 1, last_modified_at = now(), last_modified_by = $2::jsonb,
             message_sequence = r.message_sequence + CASE WHEN d.flag_changed THEN 2 ELSE 1 END
      FROM d WHERE d.action = 'update' AND r.id = d.old_id
      RETURNING ${writtenColumns(RESOURCE_JSON, 'CASE WHEN d.flag_changed THEN 2 ELSE 1 END')},
                false AS created, d.flag_changed, r.published, d.document
    ), i AS (
      INSERT INTO resource AS r (id, project_key, key, version, created_at, last_modified_at,
        created_by, last_modified_by, published, object_type_property, message_sequence)
      SELECT d.new_id, $1, d.key, 1, now(), now(), $2::jsonb, $2::jsonb, d.publish, d.document::jsonb, 1
      FROM d WHERE d.action = 'create'
      ON CONFLICT (project_key, key) DO NOTHING
      RETURNING ${writtenColumns(RESOURCE_JSON, '1')}, true AS created, false AS flag_changed, r.published, NULL::text AS document
    ), w AS (SELECT * FROM i UNION ALL SELECT * FROM u),
    c AS (${IMPORT_MESSAGES}),
    ${recordChanges({ version: true, manyResources: true })}
    SELECT d.n, d.action, w.id IS NOT NULL AS written, COALESCE(w.id, d.old_id) AS id, COALESCE(w.version, d.old_version) AS version
    FROM d LEFT JOIN w ON w.key = d.key ORDER BY d.n`,

  /**
   * One page of an export: the first `limit` resources that match the condition with an id after `after`
   * and, when `upTo` is not null, at most `upTo`, as their lines (GET by id's JSON, each ending in a newline)
   * in rows of EXPORT_CHUNK_ROWS resources, in id order, each with its count and last id (no row when none
   * match). Placeholders: $1 the project key, the condition's from $2, then `after`, `upTo` and `limit`.
   *
   * A resource's line is the representation its last write recorded in `resource_version` (docs/change-log-and-subscriptions.md#change-log:
   * GET by id's JSON right after the write), read as text instead of built again: building a resource's JSON
   * is most of what an export costs PostgreSQL. Every write of a resource records its version in the
   * statement that writes it (recordChanges), and the representation is made of the row's columns alone, so
   * the record of the row's current version is the row as GET answers it. A resource without that record
   * (written before the change log, seeded by SQL, or whose version the retention deleted) has its JSON built.
   */
  exportPage: (where: string, after: string, upTo: string, limit: string) => `
    SELECT count(*)::integer AS count, (array_agg(q.id ORDER BY q.id DESC))[1]::text AS last,
           string_agg(q.json || E'\\n', '' ORDER BY q.id) AS lines
    FROM (SELECT p.id, p.json, (row_number() OVER (ORDER BY p.id) - 1) / ${EXPORT_CHUNK_ROWS} AS chunk
          FROM (SELECT r.id, COALESCE((SELECT v.representation FROM resource_version v WHERE v.resource_id = r.id AND v.version = r.version),
                                      ${RESOURCE_JSON}) AS json
                FROM resource r
                WHERE r.project_key = $1 AND r.id > ${after}::uuid AND (${upTo}::uuid IS NULL OR r.id <= ${upTo}::uuid) AND (${where})
                ORDER BY r.id LIMIT ${limit}) p) q
    GROUP BY q.chunk ORDER BY q.chunk`,

  /**
   * The id of the `size`-th resource matching the condition after the id `after` (no row when fewer
   * remain): the end of the next page, found on the id index without building the page. Placeholders as
   * `exportPage`, then `after` and `size`.
   */
  exportBoundary: (where: string, after: string, size: string) => `
    SELECT r.id::text AS id FROM resource r
    WHERE r.project_key = $1 AND r.id > ${after}::uuid AND (${where})
    ORDER BY r.id OFFSET ${size} - 1 LIMIT 1`,
};

import { messageTypeSql as type } from '../query-language/message.catalogue.js';
import { RESOURCE_CATALOGUE } from '../query-language/resource.catalogue.js';
import type { Modifier } from './resource.entity.js';

/**
 * A resource write, as every statement that writes the `resource` table builds it: the creates, overwrites,
 * updates and deletes of ResourceRepository, the import batches of BulkRepository and the image attaches of
 * ImagesRepository. A write stamps the row (a new version, `lastModifiedAt`/`By`, the resource's message
 * sequence grown by the write's message count), returns the columns of the change as the CTE `w`, names its
 * messages as the CTE `c`, and records both in the change log in the same statement (`resourceWrite`): a
 * change is never visible without its messages, and a refused or rolled-back write leaves none
 * (docs/change-log-and-subscriptions.md#change-log).
 */

/**
 * The resource as the API shows it, built by PostgreSQL as JSON text from the catalogue's fields: one
 * round-trip, no hydration, and 64-bit integers in `objectTypeProperty` stay exact because no JavaScript
 * number ever holds them. Absent optional fields are stripped (docs/rules.md#addressing-and-input).
 */
export const RESOURCE_JSON = RESOURCE_CATALOGUE.json;

/** SQL expressions of a new resource's values (placeholders or columns of a CTE). */
export interface NewResourceValues {
  id: string;
  projectKey: string;
  key: string;
  /** The modifier as JSON text. */
  by: string;
  publish: string;
  /** `objectTypeProperty` as JSON text. */
  document: string;
  /** Fields a draft cannot set, which a create's update actions (an extension's) may: NULL unless given. */
  someProperty?: string;
  secondPropertyToUpdate?: string;
  /** The create's message count: 1 (`ResourceCreated`) unless update actions follow it. */
  messages?: string;
}

/**
 * Inserts resources at version 1 with their messages' worth of sequence: `v` says where each value comes
 * from, `from` follows the SELECT (`FROM t`, `WHERE NOT EXISTS …`, `ON CONFLICT …`), and `returning` adds
 * columns to `w`'s columns of a create. A created resource's messages are numbered from 1: its whole
 * sequence is the write's (so RETURNING, which sees only the inserted row, counts them from the row).
 */
export function insertResources(v: NewResourceValues, from: string, returning: string): string {
  const messages = v.messages ?? '1';
  return `INSERT INTO resource AS r (id, project_key, key, version, created_at, last_modified_at, created_by, last_modified_by,
               published, object_type_property, some_property, second_property_to_update, message_sequence)
             SELECT ${v.id}, ${v.projectKey}, ${v.key}, 1, now(), now(), ${v.by}::jsonb, ${v.by}::jsonb,
               ${v.publish}, ${v.document}::jsonb, ${v.someProperty ?? 'NULL'}, ${v.secondPropertyToUpdate ?? 'NULL'}, ${messages}
             ${from}
             RETURNING ${writtenColumns('r.message_sequence')}${returning}`;
}

/**
 * The assignments that stamp a write of an existing row `r` in an UPDATE: a new version, the modifier (JSON
 * text) and time, and `messages` more sequence numbers for the write's messages.
 */
export function stamp(by: string, messages: string): string {
  return `version = r.version + 1, last_modified_at = now(), last_modified_by = ${by}::jsonb,
               message_sequence = r.message_sequence + ${messages}`;
}

/** The columns of `w` in the RETURNING of an insert or update of `r`, given the write's message count. */
export function writtenColumns(messages: string): string {
  return `r.id, r.project_key, r.key, r.version, r.last_modified_at AS changed_at, r.last_modified_by AS changed_by,
                       r.message_sequence - (${messages}) + 1 AS first_sequence, gen_random_uuid() AS change_id, ${RESOURCE_JSON} AS json`;
}

/** The columns of `w` in the RETURNING of a delete of `r` by `by` (JSON text): one message, `ResourceDeleted`. */
export function deletedColumns(by: string): string {
  return `r.id, r.project_key, r.key, r.version + 1 AS version, now() AS changed_at, ${by}::jsonb AS changed_by,
                       r.message_sequence + 1 AS first_sequence, gen_random_uuid() AS change_id, ${RESOURCE_JSON} AS json`;
}

/** A JSON member `"name":<value>` for a payload, or NULL when the value is NULL (`concat_ws` skips it). */
export function member(name: string, jsonValue: string): string {
  return `'"${name}":' || ${jsonValue}`;
}

/**
 * The messages of a create or overwrite by a draft, one set per row of `w` (which has `created`,
 * `flag_changed` and `published`): `ResourceCreated` with the new representation, or `ObjectTypePropertySet`
 * (the draft's `document`, JSON text) followed by `ResourcePublished` or `ResourceUnpublished` when the flag
 * changed. `resourceId`: the `resource_id` column when `w` may hold several resources.
 */
export function overwriteMessages(document: string, resourceId = ''): string {
  return `SELECT ${resourceId}1 AS n, CASE WHEN w.created THEN ${type('ResourceCreated')} ELSE ${type('ObjectTypePropertySet')} END AS type,
                  CASE WHEN w.created THEN ${member('representation', 'w.json')} ELSE ${member('objectTypeProperty', document)} END AS payload
           FROM w
           UNION ALL
           SELECT ${resourceId}2, CASE WHEN w.published THEN ${type('ResourcePublished')} ELSE ${type('ResourceUnpublished')} END, '' FROM w WHERE w.flag_changed`;
}

/** The parts of a resource write (see the top of this file). */
export interface ResourceWriteParts {
  /** The CTEs up to and including `w`, the written rows (see `writtenColumns`): none when nothing was written. */
  write: string;
  /** The SELECT of `c`: the messages of each row of `w`, in order: `n` (1, 2, …), `type`, `payload` (the type's members as JSON text without braces, '' for none). */
  messages: string;
  /** Whether `w` may hold several resources: `c` then has `resource_id`. */
  many?: boolean;
  /** A delete records no version: the last one written stays the resource's last. */
  version?: boolean;
  /** CTEs written after the change log's (rows written beside the resource), if any. */
  more?: string;
  /** The statement's answer, a SELECT over `w` (and the CTEs of `write`). */
  answer: string;
}

/**
 * The whole statement of a resource write. The change log's rows come from `w` and `c`: a message per row of
 * `c` with the write's `change_id`, its sequence number counted from `w.first_sequence`, and (unless a
 * delete) the version's record with the resource as GET answers it after the write. Tables: migration
 * 1763700000010.
 */
export function resourceWrite(parts: ResourceWriteParts): string {
  const each = parts.many ? { from: 'w JOIN c ON c.resource_id = w.id', of: 'WHERE c.resource_id = w.id' } : { from: 'w, c', of: '' };
  const version = parts.version === false
    ? ''
    : `, logged_version AS (
             INSERT INTO resource_version (resource_id, version, project_key, modified_at, modified_by, types, representation)
             SELECT w.id, w.version, w.project_key, w.changed_at, w.changed_by, ARRAY(SELECT c.type FROM c ${each.of} ORDER BY c.n), w.json FROM w
           )`;
  return `WITH ${parts.write.trim()},
           c AS (
             ${parts.messages.trim()}
           ), logged_messages AS (
             INSERT INTO message (id, project_key, resource_id, resource_version, sequence_number, resource_key, type, created_at, created_by, payload, change_id)
             SELECT gen_random_uuid(), w.project_key, w.id, w.version, w.first_sequence + c.n - 1, w.key, c.type, w.changed_at, w.changed_by, c.payload, w.change_id
             FROM ${each.from}
           )${version}${parts.more ? `, ${parts.more.trim()}` : ''}
           ${parts.answer.trim()}`;
}

/** Only the fields the API shows: `{clientId, customerId?}`. */
export function modifierJson(by: Modifier): string {
  return JSON.stringify({ clientId: by.clientId, customerId: by.customerId });
}

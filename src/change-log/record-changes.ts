/**
 * The change log is written by the very statement that writes the resource (docs/change-log-and-subscriptions.md#change-log): these CTEs
 * follow the write's own, so a change is never visible without its messages and a rolled-back or refused
 * write leaves none. Tables: migration 1763700000010.
 *
 * The statement before them defines two CTEs:
 * - `w`: the written row (none when the write did not happen): `id`, `project_key`, `key`, `version` (the
 *   messages' `resourceVersion`), `changed_at` (their `createdAt`), `changed_by` (jsonb), `first_sequence` (the sequence
 *   number of the write's first message: the resource's `message_sequence` grew by the write's message
 *   count under the row's lock), `change_id` (a new UUID: the write's change, shared by its messages), and
 *   `json` (the resource as GET by id answers it after the write);
 * - `c`: the write's messages in order: `n` (1, 2, …), `type`, `payload` (the type's members as JSON text
 *   without braces, '' for none), and with `manyResources` (`w` has a row per resource) `resource_id`.
 */
export function recordChanges(options: { version: boolean; manyResources?: boolean }): string {
  // A statement that writes several resources (an import batch) gives each message its `resource_id`.
  const each = options.manyResources ? { from: 'w JOIN c ON c.resource_id = w.id', of: 'WHERE c.resource_id = w.id' } : { from: 'w, c', of: '' };
  const messages = `logged_messages AS (
      INSERT INTO message (id, project_key, resource_id, resource_version, sequence_number, resource_key, type, created_at, created_by, payload, change_id)
      SELECT gen_random_uuid(), w.project_key, w.id, w.version, w.first_sequence + c.n - 1, w.key, c.type, w.changed_at, w.changed_by, c.payload, w.change_id
      FROM ${each.from}
    )`;
  // A delete adds no version: the last one written stays the resource's last.
  if (!options.version) return messages;
  return `${messages}, logged_version AS (
      INSERT INTO resource_version (resource_id, version, project_key, modified_at, modified_by, types, representation)
      SELECT w.id, w.version, w.project_key, w.changed_at, w.changed_by, ARRAY(SELECT c.type FROM c ${each.of} ORDER BY c.n), w.json FROM w
    )`;
}

/** The columns of `w` after a write's RETURNING, given the expression of the write's message count. */
export function writtenColumns(json: string, count: string): string {
  return `r.id, r.project_key, r.key, r.version, r.last_modified_at AS changed_at, r.last_modified_by AS changed_by,
          r.message_sequence - (${count}) + 1 AS first_sequence, gen_random_uuid() AS change_id, ${json} AS json`;
}

/** A JSON member `"name":<value>` for a payload, or NULL when the value is NULL (`concat_ws` skips it). */
export function member(name: string, jsonValue: string): string {
  return `'"${name}":' || ${jsonValue}`;
}

import { compileCatalogue } from './catalogue.js';

/**
 * The values of a message's `type`, in the order of the documented table (docs/change-log-and-subscriptions.md#change-log).
 * The one list: the message schema, the history's `types`, the subscriptions' filters and the writers' messages
 * are checked against it.
 */
export const MESSAGE_TYPES = [
  'ResourceCreated',
  'ObjectTypePropertySet',
  'ResourcePublished',
  'ResourceUnpublished',
  'SomeThingDone',
  'SomePropertyChanged',
  'SecondPropertyToUpdateImported',
  'KeySet',
  'ImageAdded',
  'ResourceDeleted',
] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

/** A message type as a SQL literal, for the statements that write messages: `'ResourceCreated'`. */
export const messageTypeSql = (type: MessageType): string => `'${type}'`;

/**
 * A message of the change log (docs/change-log-and-subscriptions.md#change-log), fields in the order its JSON shows them; the members of
 * its type (`payload`, stored as JSON text) follow them. `lastModifiedAt`/`lastModifiedBy` repeat the
 * creation's: a message never changes. Columns: migration 1763700000010.
 */
export const MESSAGE_CATALOGUE = compileCatalogue({
  table: 'message',
  alias: 'm',
  fields: [
    { kind: 'column', name: 'id', column: 'id', type: 'id', filterable: true, sortable: true },
    { kind: 'constant', name: 'version', sql: '1' },
    { kind: 'column', name: 'sequenceNumber', column: 'sequence_number', type: 'integer', filterable: true, sortable: true },
    {
      kind: 'object',
      name: 'resource',
      members: [
        { kind: 'constant', name: 'typeId', sql: `'resource'` },
        { kind: 'column', name: 'id', column: 'resource_id', type: 'id', filterable: true },
      ],
    },
    { kind: 'column', name: 'resourceVersion', column: 'resource_version', type: 'integer', filterable: true, sortable: true },
    {
      kind: 'object',
      name: 'resourceUserProvidedIdentifiers',
      members: [{ kind: 'column', name: 'key', column: 'resource_key', type: 'string', nullable: true, filterable: true }],
    },
    { kind: 'column', name: 'type', column: 'type', type: 'string', filterable: true, sortable: true },
    { kind: 'column', name: 'createdAt', column: 'created_at', type: 'datetime', filterable: true, sortable: true },
    { kind: 'column', name: 'lastModifiedAt', column: 'created_at', type: 'datetime' },
    { kind: 'column', name: 'createdBy', column: 'created_by', type: 'json' },
    { kind: 'column', name: 'lastModifiedBy', column: 'created_by', type: 'json' },
  ],
});

/** A message as the API shows it: the common members, then its type's (`m.payload`, members without braces). */
export const MESSAGE_JSON = `CASE WHEN m.payload = '' THEN ${MESSAGE_CATALOGUE.json}
  ELSE left(${MESSAGE_CATALOGUE.json}, -1) || ',' || m.payload || '}' END`;

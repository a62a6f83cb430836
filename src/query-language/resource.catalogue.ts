import { compileCatalogue, type DocumentSpec } from './catalogue.js';

/**
 * `objectTypeProperty`: the seven arrays of an ArrayTestType in the schema's order (jsonb keeps its keys
 * sorted by length, so JSON lists them from here). `searchValues` name the columns of `resource_search`
 * that migration 1763700000007 created; migrations are frozen, so these follow them.
 */
export const OBJECT_TYPE_PROPERTY: DocumentSpec = {
  kind: 'document',
  name: 'objectTypeProperty',
  column: 'object_type_property',
  // The expression of the GIN index resource_project_document_idx (migration 1763700000002).
  projectIndex: "jsonb_set('{}'::jsonb, ARRAY[r.project_key::text], r.object_type_property)",
  members: [
    { kind: 'array', name: 'arrayOfIntExample', type: 'integer', merge: 'concat', searchValues: 'array_of_int_example' },
    { kind: 'array', name: 'arrayOfUniqueIntExample', type: 'integer', merge: 'distinct', searchValues: 'array_of_unique_int_example' },
    { kind: 'array', name: 'arrayOfTwonumbersExample', type: 'number', merge: 'bounds', searchValues: 'array_of_twonumbers_example' },
    { kind: 'array', name: 'arrayOfFloatExample', type: 'number', merge: 'concat', searchValues: 'array_of_float_example' },
    { kind: 'array', name: 'arrayOfNumberNoDefaultsExample', type: 'number', merge: 'concat', searchValues: 'array_of_number_no_defaults_example' },
    { kind: 'array', name: 'arrayOfStringExample', type: 'string', merge: 'concat', searchValues: 'array_of_string_example' },
    {
      kind: 'objectArray',
      name: 'arrayOfObjectType',
      merge: 'concat',
      members: [
        { kind: 'member', name: 'integerExample', type: 'integer', searchValues: 'array_of_object_type_integer_example' },
        { kind: 'member', name: 'integerExampleInt32', type: 'integer', searchValues: 'array_of_object_type_integer_example_int32' },
      ],
    },
  ],
};

/**
 * The resource (docs/rules.md#query-language), fields in the order its JSON shows them. `searchCopy` names the
 * columns `resource_search` carries (migrations 1763700000006, 1763700000007).
 */
export const RESOURCE_CATALOGUE = compileCatalogue({
  table: 'resource',
  alias: 'r',
  fields: [
    { kind: 'column', name: 'id', column: 'id', type: 'id', filterable: true, sortable: true, searchCopy: 'resource_id' },
    { kind: 'column', name: 'key', column: 'key', type: 'string', nullable: true, filterable: true, sortable: true, searchable: true, searchCopy: 'key' },
    { kind: 'column', name: 'version', column: 'version', type: 'integer', filterable: true, sortable: true, searchable: true },
    { kind: 'column', name: 'createdAt', column: 'created_at', type: 'datetime', filterable: true, sortable: true, searchCopy: 'created_at' },
    { kind: 'column', name: 'lastModifiedAt', column: 'last_modified_at', type: 'datetime', filterable: true, sortable: true },
    { kind: 'column', name: 'createdBy', column: 'created_by', type: 'json' },
    { kind: 'column', name: 'lastModifiedBy', column: 'last_modified_by', type: 'json' },
    { kind: 'column', name: 'published', column: 'published', type: 'boolean', filterable: true, sortable: true, searchable: true, searchCopy: 'published' },
    OBJECT_TYPE_PROPERTY,
    { kind: 'column', name: 'someProperty', column: 'some_property', type: 'string', nullable: true, filterable: true, sortable: true },
    { kind: 'column', name: 'secondPropertyToUpdate', column: 'second_property_to_update', type: 'string', nullable: true, filterable: true, sortable: true },
    { kind: 'column', name: 'images', column: 'images', type: 'json' },
  ],
});

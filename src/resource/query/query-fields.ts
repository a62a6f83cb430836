/**
 * The fields the query language knows (CONTRACT.md §5) and the type of value each compares with.
 * Three scopes: the resource itself, `objectTypeProperty(…)` (its seven arrays) and
 * `objectTypeProperty(arrayOfObjectType(…))` (the members of one element). Pure data, shared by the
 * parser, the SQL translator and the sort parser.
 */

/** How a value is checked and bound: the type of the field it is compared with. */
export type ValueType = 'id' | 'string' | 'integer' | 'number' | 'boolean' | 'datetime';

export type Scope = 'resource' | 'objectTypeProperty' | 'arrayOfObjectType';

export type FieldDef =
  /** A column of the resource table. `sql` is the column; `nullable` when the field may be absent. */
  | { kind: 'scalar'; name: string; type: ValueType; sql: string; nullable: boolean }
  /** An array of primitives inside objectTypeProperty: comparisons apply to its elements. */
  | { kind: 'array'; name: string; type: ValueType }
  /** A field with members, queried as `field(<predicate>)`; `scope` is the scope inside the parentheses. */
  | { kind: 'object'; name: string; scope: Scope }
  /** An array of objects, queried as `field(<predicate>)`: true when any one element satisfies it. */
  | { kind: 'objectArray'; name: string; scope: Scope }
  /** A member of an element of arrayOfObjectType. */
  | { kind: 'member'; name: string; type: ValueType };

const RESOURCE_FIELDS: FieldDef[] = [
  { kind: 'scalar', name: 'id', type: 'id', sql: 'r.id', nullable: false },
  { kind: 'scalar', name: 'key', type: 'string', sql: 'r.key', nullable: true },
  { kind: 'scalar', name: 'version', type: 'integer', sql: 'r.version', nullable: false },
  { kind: 'scalar', name: 'createdAt', type: 'datetime', sql: 'r.created_at', nullable: false },
  { kind: 'scalar', name: 'lastModifiedAt', type: 'datetime', sql: 'r.last_modified_at', nullable: false },
  { kind: 'scalar', name: 'published', type: 'boolean', sql: 'r.published', nullable: false },
  { kind: 'scalar', name: 'someProperty', type: 'string', sql: 'r.some_property', nullable: true },
  { kind: 'scalar', name: 'secondPropertyToUpdate', type: 'string', sql: 'r.second_property_to_update', nullable: true },
  { kind: 'object', name: 'objectTypeProperty', scope: 'objectTypeProperty' },
];

const ARRAY_FIELDS: FieldDef[] = [
  { kind: 'array', name: 'arrayOfIntExample', type: 'integer' },
  { kind: 'array', name: 'arrayOfUniqueIntExample', type: 'integer' },
  { kind: 'array', name: 'arrayOfTwonumbersExample', type: 'number' },
  { kind: 'array', name: 'arrayOfFloatExample', type: 'number' },
  { kind: 'array', name: 'arrayOfNumberNoDefaultsExample', type: 'number' },
  { kind: 'array', name: 'arrayOfStringExample', type: 'string' },
  { kind: 'objectArray', name: 'arrayOfObjectType', scope: 'arrayOfObjectType' },
];

const MEMBER_FIELDS: FieldDef[] = [
  { kind: 'member', name: 'integerExample', type: 'integer' },
  { kind: 'member', name: 'integerExampleInt32', type: 'integer' },
];

const byName = (fields: FieldDef[]): ReadonlyMap<string, FieldDef> => new Map(fields.map((f) => [f.name, f]));

export const SCOPES: Readonly<Record<Scope, ReadonlyMap<string, FieldDef>>> = {
  resource: byName(RESOURCE_FIELDS),
  objectTypeProperty: byName(ARRAY_FIELDS),
  arrayOfObjectType: byName(MEMBER_FIELDS),
};

/** The scalar fields `sort` accepts, with the SQL that orders by them (strings byte-wise, as the indexes). */
export const SORT_FIELDS: ReadonlyMap<string, string> = new Map(
  RESOURCE_FIELDS.flatMap((f) => (f.kind === 'scalar' ? [[f.name, f.type === 'string' ? `${f.sql} COLLATE "C"` : f.sql]] : [])),
);

export function fieldNames(scope: Scope): string[] {
  return [...SCOPES[scope].keys()];
}

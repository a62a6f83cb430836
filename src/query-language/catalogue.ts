/**
 * A catalogue states a model's fields once: what each is called in the API (and so its JSON path), where
 * it is stored, the type of its values, and what may filter (`where`), sort or search by it. Everything
 * else is derived from it by `compileCatalogue`, once, at module load: the scopes of the `where` language
 * (docs/rules.md#query-language), the sortable fields with their ORDER BY expressions, the paths of the search's filters
 * and facets with the search table's columns that hold their values, and the JSON projection of a row.
 * The languages take a compiled catalogue as a parameter, so another model is one more catalogue.
 */

/** How a value is checked and bound: the type of the field it is compared with. */
export type ValueType = 'id' | 'string' | 'integer' | 'number' | 'boolean' | 'datetime';

/** A column of the model's table. */
export interface ColumnSpec {
  kind: 'column';
  name: string;
  column: string;
  /** The type of its values; `json` is shown as stored and never compared. */
  type: ValueType | 'json';
  /** May be absent (NULL): `is defined` tests it, and JSON leaves it out. */
  nullable?: boolean;
  /** A field `where` may compare. */
  filterable?: boolean;
  /** A field `sort` may order by (strings byte-wise, as the indexes). */
  sortable?: boolean;
  /** A path of the search's filters and facets; its values are the column's. */
  searchable?: boolean;
  /** The column of the search table that carries a copy: a search reads it without the model's own row. */
  searchCopy?: string;
}

/** A member of an element of an array of objects: compared as a number (exact over 64 bits). */
export interface MemberSpec {
  kind: 'member';
  name: string;
  type: 'integer';
  /** The search table's column that holds the member's values of every element (a search path when given). */
  searchValues?: string;
}

/** How GET /resource combines an array over its matches: all elements, each element once, or the lowest and highest. */
export type Merge = 'concat' | 'distinct' | 'bounds';

/** An array of primitives inside a document: comparisons apply to its elements. */
export interface ArraySpec {
  kind: 'array';
  name: string;
  type: 'integer' | 'number' | 'string';
  merge: Merge;
  /** The search table's column that holds the elements as a native array (a search path when given). */
  searchValues?: string;
}

/** An array of objects inside a document, queried as `name(<predicate>)`: true when one element satisfies it. */
export interface ObjectArraySpec {
  kind: 'objectArray';
  name: string;
  merge: Merge;
  members: readonly MemberSpec[];
}

/** A jsonb column holding arrays, queried as `name(<predicate on its arrays>)`; JSON shows its members in this order. */
export interface DocumentSpec {
  kind: 'document';
  name: string;
  column: string;
  /**
   * `{"<projectKey>": document}`, the expression of a GIN index: containment of `{"<projectKey>": {…}}` in it
   * is answered by the index with that project's rows only.
   */
  projectIndex: string;
  members: readonly (ArraySpec | ObjectArraySpec)[];
}

/** A value every row shows the same (a message's `version: 1`, its `resource.typeId`); never queried. */
export interface ConstantSpec {
  kind: 'constant';
  name: string;
  /** A SQL literal: `1`, `'resource'`. */
  sql: string;
}

/**
 * Columns shown and queried as one object, `name(<predicate on its fields>)`: a message's `resource(id = …)`
 * is its column `resource_id`. Its members filter only.
 */
export interface ObjectSpec {
  kind: 'object';
  name: string;
  members: readonly (Omit<ColumnSpec, 'sortable' | 'searchable' | 'searchCopy'> | ConstantSpec)[];
}

export type FieldSpec = ColumnSpec | DocumentSpec | ObjectSpec | ConstantSpec;

/** A model's fields in the order its JSON shows them; `alias` is the table's alias in every statement. */
export interface CatalogueSpec {
  table: string;
  alias: string;
  fields: readonly FieldSpec[];
}

/* ------------------------------------------------------------------ derived */

/** Where a document lives: its column, and the index expression containment is written against. */
export interface DocumentSql {
  sql: string;
  projectIndex: string;
}

/** A field as the `where` language sees it in one scope. */
export type QueryField =
  /** A column. `sql` is the column; `nullable` when the field may be absent. */
  | { kind: 'scalar'; name: string; type: ValueType; sql: string; nullable: boolean }
  /** An array of primitives in a document (`sql`: the jsonb array): comparisons apply to its elements. */
  | { kind: 'array'; name: string; type: ValueType; sql: string; document: DocumentSql }
  /** A field with members, queried as `field(<predicate>)` over `scope`. */
  | { kind: 'object'; name: string; scope: Scope }
  /** An array of objects in a document, queried as `field(<predicate>)`: true when any one element satisfies it. */
  | { kind: 'objectArray'; name: string; scope: Scope; sql: string; document: DocumentSql }
  /** A member of an element of an array of objects. */
  | { kind: 'member'; name: string; type: ValueType };

/** The fields one level of a predicate may name. */
export interface Scope {
  /** The field whose members these are; undefined at the top. */
  of?: string;
  fields: ReadonlyMap<string, QueryField>;
  /** The fields compared by themselves (no members), in the catalogue's order. */
  leaves: readonly string[];
  /** The fields queried as `field(<predicate>)`, in the catalogue's order. */
  composites: readonly string[];
  /** The names as error messages list them: `leaves`, then `composites`. */
  names: readonly string[];
}

export type SearchDataType = 'text' | 'number' | 'boolean';

/** A path the search's filters and facets may name, and where its values live. */
export interface SearchPath {
  name: string;
  dataType: SearchDataType;
  source:
    /** A column of the search table holding the values as a native array (`numeric[]` or `text[]`). */
    | { kind: 'values'; column: string }
    /**
     * One value per row: `sql` over a row under the catalogue's alias (numbers as numeric: exact for 64 bits). `copied`
     * when the search table carries the column; otherwise the model's own row must be read.
     */
    | { kind: 'column'; column: string; sql: string; nullable: boolean; copied: boolean };
}

export interface SortField {
  name: string;
  column: string;
  /** The ORDER BY expression (strings byte-wise, as the indexes). */
  sql: string;
  /** The search table's column carrying a copy, if any. */
  searchCopy?: string;
}

export interface Catalogue {
  table: string;
  alias: string;
  fields: readonly FieldSpec[];
  /** The top scope of `where`. */
  where: Scope;
  /** The fields `sort` accepts, in the catalogue's order. */
  sortFields: ReadonlyMap<string, SortField>;
  /** The sortable field of type `id`: it breaks every tie, so orders are total. */
  id: SortField;
  /** The paths of search filters and facets: array values first, then columns. */
  searchPaths: ReadonlyMap<string, SearchPath>;
  /** The row as the API shows it: JSON text built by PostgreSQL, absent optional fields stripped. */
  json: string;
}

const TIMESTAMP = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/** A timestamptz column as the API shows date-times: ISO 8601 text in UTC, to the millisecond. */
export function isoTimestampSql(sql: string): string {
  return `to_char(${sql} AT TIME ZONE 'UTC', ${TIMESTAMP})`;
}

/** Derives the lookups of a catalogue; call once per model, at module load. */
export function compileCatalogue(spec: CatalogueSpec): Catalogue {
  const a = spec.alias;
  const columnSql = (column: string) => `${a}.${column}`;
  const searchPaths: SearchPath[] = [];
  const columnPaths: SearchPath[] = [];
  const top: QueryField[] = [];
  const sortFields = new Map<string, SortField>();
  const json: string[] = [];

  /** A column as JSON (date-times as ISO 8601 text in UTC, to the millisecond). */
  const columnJson = (field: ColumnSpec | ObjectSpec['members'][number]) => {
    if (field.kind === 'constant') return `'${field.name}', ${field.sql}`;
    const sql = columnSql(field.column);
    return `'${field.name}', ${field.type === 'datetime' ? isoTimestampSql(sql) : sql}`;
  };
  /** The filterable columns among `fields`, as `where` compares them. */
  const scalars = (fields: readonly (ColumnSpec | ObjectSpec['members'][number])[]): QueryField[] =>
    fields.flatMap((f) =>
      f.kind === 'column' && f.filterable && f.type !== 'json' ? [{ kind: 'scalar' as const, name: f.name, type: f.type, sql: columnSql(f.column), nullable: f.nullable ?? false }] : [],
    );

  for (const field of spec.fields) {
    if (field.kind === 'constant') {
      json.push(columnJson(field));
      continue;
    }
    if (field.kind === 'object') {
      top.push({ kind: 'object', name: field.name, scope: scope(scalars(field.members), field.name) });
      json.push(`'${field.name}', json_build_object(${field.members.map(columnJson).join(', ')})`);
      continue;
    }
    if (field.kind === 'column') {
      const sql = columnSql(field.column);
      json.push(columnJson(field));
      if (field.type === 'json') continue;
      const nullable = field.nullable ?? false;
      top.push(...scalars([field]));
      if (field.sortable) {
        sortFields.set(field.name, { name: field.name, column: field.column, sql: field.type === 'string' ? `${sql} COLLATE "C"` : sql, searchCopy: field.searchCopy });
      }
      if (field.searchable) {
        const dataType = searchDataType(field.type);
        columnPaths.push({
          name: field.name,
          dataType,
          source: { kind: 'column', column: field.column, sql: dataType === 'number' ? `${a}.${field.column}::numeric` : sql, nullable, copied: field.searchCopy !== undefined },
        });
      }
      continue;
    }
    const document: DocumentSql = { sql: columnSql(field.column), projectIndex: field.projectIndex };
    const members: QueryField[] = [];
    for (const member of field.members) {
      const sql = `${document.sql}->'${member.name}'`;
      const path = `${field.name}.${member.name}`;
      if (member.kind === 'array') {
        members.push({ kind: 'array', name: member.name, type: member.type, sql, document });
        if (member.searchValues) searchPaths.push({ name: path, dataType: searchDataType(member.type), source: { kind: 'values', column: member.searchValues } });
      } else {
        const elementFields: QueryField[] = member.members.map((m) => ({ kind: 'member', name: m.name, type: m.type }));
        members.push({ kind: 'objectArray', name: member.name, scope: scope(elementFields, member.name), sql, document });
        for (const m of member.members) {
          if (m.searchValues) searchPaths.push({ name: `${path}.${m.name}`, dataType: searchDataType(m.type), source: { kind: 'values', column: m.searchValues } });
        }
      }
    }
    top.push({ kind: 'object', name: field.name, scope: scope(members, field.name) });
    json.push(`'${field.name}', json_build_object(${field.members.map((m) => `'${m.name}', ${document.sql}->'${m.name}'`).join(', ')})`);
  }

  const id = spec.fields.find((f) => f.kind === 'column' && f.type === 'id' && f.sortable);
  if (id === undefined) throw new Error(`catalogue of ${spec.table}: no sortable field of type id to break ties`);
  return {
    table: spec.table,
    alias: a,
    fields: spec.fields,
    where: scope(top),
    sortFields,
    id: sortFields.get(id.name)!,
    searchPaths: new Map([...searchPaths, ...columnPaths].map((p) => [p.name, p])),
    // json_strip_nulls also writes the text compactly (`{"a":[1,2]}`), the one JSON formatting of every answer.
    json: `json_strip_nulls(json_build_object(${json.join(', ')}))::text`,
  };
}

function scope(fields: QueryField[], of?: string): Scope {
  const leaves = fields.filter((f) => f.kind !== 'object' && f.kind !== 'objectArray').map((f) => f.name);
  const composites = fields.filter((f) => f.kind === 'object' || f.kind === 'objectArray').map((f) => f.name);
  return { of, fields: new Map(fields.map((f) => [f.name, f])), leaves, composites, names: [...leaves, ...composites] };
}

function searchDataType(type: ValueType): SearchDataType {
  switch (type) {
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      return 'text';
  }
}

/** The arrays of a catalogue's document, in its order. */
export function documentArrays(document: DocumentSpec): ArraySpec[] {
  return document.members.filter((m): m is ArraySpec => m.kind === 'array');
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { loadConfig } from '../src/app-config.js';
import { type OpenedDatabase, openDataSource } from '../src/database/open-data-source.js';
import { seedEmbeddedDataDir } from './support/embedded-template.js';
import { createFreshDatabase, type FreshDatabase } from './support/fresh-database.js';

/*
 * The entities describe the schema the migrations write, and nothing makes them agree but this test: on a
 * database migrated from nothing (PostgreSQL when DATABASE_URL is set, else the embedded one), every table
 * has an entity registered with the data source, and each entity's columns (name, type with length and
 * precision, nullability), primary key and version column are the table's, as information_schema tells.
 * TypeORM's own comparison (what `synchronize` would run) then covers the rest: defaults, unique and check
 * constraints, foreign keys, and the indexes it can express (the others are declared `synchronize: false`).
 * An entity that drifts from a migration fails here.
 */

interface ColumnShape {
  /** The type as information_schema spells it, with its length or precision: `character varying(36)`, `numeric[]`. */
  type: string;
  nullable: boolean;
}

interface TableShape {
  columns: Record<string, ColumnShape>;
  primaryKey: string[];
  /** The column whose value every write increments (optimistic locking), if the table has one. */
  version?: string;
}

type Shapes = Record<string, TableShape>;

/** TypeORM's own table; the partitions of a partitioned table are described by their parent's entity. */
const NOT_ENTITIES = ['migrations'];

/**
 * Names a versioned table's version column has in this schema: an integer every write of the row increments.
 * `resource_version.version` is part of a key, and `extension_revision.revision` (bigint) counts a project's
 * changes for the caches that compare it: neither is a row's version.
 */
const VERSION_NAMES = ['version', 'revision'];

const DATETIME_TYPES = new Set(['timestamp with time zone', 'timestamp without time zone', 'time with time zone', 'time without time zone']);

function spell(type: string, length: number | null, precision: number | null, array: boolean): string {
  const size = length ?? precision;
  return `${type}${size === null ? '' : `(${size})`}${array ? '[]' : ''}`;
}

function entityShapes(dataSource: DataSource): Shapes {
  const driver = dataSource.driver;
  return Object.fromEntries(
    dataSource.entityMetadatas.map((entity) => {
      const columns = entity.columns.map((column): [string, ColumnShape] => {
        const type = driver.normalizeType(column);
        const length = column.length ? Number(column.length) : null;
        // PostgreSQL's precision of a time type written without one is 6.
        const precision = DATETIME_TYPES.has(type) ? (column.precision ?? 6) : null;
        return [column.databaseName, { type: spell(type, length, precision, column.isArray), nullable: column.isNullable }];
      });
      const shape: TableShape = {
        columns: Object.fromEntries(columns),
        primaryKey: entity.primaryColumns.map((column) => column.databaseName).sort(),
        ...(entity.versionColumn ? { version: entity.versionColumn.databaseName } : {}),
      };
      return [entity.tableName, shape];
    }),
  );
}

async function schemaShapes(dataSource: DataSource): Promise<Shapes> {
  const columns: Array<{ table: string; column: string; type: string; array: boolean; length: number | null; precision: number | null; nullable: string }> =
    await dataSource.query(`
      SELECT c.table_name AS "table", c.column_name AS "column", c.data_type = 'ARRAY' AS "array",
             -- An array's element type, named as data_type names types (information_schema.element_types names it
             -- too, but that view took 8 s on PostgreSQL 15).
             CASE WHEN c.data_type = 'ARRAY' THEN format_type(a.typelem, NULL) ELSE c.data_type END AS "type",
             c.character_maximum_length AS "length", c.datetime_precision AS "precision", c.is_nullable AS "nullable"
      FROM information_schema.columns c
      JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      LEFT JOIN pg_catalog.pg_type a ON c.data_type = 'ARRAY' AND a.oid = format('%I.%I', c.udt_schema, c.udt_name)::regtype
      WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
        AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_class p
                        WHERE p.relname = c.table_name AND p.relnamespace = current_schema()::regnamespace AND p.relispartition)
      ORDER BY c.table_name, c.ordinal_position`);
  const keys: Array<{ table: string; column: string }> = await dataSource.query(`
    SELECT k.table_name AS "table", k.column_name AS "column"
    FROM information_schema.table_constraints t
    JOIN information_schema.key_column_usage k
      ON k.constraint_schema = t.constraint_schema AND k.constraint_name = t.constraint_name AND k.table_name = t.table_name
    WHERE t.table_schema = current_schema() AND t.constraint_type = 'PRIMARY KEY'`);
  const shapes: Shapes = {};
  for (const c of columns) {
    if (NOT_ENTITIES.includes(c.table)) continue;
    const table = (shapes[c.table] ??= { columns: {}, primaryKey: [] });
    table.columns[c.column] = { type: spell(c.type, c.length, c.precision, c.array), nullable: c.nullable === 'YES' };
  }
  for (const k of keys) shapes[k.table]?.primaryKey.push(k.column);
  for (const table of Object.values(shapes)) {
    table.primaryKey.sort();
    const version = VERSION_NAMES.find((name) => table.columns[name]?.type === 'integer' && !table.primaryKey.includes(name));
    if (version) table.version = version;
  }
  return shapes;
}

/** Every difference between the entities and the schema, one line each; none when they agree. */
function drift(entities: Shapes, schema: Shapes): string[] {
  const found: string[] = [];
  for (const table of Object.keys(schema)) if (!entities[table]) found.push(`table ${table}: no entity`);
  for (const [table, entity] of Object.entries(entities)) {
    const actual = schema[table];
    if (!actual) {
      found.push(`entity of ${table}: no such table`);
      continue;
    }
    for (const [name, column] of Object.entries(actual.columns)) {
      const declared = entity.columns[name];
      if (!declared) found.push(`${table}.${name}: not in the entity`);
      else {
        if (declared.type !== column.type) found.push(`${table}.${name}: entity says ${declared.type}, table has ${column.type}`);
        if (declared.nullable !== column.nullable) found.push(`${table}.${name}: entity says ${declared.nullable ? 'NULL' : 'NOT NULL'}, table has ${column.nullable ? 'NULL' : 'NOT NULL'}`);
      }
    }
    for (const name of Object.keys(entity.columns)) if (!actual.columns[name]) found.push(`${table}.${name}: not in the table`);
    if (entity.primaryKey.join() !== actual.primaryKey.join()) found.push(`${table}: entity's primary key (${entity.primaryKey}) is not the table's (${actual.primaryKey})`);
    if (entity.version !== actual.version) found.push(`${table}: entity's version column is ${entity.version ?? 'none'}, the table's ${actual.version ?? 'none'}`);
  }
  return found;
}

describe('entities and the migrated schema', () => {
  let opened: OpenedDatabase;
  let fresh: FreshDatabase | undefined;
  let dataDir: string | undefined;
  let entities: Shapes;
  let schema: Shapes;

  beforeAll(async () => {
    if (process.env.DATABASE_URL) {
      fresh = await createFreshDatabase('entity_schema');
      opened = await openDataSource(loadConfig({ DATABASE_URL: fresh.url, LOG_LEVEL: 'error' }).database, { migrate: true });
    } else {
      dataDir = mkdtempSync(join(tmpdir(), 'entity-schema-'));
      await seedEmbeddedDataDir(dataDir);
      opened = await openDataSource(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'error' }).database, { migrate: true });
    }
    entities = entityShapes(opened.dataSource);
    schema = await schemaShapes(opened.dataSource);
  });

  afterAll(async () => {
    await opened?.close();
    await fresh?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('every table has an entity registered with the data source, and each entity agrees with its table', () => {
    expect(Object.keys(schema).length).toBeGreaterThanOrEqual(21);
    expect(drift(entities, schema)).toEqual([]);
  });

  it('versioned tables have their @VersionColumn; no other table has one', () => {
    const versioned = Object.fromEntries(Object.entries(entities).flatMap(([table, shape]) => (shape.version ? [[table, shape.version]] : [])));
    expect(versioned).toEqual({
      resource: 'version',
      subscription: 'version',
      extension: 'version',
      action_store_entry: 'version',
      complex_path_record: 'revision',
    });
    expect(entities.resource_version.version).toBeUndefined();
  });

  it("TypeORM's schema comparison finds nothing to change (defaults, constraints, foreign keys, indexes)", async () => {
    const changes = await opened.dataSource.driver.createSchemaBuilder().log();
    expect(changes.upQueries.map((query) => query.query)).toEqual([]);
  });

  it('the comparison finds each kind of drift', () => {
    const drifted: Shapes = structuredClone(entities);
    delete drifted.resource.columns.message_sequence;
    drifted.message.columns.payload.type = 'character varying(64)';
    drifted.api_client.columns.customer_id.nullable = false;
    drifted.image.columns.width = { type: 'integer', nullable: false };
    drifted.signing_key.columns.created_at.type = 'timestamp with time zone(6)';
    drifted.resource_search.columns.array_of_string_example.type = 'numeric[]';
    drifted.image_blob.primaryKey = ['sha256'];
    delete drifted.subscription.version;
    delete drifted.search_word;
    drifted.image_variant = { columns: { id: { type: 'uuid', nullable: false } }, primaryKey: ['id'] };
    expect(drift(drifted, schema).sort()).toEqual(
      [
        'resource.message_sequence: not in the entity',
        'message.payload: entity says character varying(64), table has text',
        'api_client.customer_id: entity says NOT NULL, table has NULL',
        'image.width: not in the table',
        'resource_search.array_of_string_example: entity says numeric[], table has text[]',
        'signing_key.created_at: entity says timestamp with time zone(6), table has timestamp with time zone(3)',
        "image_blob: entity's primary key (sha256) is not the table's (project_key,sha256)",
        "subscription: entity's version column is none, the table's version",
        'table search_word: no entity',
        'entity of image_variant: no such table',
      ].sort(),
    );
  });
});

import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SEARCH_CONFIGS, searchVector } from './1763700000005-search.js';
import { searchIndexFunction } from './1763700000006-search-table.js';

/**
 * Each `resource_search` row also carries what search filters, facets and the usual sorts read: the
 * resource's key and creation time, and the values of every search path as native arrays (`numeric[]`,
 * exact for 64-bit; `text[]`).
 *
 * Why: a text search with facets read every match's `resource` row by primary key (about 7 µs a match
 * on these machines: 4,000 matches, 28 ms) and then took the values apart from `jsonb` again in every
 * facet (a range facet over 14,000 values: 24 ms from `jsonb`, 5 ms from `numeric[]`). Now the
 * language's partition answers the match, the filters and the facets by itself; `resource` is read
 * only for the page of results, and for a sort on a field that changes with every write or a `version`
 * path. Searches without text read the `simple` partition, which has indexes for them: the project,
 * the project's keys, and the values (GIN, for a filter on values).
 *
 * The trigger keeps the values in the writing transaction, as it keeps the vectors: on insert, on an
 * update that changes a searched text, `published` or `objectTypeProperty`, and on delete.
 */

/** A search path's values: the column, and the SQL that computes it from a `resource` row (`row` is `NEW.` or `r.`). */
interface ValueColumn {
  column: string;
  type: 'numeric[]' | 'text[]';
  of: (row: string) => string;
}

const elements = (row: string, field: string) => `jsonb_array_elements(coalesce(${row}"object_type_property" -> '${field}', '[]'))`;
const numbers = (column: string, field: string): ValueColumn => ({
  column,
  type: 'numeric[]',
  of: (row) => `ARRAY(SELECT e::numeric FROM ${elements(row, field)} e WHERE jsonb_typeof(e) = 'number')`,
});
const members = (column: string, member: string): ValueColumn => ({
  column,
  type: 'numeric[]',
  of: (row) => `ARRAY(SELECT (e -> '${member}')::numeric FROM ${elements(row, 'arrayOfObjectType')} e WHERE jsonb_typeof(e -> '${member}') = 'number')`,
});

/** One column per array path of the search (`searchValues` in src/query-language/resource.catalogue.ts names them). */
export const SEARCH_VALUE_COLUMNS: readonly ValueColumn[] = [
  numbers('array_of_int_example', 'arrayOfIntExample'),
  numbers('array_of_unique_int_example', 'arrayOfUniqueIntExample'),
  numbers('array_of_twonumbers_example', 'arrayOfTwonumbersExample'),
  numbers('array_of_float_example', 'arrayOfFloatExample'),
  numbers('array_of_number_no_defaults_example', 'arrayOfNumberNoDefaultsExample'),
  {
    column: 'array_of_string_example',
    type: 'text[]',
    of: (row) => `ARRAY(SELECT e #>> '{}' FROM ${elements(row, 'arrayOfStringExample')} e WHERE jsonb_typeof(e) = 'string')`,
  },
  members('array_of_object_type_integer_example', 'integerExample'),
  members('array_of_object_type_integer_example_int32', 'integerExampleInt32'),
];

const COLUMNS = SEARCH_VALUE_COLUMNS.map((c) => `"${c.column}"`).join(', ');
const VALUES_OF_NEW = SEARCH_VALUE_COLUMNS.map((c) => `${c.of('NEW.')} AS "${c.column}"`).join(',\n                 ');

/** The trigger's first branch, also 1763700000008's and 1763700000016's: a delete removes the rows. */
export const SEARCH_INDEX_DELETE = `    IF TG_OP = 'DELETE' THEN
      DELETE FROM "resource_search" WHERE "resource_id" = OLD."id";
      RETURN NULL;
    END IF;
`;

/** An update changed no searched text (the vectors stay), also 1763700000016's. */
export const SEARCH_TEXTS_UNCHANGED = `TG_OP = 'UPDATE'
       AND NEW."key" IS NOT DISTINCT FROM OLD."key"
       AND NEW."some_property" IS NOT DISTINCT FROM OLD."some_property"
       AND NEW."second_property_to_update" IS NOT DISTINCT FROM OLD."second_property_to_update"
       AND (NEW."object_type_property" -> 'arrayOfStringExample') IS NOT DISTINCT FROM (OLD."object_type_property" -> 'arrayOfStringExample')`;

/**
 * The trigger's first branches, also 1763700000008's: a delete removes the rows; an update that changes
 * no searched text keeps the vectors and rewrites `published` and the values only when they changed.
 */
export const SEARCH_INDEX_UNCHANGED_TEXTS = `${SEARCH_INDEX_DELETE}    IF ${SEARCH_TEXTS_UNCHANGED} THEN
      -- The vectors stay; the values and published follow the resource (no vector index entry changes).
      IF NEW."published" IS DISTINCT FROM OLD."published" OR NEW."object_type_property" IS DISTINCT FROM OLD."object_type_property" THEN
        UPDATE "resource_search" s SET "published" = NEW."published", ${SEARCH_VALUE_COLUMNS.map((c) => `"${c.column}" = v."${c.column}"`).join(', ')}
        FROM (SELECT ${VALUES_OF_NEW}) v
        WHERE s."resource_id" = NEW."id";
      END IF;
      RETURN NULL;
    END IF;
`;

/** The trigger function of this migration (1763700000008's `down` restores it). */
export const SEARCH_INDEX_FUNCTION = `
  CREATE OR REPLACE FUNCTION "search_index_resource"() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
${SEARCH_INDEX_UNCHANGED_TEXTS}    INSERT INTO "resource_search" ("resource_id", "config", "project_key", "published", "key", "created_at", ${COLUMNS}, "vector")
    SELECT NEW."id", c.config, NEW."project_key", NEW."published", NEW."key", NEW."created_at", ${SEARCH_VALUE_COLUMNS.map((c) => `v."${c.column}"`).join(', ')}, c.vector
    FROM (SELECT ${VALUES_OF_NEW}) v,
         (VALUES ${SEARCH_CONFIGS.map((c) => `('${c}', ${searchVector(c, 'NEW.')})`).join(',\n                 ')}) AS c(config, vector)
    ON CONFLICT ("resource_id", "config") DO UPDATE SET "published" = EXCLUDED."published", "key" = EXCLUDED."key", "vector" = EXCLUDED."vector",
      ${SEARCH_VALUE_COLUMNS.map((c) => `"${c.column}" = EXCLUDED."${c.column}"`).join(', ')};
    INSERT INTO "search_word" ("project_key", "word")
    SELECT NEW."project_key", w FROM unnest(tsvector_to_array(${searchVector('simple', 'NEW.')})) AS w
    WHERE char_length(w) <= 64 AND w !~ '[0-9]' ORDER BY w
    ON CONFLICT DO NOTHING;
    RETURN NULL;
  END $$`;

export class SearchValues1763700000007 implements MigrationInterface {
  name = 'SearchValues1763700000007';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Filling the values of every row can outlast the service's statement timeout; this transaction has none.
    await queryRunner.query(`SET LOCAL statement_timeout = 0`);
    await queryRunner.query(
      `ALTER TABLE "resource_search" ADD COLUMN "key" varchar(256), ADD COLUMN "created_at" timestamp(3) with time zone, ` +
        SEARCH_VALUE_COLUMNS.map((c) => `ADD COLUMN "${c.column}" ${c.type} NOT NULL DEFAULT '{}'`).join(', '),
    );
    await queryRunner.query(`
      UPDATE "resource_search" s SET "key" = v."key", "created_at" = v."created_at", ${SEARCH_VALUE_COLUMNS.map((c) => `"${c.column}" = v."${c.column}"`).join(', ')}
      FROM (SELECT r."id", r."key", r."created_at", ${SEARCH_VALUE_COLUMNS.map((c) => `${c.of('r.')} AS "${c.column}"`).join(', ')} FROM "resource" r) v
      WHERE s."resource_id" = v."id"`);
    await queryRunner.query(`ALTER TABLE "resource_search" ALTER COLUMN "created_at" SET NOT NULL`);
    await queryRunner.query(`CREATE INDEX "resource_search_simple_project_idx" ON "resource_search_simple" ("project_key", "published")`);
    await queryRunner.query(`CREATE INDEX "resource_search_simple_key_idx" ON "resource_search_simple" ("project_key", "key")`);
    await queryRunner.query(
      `CREATE INDEX "resource_search_simple_values_idx" ON "resource_search_simple" USING gin (${SEARCH_VALUE_COLUMNS.map((c) => `"${c.column}"`).join(', ')})`,
    );
    await queryRunner.query(SEARCH_INDEX_FUNCTION);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(searchIndexFunction());
    for (const index of ['values', 'key', 'project']) await queryRunner.query(`DROP INDEX IF EXISTS "resource_search_simple_${index}_idx"`);
    await queryRunner.query(
      `ALTER TABLE "resource_search" DROP COLUMN IF EXISTS "key", DROP COLUMN IF EXISTS "created_at", ${SEARCH_VALUE_COLUMNS.map((c) => `DROP COLUMN IF EXISTS "${c.column}"`).join(', ')}`,
    );
  }
}

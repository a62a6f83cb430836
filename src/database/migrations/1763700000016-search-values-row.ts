import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SEARCH_CONFIGS, searchVectorIn } from './1763700000005-search.js';
import { SEARCH_INDEX_DELETE, SEARCH_TEXTS_UNCHANGED, SEARCH_VALUE_COLUMNS } from './1763700000007-search-values.js';
import { SEARCH_INDEX_FUNCTION_8, SEARCH_INDEX_LANGUAGE_FUNCTION, VOCABULARY_OF_WRITTEN } from './1763700000008-search-languages.js';

/**
 * A resource's search values live in one row of their own, `config = 'values'`, instead of a copy in
 * each language's row. The language rows keep their vector and the copied fields (project, published,
 * key, creation time); their value columns are NULL (an empty array took 16 bytes, 128 a row).
 *
 * Why: a change of a searched text rewrote every language row with its ~1.2 KB of values, and an update
 * is never a HOT update, so the values' GIN index took their ~90 entries again although they had not
 * changed. Now a text change rewrites the small vector rows only, and a change of `objectTypeProperty`
 * the values row only. On a throwaway PostgreSQL with `en` + `simple` indexed, an update of `some_property`
 * took 399–506 µs against 517–617 µs, an insert the same; for 100,000 resources of the benchmark's 1 KB
 * shape the search rows and their indexes take 261 MB instead of 381 MB (`resource`: 173 MB).
 *
 * The price: a text search whose filters or facets read values joins each match's values row by
 * primary key. Searches without text read the values partition, which takes over the `simple`
 * partition's indexes for them (project, the project's keys, the values).
 *
 * The vector GIN index becomes one per language partition: a partitioned index would also index the
 * values rows' empty vectors.
 */

/** The `config` of the values rows: not a text-search configuration, so never listed in `search_language`. */
export const SEARCH_VALUES_CONFIG = 'values';

const VALUE_COLUMNS = SEARCH_VALUE_COLUMNS.map((c) => `"${c.column}"`).join(', ');
const VALUES_OF_NEW = SEARCH_VALUE_COLUMNS.map((c) => `${c.of('NEW.')} AS "${c.column}"`).join(',\n               ');
const SET_VALUES = SEARCH_VALUE_COLUMNS.map((c) => `"${c.column}" = v."${c.column}"`).join(', ');

/**
 * The trigger: the values row follows `objectTypeProperty`, `published` and the key; the vector rows
 * (one per listed configuration) follow the searched texts, `published` and the key. A row whose
 * inputs did not change is not written. The vocabulary takes the words of the `simple` vector.
 */
const SEARCH_INDEX_FUNCTION_16 = `
  CREATE OR REPLACE FUNCTION "search_index_resource"() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
${SEARCH_INDEX_DELETE}    IF TG_OP = 'INSERT' OR NEW."object_type_property" IS DISTINCT FROM OLD."object_type_property" THEN
      INSERT INTO "resource_search" ("resource_id", "config", "project_key", "published", "key", "created_at", ${VALUE_COLUMNS}, "vector")
      SELECT NEW."id", '${SEARCH_VALUES_CONFIG}', NEW."project_key", NEW."published", NEW."key", NEW."created_at", ${SEARCH_VALUE_COLUMNS.map((c) => `v."${c.column}"`).join(', ')}, ''::tsvector
      FROM (SELECT ${VALUES_OF_NEW}) v
      ON CONFLICT ("resource_id", "config") DO UPDATE SET "published" = EXCLUDED."published", "key" = EXCLUDED."key",
        ${SEARCH_VALUE_COLUMNS.map((c) => `"${c.column}" = EXCLUDED."${c.column}"`).join(', ')};
    ELSIF NEW."published" IS DISTINCT FROM OLD."published" OR NEW."key" IS DISTINCT FROM OLD."key" THEN
      UPDATE "resource_search" SET "published" = NEW."published", "key" = NEW."key"
      WHERE "resource_id" = NEW."id" AND "config" = '${SEARCH_VALUES_CONFIG}';
    END IF;
    IF ${SEARCH_TEXTS_UNCHANGED} THEN
      IF NEW."published" IS DISTINCT FROM OLD."published" THEN
        UPDATE "resource_search" SET "published" = NEW."published"
        WHERE "resource_id" = NEW."id" AND "config" IN (SELECT "config" FROM "search_language");
      END IF;
      RETURN NULL;
    END IF;
    WITH written AS (
      INSERT INTO "resource_search" ("resource_id", "config", "project_key", "published", "key", "created_at", "vector")
      SELECT NEW."id", l."config", NEW."project_key", NEW."published", NEW."key", NEW."created_at", ${searchVectorIn('l."config"::regconfig', 'NEW.')}
      FROM "search_language" l
      ON CONFLICT ("resource_id", "config") DO UPDATE SET "published" = EXCLUDED."published", "key" = EXCLUDED."key", "vector" = EXCLUDED."vector"
      RETURNING "config", "vector"
    )
${VOCABULARY_OF_WRITTEN}
    RETURN NULL;
  END $$`;

/** Indexes every resource in one configuration: its vector rows (the values rows are every language's). */
const SEARCH_INDEX_LANGUAGE_FUNCTION_16 = `
  CREATE OR REPLACE FUNCTION "search_index_language"("language" text) RETURNS void LANGUAGE sql AS $$
    INSERT INTO "resource_search" ("resource_id", "config", "project_key", "published", "key", "created_at", "vector")
    SELECT r."id", "language", r."project_key", r."published", r."key", r."created_at", ${searchVectorIn('"language"::regconfig', 'r.')}
    FROM "resource" r
    ON CONFLICT ("resource_id", "config") DO UPDATE SET "published" = EXCLUDED."published", "key" = EXCLUDED."key", "vector" = EXCLUDED."vector"
  $$`;

/** The indexes searches without text read, on the partition `table`: the project, the project's keys, the values. */
async function createValueIndexes(queryRunner: QueryRunner, table: string): Promise<void> {
  await queryRunner.query(`CREATE INDEX "${table}_project_idx" ON "${table}" ("project_key", "published")`);
  await queryRunner.query(`CREATE INDEX "${table}_key_idx" ON "${table}" ("project_key", "key")`);
  await queryRunner.query(`CREATE INDEX "${table}_values_idx" ON "${table}" USING gin (${VALUE_COLUMNS})`);
}

export class SearchValuesRow1763700000016 implements MigrationInterface {
  name = 'SearchValuesRow1763700000016';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Moving every resource's values can outlast the service's statement timeout; writes wait meanwhile.
    await queryRunner.query(`SET LOCAL statement_timeout = 0`);
    await queryRunner.query(`LOCK TABLE "resource" IN SHARE MODE`);
    // Indexes are dropped before the rows move and built after (faster than maintaining them row by row).
    await queryRunner.query(`DROP INDEX "resource_search_vector_idx"`);
    for (const index of ['values', 'key', 'project']) await queryRunner.query(`DROP INDEX "resource_search_simple_${index}_idx"`);
    await queryRunner.query(`CREATE TABLE "resource_search_values" PARTITION OF "resource_search" FOR VALUES IN ('${SEARCH_VALUES_CONFIG}')`);
    await queryRunner.query(`
      INSERT INTO "resource_search" ("resource_id", "config", "project_key", "published", "key", "created_at", ${VALUE_COLUMNS}, "vector")
      SELECT "resource_id", '${SEARCH_VALUES_CONFIG}', "project_key", "published", "key", "created_at", ${VALUE_COLUMNS}, ''::tsvector
      FROM "resource_search_simple"`);
    await queryRunner.query(
      `ALTER TABLE "resource_search" ${SEARCH_VALUE_COLUMNS.map((c) => `ALTER COLUMN "${c.column}" DROP NOT NULL, ALTER COLUMN "${c.column}" DROP DEFAULT`).join(', ')}`,
    );
    await queryRunner.query(
      `UPDATE "resource_search" SET ${SEARCH_VALUE_COLUMNS.map((c) => `"${c.column}" = NULL`).join(', ')} WHERE "config" <> '${SEARCH_VALUES_CONFIG}'`,
    );
    for (const config of SEARCH_CONFIGS) {
      await queryRunner.query(`CREATE INDEX "resource_search_${config}_vector_idx" ON "resource_search_${config}" USING gin ("vector")`);
    }
    await createValueIndexes(queryRunner, 'resource_search_values');
    await queryRunner.query(SEARCH_INDEX_LANGUAGE_FUNCTION_16);
    await queryRunner.query(SEARCH_INDEX_FUNCTION_16);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`SET LOCAL statement_timeout = 0`);
    await queryRunner.query(`LOCK TABLE "resource" IN SHARE MODE`);
    for (const config of SEARCH_CONFIGS) await queryRunner.query(`DROP INDEX "resource_search_${config}_vector_idx"`);
    await queryRunner.query(`
      UPDATE "resource_search" s SET ${SET_VALUES}
      FROM "resource_search_values" v
      WHERE v."resource_id" = s."resource_id" AND s."config" <> '${SEARCH_VALUES_CONFIG}'`);
    await queryRunner.query(
      `ALTER TABLE "resource_search" ${SEARCH_VALUE_COLUMNS.map((c) => `ALTER COLUMN "${c.column}" SET DEFAULT '{}', ALTER COLUMN "${c.column}" SET NOT NULL`).join(', ')}`,
    );
    await queryRunner.query(`DROP TABLE "resource_search_values"`);
    await queryRunner.query(`CREATE INDEX "resource_search_vector_idx" ON "resource_search" USING gin ("vector")`);
    await createValueIndexes(queryRunner, 'resource_search_simple');
    await queryRunner.query(SEARCH_INDEX_LANGUAGE_FUNCTION);
    await queryRunner.query(SEARCH_INDEX_FUNCTION_8);
  }
}

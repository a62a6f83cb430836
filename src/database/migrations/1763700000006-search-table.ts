import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createVocabularyTriggers, SEARCH_CONFIGS, searchVector } from './1763700000005-search.js';

/**
 * The text-search vectors move out of `resource` into `resource_search`, one row per resource and
 * configuration, list-partitioned by configuration (one physical table and GIN index per language).
 *
 * Why: ranking reads the vector of every match. With eight stored vectors a `resource` row was about
 * 2.6 kB, so ranking 19,000 matches of a fuzzy search read about 17,000 pages of a 270 MB heap
 * (148 ms); the English partition's rows are about 300 bytes, and the same ranking reads 3,700 pages
 * (28 ms). Every other read of `resource` (GET, query, facets) gets the narrow row back too.
 *
 * A trigger keeps the rows in the writing transaction (a search right after a write sees it): on
 * insert, on an update that changes a searched text or `published`, and on delete. It also keeps the
 * fuzzy vocabulary (`search_word`) as the trigger it replaces did.
 */
const VECTOR_OF_NEW = (config: string) => searchVector(config, 'NEW.');

/**
 * The trigger function of this migration (1763700000007's `down` restores it): the vectors of every
 * configuration and the fuzzy vocabulary, kept in the writing transaction.
 */
export const searchIndexFunction = () => `
  CREATE OR REPLACE FUNCTION "search_index_resource"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          DELETE FROM "resource_search" WHERE "resource_id" = OLD."id";
          RETURN NULL;
        END IF;
        IF TG_OP = 'UPDATE'
           AND NEW."key" IS NOT DISTINCT FROM OLD."key"
           AND NEW."some_property" IS NOT DISTINCT FROM OLD."some_property"
           AND NEW."second_property_to_update" IS NOT DISTINCT FROM OLD."second_property_to_update"
           AND (NEW."object_type_property" -> 'arrayOfStringExample') IS NOT DISTINCT FROM (OLD."object_type_property" -> 'arrayOfStringExample') THEN
          IF NEW."published" IS DISTINCT FROM OLD."published" THEN
            UPDATE "resource_search" SET "published" = NEW."published" WHERE "resource_id" = NEW."id";
          END IF;
          RETURN NULL;
        END IF;
        INSERT INTO "resource_search" ("resource_id", "config", "project_key", "published", "vector")
        VALUES ${SEARCH_CONFIGS.map((c) => `(NEW."id", '${c}', NEW."project_key", NEW."published", ${VECTOR_OF_NEW(c)})`).join(',\n               ')}
        ON CONFLICT ("resource_id", "config") DO UPDATE SET "published" = EXCLUDED."published", "vector" = EXCLUDED."vector";
        INSERT INTO "search_word" ("project_key", "word")
        SELECT NEW."project_key", w FROM unnest(tsvector_to_array(${VECTOR_OF_NEW('simple')})) AS w
        WHERE char_length(w) <= 64 AND w !~ '[0-9]' ORDER BY w
        ON CONFLICT DO NOTHING;
        RETURN NULL;
      END $$`;

export class SearchTable1763700000006 implements MigrationInterface {
  name = 'SearchTable1763700000006';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Copying every resource's vectors can outlast the service's statement timeout (100,000 resources:
    // about 30 s); this transaction has none. The index is built once the rows are in (faster than
    // maintaining it row by row).
    await queryRunner.query(`SET LOCAL statement_timeout = 0`);
    await queryRunner.query(`
      CREATE TABLE "resource_search" (
        "resource_id" uuid NOT NULL,
        "config" text NOT NULL,
        "project_key" varchar(36) NOT NULL,
        "published" boolean NOT NULL,
        "vector" tsvector NOT NULL,
        CONSTRAINT "resource_search_pkey" PRIMARY KEY ("resource_id", "config")
      ) PARTITION BY LIST ("config")`);
    for (const config of SEARCH_CONFIGS) {
      await queryRunner.query(`CREATE TABLE "resource_search_${config}" PARTITION OF "resource_search" FOR VALUES IN ('${config}')`);
    }
    await queryRunner.query(`
      INSERT INTO "resource_search" ("resource_id", "config", "project_key", "published", "vector")
      SELECT r."id", c.config, r."project_key", r."published",
             CASE c.config ${SEARCH_CONFIGS.map((config) => `WHEN '${config}' THEN r."search_${config}"`).join(' ')} END
      FROM "resource" r CROSS JOIN unnest(ARRAY[${SEARCH_CONFIGS.map((c) => `'${c}'`).join(', ')}]) AS c(config)`);
    await queryRunner.query(`CREATE INDEX "resource_search_vector_idx" ON "resource_search" USING gin ("vector")`);

    await queryRunner.query(`DROP TRIGGER "resource_search_words_update" ON "resource"`);
    await queryRunner.query(`DROP TRIGGER "resource_search_words_insert" ON "resource"`);
    await queryRunner.query(`DROP FUNCTION "search_collect_words"()`);
    await queryRunner.query(searchIndexFunction());
    await queryRunner.query(`
      CREATE TRIGGER "resource_search_index" AFTER INSERT OR UPDATE OR DELETE ON "resource"
      FOR EACH ROW EXECUTE FUNCTION "search_index_resource"()`);

    await queryRunner.query(`ALTER TABLE "resource" ${SEARCH_CONFIGS.map((c) => `DROP COLUMN "search_${c}"`).join(', ')}`);
    // The rows are narrow again: PostgreSQL's default TOAST threshold applies (set for the vectors by 1763700000005).
    await queryRunner.query(`ALTER TABLE "resource" RESET (toast_tuple_target)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER IF EXISTS "resource_search_index" ON "resource"`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS "search_index_resource"()`);
    await queryRunner.query(`DROP TABLE IF EXISTS "resource_search"`);
    // Back to 1763700000005's shape: the stored columns, their indexes and the vocabulary triggers.
    await queryRunner.query(`ALTER TABLE "resource" SET (toast_tuple_target = 8160)`);
    await queryRunner.query(
      `ALTER TABLE "resource" ${SEARCH_CONFIGS.map((c) => `ADD COLUMN "search_${c}" tsvector GENERATED ALWAYS AS (${searchVector(c)}) STORED`).join(', ')}`,
    );
    for (const config of SEARCH_CONFIGS) {
      await queryRunner.query(`CREATE INDEX "resource_search_${config}_idx" ON "resource" USING gin ("search_${config}")`);
    }
    await createVocabularyTriggers(queryRunner);
  }
}

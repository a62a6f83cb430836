import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Full-text search (GET /{projectKey}/resource/searchApiPattern). 1763700000006 moves the vectors to
 * the `resource_search` table (kept by a trigger) and drops these columns.
 *
 * - One stored, generated `tsvector` column per configured language, each with a GIN index: PostgreSQL
 *   computes them in the same statement as every write, so a search right after a write sees it, and
 *   ranking reads the stored vector instead of re-parsing the text. Weights: key A, someProperty and
 *   secondPropertyToUpdate B, arrayOfStringExample C.
 * - `search_word`: every word (lower-cased, unstemmed, without digits: ids and numbers match exactly)
 *   ever written in a project, filled by a trigger in
 *   the writing transaction. Fuzzy search finds a query word's neighbours there by Levenshtein distance
 *   and searches for them too. Rows are only added (`ON CONFLICT DO NOTHING` takes no lock on an
 *   existing word, so writers never queue on popular words); a word no resource holds any more only
 *   adds an alternative that matches nothing.
 */
export const SEARCH_CONFIGS = ['english', 'german', 'french', 'spanish', 'italian', 'dutch', 'portuguese', 'simple'] as const;

/**
 * A resource's vector in the configuration that the SQL expression `configuration` (a `regconfig`)
 * names; `row` qualifies the columns (`NEW.` in a trigger).
 */
export const searchVectorIn = (configuration: string, row = '') => `
  setweight(to_tsvector(${configuration}, coalesce(${row}"key", '')), 'A') ||
  setweight(to_tsvector(${configuration}, coalesce(${row}"some_property", '') || ' ' || coalesce(${row}"second_property_to_update", '')), 'B') ||
  setweight(to_tsvector(${configuration}, coalesce(${row}"object_type_property" -> 'arrayOfStringExample', '[]'::jsonb)), 'C')`;

/** A resource's vector in one configuration named by a constant; `row` qualifies the columns (`NEW.` in a trigger). */
export const searchVector = (config: string, row = '') => searchVectorIn(`'${config}'::regconfig`, row);

/** The triggers that add a written resource's words to `search_word` (replaced by 1763700000006's; its `down` restores them). */
export async function createVocabularyTriggers(queryRunner: QueryRunner): Promise<void> {
  await queryRunner.query(`
    CREATE FUNCTION "search_collect_words"() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO "search_word" ("project_key", "word")
      SELECT NEW."project_key", w FROM unnest(tsvector_to_array(NEW."search_simple")) AS w
      WHERE char_length(w) <= 64 AND w !~ '[0-9]' ORDER BY w
      ON CONFLICT DO NOTHING;
      RETURN NULL;
    END $$`);
  await queryRunner.query(`
    CREATE TRIGGER "resource_search_words_insert" AFTER INSERT ON "resource"
    FOR EACH ROW EXECUTE FUNCTION "search_collect_words"()`);
  await queryRunner.query(`
    CREATE TRIGGER "resource_search_words_update" AFTER UPDATE ON "resource"
    FOR EACH ROW WHEN (OLD."search_simple" IS DISTINCT FROM NEW."search_simple") EXECUTE FUNCTION "search_collect_words"()`);
}

export class Search1763700000005 implements MigrationInterface {
  name = 'Search1763700000005';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The embedded database loads both in every opener (embedded-postgres.ts); PostgreSQL ships them in contrib.
    await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS "fuzzystrmatch"`);
    await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS "pg_trgm"`);
    // With eight vectors a typical row passes the default 2 kB TOAST threshold: PostgreSQL would then
    // compress the document (decompressed again by every filter and facet that reads it) and move
    // vectors out of line (an extra index lookup per match when ranking). Rows up to a page stay whole.
    await queryRunner.query(`ALTER TABLE "resource" SET (toast_tuple_target = 8160)`);
    await queryRunner.query(
      `ALTER TABLE "resource" ${SEARCH_CONFIGS.map((c) => `ADD COLUMN "search_${c}" tsvector GENERATED ALWAYS AS (${searchVector(c)}) STORED`).join(', ')}`,
    );
    for (const config of SEARCH_CONFIGS) {
      await queryRunner.query(`CREATE INDEX "resource_search_${config}_idx" ON "resource" USING gin ("search_${config}")`);
    }
    await queryRunner.query(`
      CREATE TABLE "search_word" (
        "project_key" varchar(36) NOT NULL,
        "word" varchar(64) NOT NULL,
        CONSTRAINT "search_word_pkey" PRIMARY KEY ("project_key", "word")
      )`);
    // Fuzzy candidates: words of about the query word's length, judged by levenshtein_less_equal.
    await queryRunner.query(`CREATE INDEX "search_word_length_idx" ON "search_word" ("project_key", char_length("word"))`);
    await createVocabularyTriggers(queryRunner);
    // Words of the resources that existed before this migration.
    await queryRunner.query(`
      INSERT INTO "search_word" ("project_key", "word")
      SELECT DISTINCT r."project_key", w FROM "resource" r, unnest(tsvector_to_array(r."search_simple")) AS w
      WHERE char_length(w) <= 64 AND w !~ '[0-9]'
      ON CONFLICT DO NOTHING`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER IF EXISTS "resource_search_words_update" ON "resource"`);
    await queryRunner.query(`DROP TRIGGER IF EXISTS "resource_search_words_insert" ON "resource"`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS "search_collect_words"()`);
    await queryRunner.query(`DROP TABLE IF EXISTS "search_word"`);
    await queryRunner.query(`ALTER TABLE "resource" ${SEARCH_CONFIGS.map((c) => `DROP COLUMN IF EXISTS "search_${c}"`).join(', ')}`);
    await queryRunner.query(`ALTER TABLE "resource" RESET (toast_tuple_target)`);
  }
}

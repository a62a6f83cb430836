import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SEARCH_CONFIGS, searchVectorIn } from './1763700000005-search.js';
import { SEARCH_INDEX_FUNCTION, SEARCH_INDEX_UNCHANGED_TEXTS, SEARCH_VALUE_COLUMNS } from './1763700000007-search-values.js';

/**
 * Only the languages the server is configured to index (`SEARCH_LANGUAGES`) get `resource_search`
 * rows, plus `simple` (words without stemming: every other language, and searches without text).
 *
 * Why: every write inserted or rewrote eight rows, one per configuration, each with its vector, its
 * GIN entries and a copy of the values; that made a resource insert cost about five times a plain row
 * insert. With the default (English) a write keeps two rows.
 *
 * - `search_language` lists the configurations that are indexed. The trigger writes one row per listed
 *   configuration, so the set can change without a new trigger.
 * - `search_index_language(config)` indexes every existing resource in one configuration, and
 *   `search_unindex_language(config)` empties its partition; the server calls them at start-up when
 *   `SEARCH_LANGUAGES` differs from the table (src/search/search-languages.ts), holding a SHARE lock on
 *   `resource` so no write slips between the list and the rows.
 * - The fuzzy vocabulary takes the words of the `simple` vector the statement has just written
 *   instead of computing that vector a second time.
 *
 * Every configuration is listed at first: the rows of all eight exist (1763700000006), and the server
 * removes the ones it does not index on its first start.
 */

const VALUE_COLUMNS = SEARCH_VALUE_COLUMNS.map((c) => `"${c.column}"`).join(', ');
const valuesOf = (row: string) => SEARCH_VALUE_COLUMNS.map((c) => `${c.of(row)} AS "${c.column}"`).join(',\n             ');
const ON_CONFLICT = `ON CONFLICT ("resource_id", "config") DO UPDATE SET "published" = EXCLUDED."published", "key" = EXCLUDED."key", "vector" = EXCLUDED."vector",
      ${SEARCH_VALUE_COLUMNS.map((c) => `"${c.column}" = EXCLUDED."${c.column}"`).join(', ')}`;

/** The fuzzy vocabulary: the words of the `simple` vector that the statement's `written` returned (also 1763700000016's). */
export const VOCABULARY_OF_WRITTEN = `    INSERT INTO "search_word" ("project_key", "word")
    SELECT NEW."project_key", w FROM written, unnest(tsvector_to_array(written."vector")) AS w
    WHERE written."config" = 'simple' AND char_length(w) <= 64 AND w !~ '[0-9]' ORDER BY w
    ON CONFLICT DO NOTHING;`;

/** This migration's trigger function (1763700000016's `down` restores it). */
export const SEARCH_INDEX_FUNCTION_8 = `
  CREATE OR REPLACE FUNCTION "search_index_resource"() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
${SEARCH_INDEX_UNCHANGED_TEXTS}    WITH written AS (
      INSERT INTO "resource_search" ("resource_id", "config", "project_key", "published", "key", "created_at", ${VALUE_COLUMNS}, "vector")
      SELECT NEW."id", l."config", NEW."project_key", NEW."published", NEW."key", NEW."created_at", ${SEARCH_VALUE_COLUMNS.map((c) => `v."${c.column}"`).join(', ')},
             ${searchVectorIn('l."config"::regconfig', 'NEW.')}
      FROM (SELECT ${valuesOf('NEW.')}) v, "search_language" l
      ${ON_CONFLICT}
      RETURNING "config", "vector"
    )
${VOCABULARY_OF_WRITTEN}
    RETURN NULL;
  END $$`;

/** Indexes every resource in one configuration (the caller has listed it in `search_language`); 1763700000016's `down` restores it. */
export const SEARCH_INDEX_LANGUAGE_FUNCTION = `
  CREATE OR REPLACE FUNCTION "search_index_language"("language" text) RETURNS void LANGUAGE sql AS $$
    INSERT INTO "resource_search" ("resource_id", "config", "project_key", "published", "key", "created_at", ${VALUE_COLUMNS}, "vector")
    SELECT r."id", "language", r."project_key", r."published", r."key", r."created_at", ${SEARCH_VALUE_COLUMNS.map((c) => `v."${c.column}"`).join(', ')},
           ${searchVectorIn('"language"::regconfig', 'r.')}
    FROM "resource" r, LATERAL (SELECT ${valuesOf('r.')}) v
    ${ON_CONFLICT}
  $$`;

/** Empties one configuration's partition (its name is the configuration's, see 1763700000006). */
const SEARCH_UNINDEX_LANGUAGE_FUNCTION = `
  CREATE FUNCTION "search_unindex_language"("language" text) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    EXECUTE format('TRUNCATE %I', 'resource_search_' || "language");
  END $$`;

export class SearchLanguages1763700000008 implements MigrationInterface {
  name = 'SearchLanguages1763700000008';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "search_language" ("config" text PRIMARY KEY)`);
    await queryRunner.query(`INSERT INTO "search_language" ("config") VALUES ${SEARCH_CONFIGS.map((c) => `('${c}')`).join(', ')}`);
    await queryRunner.query(SEARCH_INDEX_LANGUAGE_FUNCTION);
    await queryRunner.query(SEARCH_UNINDEX_LANGUAGE_FUNCTION);
    await queryRunner.query(SEARCH_INDEX_FUNCTION_8);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Back to rows in every configuration: index the resources in those that were not listed.
    await queryRunner.query(`SET LOCAL statement_timeout = 0`);
    await queryRunner.query(`LOCK TABLE "resource" IN SHARE MODE`);
    await queryRunner.query(
      `SELECT "search_index_language"(c) FROM unnest(ARRAY[${SEARCH_CONFIGS.map((c) => `'${c}'`).join(', ')}]) c
       WHERE c NOT IN (SELECT "config" FROM "search_language")`,
    );
    await queryRunner.query(SEARCH_INDEX_FUNCTION);
    await queryRunner.query(`DROP FUNCTION "search_unindex_language"(text)`);
    await queryRunner.query(`DROP FUNCTION "search_index_language"(text)`);
    await queryRunner.query(`DROP TABLE "search_language"`);
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fuzzy search finds a query word's neighbours in `search_word` through a trigram index instead of
 * judging every word of about the same length (SearchRepository.findNeighbours has the bound that
 * makes the index exact).
 *
 * Why: the length scan read every word within the query word's distance in length: with a vocabulary
 * of 60,000 words that is about 28,000 Levenshtein checks for a word of 8 letters (about 5 ms a word,
 * and a text may have 20 words). The trigram index yields a few hundred candidates.
 *
 * - `search_word_trigram_idx`: GIN on (project, word trigrams); `btree_gin` lets the project be a key of
 *   the same index, so one project's lookup does not read the other projects' words. The embedded
 *   database loads `btree_gin` in every opener (embedded-postgres.ts); PostgreSQL ships it in contrib.
 * - `search_word_other_length_idx`: the words that are not plain `a–z` (`foo-bar`, `häuser`), by length.
 *   pg_trgm splits words at characters it does not count as letters (which depends on the locale), so
 *   the bound holds for plain words only: the other words are still judged by length, from this small index.
 */
export class SearchWordTrigrams1763700000009 implements MigrationInterface {
  name = 'SearchWordTrigrams1763700000009';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS "btree_gin"`);
    await queryRunner.query(`SET LOCAL statement_timeout = 0`);
    await queryRunner.query(`CREATE INDEX "search_word_trigram_idx" ON "search_word" USING gin ("project_key", "word" gin_trgm_ops)`);
    await queryRunner.query(
      `CREATE INDEX "search_word_other_length_idx" ON "search_word" ("project_key", char_length("word")) WHERE "word" !~ '^[a-z]+$'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS "search_word_other_length_idx"`);
    await queryRunner.query(`DROP INDEX IF EXISTS "search_word_trigram_idx"`);
    // btree_gin stays: dropping an extension another object may have come to use is not this migration's call.
  }
}

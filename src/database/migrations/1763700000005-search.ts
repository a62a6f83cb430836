import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Full-text and trigram search indexes. */
export class Search1763700000005 implements MigrationInterface {
  name = 'Search1763700000005';

  async up(_queryRunner: QueryRunner): Promise<void> {}

  async down(_queryRunner: QueryRunner): Promise<void> {}
}

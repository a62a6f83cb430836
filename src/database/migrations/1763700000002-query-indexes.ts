import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Indexes of the query endpoint (sorted-query-parameters). */
export class QueryIndexes1763700000002 implements MigrationInterface {
  name = 'QueryIndexes1763700000002';

  async up(_queryRunner: QueryRunner): Promise<void> {}

  async down(_queryRunner: QueryRunner): Promise<void> {}
}

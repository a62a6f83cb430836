import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Namespace-action key-value store and complex-path records. */
export class NamespaceActions1763700000004 implements MigrationInterface {
  name = 'NamespaceActions1763700000004';

  async up(_queryRunner: QueryRunner): Promise<void> {}

  async down(_queryRunner: QueryRunner): Promise<void> {}
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Image bytes, image jobs. */
export class Images1763700000003 implements MigrationInterface {
  name = 'Images1763700000003';

  async up(_queryRunner: QueryRunner): Promise<void> {}

  async down(_queryRunner: QueryRunner): Promise<void> {}
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One GIN index over a resource's document instead of two. `resource_object_type_property_idx` (the
 * first migration) served only the containment filters of GET and HEAD /resource; they now read
 * `resource_project_document_idx` (1763700000002, the query predicates' index), which finds only the
 * project's resources.
 *
 * Why: every write of a resource (a create, and an update, which is never a HOT update) inserted the
 * document's entries, about 90 for a 1 KB document, into both indexes. On a migrated database with two
 * languages indexed, the index cost an update 2.2 KB of its 10–12 KB of write-ahead log and an insert
 * 1.0–1.7 KB of its 11–13 KB, and took 14 MB per 20,000 resources.
 */
export class OneDocumentIndex1763700000015 implements MigrationInterface {
  name = 'OneDocumentIndex1763700000015';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS "resource_object_type_property_idx"`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`SET LOCAL statement_timeout = 0`);
    await queryRunner.query(`CREATE INDEX "resource_object_type_property_idx" ON "resource" USING gin ("object_type_property" jsonb_path_ops)`);
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * API extensions (docs/extensions.md): a project's own HTTP endpoints called before a resource write.
 * `extension_revision` counts the changes of a project's extensions; every server process keeps the
 * extensions of the projects it writes in memory and polls the revisions changed lately, so a change made
 * through another process applies within two seconds without a read per write.
 */
export class Extensions1763700000030 implements MigrationInterface {
  name = 'Extensions1763700000030';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "extension" (
        "id" uuid NOT NULL,
        "project_key" varchar(36) NOT NULL,
        "key" varchar(256),
        "version" integer NOT NULL DEFAULT 1,
        "destination" jsonb NOT NULL,
        "triggers" jsonb NOT NULL,
        "timeout_in_ms" integer NOT NULL,
        "created_at" timestamptz(3) NOT NULL DEFAULT now(),
        "last_modified_at" timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT "extension_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "extension_project_key_key" UNIQUE ("project_key", "key")
      )`);
    await queryRunner.query(`CREATE INDEX "extension_project_created_idx" ON "extension" ("project_key", "created_at", "id")`);
    await queryRunner.query(`
      CREATE TABLE "extension_revision" (
        "project_key" varchar(36) NOT NULL,
        "revision" bigint NOT NULL,
        "changed_at" timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT "extension_revision_pkey" PRIMARY KEY ("project_key")
      )`);
    await queryRunner.query(`CREATE INDEX "extension_revision_changed_idx" ON "extension_revision" ("changed_at")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "extension_revision"`);
    await queryRunner.query(`DROP TABLE "extension"`);
  }
}

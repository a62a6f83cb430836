import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateResource1763700000000 implements MigrationInterface {
  name = 'CreateResource1763700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "resource" (
        "id" uuid NOT NULL,
        "project_key" varchar(36) NOT NULL,
        "key" varchar(256),
        "version" integer NOT NULL,
        "created_at" timestamptz(3) NOT NULL,
        "last_modified_at" timestamptz(3) NOT NULL,
        "created_by" jsonb NOT NULL,
        "last_modified_by" jsonb NOT NULL,
        "published" boolean NOT NULL DEFAULT true,
        "object_type_property" jsonb NOT NULL,
        "some_property" text,
        "second_property_to_update" text,
        "images" jsonb NOT NULL DEFAULT '[]',
        CONSTRAINT "resource_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "resource_project_key_key_unique" UNIQUE ("project_key", "key")
      )`);
    await queryRunner.query(
      `CREATE INDEX "resource_project_created_idx" ON "resource" ("project_key", "created_at", "id")`,
    );
    // Containment filters (`@>`) of GET/HEAD /resource; an operator class TypeORM's @Index cannot express.
    await queryRunner.query(
      `CREATE INDEX "resource_object_type_property_idx" ON "resource" USING gin ("object_type_property" jsonb_path_ops)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "resource"`);
  }
}

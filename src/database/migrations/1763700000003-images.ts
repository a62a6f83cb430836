import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Image bytes, image metadata, image jobs (docs/rules.md#images).
 * - `image_blob`: the bytes of the database store, once per (project, sha256); never read by resource
 *   queries. Images are compressed already, so TOAST stores them without trying to compress again.
 * - `image`: every accepted image (id → project, resource, bytes, and the Image object as attached).
 *   No foreign key to `image_blob`: the bytes may live in another store.
 * - `image_job`: images accepted with 202 and not attached yet; workers claim rows with
 *   `FOR UPDATE SKIP LOCKED`, and the attach deletes the row in the same transaction.
 */
export class Images1763700000003 implements MigrationInterface {
  name = 'Images1763700000003';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "image_blob" (
        "project_key" varchar(36) NOT NULL,
        "sha256" char(64) NOT NULL,
        "size" integer NOT NULL,
        "data" bytea NOT NULL,
        "created_at" timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT "image_blob_pkey" PRIMARY KEY ("project_key", "sha256")
      )`);
    await queryRunner.query(`ALTER TABLE "image_blob" ALTER COLUMN "data" SET STORAGE EXTERNAL`);
    await queryRunner.query(`
      CREATE TABLE "image" (
        "id" uuid NOT NULL,
        "project_key" varchar(36) NOT NULL,
        "resource_id" uuid NOT NULL,
        "sha256" char(64) NOT NULL,
        "content_type" varchar(32) NOT NULL,
        "size" integer NOT NULL,
        "image" jsonb NOT NULL,
        "created_at" timestamptz(3) NOT NULL,
        CONSTRAINT "image_pkey" PRIMARY KEY ("id")
      )`);
    await queryRunner.query(`
      CREATE TABLE "image_job" (
        "image_id" uuid NOT NULL,
        "project_key" varchar(36) NOT NULL,
        "resource_id" uuid NOT NULL,
        "modified_by" jsonb NOT NULL,
        "attempts" integer NOT NULL DEFAULT 0,
        "run_after" timestamptz(3) NOT NULL DEFAULT now(),
        "last_error" text,
        "created_at" timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT "image_job_pkey" PRIMARY KEY ("image_id"),
        CONSTRAINT "image_job_image_fkey" FOREIGN KEY ("image_id") REFERENCES "image" ("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(`CREATE INDEX "image_job_run_after_idx" ON "image_job" ("run_after", "created_at")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "image_job"`);
    await queryRunner.query(`DROP TABLE "image"`);
    await queryRunner.query(`DROP TABLE "image_blob"`);
  }
}

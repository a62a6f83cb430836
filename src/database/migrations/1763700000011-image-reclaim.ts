import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deleting a resource deletes its images, and image bytes no image uses any more are reclaimed
 * (docs/rules.md#images).
 *
 * - `resource_delete_images`: AFTER DELETE on `resource`, in the deleting statement's transaction: the
 *   resource's `image` rows go with it (their pending `image_job` rows cascade), so an image URL answers
 *   404 as soon as the delete has answered, whichever statement deleted the resource.
 * - `image_blob_check`: bytes to look at again. Every deleted `image` row (`image_blob_check_on_delete`)
 *   and every store of bytes (DatabaseImageStore.put, which also covers an upload whose resource was
 *   deleted meanwhile) records its (project, sha256) with the time. The images worker later deletes the
 *   blob of each entry older than `IMAGES_BLOB_RECLAIM_DELAY_MS` that no `image` row names: bytes two
 *   images share are kept as long as one of them exists.
 *   Why a delay and not a delete in the trigger: an upload stores its bytes, then records its image in a
 *   second statement; a blob deleted in between (its last other user deleted meanwhile) would leave the
 *   new image without bytes. The store refreshes the entry's time first, so the worker never judges a
 *   blob an upload is about to use.
 * - `image_resource_idx`, `image_blob_ref_idx`: the trigger's and the check's lookups by index.
 * - Images of resources deleted before this migration are deleted here (and so checked later).
 */
export class ImageReclaim1763700000011 implements MigrationInterface {
  name = 'ImageReclaim1763700000011';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "image_resource_idx" ON "image" ("resource_id")`);
    await queryRunner.query(`CREATE INDEX "image_blob_ref_idx" ON "image" ("project_key", "sha256")`);
    await queryRunner.query(`
      CREATE TABLE "image_blob_check" (
        "project_key" varchar(36) NOT NULL,
        "sha256" char(64) NOT NULL,
        "since" timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT "image_blob_check_pkey" PRIMARY KEY ("project_key", "sha256")
      )`);
    await queryRunner.query(`CREATE INDEX "image_blob_check_since_idx" ON "image_blob_check" ("since")`);
    await queryRunner.query(`
      CREATE FUNCTION "image_blob_check_on_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          INSERT INTO "image_blob_check" ("project_key", "sha256") VALUES (OLD."project_key", OLD."sha256")
          ON CONFLICT ("project_key", "sha256") DO UPDATE SET "since" = now();
          RETURN NULL;
        END $$`);
    await queryRunner.query(`
      CREATE TRIGGER "image_blob_check_on_delete" AFTER DELETE ON "image"
      FOR EACH ROW EXECUTE FUNCTION "image_blob_check_on_delete"()`);
    await queryRunner.query(`
      CREATE FUNCTION "resource_delete_images"() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          DELETE FROM "image" WHERE "resource_id" = OLD."id" AND "project_key" = OLD."project_key";
          RETURN NULL;
        END $$`);
    await queryRunner.query(`
      CREATE TRIGGER "resource_delete_images" AFTER DELETE ON "resource"
      FOR EACH ROW EXECUTE FUNCTION "resource_delete_images"()`);
    await queryRunner.query(`DELETE FROM "image" i WHERE NOT EXISTS (SELECT 1 FROM "resource" r WHERE r."id" = i."resource_id")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "resource_delete_images" ON "resource"`);
    await queryRunner.query(`DROP FUNCTION "resource_delete_images"()`);
    await queryRunner.query(`DROP TRIGGER "image_blob_check_on_delete" ON "image"`);
    await queryRunner.query(`DROP FUNCTION "image_blob_check_on_delete"()`);
    await queryRunner.query(`DROP TABLE "image_blob_check"`);
    await queryRunner.query(`DROP INDEX "image_blob_ref_idx"`);
    await queryRunner.query(`DROP INDEX "image_resource_idx"`);
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The change log (docs/change-log-and-subscriptions.md#change-log): messages and version history, written by the same statement as the
 * write they record (resource.repository.ts, images.repository.ts).
 *
 * - `resource.message_sequence`: the sequence number of the resource's last message. A write adds its
 *   messages' count to it under the row's lock, so a resource's numbers are 1, 2, 3… whatever the
 *   concurrency; `message_resource_sequence_key` refuses a repeat outright. Resources written before this
 *   migration start at 0 (their first message is 1).
 * - `message`: one row per message. `payload` is the type's own members as JSON text without the braces
 *   (`"someProperty":"a","oldSomeProperty":"b"`, empty for none), appended to the common members when a
 *   message is read; text keeps 64-bit integers and the members' order exactly as written. `change_id` is
 *   one id per write, shared by its messages: the id of the write's change notification (docs/change-log-and-subscriptions.md#subscriptions).
 * - `resource_version`: every version as GET by id answered it right after the write (`representation`,
 *   JSON text), with who wrote it and the message types of the write. Deleted resources keep theirs.
 * - BRIN indexes on the timestamps: the retention job deletes the oldest rows in small batches, and rows
 *   arrive in time order, so a BRIN index finds them for almost nothing on every write.
 */
export class ChangeLog1763700000010 implements MigrationInterface {
  name = 'ChangeLog1763700000010';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "resource" ADD COLUMN "message_sequence" integer NOT NULL DEFAULT 0`);
    await queryRunner.query(`
      CREATE TABLE "message" (
        "id" uuid NOT NULL,
        "project_key" varchar(36) NOT NULL,
        "resource_id" uuid NOT NULL,
        "resource_version" integer NOT NULL,
        "sequence_number" integer NOT NULL,
        "resource_key" varchar(256),
        "type" varchar(64) NOT NULL,
        "created_at" timestamptz(3) NOT NULL,
        "created_by" jsonb NOT NULL,
        "payload" text NOT NULL DEFAULT '',
        "change_id" uuid NOT NULL DEFAULT gen_random_uuid(),
        CONSTRAINT "message_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "message_resource_sequence_key" UNIQUE ("resource_id", "sequence_number")
      )`);
    await queryRunner.query(`CREATE INDEX "message_project_created_idx" ON "message" ("project_key", "created_at", "sequence_number", "id")`);
    await queryRunner.query(`CREATE INDEX "message_created_brin" ON "message" USING brin ("created_at")`);
    await queryRunner.query(`
      CREATE TABLE "resource_version" (
        "resource_id" uuid NOT NULL,
        "version" integer NOT NULL,
        "project_key" varchar(36) NOT NULL,
        "modified_at" timestamptz(3) NOT NULL,
        "modified_by" jsonb NOT NULL,
        "types" text[] NOT NULL,
        "representation" text NOT NULL,
        CONSTRAINT "resource_version_pkey" PRIMARY KEY ("resource_id", "version")
      )`);
    await queryRunner.query(`CREATE INDEX "resource_version_modified_brin" ON "resource_version" USING brin ("modified_at")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "resource_version"`);
    await queryRunner.query(`DROP TABLE "message"`);
    await queryRunner.query(`ALTER TABLE "resource" DROP COLUMN "message_sequence"`);
  }
}

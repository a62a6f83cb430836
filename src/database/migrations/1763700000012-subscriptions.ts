import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Subscriptions and their delivery state (docs/change-log-and-subscriptions.md#subscriptions). Nothing here is written by the resource
 * writes: the dispatcher (src/subscriptions/dispatcher.ts) reads the change log (`message`, migration 10)
 * after the fact, so subscriptions cost the write path nothing.
 *
 * - `subscription`: `destination` is the destination as answered (an HTTP secret masked, a broker URI
 *   without its password); `credentials` holds what delivery needs and the API never shows (the webhook
 *   secret, the broker URI with its password). They are stored in clear: the server must sign and log in
 *   with them, so a key to encrypt them would live beside the database anyway. Protect the database (disk
 *   encryption, access) as for the API clients' hashes.
 * - `subscription_progress`: per (subscription, resource), the sequence number of the resource's last
 *   message turned into notifications. A resource's messages commit in sequence order (each write holds
 *   the resource's row lock until its commit), so "every message above this number" is exactly what is
 *   still to come for that stream, however late a slow transaction commits.
 * - `subscription_notification`: the queue, one row per notification still to deliver. `ordinal` orders
 *   a stream (a message: 2 × its sequence number; a change: 2 × the write's last sequence number + 1,
 *   after the write's messages); the primary key makes queuing idempotent. Only a stream's first row is
 *   ever claimed (`due_at` pushed ahead while a process holds it), so a resource's next notification waits
 *   until the previous one was accepted. `payload` is the Platform payload, JSON text kept exactly.
 * - `subscription_status`: the last delivery and the last error of a subscription, for its health.
 * - `subscription_dispatch`: one row, the change log position the dispatchers scanned to; its row lock
 *   makes one process at a time turn messages into notifications.
 */
export class Subscriptions1763700000012 implements MigrationInterface {
  name = 'Subscriptions1763700000012';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "subscription" (
        "id" uuid NOT NULL,
        "project_key" varchar(36) NOT NULL,
        "key" varchar(256),
        "version" integer NOT NULL DEFAULT 1,
        "destination" jsonb NOT NULL,
        "credentials" jsonb NOT NULL DEFAULT '{}',
        "messages" jsonb NOT NULL DEFAULT '[]',
        "changes" jsonb NOT NULL DEFAULT '[]',
        "format" jsonb NOT NULL,
        "created_at" timestamptz(3) NOT NULL DEFAULT now(),
        "last_modified_at" timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT "subscription_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "subscription_project_key_key" UNIQUE ("project_key", "key")
      )`);
    await queryRunner.query(`CREATE INDEX "subscription_project_created_idx" ON "subscription" ("project_key", "created_at", "id")`);
    await queryRunner.query(`
      CREATE TABLE "subscription_progress" (
        "subscription_id" uuid NOT NULL REFERENCES "subscription" ("id") ON DELETE CASCADE,
        "resource_id" uuid NOT NULL,
        "last_sequence" integer NOT NULL,
        CONSTRAINT "subscription_progress_pkey" PRIMARY KEY ("subscription_id", "resource_id")
      )`);
    await queryRunner.query(`
      CREATE TABLE "subscription_notification" (
        "subscription_id" uuid NOT NULL REFERENCES "subscription" ("id") ON DELETE CASCADE,
        "resource_id" uuid NOT NULL,
        "ordinal" bigint NOT NULL,
        "id" uuid NOT NULL,
        "type" varchar(80) NOT NULL,
        "sequence_number" integer NOT NULL,
        "created_at" timestamptz(3) NOT NULL,
        "payload" text NOT NULL,
        "due_at" timestamptz(3) NOT NULL DEFAULT now(),
        "attempts" integer NOT NULL DEFAULT 0,
        "last_error" text,
        "last_error_at" timestamptz(3),
        "error_kind" varchar(32),
        CONSTRAINT "subscription_notification_pkey" PRIMARY KEY ("subscription_id", "resource_id", "ordinal")
      )`);
    await queryRunner.query(`CREATE INDEX "subscription_notification_due_idx" ON "subscription_notification" ("due_at")`);
    await queryRunner.query(`
      CREATE TABLE "subscription_status" (
        "subscription_id" uuid NOT NULL REFERENCES "subscription" ("id") ON DELETE CASCADE,
        "last_delivered_at" timestamptz(3),
        "last_error_at" timestamptz(3),
        "last_error" text,
        CONSTRAINT "subscription_status_pkey" PRIMARY KEY ("subscription_id")
      )`);
    await queryRunner.query(`
      CREATE TABLE "subscription_dispatch" (
        "id" smallint NOT NULL,
        "scanned_to" timestamptz(3) NOT NULL,
        "swept_at" timestamptz(3) NOT NULL,
        CONSTRAINT "subscription_dispatch_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "subscription_dispatch_one_row" CHECK ("id" = 1)
      )`);
    await queryRunner.query(`INSERT INTO "subscription_dispatch" ("id", "scanned_to", "swept_at") VALUES (1, now(), now())`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "subscription_dispatch"`);
    await queryRunner.query(`DROP TABLE "subscription_status"`);
    await queryRunner.query(`DROP TABLE "subscription_notification"`);
    await queryRunner.query(`DROP TABLE "subscription_progress"`);
    await queryRunner.query(`DROP TABLE "subscription"`);
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateAuth1763700000001 implements MigrationInterface {
  name = 'CreateAuth1763700000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "signing_key" (
        "kid" varchar(64) NOT NULL,
        "private_key" text NOT NULL,
        "public_jwk" jsonb NOT NULL,
        "created_at" timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT "signing_key_pkey" PRIMARY KEY ("kid")
      )`);
    await queryRunner.query(`
      CREATE TABLE "api_client" (
        "id" varchar(64) NOT NULL,
        "project_key" varchar(36) NOT NULL,
        "name" varchar(256) NOT NULL,
        "secret_hash" text NOT NULL,
        "scope" text NOT NULL,
        "customer_id" varchar(256),
        "created_at" timestamptz(3) NOT NULL DEFAULT now(),
        "last_used_at" timestamptz(3),
        CONSTRAINT "api_client_pkey" PRIMARY KEY ("id")
      )`);
    await queryRunner.query(`CREATE INDEX "api_client_project_idx" ON "api_client" ("project_key", "created_at", "id")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "api_client"`);
    await queryRunner.query(`DROP TABLE "signing_key"`);
  }
}

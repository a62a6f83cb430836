import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Namespace-action key-value store and complex-path records. */
export class NamespaceActions1763700000004 implements MigrationInterface {
  name = 'NamespaceActions1763700000004';

  async up(queryRunner: QueryRunner): Promise<void> {
    // One JSON value per project and key (the `store` handler); `version` counts its writes.
    await queryRunner.query(`
      CREATE TABLE "action_store_entry" (
        "project_key" varchar(36) NOT NULL,
        "key" varchar(256) NOT NULL,
        "value" jsonb NOT NULL,
        "version" integer NOT NULL,
        "created_at" timestamptz(3) NOT NULL,
        "last_modified_at" timestamptz(3) NOT NULL,
        CONSTRAINT "action_store_entry_pkey" PRIMARY KEY ("project_key", "key")
      )`);
    // The complex-path POST's records, under (projectKey, uriParameterOne, uriParameterTwo, id).
    await queryRunner.query(`
      CREATE TABLE "complex_path_record" (
        "project_key" varchar(36) NOT NULL,
        "uri_parameter_one" varchar(200) NOT NULL,
        "uri_parameter_two" varchar(200) NOT NULL,
        "record_id" varchar(200) NOT NULL,
        "revision" integer NOT NULL,
        "body" jsonb NOT NULL,
        "created_at" timestamptz(3) NOT NULL,
        "last_modified_at" timestamptz(3) NOT NULL,
        CONSTRAINT "complex_path_record_pkey" PRIMARY KEY ("project_key", "uri_parameter_one", "uri_parameter_two", "record_id")
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "complex_path_record"`);
    await queryRunner.query(`DROP TABLE "action_store_entry"`);
  }
}

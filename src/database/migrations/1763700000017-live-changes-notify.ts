import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Live changes (docs/live-changes.md): a statement that inserts messages sends `NOTIFY live_messages` (no
 * payload; PostgreSQL folds a transaction's identical notifications into one), delivered to the listening
 * server processes when the transaction commits, so their streams read the change log at once instead of
 * at the next poll. A statement-level trigger: one notification per writing statement whatever its
 * message count, and the write statements themselves stay as they are.
 */
export class LiveChangesNotify1763700000017 implements MigrationInterface {
  name = 'LiveChangesNotify1763700000017';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION "live_messages_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('live_messages', '');
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER "message_live_notify" AFTER INSERT ON "message" FOR EACH STATEMENT EXECUTE FUNCTION "live_messages_notify"()`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "message_live_notify" ON "message"`);
    await queryRunner.query(`DROP FUNCTION "live_messages_notify"()`);
  }
}

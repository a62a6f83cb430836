import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The sweep for late commits (subscription.dispatcher.ts) no longer rescans the whole lookback in one
 * round every sweep interval: each round scans the next slice of it, and `sweep_cursor` is where the next
 * slice starts (NULL between two passes). `swept_at` is when the current or last pass began.
 */
export class SubscriptionSweepCursor1763700000014 implements MigrationInterface {
  name = 'SubscriptionSweepCursor1763700000014';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "subscription_dispatch" ADD COLUMN "sweep_cursor" timestamptz(3)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "subscription_dispatch" DROP COLUMN "sweep_cursor"`);
  }
}

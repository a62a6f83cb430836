import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `subscription_progress` holds one row per (subscription, resource) written since the subscription, for
 * ever unless pruned. The change log's retention prunes the rows of resources whose last message it has
 * just deleted (retention.repository.ts); this index finds them by resource. Stream positions of
 * resources with messages left are already there and stay.
 */
export class SubscriptionProgressPruning1763700000013 implements MigrationInterface {
  name = 'SubscriptionProgressPruning1763700000013';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "subscription_progress_resource_idx" ON "subscription_progress" ("resource_id")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "subscription_progress_resource_idx"`);
  }
}

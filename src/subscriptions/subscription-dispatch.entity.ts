import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One row (`id` = 1): the change-log position the dispatchers scanned to, and the sweep for late commits
 * (`sweep_cursor`: where its next slice starts, NULL between two passes). Its row lock makes one process at a
 * time turn messages into notifications.
 */
@Entity({ name: 'subscription_dispatch' })
@Check('subscription_dispatch_one_row', '"id" = 1')
export class SubscriptionDispatchEntity {
  @PrimaryColumn({ type: 'smallint', primaryKeyConstraintName: 'subscription_dispatch_pkey' })
  id: number;

  @Column({ name: 'scanned_to', type: 'timestamptz', precision: 3 })
  scannedTo: Date;

  @Column({ name: 'swept_at', type: 'timestamptz', precision: 3 })
  sweptAt: Date;

  @Column({ name: 'sweep_cursor', type: 'timestamptz', precision: 3, nullable: true })
  sweepCursor: Date | null;
}

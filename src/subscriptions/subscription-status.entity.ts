import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { SubscriptionEntity } from './subscription.entity.js';

/** The last delivery and the last error of a subscription, for its health. */
@Entity({ name: 'subscription_status' })
export class SubscriptionStatusEntity {
  @PrimaryColumn({ name: 'subscription_id', type: 'uuid', primaryKeyConstraintName: 'subscription_status_pkey' })
  @ForeignKey(() => SubscriptionEntity, { name: 'subscription_status_subscription_id_fkey', onDelete: 'CASCADE' })
  subscriptionId: string;

  @Column({ name: 'last_delivered_at', type: 'timestamptz', precision: 3, nullable: true })
  lastDeliveredAt: Date | null;

  @Column({ name: 'last_error_at', type: 'timestamptz', precision: 3, nullable: true })
  lastErrorAt: Date | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;
}

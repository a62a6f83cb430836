import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { SubscriptionEntity } from './subscription.entity.js';

/**
 * A notification still to deliver: the queue. `ordinal` orders a resource's stream; only a stream's first row
 * is ever claimed (`due_at` pushed ahead while a process holds it). `payload` is JSON text kept exactly.
 */
@Entity({ name: 'subscription_notification' })
@Index('subscription_notification_due_idx', ['dueAt'])
export class SubscriptionNotificationEntity {
  @PrimaryColumn({ name: 'subscription_id', type: 'uuid', primaryKeyConstraintName: 'subscription_notification_pkey' })
  @ForeignKey(() => SubscriptionEntity, { name: 'subscription_notification_subscription_id_fkey', onDelete: 'CASCADE' })
  subscriptionId: string;

  @PrimaryColumn({ name: 'resource_id', type: 'uuid', primaryKeyConstraintName: 'subscription_notification_pkey' })
  resourceId: string;

  /** A bigint: `pg` reads it as a string. */
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'subscription_notification_pkey' })
  ordinal: string;

  @Column({ type: 'uuid' })
  id: string;

  @Column({ type: 'varchar', length: 80 })
  type: string;

  @Column({ name: 'sequence_number', type: 'integer' })
  sequenceNumber: number;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ type: 'text' })
  payload: string;

  @Column({ name: 'due_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  dueAt: Date;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  @Column({ name: 'last_error_at', type: 'timestamptz', precision: 3, nullable: true })
  lastErrorAt: Date | null;

  @Column({ name: 'error_kind', type: 'varchar', length: 32, nullable: true })
  errorKind: string | null;
}

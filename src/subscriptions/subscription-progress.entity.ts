import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { SubscriptionEntity } from './subscription.entity.js';

/** Per subscription and resource, the sequence number of the resource's last message turned into notifications. */
@Entity({ name: 'subscription_progress' })
@Index('subscription_progress_resource_idx', ['resourceId'])
export class SubscriptionProgressEntity {
  @PrimaryColumn({ name: 'subscription_id', type: 'uuid', primaryKeyConstraintName: 'subscription_progress_pkey' })
  @ForeignKey(() => SubscriptionEntity, { name: 'subscription_progress_subscription_id_fkey', onDelete: 'CASCADE' })
  subscriptionId: string;

  @PrimaryColumn({ name: 'resource_id', type: 'uuid', primaryKeyConstraintName: 'subscription_progress_pkey' })
  resourceId: string;

  @Column({ name: 'last_sequence', type: 'integer' })
  lastSequence: number;
}

import { Column, Entity, Index, PrimaryColumn, Unique, VersionColumn } from 'typeorm';

/**
 * A subscription. `destination` is the destination as answered (secrets masked); `credentials` what delivery
 * needs and the API never shows.
 */
@Entity({ name: 'subscription' })
@Unique('subscription_project_key_key', ['projectKey', 'key'])
@Index('subscription_project_created_idx', ['projectKey', 'createdAt', 'id'])
export class SubscriptionEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'subscription_pkey' })
  id: string;

  @Column({ name: 'project_key', type: 'varchar', length: 36 })
  projectKey: string;

  @Column({ type: 'varchar', length: 256, nullable: true })
  key: string | null;

  @VersionColumn({ type: 'integer', default: 1 })
  version: number;

  @Column({ type: 'jsonb' })
  destination: Record<string, unknown>;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  credentials: Record<string, unknown>;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  messages: unknown[];

  @Column({ type: 'jsonb', default: () => "'[]'" })
  changes: unknown[];

  @Column({ type: 'jsonb' })
  format: Record<string, unknown>;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'last_modified_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  lastModifiedAt: Date;
}

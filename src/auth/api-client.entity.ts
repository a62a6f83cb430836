import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** An API client of a project: its secret is stored only as a scrypt hash. */
@Entity({ name: 'api_client' })
@Index('api_client_project_idx', ['projectKey', 'createdAt', 'id'])
export class ApiClientEntity {
  @PrimaryColumn({ type: 'varchar', length: 64, primaryKeyConstraintName: 'api_client_pkey' })
  id: string;

  @Column({ name: 'project_key', type: 'varchar', length: 36 })
  projectKey: string;

  @Column({ type: 'varchar', length: 256 })
  name: string;

  @Column({ name: 'secret_hash', type: 'text' })
  secretHash: string;

  /** Space-separated scopes `<name>:<projectKey>`. */
  @Column({ type: 'text' })
  scope: string;

  @Column({ name: 'customer_id', type: 'varchar', length: 256, nullable: true })
  customerId: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', precision: 3, nullable: true })
  lastUsedAt: Date | null;
}

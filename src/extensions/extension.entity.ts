import { Column, Entity, Index, PrimaryColumn, Unique, VersionColumn } from 'typeorm';

/** An extension of a project: the HTTP endpoint called before the resource writes its triggers name. */
@Entity({ name: 'extension' })
@Unique('extension_project_key_key', ['projectKey', 'key'])
@Index('extension_project_created_idx', ['projectKey', 'createdAt', 'id'])
export class ExtensionEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'extension_pkey' })
  id: string;

  @Column({ name: 'project_key', type: 'varchar', length: 36 })
  projectKey: string;

  @Column({ type: 'varchar', length: 256, nullable: true })
  key: string | null;

  @VersionColumn({ type: 'integer', default: 1 })
  version: number;

  /** The destination with its authentication header's value in clear (it is sent); every answer masks it. */
  @Column({ type: 'jsonb' })
  destination: Record<string, unknown>;

  @Column({ type: 'jsonb' })
  triggers: unknown[];

  @Column({ name: 'timeout_in_ms', type: 'integer' })
  timeoutInMs: number;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'last_modified_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  lastModifiedAt: Date;
}

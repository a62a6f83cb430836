import { Column, Entity, PrimaryColumn, VersionColumn } from 'typeorm';

/** A value of the namespace actions' key-value store, per project and key. */
@Entity({ name: 'action_store_entry' })
export class ActionStoreEntryEntity {
  @PrimaryColumn({ name: 'project_key', type: 'varchar', length: 36, primaryKeyConstraintName: 'action_store_entry_pkey' })
  projectKey: string;

  @PrimaryColumn({ type: 'varchar', length: 256, primaryKeyConstraintName: 'action_store_entry_pkey' })
  key: string;

  @Column({ type: 'jsonb' })
  value: unknown;

  @VersionColumn({ type: 'integer' })
  version: number;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'last_modified_at', type: 'timestamptz', precision: 3 })
  lastModifiedAt: Date;
}

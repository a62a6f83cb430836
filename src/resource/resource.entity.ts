import { Column, Entity, Index, PrimaryColumn, Unique, VersionColumn } from 'typeorm';

export interface Modifier {
  clientId: string;
  customerId?: string;
}

/**
 * The stored resource. The schema is written by migrations and every read and write is SQL in the
 * repositories (docs/architecture.md, "Entities and SQL"); test/entity-schema.spec.ts checks this class
 * against the migrated table.
 */
@Entity({ name: 'resource' })
@Unique('resource_project_key_key_unique', ['projectKey', 'key'])
@Index('resource_project_created_idx', ['projectKey', 'createdAt', 'id'])
// The predicate queries' indexes: each compared or sorted field after the project, ending with the id.
@Index('resource_project_id_idx', ['projectKey', 'id'])
@Index('resource_project_version_idx', ['projectKey', 'version', 'id'])
@Index('resource_project_modified_idx', ['projectKey', 'lastModifiedAt', 'id'])
@Index('resource_project_published_idx', ['projectKey', 'published', 'id'])
// Strings ordered byte-wise (COLLATE "C"), and the document's GIN index (jsonb_path_ops): in the migrations only.
@Index('resource_project_key_c_idx', { synchronize: false })
@Index('resource_project_some_property_idx', { synchronize: false })
@Index('resource_project_second_property_idx', { synchronize: false })
@Index('resource_project_document_idx', { synchronize: false })
export class ResourceEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'resource_pkey' })
  id: string;

  @Column({ name: 'project_key', type: 'varchar', length: 36 })
  projectKey: string;

  @Column({ type: 'varchar', length: 256, nullable: true })
  key: string | null;

  @VersionColumn({ type: 'integer' })
  version: number;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'last_modified_at', type: 'timestamptz', precision: 3 })
  lastModifiedAt: Date;

  @Column({ name: 'created_by', type: 'jsonb' })
  createdBy: Modifier;

  @Column({ name: 'last_modified_by', type: 'jsonb' })
  lastModifiedBy: Modifier;

  @Column({ type: 'boolean', default: true })
  published: boolean;

  @Column({ name: 'object_type_property', type: 'jsonb' })
  objectTypeProperty: unknown;

  @Column({ name: 'some_property', type: 'text', nullable: true })
  someProperty: string | null;

  @Column({ name: 'second_property_to_update', type: 'text', nullable: true })
  secondPropertyToUpdate: string | null;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  images: unknown[];

  /** The sequence number of the resource's last change-log message (0 before the first). */
  @Column({ name: 'message_sequence', type: 'integer', default: 0 })
  messageSequence: number;
}

import { Column, Entity, Index, PrimaryColumn, Unique, VersionColumn } from 'typeorm';

export interface Modifier {
  clientId: string;
  customerId?: string;
}

/**
 * The stored resource, as documentation of its table (see database/data-source-options.ts): the schema
 * is written by migrations, and every read and write is SQL in the repositories (every versioned write
 * is `UPDATE … WHERE version = $n`).
 */
@Entity({ name: 'resource' })
@Unique('resource_project_key_key_unique', ['projectKey', 'key'])
@Index('resource_project_created_idx', ['projectKey', 'createdAt', 'id'])
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
}

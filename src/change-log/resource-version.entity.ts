import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { Modifier } from '../resource/resource.entity.js';

/**
 * A resource as one write left it: `representation` is its JSON as PostgreSQL built it, `types` the message
 * types of the change. `version` is the version this row records (part of the key), not a lock.
 */
@Entity({ name: 'resource_version' })
// BRIN: the retention job finds the oldest rows by it (TypeORM cannot declare the method).
@Index('resource_version_modified_brin', { synchronize: false })
export class ResourceVersionEntity {
  @PrimaryColumn({ name: 'resource_id', type: 'uuid', primaryKeyConstraintName: 'resource_version_pkey' })
  resourceId: string;

  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'resource_version_pkey' })
  version: number;

  @Column({ name: 'project_key', type: 'varchar', length: 36 })
  projectKey: string;

  @Column({ name: 'modified_at', type: 'timestamptz', precision: 3 })
  modifiedAt: Date;

  @Column({ name: 'modified_by', type: 'jsonb' })
  modifiedBy: Modifier;

  @Column({ type: 'text', array: true })
  types: string[];

  @Column({ type: 'text' })
  representation: string;
}

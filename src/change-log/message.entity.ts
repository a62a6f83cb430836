import { Column, Entity, Generated, Index, PrimaryColumn, Unique } from 'typeorm';
import type { Modifier } from '../resource/resource.entity.js';

/**
 * A change-log message of a resource, written in the same statement as the write it records.
 * `sequence_number` counts the resource's messages from 1 (`resource.message_sequence` is the last one);
 * `payload` is the type's own members as JSON text without the braces, empty for none.
 */
@Entity({ name: 'message' })
@Unique('message_resource_sequence_key', ['resourceId', 'sequenceNumber'])
@Index('message_project_created_idx', ['projectKey', 'createdAt', 'sequenceNumber', 'id'])
// BRIN: the retention job finds the oldest rows by it (TypeORM cannot declare the method).
@Index('message_created_brin', { synchronize: false })
export class MessageEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'message_pkey' })
  id: string;

  @Column({ name: 'project_key', type: 'varchar', length: 36 })
  projectKey: string;

  @Column({ name: 'resource_id', type: 'uuid' })
  resourceId: string;

  /** The resource's version after the change. */
  @Column({ name: 'resource_version', type: 'integer' })
  resourceVersion: number;

  @Column({ name: 'sequence_number', type: 'integer' })
  sequenceNumber: number;

  @Column({ name: 'resource_key', type: 'varchar', length: 256, nullable: true })
  resourceKey: string | null;

  @Column({ type: 'varchar', length: 64 })
  type: string;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'created_by', type: 'jsonb' })
  createdBy: Modifier;

  @Column({ type: 'text', default: '' })
  payload: string;

  /** Shared by the messages of one write (one change, several messages). */
  @Column({ name: 'change_id', type: 'uuid' })
  @Generated('uuid')
  changeId: string;
}

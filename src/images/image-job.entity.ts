import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import type { Modifier } from '../resource/resource.entity.js';
import { ImageEntity } from './image.entity.js';

/**
 * An image accepted with 202 and not attached yet; workers claim
 * rows with `FOR UPDATE SKIP LOCKED`, and the attach deletes the row.
 */
@Entity({ name: 'image_job' })
@Index('image_job_run_after_idx', ['runAfter', 'createdAt'])
export class ImageJobEntity {
  @PrimaryColumn({ name: 'image_id', type: 'uuid', primaryKeyConstraintName: 'image_job_pkey' })
  @ForeignKey(() => ImageEntity, { name: 'image_job_image_fkey', onDelete: 'CASCADE' })
  imageId: string;

  @Column({ name: 'project_key', type: 'varchar', length: 36 })
  projectKey: string;

  @Column({ name: 'resource_id', type: 'uuid' })
  resourceId: string;

  @Column({ name: 'modified_by', type: 'jsonb' })
  modifiedBy: Modifier;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'run_after', type: 'timestamptz', precision: 3, default: () => 'now()' })
  runAfter: Date;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt: Date;
}

import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** An accepted image: its project, resource and bytes (by sha256), and the Image object as attached. */
@Entity({ name: 'image' })
@Index('image_resource_idx', ['resourceId'])
@Index('image_blob_ref_idx', ['projectKey', 'sha256'])
export class ImageEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'image_pkey' })
  id: string;

  @Column({ name: 'project_key', type: 'varchar', length: 36 })
  projectKey: string;

  @Column({ name: 'resource_id', type: 'uuid' })
  resourceId: string;

  @Column({ type: 'char', length: 64 })
  sha256: string;

  @Column({ name: 'content_type', type: 'varchar', length: 32 })
  contentType: string;

  @Column({ type: 'integer' })
  size: number;

  @Column({ type: 'jsonb' })
  image: Record<string, unknown>;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;
}

import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** Image bytes to look at again: the worker deletes a blob no image names once its entry is old enough. */
@Entity({ name: 'image_blob_check' })
@Index('image_blob_check_since_idx', ['since'])
export class ImageBlobCheckEntity {
  @PrimaryColumn({ name: 'project_key', type: 'varchar', length: 36, primaryKeyConstraintName: 'image_blob_check_pkey' })
  projectKey: string;

  @PrimaryColumn({ type: 'char', length: 64, primaryKeyConstraintName: 'image_blob_check_pkey' })
  sha256: string;

  @Column({ type: 'timestamptz', precision: 3, default: () => 'now()' })
  since: Date;
}

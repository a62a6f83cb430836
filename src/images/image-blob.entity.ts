import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The bytes of the database image store, once per project and sha256 (stored EXTERNAL: images are compressed already). */
@Entity({ name: 'image_blob' })
export class ImageBlobEntity {
  @PrimaryColumn({ name: 'project_key', type: 'varchar', length: 36, primaryKeyConstraintName: 'image_blob_pkey' })
  projectKey: string;

  @PrimaryColumn({ type: 'char', length: 64, primaryKeyConstraintName: 'image_blob_pkey' })
  sha256: string;

  @Column({ type: 'integer' })
  size: number;

  @Column({ type: 'bytea' })
  data: Buffer;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt: Date;
}

import { Column, Entity, PrimaryColumn, VersionColumn } from 'typeorm';

/** A record of the complex-path endpoint, addressed by both URI parameters and its id; `revision` counts its writes. */
@Entity({ name: 'complex_path_record' })
export class ComplexPathRecordEntity {
  @PrimaryColumn({ name: 'project_key', type: 'varchar', length: 36, primaryKeyConstraintName: 'complex_path_record_pkey' })
  projectKey: string;

  @PrimaryColumn({ name: 'uri_parameter_one', type: 'varchar', length: 200, primaryKeyConstraintName: 'complex_path_record_pkey' })
  uriParameterOne: string;

  @PrimaryColumn({ name: 'uri_parameter_two', type: 'varchar', length: 200, primaryKeyConstraintName: 'complex_path_record_pkey' })
  uriParameterTwo: string;

  @PrimaryColumn({ name: 'record_id', type: 'varchar', length: 200, primaryKeyConstraintName: 'complex_path_record_pkey' })
  recordId: string;

  @VersionColumn({ type: 'integer' })
  revision: number;

  @Column({ type: 'jsonb' })
  body: unknown;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'last_modified_at', type: 'timestamptz', precision: 3 })
  lastModifiedAt: Date;
}

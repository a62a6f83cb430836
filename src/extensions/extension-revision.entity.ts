import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * How many times a project's extensions changed: server processes keep a project's extensions as of a revision
 * and poll the revisions changed lately. A count of the project's changes, compared by value; no write checks it.
 */
@Entity({ name: 'extension_revision' })
@Index('extension_revision_changed_idx', ['changedAt'])
export class ExtensionRevisionEntity {
  @PrimaryColumn({ name: 'project_key', type: 'varchar', length: 36, primaryKeyConstraintName: 'extension_revision_pkey' })
  projectKey: string;

  /** A bigint: `pg` reads it as a string. */
  @Column({ type: 'bigint' })
  revision: string;

  @Column({ name: 'changed_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  changedAt: Date;
}

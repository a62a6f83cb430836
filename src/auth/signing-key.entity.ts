import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A token signing key, generated once and shared by every replica through the database. */
@Entity({ name: 'signing_key' })
export class SigningKeyEntity {
  @PrimaryColumn({ type: 'varchar', length: 64, primaryKeyConstraintName: 'signing_key_pkey' })
  kid: string;

  @Column({ name: 'private_key', type: 'text' })
  privateKey: string;

  @Column({ name: 'public_jwk', type: 'jsonb' })
  publicJwk: Record<string, unknown>;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt: Date;
}

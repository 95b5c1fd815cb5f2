import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A project's repository token, AES-256-GCM encrypted; the plaintext never reaches the database. */
@Entity({ name: 'repository_secrets' })
export class RepositorySecret {
  @PrimaryColumn({ name: 'project_id', type: 'uuid' })
  projectId!: string;

  /** Which master key encrypted it (see the key rotation procedure in docs/operations.md). */
  @Column({ name: 'key_id', type: 'text' })
  keyId!: string;

  /** 12 random bytes, new for every write. */
  @Column({ type: 'bytea' })
  nonce!: Buffer;

  @Column({ type: 'bytea' })
  ciphertext!: Buffer;

  @Column({ name: 'auth_tag', type: 'bytea' })
  authTag!: Buffer;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

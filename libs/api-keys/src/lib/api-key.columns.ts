import { Column, CreateDateColumn, PrimaryGeneratedColumn } from 'typeorm';

/**
 * The columns every gateway API key has (a gateway's entity extends this): only the key's
 * SHA-256 is stored, never the key. The tables carry the same checks (migrations):
 * `key_hash ~ '^[0-9a-f]{64}$'` unique, `project` a control-plane project slug.
 */
export abstract class ApiKeyColumns {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** Lower-case hex SHA-256 of the key. */
  @Column({ name: 'key_hash', type: 'text', unique: true })
  keyHash!: string;

  /** Non-secret, for display: `<prefix>…abcd` (the last four characters). */
  @Column({ name: 'key_hint', type: 'text' })
  keyHint!: string;

  /** Control-plane project slug: the key acts for that project. */
  @Column({ type: 'text' })
  project!: string;

  /** The control plane's id of the project; null until a project sync or a check matched it. */
  @Column({ name: 'project_id', type: 'uuid', nullable: true })
  projectId!: string | null;

  /** When project sync learned that the control plane deleted the project: the key stops working. */
  @Column({ name: 'project_deleted_at', type: 'timestamptz', nullable: true })
  projectDeletedAt!: Date | null;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}

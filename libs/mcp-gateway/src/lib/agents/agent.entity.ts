import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { RegistrySource } from '../registry/upstream.entity';

/** An A2A agent of a control-plane project; its static headers only ever as AES-256-GCM ciphertext (HeaderCipher). */
@Entity({ name: 'agents' })
export class Agent {
  @PrimaryColumn({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  url!: string;

  /** Control-plane project slug. */
  @Column({ type: 'text' })
  project!: string;

  /** The control plane's id of the project; null until a sync or a check matched it. */
  @Column({ name: 'project_id', type: 'uuid', nullable: true })
  projectId!: string | null;

  /** When project sync learned that the control plane deleted the project. */
  @Column({ name: 'project_deleted_at', type: 'timestamptz', nullable: true })
  projectDeletedAt!: Date | null;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  /** `none` or `static` (headers below); the credentials module adds the others. */
  @Column({ name: 'auth_kind', type: 'text' })
  authKind!: 'none' | 'static';

  /** The four headers_* columns are all null when the agent has no headers. */
  @Column({ name: 'headers_key_id', type: 'text', nullable: true })
  headersKeyId!: string | null;

  @Column({ name: 'headers_nonce', type: 'bytea', nullable: true })
  headersNonce!: Buffer | null;

  @Column({ name: 'headers_ciphertext', type: 'bytea', nullable: true })
  headersCiphertext!: Buffer | null;

  @Column({ name: 'headers_auth_tag', type: 'bytea', nullable: true })
  headersAuthTag!: Buffer | null;

  /** The agent's card as last read (protobuf JSON of A2A v1.0), its skills among it; written without touching updated_at. */
  @Column({ type: 'jsonb', nullable: true })
  card!: unknown;

  @Column({ name: 'card_read_at', type: 'timestamptz', nullable: true })
  cardReadAt!: Date | null;

  @Column({ type: 'text' })
  source!: RegistrySource;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

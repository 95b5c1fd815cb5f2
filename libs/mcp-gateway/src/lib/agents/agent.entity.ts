import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { RegistrySource } from '../registry/upstream.entity';
import type { AgentAuth } from './agent-definition';

/** What a per-caller auth says besides its type and secret (the credentials module's TokenExchangeAuth, OAuthAuth). */
export interface AgentAuthSettings {
  audience?: string;
  scope?: string;
  clientId?: string;
  clientCredentials?: boolean;
}

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

  /** `none`, `static` (headers below), or the credentials module's per-caller `token_exchange` and `oauth` (settings below). */
  @Column({ name: 'auth_kind', type: 'text' })
  authKind!: AgentAuth['type'];

  /** A per-caller auth's settings (audience, scope, clientId, clientCredentials); never a secret. `{}` for none and static. */
  @Column({ name: 'auth_settings', type: 'jsonb' })
  authSettings!: AgentAuthSettings;

  /** The four auth_secret_* columns: an `oauth` client secret, sealed as the headers are; all null without one. */
  @Column({ name: 'auth_secret_key_id', type: 'text', nullable: true })
  authSecretKeyId!: string | null;

  @Column({ name: 'auth_secret_nonce', type: 'bytea', nullable: true })
  authSecretNonce!: Buffer | null;

  @Column({ name: 'auth_secret_ciphertext', type: 'bytea', nullable: true })
  authSecretCiphertext!: Buffer | null;

  @Column({ name: 'auth_secret_auth_tag', type: 'bytea', nullable: true })
  authSecretAuthTag!: Buffer | null;

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

import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { UpstreamTransport } from './server-registry';
import type { UpstreamAuth } from '../credentials/upstream-auth';

/** Where a row comes from: MCPGW_CONFIG (synced at every start) or the admin API. */
export type RegistrySource = 'config' | 'api';

/** An upstream MCP server; its headers only ever as AES-256-GCM ciphertext (see HeaderCipher). */
@Entity({ name: 'upstreams' })
export class Upstream {
  @PrimaryColumn({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  url!: string;

  @Column({ type: 'text' })
  transport!: UpstreamTransport;

  /** The four headers_* columns are all null when the upstream has no headers. */
  @Column({ name: 'headers_key_id', type: 'text', nullable: true })
  headersKeyId!: string | null;

  /** 12 random bytes, new for every write. */
  @Column({ name: 'headers_nonce', type: 'bytea', nullable: true })
  headersNonce!: Buffer | null;

  @Column({ name: 'headers_ciphertext', type: 'bytea', nullable: true })
  headersCiphertext!: Buffer | null;

  @Column({ name: 'headers_auth_tag', type: 'bytea', nullable: true })
  headersAuthTag!: Buffer | null;

  /** How calls are authenticated; an `oauth` client secret is never here but in the auth_secret_* columns, sealed. */
  @Column({ type: 'jsonb' })
  auth!: UpstreamAuth;

  /** The four auth_secret_* columns: an `oauth` client secret, sealed as the headers are; all null without one. */
  @Column({ name: 'auth_secret_key_id', type: 'text', nullable: true })
  authSecretKeyId!: string | null;

  @Column({ name: 'auth_secret_nonce', type: 'bytea', nullable: true })
  authSecretNonce!: Buffer | null;

  @Column({ name: 'auth_secret_ciphertext', type: 'bytea', nullable: true })
  authSecretCiphertext!: Buffer | null;

  @Column({ name: 'auth_secret_auth_tag', type: 'bytea', nullable: true })
  authSecretAuthTag!: Buffer | null;

  @Column({ name: 'timeout_ms', type: 'integer' })
  timeoutMs!: number;

  @Column({ name: 'max_concurrency', type: 'integer' })
  maxConcurrency!: number;

  @Column({ type: 'text' })
  source!: RegistrySource;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A person's tokens at an `oauth` upstream's authorisation server, sealed (access and refresh token as one JSON). */
@Entity({ name: 'oauth_connections' })
export class OAuthConnection {
  @PrimaryColumn({ type: 'text' })
  upstream!: string;

  /** The person's `sub` at the suite's identity provider. */
  @PrimaryColumn({ type: 'text' })
  subject!: string;

  /** The authorisation server that issued the tokens. */
  @Column({ type: 'text' })
  issuer!: string;

  @Column({ name: 'tokens_key_id', type: 'text' })
  tokensKeyId!: string;

  @Column({ name: 'tokens_nonce', type: 'bytea' })
  tokensNonce!: Buffer;

  @Column({ name: 'tokens_ciphertext', type: 'bytea' })
  tokensCiphertext!: Buffer;

  @Column({ name: 'tokens_auth_tag', type: 'bytea' })
  tokensAuthTag!: Buffer;

  @Column({ type: 'text', nullable: true })
  scope!: string | null;

  /** When the access token expires (null: the server did not say). */
  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

/** The client the gateway uses at an `oauth` upstream's authorisation server: registered there by the gateway (RFC 7591). */
@Entity({ name: 'oauth_clients' })
export class OAuthClient {
  @PrimaryColumn({ type: 'text' })
  upstream!: string;

  @Column({ type: 'text' })
  issuer!: string;

  @Column({ name: 'client_id', type: 'text' })
  clientId!: string;

  @Column({ name: 'secret_key_id', type: 'text', nullable: true })
  secretKeyId!: string | null;

  @Column({ name: 'secret_nonce', type: 'bytea', nullable: true })
  secretNonce!: Buffer | null;

  @Column({ name: 'secret_ciphertext', type: 'bytea', nullable: true })
  secretCiphertext!: Buffer | null;

  @Column({ name: 'secret_auth_tag', type: 'bytea', nullable: true })
  secretAuthTag!: Buffer | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}

import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A response of the Responses API kept for retrieval and for later turns (`previous_response_id`),
 * owned by the project of the key that created it, so that any replica continues a conversation and
 * another project's key never reads it. The content is the user's: never logged.
 */
@Entity({ name: 'stored_responses' })
export class StoredResponse {
  /** The id the client knows: the gateway's, whoever answered (a native upstream's own is `upstreamId`). */
  @PrimaryColumn({ type: 'text' })
  id!: string;

  /** The creating key's project; null for the master key. */
  @Column({ type: 'text', nullable: true })
  project!: string | null;

  @Column({ name: 'key_id', type: 'uuid', nullable: true })
  keyId!: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  /** queued, in_progress (a foreground response: being answered, or reserved ahead and not yet given out), completed, incomplete, failed, cancelled. */
  @Column({ type: 'text' })
  status!: string;

  /** The deployment that answered; a native turn on the same deployment uses the upstream's own state. */
  @Column({ name: 'deployment_id', type: 'text', nullable: true })
  deploymentId!: string | null;

  /** The upstream's id of a natively served response. */
  @Column({ name: 'upstream_id', type: 'text', nullable: true })
  upstreamId!: string | null;

  @Column({ name: 'previous_response_id', type: 'text', nullable: true })
  previousResponseId!: string | null;

  /** This turn's input, as items with ids (what input_items lists). */
  @Column({ type: 'jsonb' })
  input!: Record<string, unknown>[];

  /** The response object as the client got it. */
  @Column({ type: 'jsonb' })
  response!: Record<string, unknown>;

  @Column({ type: 'boolean', default: false })
  background!: boolean;
}

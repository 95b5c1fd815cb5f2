import { Column, Entity, PrimaryColumn } from 'typeorm';
import { USD_COLUMN } from '../pricing/usd';

/** What the gateway keeps on an upstream's account for a project: files, batches, vector stores, assistants, threads. */
export type ResourceKind = 'file' | 'batch' | 'vector_store' | 'assistant' | 'thread';
/** An object made through a vendor pass-through, its kind named by the route (`openai.file`, `anthropic.message_batch`). */
export type PassThroughKind = `${string}.${string}`;

/**
 * An upstream resource owned by the project of the key that created it: which deployment (so
 * which account and provider key) holds it, under which upstream id, and its last known object
 * for lists. Files and batches have ids of the gateway's own (the upstream's may differ, and a
 * batch's input and output file ids are rewritten); vector stores, assistants and threads keep
 * the upstream's. Another project's key gets 404, as for an id that never existed. Objects made
 * through a vendor pass-through (`/openai/v1/files`) are known to their clients by the upstream's
 * id; their row's id is `<kind>:<upstream id>`.
 */
@Entity({ name: 'owned_resources' })
export class OwnedResource {
  /** The id the client knows. */
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  kind!: ResourceKind | PassThroughKind;

  /** The creating key's project; null for the master key. */
  @Column({ type: 'text', nullable: true })
  project!: string | null;

  @Column({ name: 'key_id', type: 'uuid', nullable: true })
  keyId!: string | null;

  /** The alias the resource was created under (what a batch's spend is recorded on). */
  @Column({ type: 'text' })
  alias!: string;

  @Column({ name: 'deployment_id', type: 'text' })
  deploymentId!: string;

  @Column({ name: 'upstream_id', type: 'text' })
  upstreamId!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  /** The object as the client last saw it (ids as the client knows them). */
  @Column({ type: 'jsonb' })
  object!: Record<string, unknown>;

  /** Batches: when its cost was recorded (once, whichever replica saw it complete first). */
  @Column({ name: 'settled_at', type: 'timestamptz', nullable: true })
  settledAt!: Date | null;

  @Column({ name: 'cost_usd', type: 'numeric', nullable: true, transformer: USD_COLUMN })
  costUsd!: number | null;

  /** Batches still running: when the background poller looks at it next. */
  @Column({ name: 'next_poll_at', type: 'timestamptz', nullable: true })
  nextPollAt!: Date | null;
}

import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * The budget of one subject of a level beside the key: an end user (LiteLLM's customer, `/customer/*`),
 * a project (LiteLLM's team, `/team/*`) or a tag (`/tag/*`). One table for every level, so one loader serves them.
 */
@Entity({ name: 'budget_limits' })
export class BudgetLimit {
  /** `end-user`, `project`, `tag`. */
  @PrimaryColumn({ type: 'text' })
  level!: string;

  /** The end user's id (`user` of a call), the project's slug, the tag. */
  @PrimaryColumn({ type: 'text' })
  subject!: string;

  /** LiteLLM's customer alias; null: none. */
  @Column({ type: 'text', nullable: true })
  alias!: string | null;

  /** Calls for this subject are refused (LiteLLM's /customer/block). */
  @Column({ type: 'boolean', default: false })
  blocked!: boolean;

  /** USD per period; null: spend is counted, nothing is refused for it. */
  @Column({ name: 'max_budget', type: 'double precision', nullable: true })
  maxBudget!: number | null;

  /** 1d, 7d, 30d, 1mo…; null: a lifetime budget. */
  @Column({ name: 'budget_duration', type: 'text', nullable: true })
  budgetDuration!: string | null;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  metadata!: Record<string, unknown>;

  /** A project's requests per minute over all its keys (LiteLLM's team rpm_limit); null: none. */
  @Column({ name: 'rpm_limit', type: 'integer', nullable: true })
  rpmLimit!: number | null;

  /** A project's tokens per minute over all its keys (LiteLLM's team tpm_limit); null: none. */
  @Column({ name: 'tpm_limit', type: 'integer', nullable: true })
  tpmLimit!: number | null;

  /** The aliases a project's keys may call (LiteLLM's team models); []: every alias their keys allow. */
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  models!: string[];

  /** A project's guardrails (LiteLLM's team `guardrails`): they run on every call of its keys; [] for others. */
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  guardrails!: string[];

  /** Set instead of deleting, so that other replicas learn of the deletion from their next read. */
  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** A virtual key: only its SHA-256 is stored, never the key. */
@Entity({ name: 'virtual_keys' })
export class VirtualKey {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** Lower-case hex SHA-256 of the key. */
  @Column({ name: 'key_hash', type: 'text', unique: true })
  keyHash!: string;

  /** Non-secret, for display: `sk-arbor-…abcd` (the last four characters). */
  @Column({ name: 'key_hint', type: 'text' })
  keyHint!: string;

  /** Control-plane project slug. */
  @Column({ type: 'text' })
  project!: string;

  /** The control plane's id of the project; null until the control plane confirmed it (see AddControlPlaneProjectIds). */
  @Column({ name: 'project_id', type: 'uuid', nullable: true })
  projectId!: string | null;

  /** When project sync learned that the control plane deleted the project: the key stops working. */
  @Column({ name: 'project_deleted_at', type: 'timestamptz', nullable: true })
  projectDeletedAt!: Date | null;

  /** The one repository of its project the key is for (`source_host/owner/name`, as the control plane names it); null: the whole project. */
  @Column({ type: 'text', nullable: true })
  repository!: string | null;

  /** Aliases the key may call; empty means every alias. */
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  aliases!: string[];

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @Column({ type: 'boolean', default: false })
  blocked!: boolean;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  metadata!: Record<string, unknown>;

  // Enforced by limits/KeyLimiter.
  @Column({ name: 'max_budget', type: 'double precision', nullable: true })
  maxBudget!: number | null;

  @Column({ name: 'budget_duration', type: 'text', nullable: true })
  budgetDuration!: string | null;

  @Column({ name: 'rpm_limit', type: 'integer', nullable: true })
  rpmLimit!: number | null;

  @Column({ name: 'tpm_limit', type: 'integer', nullable: true })
  tpmLimit!: number | null;

  @Column({ name: 'max_parallel_requests', type: 'integer', nullable: true })
  maxParallelRequests!: number | null;

  /** Lifetime spend in USD, written behind by spend/SpendRecorder (at most a second late). */
  @Column({ type: 'double precision', default: 0 })
  spend!: number;

  /** Spend in USD of the budget period that ends at budgetResetAt (with no budget_duration: unused). */
  @Column({ name: 'budget_spend', type: 'double precision', default: 0 })
  budgetSpend!: number;

  /** End of the budget period budgetSpend belongs to; null until the key first spends under a budget_duration. */
  @Column({ name: 'budget_reset_at', type: 'timestamptz', nullable: true })
  budgetResetAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

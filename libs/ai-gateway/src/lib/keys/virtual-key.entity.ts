import { Column, Entity, UpdateDateColumn } from 'typeorm';
import { ApiKeyColumns } from '@arbor/api-keys';
import { USD_COLUMN } from '../pricing/usd';
import type { ModelBudget } from './dto/key-fields';

/** A virtual key: the columns of every gateway API key (only its SHA-256 is stored), and its aliases, limits and spend. */
@Entity({ name: 'virtual_keys' })
export class VirtualKey extends ApiKeyColumns {
  /** The one repository of its project the key is for (`source_host/owner/name`, as the control plane names it); null: the whole project. */
  @Column({ type: 'text', nullable: true })
  repository!: string | null;

  /** LiteLLM's key_alias: a unique name to find the key by; null: none. */
  @Column({ name: 'key_alias', type: 'text', nullable: true })
  keyAlias!: string | null;

  /** Aliases the key may call; empty means every alias. */
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  aliases!: string[];

  /** Guardrails of the config that run on every call of the key, whatever the call names. */
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  guardrails!: string[];

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

  /** LiteLLM's model_rpm_limit: requests per minute per alias, enforced by limits/KeyLimiter; {} for none. */
  @Column({ name: 'model_rpm_limit', type: 'jsonb', default: () => "'{}'" })
  modelRpmLimit!: Record<string, number>;

  /** LiteLLM's model_tpm_limit: tokens per minute per alias; {} for none. */
  @Column({ name: 'model_tpm_limit', type: 'jsonb', default: () => "'{}'" })
  modelTpmLimit!: Record<string, number>;

  /** The person the key is for (LiteLLM's user_id: a control-plane user id); their budget in the project (/team/member_update) applies to its calls. null: nobody's. */
  @Column({ name: 'user_id', type: 'text', nullable: true })
  userId!: string | null;

  /** LiteLLM's soft_budget (USD): reaching it in the budget period raises an alert (budgets/BudgetAlerts); null: none. */
  @Column({ name: 'soft_budget', type: 'double precision', nullable: true })
  softBudget!: number | null;

  /** LiteLLM's model_max_budget: a budget per alias, enforced by budgets/Budgets; {} for none. */
  @Column({ name: 'model_max_budget', type: 'jsonb', default: () => "'{}'" })
  modelMaxBudget!: Record<string, ModelBudget>;

  /** Lifetime spend in USD, written behind by spend/SpendRecorder (at most a second late). */
  @Column({ type: 'numeric', default: 0, transformer: USD_COLUMN })
  spend!: number;

  /** Spend in USD of the budget period that ends at budgetResetAt (with no budget_duration: unused). */
  @Column({ name: 'budget_spend', type: 'numeric', default: 0, transformer: USD_COLUMN })
  budgetSpend!: number;

  /** End of the budget period budgetSpend belongs to; null until the key first spends under a budget_duration. */
  @Column({ name: 'budget_reset_at', type: 'timestamptz', nullable: true })
  budgetResetAt!: Date | null;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

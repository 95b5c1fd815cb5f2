import type { BudgetLimit } from '../budgets/budget-limit.entity';

/** A customer as LiteLLM's /customer/* shows one (LiteLLM's defaults for what is not served here). */
export interface LiteLlmCustomer {
  user_id: string;
  alias: string | null;
  blocked: boolean;
  /** USD spent in the current budget period (the lifetime without budget_duration). */
  spend: number;
  allowed_model_region: null;
  default_model: null;
  litellm_budget_table: { max_budget: number | null; budget_duration: string | null } | null;
  metadata: Record<string, unknown>;
}

export function liteLlmCustomer(row: BudgetLimit, spend: number): LiteLlmCustomer {
  return {
    user_id: row.subject,
    alias: row.alias,
    blocked: row.blocked,
    spend,
    allowed_model_region: null,
    default_model: null,
    litellm_budget_table: row.maxBudget === null && row.budgetDuration === null ? null : { max_budget: row.maxBudget, budget_duration: row.budgetDuration },
    metadata: row.metadata,
  };
}

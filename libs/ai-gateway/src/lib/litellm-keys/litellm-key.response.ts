import type { VirtualKey } from '../keys/virtual-key.entity';

/** A key as LiteLLM's key API shows it (its field names; LiteLLM's defaults for what is not served here). */
export interface LiteLlmKey {
  /** Only in the answers to /key/generate and /key/regenerate (and echoed where the request named the key by it). */
  key?: string;
  /** LiteLLM's hashed key: the SHA-256 of the key, what lists and spend logs name it by. */
  token: string;
  token_id: string;
  key_name: string;
  key_alias: string | null;
  /** The key's control-plane project. */
  team_id: string;
  models: string[];
  spend: number;
  max_budget: number | null;
  budget_duration: string | null;
  budget_reset_at: string | null;
  rpm_limit: number | null;
  tpm_limit: number | null;
  max_parallel_requests: number | null;
  soft_budget: number | null;
  /** LiteLLM's shape: `{alias: {budget_limit, time_period}}`. */
  model_max_budget: Record<string, { budget_limit: number; time_period: string | null }>;
  expires: string | null;
  metadata: Record<string, unknown>;
  blocked: boolean;
  guardrails: string[];
  /** The person the key is for (a control-plane user id); null: nobody's. */
  user_id: string | null;
  model_rpm_limit: Record<string, number>;
  model_tpm_limit: Record<string, number>;
  aliases: Record<string, never>;
  config: Record<string, never>;
  permissions: Record<string, never>;
  allowed_cache_controls: never[];
  created_at: string;
  updated_at: string;
}

export function liteLlmKey(row: VirtualKey, key?: string): LiteLlmKey {
  return {
    ...(key !== undefined ? { key } : {}),
    token: row.keyHash,
    token_id: row.keyHash,
    key_name: row.keyHint,
    key_alias: row.keyAlias,
    team_id: row.project,
    models: row.aliases,
    spend: row.spend,
    max_budget: row.maxBudget,
    budget_duration: row.budgetDuration,
    budget_reset_at: row.budgetResetAt ? row.budgetResetAt.toISOString() : null,
    rpm_limit: row.rpmLimit,
    tpm_limit: row.tpmLimit,
    max_parallel_requests: row.maxParallelRequests,
    soft_budget: row.softBudget,
    model_max_budget: Object.fromEntries(
      Object.entries(row.modelMaxBudget).map(([alias, budget]) => [alias, { budget_limit: budget.max_budget, time_period: budget.budget_duration }]),
    ),
    expires: row.expiresAt ? row.expiresAt.toISOString() : null,
    metadata: row.metadata,
    blocked: row.blocked,
    guardrails: row.guardrails,
    user_id: row.userId,
    model_rpm_limit: row.modelRpmLimit,
    model_tpm_limit: row.modelTpmLimit,
    aliases: {},
    config: {},
    permissions: {},
    allowed_cache_controls: [],
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

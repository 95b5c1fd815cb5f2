import { VirtualKey } from '../virtual-key.entity';
import type { ModelBudget } from './key-fields';

/** A key as the admin API shows it: never the key, except `key` once on create and rotate. */
export interface KeyResponse {
  id: string;
  /** Only in the answers to create and rotate. */
  key?: string;
  key_hint: string;
  project: string;
  /** The one repository of the project the key is for; null: the whole project. */
  repository: string | null;
  /** LiteLLM's key_alias; null: none. */
  key_alias: string | null;
  aliases: string[];
  /** Guardrails that run on every call of the key. */
  guardrails: string[];
  expires_at: string | null;
  blocked: boolean;
  metadata: Record<string, unknown>;
  max_budget: number | null;
  budget_duration: string | null;
  rpm_limit: number | null;
  tpm_limit: number | null;
  max_parallel_requests: number | null;
  /** USD in the budget period that raises an alert; null: none. */
  soft_budget: number | null;
  /** The person the key is for (a control-plane user id); null: nobody's. */
  user_id: string | null;
  /** Requests per minute per alias (LiteLLM's model_rpm_limit); {}: none. */
  model_rpm_limit: Record<string, number>;
  /** Tokens per minute per alias (LiteLLM's model_tpm_limit); {}: none. */
  model_tpm_limit: Record<string, number>;
  /** A budget per alias (LiteLLM's model_max_budget); {}: none. */
  model_max_budget: Record<string, ModelBudget>;
  /** Lifetime spend in USD as written so far (at most a second behind the calls); budget state: GET /api/v1/keys/:id/spend. */
  spend: number;
  created_at: string;
  updated_at: string;
}

export function keyResponse(row: VirtualKey, key?: string): KeyResponse {
  return {
    id: row.id,
    ...(key !== undefined ? { key } : {}),
    key_hint: row.keyHint,
    project: row.project,
    repository: row.repository,
    key_alias: row.keyAlias,
    aliases: row.aliases,
    guardrails: row.guardrails,
    expires_at: row.expiresAt ? row.expiresAt.toISOString() : null,
    blocked: row.blocked,
    metadata: row.metadata,
    max_budget: row.maxBudget,
    budget_duration: row.budgetDuration,
    rpm_limit: row.rpmLimit,
    tpm_limit: row.tpmLimit,
    max_parallel_requests: row.maxParallelRequests,
    soft_budget: row.softBudget,
    user_id: row.userId,
    model_rpm_limit: row.modelRpmLimit,
    model_tpm_limit: row.modelTpmLimit,
    model_max_budget: row.modelMaxBudget,
    spend: row.spend,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

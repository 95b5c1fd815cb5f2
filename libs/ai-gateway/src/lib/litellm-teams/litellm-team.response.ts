/** A team as LiteLLM's /team/* shows one: a control-plane project and its budget (LiteLLM's defaults for what is not served here). */
export interface LiteLlmTeam {
  team_id: string;
  team_alias: null;
  max_budget: number | null;
  budget_duration: string | null;
  /** End of the current budget period; null for a lifetime budget or none. */
  budget_reset_at: string | null;
  /** USD the project's keys spent in the current period since its budget was set. */
  spend: number;
  /** The aliases the project's keys may call; []: every alias their keys allow. */
  models: string[];
  tpm_limit: number | null;
  rpm_limit: number | null;
  members_with_roles: never[];
  metadata: Record<string, unknown>;
  /** Guardrails that run on every call of the project's keys. */
  guardrails: string[];
  blocked: false;
}

export function liteLlmTeam(
  slug: string,
  budget: {
    maxBudget: number | null;
    budgetDuration: string | null;
    metadata: Record<string, unknown>;
    guardrails?: string[];
    models?: string[];
    rpmLimit?: number | null;
    tpmLimit?: number | null;
  } | null,
  spent: { spend: number; periodEnd: number | null },
): LiteLlmTeam {
  return {
    team_id: slug,
    team_alias: null,
    max_budget: budget?.maxBudget ?? null,
    budget_duration: budget?.budgetDuration ?? null,
    budget_reset_at: spent.periodEnd === null ? null : new Date(spent.periodEnd).toISOString(),
    spend: spent.spend,
    models: budget?.models ?? [],
    tpm_limit: budget?.tpmLimit ?? null,
    rpm_limit: budget?.rpmLimit ?? null,
    members_with_roles: [],
    metadata: budget?.metadata ?? {},
    guardrails: budget?.guardrails ?? [],
    blocked: false,
  };
}

/** A person's budget in a project as LiteLLM's /team/member_* and /team/info's team_memberships show it. */
export interface LiteLlmTeamMember {
  team_id: string;
  user_id: string;
  user_email: null;
  max_budget_in_team: number | null;
  budget_duration: string | null;
  /** End of the current budget period; null for a lifetime budget or none. */
  budget_reset_at: string | null;
  /** USD the person's keys in the project spent in the current period since the budget was set. */
  spend: number;
  tpm_limit: null;
  rpm_limit: null;
  litellm_budget_table: { max_budget: number | null; budget_duration: string | null };
}

export function liteLlmTeamMember(
  slug: string,
  userId: string,
  budget: { maxBudget: number | null; budgetDuration: string | null },
  spent: { spend: number; periodEnd: number | null },
): LiteLlmTeamMember {
  return {
    team_id: slug,
    user_id: userId,
    user_email: null,
    max_budget_in_team: budget.maxBudget,
    budget_duration: budget.budgetDuration,
    budget_reset_at: spent.periodEnd === null ? null : new Date(spent.periodEnd).toISOString(),
    spend: spent.spend,
    tpm_limit: null,
    rpm_limit: null,
    litellm_budget_table: { max_budget: budget.maxBudget, budget_duration: budget.budgetDuration },
  };
}

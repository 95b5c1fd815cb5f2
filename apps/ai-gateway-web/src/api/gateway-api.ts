// The AI gateway's admin API as this UI calls it (/api/v1/keys, /api/v1/spend, /api/v1/aliases in
// libs/ai-gateway/src/lib/keys, …/spend, …/aliases), in the shape openapi-typescript writes, so that the
// client is typed as every product UI's is. The gateway's OpenAPI document does not describe these
// answers yet (KeyResponse and the spend reports are plain interfaces there): when it does, this
// file gives way to the generated one.

/** A key as the admin API shows it: never the secret, except `key` once on create and rotate. */
export interface GatewayKey {
  id: string;
  key?: string;
  key_hint: string;
  project: string;
  repository: string | null;
  key_alias: string | null;
  aliases: string[];
  guardrails: string[];
  expires_at: string | null;
  blocked: boolean;
  max_budget: number | null;
  budget_duration: string | null;
  rpm_limit: number | null;
  tpm_limit: number | null;
  spend: number;
  created_at: string;
  updated_at: string;
}

/** What a person sets on a key: the limits and budget (null: none), its name, its aliases. */
export interface KeySettings {
  key_alias?: string | null;
  aliases?: string[];
  max_budget?: number | null;
  budget_duration?: string | null;
  rpm_limit?: number | null;
  tpm_limit?: number | null;
  expires_at?: string | null;
}

export interface CreateKeyBody extends KeySettings {
  project: string;
  repository?: string;
}

/** Calls, tokens and cost of a slice of spend (UTC days, as spend_daily counts them). */
export interface SpendTotals {
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
  estimated_requests: number;
  estimated_cost_usd: number;
  cache_hit_requests: number;
}

/** GET /api/v1/spend?project=…&from=…&to=…: a project's spend, by day, key, alias, deployment and repository. */
export interface ProjectSpendReport {
  project: string;
  from: string | null;
  to: string | null;
  totals: SpendTotals;
  by_day: (SpendTotals & { day: string })[];
  by_alias: (SpendTotals & { alias: string })[];
  by_deployment: (SpendTotals & { deployment_id: string; provider: string })[];
  by_key: (SpendTotals & { key_id: string | null; key_hint: string | null })[];
  by_repository: (SpendTotals & { repository: string | null })[];
  /** Calls of the project's keys by day, answered or failed. */
  calls_by_day: { day: string; calls: number; errors: number }[];
}

/** GET /api/v1/aliases: what keys can call, with the deployments behind each alias. */
export interface GatewayAlias {
  alias: string;
  deployments: {
    id: string;
    provider: string;
    model: string;
    input_usd_per_million: number | null;
    output_usd_per_million: number | null;
    rpm: number | null;
    tpm: number | null;
    cooling_down_until: string | null;
    /** Its last failure on the replica that answered; null: none since that replica started. */
    last_error: { status: number; code: string | null; message: string; at: string } | null;
  }[];
}

/**
 * A call's content, kept only when the gateway's config turns it on (general_settings.
 * store_prompts_in_spend_logs): the request's prompt fields as sent upstream and the answer as the
 * client got it (a stream as its events, text); a field cut at its cap is its JSON text, cut.
 */
export interface CallContent {
  messages: unknown;
  response?: unknown;
  streamed?: boolean;
  truncated: boolean;
}

/** GET /api/v1/call-log/settings: whether the gateway keeps calls' content, and if not, which setting keeps it out. */
export interface CallLogSettings {
  content_kept: boolean;
  content_off_by: 'store_prompts_in_spend_logs' | 'turn_off_message_logging' | 'disable_spend_logs' | null;
  max_field_chars: number;
}

/** GET /spend/logs?team_id=…&summarize=false: one call as LiteLLM's single-call spend log lists it (metadata; content only when the config keeps it). */
export interface CallRecord {
  request_id: string;
  /** The key's token (SHA-256), null for the master key. */
  api_key: string | null;
  team_id: string | null;
  end_user: string | null;
  request_tags: string[];
  /** The alias called. */
  model: string;
  model_group: string;
  /** The deployment that answered, null when none did. */
  model_id: string | null;
  custom_llm_provider: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  spend: number;
  status: 'success' | 'failure';
  startTime: string;
  endTime: string;
  request_duration_ms: number;
  cache_hit: 'True' | 'False';
  metadata: { key_alias: string | null; status_code: number; error_code: string | null; retries: number; fallbacks: number };
  content?: CallContent;
}

interface ErrorAnswer {
  content: { 'application/json': { error: { code: string; message: string; details?: Record<string, unknown> } } };
}
type Answer<T> = { content: { 'application/json': T } };
type KeyPath = { parameters: { path: { id: string } } };

export interface paths {
  '/spend/logs': {
    get: {
      parameters: { query: { team_id: string; summarize: false; page?: number; page_size?: number } };
      responses: { 200: Answer<CallRecord[]>; default: ErrorAnswer };
    };
  };
  '/api/v1/call-log/settings': { get: { responses: { 200: Answer<CallLogSettings>; default: ErrorAnswer } } };
  '/api/v1/aliases': { get: { responses: { 200: Answer<{ aliases: GatewayAlias[] }>; default: ErrorAnswer } } };
  '/api/v1/spend': {
    get: { parameters: { query: { project: string; from?: string; to?: string } }; responses: { 200: Answer<ProjectSpendReport>; default: ErrorAnswer } };
  };
  '/api/v1/keys': {
    get: { parameters: { query?: { project?: string } }; responses: { 200: Answer<{ keys: GatewayKey[] }>; default: ErrorAnswer } };
    post: { requestBody: { content: { 'application/json': CreateKeyBody } }; responses: { 201: Answer<GatewayKey>; default: ErrorAnswer } };
  };
  '/api/v1/keys/{id}': {
    patch: KeyPath & { requestBody: { content: { 'application/json': KeySettings } }; responses: { 200: Answer<GatewayKey>; default: ErrorAnswer } };
    delete: KeyPath & { responses: { 204: { content?: never }; default: ErrorAnswer } };
  };
  '/api/v1/keys/{id}/rotate': { post: KeyPath & { responses: { 200: Answer<GatewayKey>; default: ErrorAnswer } } };
  '/api/v1/keys/{id}/block': { post: KeyPath & { responses: { 200: Answer<GatewayKey>; default: ErrorAnswer } } };
  '/api/v1/keys/{id}/unblock': { post: KeyPath & { responses: { 200: Answer<GatewayKey>; default: ErrorAnswer } } };
}

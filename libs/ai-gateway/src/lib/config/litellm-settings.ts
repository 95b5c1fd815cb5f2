import { type GuardrailDefinition, readGuardrails } from '@arbor/guardrails';
import { MODEL_CALL_GUARDRAILS } from '../guardrails/model-call-scope';
import { asMeant, ConfigProblem, parsedUrl, SettingReader, unknownKeyMessage, UnsetVariable } from '@arbor/config';
import { excerpt } from '@arbor/platform';
import { providerAdapters } from '@arbor/provider-adapters';
import { type BudgetAlertWebhook, readBudgetAlertSettings } from '../budgets/budget-alert-settings';
import { type BudgetSettings, readBudgetSettings } from '../budgets/budget-settings';
import { readResponseCacheSettings, type ResponseCacheSettings } from '../response-cache/response-cache.settings';
import { type CallContentSettings, readCallContentSettings } from '../call-content/call-content.settings';

/**
 * What the gateway does with a key of LiteLLM's `litellm_settings` / `general_settings` /
 * `router_settings` (and the top level), decided from LiteLLM's documentation of each
 * (docs/proxy/config_settings.md, docs/routing.md): **served** (read and honoured), **warned** (accepted with a start-up warning: it
 * changes nothing a client gets or pays here) or **refused** (stops the start: ignoring it would
 * weaken security or accounting). A key in none of them is a misspelling until proven otherwise:
 * an error with the nearest known key. docs/ai-gateway.md's "Coming from LiteLLM" has a line for each.
 */
export type SettingKind = 'served' | 'warned' | 'refused';

export interface SettingRule {
  section: 'litellm_settings' | 'general_settings' | 'router_settings' | '(top level)';
  key: string;
  kind: SettingKind;
  /** Served: what it does here. Warned: why it changes nothing. Refused: why it cannot be ignored. */
  why: string;
}

/** Callback names of LiteLLM's logging integrations: they observe calls, they never change or refuse one. */
const LOGGING_INTEGRATIONS = [
  'prometheus',
  'otel',
  'langfuse',
  'langsmith',
  'datadog',
  'lunary',
  'helicone',
  's3',
  'gcs_bucket',
  'azure_storage',
  'sentry',
  'slack',
  'arize',
  'braintrust',
  'mlflow',
  'opik',
  'posthog',
  'dynamodb',
  'athina',
  'wandb',
  'logfire',
  'greenscale',
  'openmeter',
  'galileo',
  'humanloop',
  'generic_api',
  'supabase',
  'traceloop',
];

export const SETTING_RULES: readonly SettingRule[] = [
  // litellm_settings
  { section: 'litellm_settings', key: 'drop_params', kind: 'served', why: 'parameters a provider does not take are removed instead of refused' },
  { section: 'litellm_settings', key: 'cache', kind: 'served', why: 'the response cache (with cache_params)' },
  { section: 'litellm_settings', key: 'cache_params', kind: 'served', why: "the response cache's store, TTL, namespace and call types" },
  { section: 'litellm_settings', key: 'include_cost_in_streaming_usage', kind: 'served', why: "always on here: a streamed usage chunk carries the call's cost as usage.cost" },
  { section: 'litellm_settings', key: 'num_retries', kind: 'served', why: 'retries within an alias, when router_settings.num_retries is not set' },
  { section: 'litellm_settings', key: 'request_timeout', kind: 'served', why: 'upstream timeout in seconds, when router_settings.timeout is not set' },
  { section: 'litellm_settings', key: 'fallbacks', kind: 'served', why: 'as router_settings.fallbacks, when router_settings does not set it' },
  { section: 'litellm_settings', key: 'context_window_fallbacks', kind: 'served', why: 'as router_settings.context_window_fallbacks, when router_settings does not set it' },
  { section: 'litellm_settings', key: 'content_policy_fallbacks', kind: 'served', why: 'as router_settings.content_policy_fallbacks, when router_settings does not set it' },
  { section: 'litellm_settings', key: 'default_fallbacks', kind: 'served', why: 'as router_settings.default_fallbacks, when router_settings does not set it' },
  {
    section: 'litellm_settings',
    key: 'default_team_settings',
    kind: 'warned',
    why: "per-team logging integrations (LiteLLM's teams are projects here): as callbacks; a Python callback in them is refused",
  },
  {
    section: 'litellm_settings',
    key: 'callbacks',
    kind: 'warned',
    why: 'logging integrations: metrics are always served at /metrics, traces with OTEL_EXPORTER_OTLP_ENDPOINT; a Python callback (module.name) is refused',
  },
  { section: 'litellm_settings', key: 'success_callback', kind: 'warned', why: 'as callbacks' },
  { section: 'litellm_settings', key: 'failure_callback', kind: 'warned', why: 'as callbacks' },
  { section: 'litellm_settings', key: 'service_callback', kind: 'warned', why: 'as callbacks' },
  { section: 'litellm_settings', key: 'set_verbose', kind: 'warned', why: 'logging is set with AIGW_LOG' },
  { section: 'litellm_settings', key: 'json_logs', kind: 'warned', why: 'logs are JSON unless LOG_FORMAT=text' },
  {
    section: 'litellm_settings',
    key: 'turn_off_message_logging',
    kind: 'served',
    why: 'prompts and answers are never logged; true also keeps them out of the call records whatever general_settings.store_prompts_in_spend_logs says',
  },
  { section: 'litellm_settings', key: 'redact_user_api_key_info', kind: 'warned', why: 'keys are never logged' },
  { section: 'litellm_settings', key: 'telemetry', kind: 'warned', why: 'the gateway sends no telemetry' },
  { section: 'litellm_settings', key: 'ssl_verify', kind: 'warned', why: 'upstream TLS certificates are always verified (NODE_EXTRA_CA_CERTS adds a CA)' },
  {
    section: 'litellm_settings',
    key: 'max_budget',
    kind: 'served',
    why: 'the workspace budget (USD): every call of every key counts against it, on every route; over it a call is refused with 400 budget_exceeded naming the workspace',
  },
  {
    section: 'litellm_settings',
    key: 'budget_duration',
    kind: 'served',
    why: "the workspace budget's period, reset on calendar boundaries: 1d at midnight, 7d on Monday, 30d and 1mo on the first of the month (shorter ones on the clock)",
  },
  { section: 'litellm_settings', key: 'timezone', kind: 'served', why: "the IANA time zone of the workspace budget's periods (UTC when unset)" },
  {
    section: 'litellm_settings',
    key: 'guardrails',
    kind: 'refused',
    why: "LiteLLM's older form of guardrails, whose hooks the gateway cannot run: write them as the top-level guardrails list",
  },
  // general_settings
  { section: 'general_settings', key: 'master_key', kind: 'served', why: 'the master key (AIGW_MASTER_KEY wins)' },
  { section: 'general_settings', key: 'always_include_stream_usage', kind: 'served', why: 'usage in every stream, asked for or not' },
  { section: 'general_settings', key: 'pass_through_endpoints', kind: 'served', why: 'paths forwarded to a target, with the virtual key checked' },
  {
    section: 'general_settings',
    key: 'pass_through_allowed_paths',
    kind: 'served',
    why: 'paths of /openai and /anthropic that no project owns (admin, organization, usage APIs) which every key may use; refused otherwise',
  },
  { section: 'general_settings', key: 'use_redis_transaction_buffer', kind: 'warned', why: 'spend is written behind anyway (at most every second)' },
  { section: 'general_settings', key: 'proxy_batch_write_at', kind: 'warned', why: 'spend is flushed every second' },
  { section: 'general_settings', key: 'database_url', kind: 'warned', why: 'the database is AIGW_DATABASE_URL' },
  { section: 'general_settings', key: 'database_connection_pool_limit', kind: 'warned', why: "the pool is the service's own" },
  { section: 'general_settings', key: 'store_model_in_db', kind: 'warned', why: 'models come from AIGW_CONFIG only' },
  {
    section: 'general_settings',
    key: 'disable_spend_logs',
    kind: 'served',
    why: 'true: no record of single calls is kept (/spend/logs lists none); spend totals and budgets are kept anyway',
  },
  {
    section: 'general_settings',
    key: 'maximum_spend_logs_retention_period',
    kind: 'served',
    why: 'how long records of single calls are kept (30d when unset: 1h, 7d, 30d…); older ones are pruned in batches',
  },
  {
    section: 'general_settings',
    key: 'store_prompts_in_spend_logs',
    kind: 'served',
    why: "true: each call's messages as sent upstream and its answer as the client got it are kept in its record (/spend/logs, the call log), each cut at 16 384 characters; off by default",
  },
  { section: 'general_settings', key: 'maximum_spend_logs_retention_interval', kind: 'warned', why: 'records of single calls are pruned every hour' },
  {
    section: 'general_settings',
    key: 'alerting',
    kind: 'served',
    why: "slack or webhook: budget alerts (50, 80 and 100 % of a budget, a key's soft_budget) are sent there, once per period; the URL is SLACK_WEBHOOK_URL / WEBHOOK_URL or alert_to_webhook_url.budget_alerts; other integrations are not sent to",
  },
  {
    section: 'general_settings',
    key: 'alert_types',
    kind: 'served',
    why: 'budget alerts are sent unless alert_types leaves out budget_alerts; the other types are not raised here',
  },
  {
    section: 'general_settings',
    key: 'alert_to_webhook_url',
    kind: 'served',
    why: 'budget_alerts: the webhook URL budget alerts go to (one, or the first of a list); other types are not raised here',
  },
  { section: 'general_settings', key: 'alerting_threshold', kind: 'warned', why: 'slow and hanging calls are seen on /metrics, not alerted' },
  { section: 'general_settings', key: 'background_health_checks', kind: 'warned', why: 'deployments cool down on failures instead' },
  { section: 'general_settings', key: 'health_check_interval', kind: 'warned', why: 'deployments cool down on failures instead' },
  { section: 'general_settings', key: 'infer_model_from_keys', kind: 'warned', why: 'aliases come from model_list' },
  { section: 'general_settings', key: 'proxy_budget_rescheduler_min_time', kind: 'warned', why: 'budget periods are checked on each call, not by a rescheduler' },
  { section: 'general_settings', key: 'proxy_budget_rescheduler_max_time', kind: 'warned', why: 'budget periods are checked on each call, not by a rescheduler' },
  { section: 'general_settings', key: 'custom_auth', kind: 'refused', why: 'a Python hook the gateway cannot run; serving without it would let in callers it refuses' },
  { section: 'general_settings', key: 'enforce_user_param', kind: 'refused', why: 'requiring `user` on every call is not served, and calls without it would pass' },
  { section: 'general_settings', key: 'max_parallel_requests', kind: 'refused', why: 'a proxy-wide limit is not enforced here; set max_parallel_requests on the keys' },
  { section: 'general_settings', key: 'global_max_parallel_requests', kind: 'refused', why: 'a proxy-wide limit is not enforced here; set max_parallel_requests on the keys' },
  // router_settings (LiteLLM's Router arguments a proxy config may set)
  {
    section: 'router_settings',
    key: 'routing_strategy',
    kind: 'served',
    why: 'simple-shuffle (weighted by rpm/tpm), least-busy (fewest calls in flight), usage-based-routing-v2 (lowest tokens this minute, within rpm/tpm), latency-based-routing, cost-based-routing (cheapest price); usage-based-routing is read as v2',
  },
  { section: 'router_settings', key: 'num_retries', kind: 'served', why: 'retries within an alias, another deployment first' },
  { section: 'router_settings', key: 'timeout', kind: 'served', why: 'upstream timeout in seconds of deployments without their own' },
  { section: 'router_settings', key: 'stream_timeout', kind: 'served', why: 'upstream timeout of streamed calls, for deployments without their own' },
  { section: 'router_settings', key: 'fallbacks', kind: 'served', why: 'other aliases tried when an alias fails' },
  { section: 'router_settings', key: 'context_window_fallbacks', kind: 'served', why: 'other aliases tried when the prompt is too long for an alias' },
  { section: 'router_settings', key: 'content_policy_fallbacks', kind: 'served', why: 'other aliases tried when an upstream refuses a call by its content policy' },
  { section: 'router_settings', key: 'default_fallbacks', kind: 'served', why: 'aliases tried after any alias that has no fallbacks of its own fails' },
  { section: 'router_settings', key: 'max_fallbacks', kind: 'served', why: 'the most fallback aliases one call tries (5 when unset)' },
  { section: 'router_settings', key: 'allowed_fails', kind: 'served', why: 'failures within a minute before a deployment cools down' },
  { section: 'router_settings', key: 'cooldown_time', kind: 'served', why: 'seconds a failing deployment is skipped' },
  { section: 'router_settings', key: 'disable_cooldowns', kind: 'served', why: "deployments never cool down, not even after a 429's Retry-After" },
  {
    section: 'router_settings',
    key: 'model_group_alias',
    kind: 'served',
    why: 'another name for a model_name ({alias: group} or {alias: {model: group, hidden: true}}, hidden ones left out of /v1/models); a key allowed either name may call it',
  },
  {
    section: 'router_settings',
    key: 'enable_pre_call_checks',
    kind: 'served',
    why: 'before the pick, deployments whose model_info.max_input_tokens is smaller than the prompt, or that reached their rpm/tpm this minute, are skipped; a prompt no deployment fits is a context-window error, which goes to context_window_fallbacks',
  },
  {
    section: 'router_settings',
    key: 'default_max_parallel_requests',
    kind: 'served',
    why: 'calls in flight per deployment (per replica) for deployments without max_parallel_requests; a full deployment is skipped',
  },
  {
    section: 'router_settings',
    key: 'default_litellm_params',
    kind: 'served',
    why: 'request parameters (temperature, max_tokens, …) added to each call of every deployment, under its own',
  },
  {
    section: 'router_settings',
    key: 'redis_url',
    kind: 'served',
    why: "the gateway's Redis when AIGW_REDIS_URL is not set: key limits and budgets, deployments' calls and tokens of the minute, and cooldowns shared by replicas; AIGW_REDIS_URL wins, with a warning when they differ",
  },
  { section: 'router_settings', key: 'redis_host', kind: 'served', why: 'as redis_url, with redis_port, redis_password and redis_db' },
  { section: 'router_settings', key: 'redis_port', kind: 'served', why: 'as redis_url (6379 when unset)' },
  { section: 'router_settings', key: 'redis_password', kind: 'served', why: 'as redis_url' },
  { section: 'router_settings', key: 'redis_db', kind: 'served', why: 'as redis_url' },
  {
    section: 'router_settings',
    key: 'retry_policy',
    kind: 'served',
    why: 'retries by error kind (BadRequestErrorRetries, AuthenticationErrorRetries, TimeoutErrorRetries, RateLimitErrorRetries, ContentPolicyViolationErrorRetries, InternalServerErrorRetries) instead of num_retries; a kind it does not name follows num_retries',
  },
  { section: 'router_settings', key: 'model_group_retry_policy', kind: 'served', why: 'a retry_policy per alias, which wins over retry_policy' },
  {
    section: 'router_settings',
    key: 'allowed_fails_policy',
    kind: 'served',
    why: 'failures of one kind (<Kind>AllowedFails, the kinds of retry_policy) allowed within a minute before a deployment cools down; other kinds count against allowed_fails',
  },
  {
    section: 'router_settings',
    key: 'retry_after',
    kind: 'served',
    why: "seconds to wait before retrying an alias's only deployment (an upstream Retry-After up to 60 s wins when longer); retries to another deployment go at once",
  },
  { section: 'router_settings', key: 'routing_strategy_args', kind: 'warned', why: 'latency is a smoothed average and usage a per-minute count, with no arguments' },
  { section: 'router_settings', key: 'client_ttl', kind: 'warned', why: 'upstream connections are pooled for the life of the process' },
  { section: 'router_settings', key: 'cache_kwargs', kind: 'warned', why: 'Redis options go in redis_url (rediss:// for TLS)' },
  { section: 'router_settings', key: 'cache_responses', kind: 'warned', why: 'the response cache is litellm_settings.cache' },
  { section: 'router_settings', key: 'caching_groups', kind: 'warned', why: 'the response cache keys answers by alias; groups do not share them' },
  { section: 'router_settings', key: 'default_priority', kind: 'warned', why: 'calls are not queued by priority: each goes out at once' },
  { section: 'router_settings', key: 'polling_interval', kind: 'warned', why: 'calls are not queued by priority: each goes out at once' },
  { section: 'router_settings', key: 'debug_level', kind: 'warned', why: 'logging is set with AIGW_LOG' },
  { section: 'router_settings', key: 'set_verbose', kind: 'warned', why: 'logging is set with AIGW_LOG' },
  { section: 'router_settings', key: 'alerting_config', kind: 'warned', why: 'alert on /metrics instead' },
  { section: 'router_settings', key: 'router_general_settings', kind: 'warned', why: "LiteLLM's own process optimisations" },
  {
    section: 'router_settings',
    key: 'ignore_invalid_deployments',
    kind: 'warned',
    why: 'a deployment of a provider not served is left out with a warning anyway; a malformed one stops the start',
  },
  { section: 'router_settings', key: 'deployment_affinity_ttl_seconds', kind: 'warned', why: 'as optional_pre_call_checks' },
  { section: 'router_settings', key: 'model_group_affinity_config', kind: 'warned', why: 'as optional_pre_call_checks' },
  { section: 'router_settings', key: 'enable_health_check_routing', kind: 'warned', why: 'no background health checks run: deployments cool down on failures instead' },
  { section: 'router_settings', key: 'health_check_staleness_threshold', kind: 'warned', why: 'as enable_health_check_routing' },
  { section: 'router_settings', key: 'health_check_ignore_transient_errors', kind: 'warned', why: 'as enable_health_check_routing' },
  {
    section: 'router_settings',
    key: 'optional_pre_call_checks',
    kind: 'warned',
    why: "affinity checks: stored responses and files are the gateway's own, so any deployment continues them; router_budget_limiting is refused (provider budgets are not enforced)",
  },
  { section: 'router_settings', key: 'assistants_config', kind: 'warned', why: 'assistants go to the deployment of the alias the call names' },
  { section: 'router_settings', key: 'search_tools', kind: 'warned', why: 'the Search API is not served: its calls answer 404' },
  {
    section: 'router_settings',
    key: 'enable_tag_filtering',
    kind: 'refused',
    why: 'tag-based routing is not served, and tagged calls would reach deployments kept from them',
  },
  { section: 'router_settings', key: 'tag_filtering_match_any', kind: 'refused', why: 'as enable_tag_filtering' },
  { section: 'router_settings', key: 'provider_budget_config', kind: 'refused', why: 'provider budgets are not enforced, and spend would pass them; set max_budget on the keys' },
  { section: 'router_settings', key: 'guardrail_list', kind: 'refused', why: 'guardrails are not served yet, and calls would pass unchecked' },
  // top level
  { section: '(top level)', key: 'model_list', kind: 'served', why: 'aliases and their deployments' },
  { section: '(top level)', key: 'router_settings', kind: 'served', why: 'as listed here' },
  { section: '(top level)', key: 'litellm_settings', kind: 'served', why: 'as listed here' },
  { section: '(top level)', key: 'general_settings', kind: 'served', why: 'as listed here' },
  { section: '(top level)', key: 'environment_variables', kind: 'served', why: 'set in the environment before the rest of the file is read' },
  {
    section: '(top level)',
    key: 'guardrails',
    kind: 'served',
    why: 'litellm_content_filter on requests (pre_call), answers whole and streamed (post_call), both (during_call): patterns, regex, blocked_words; BLOCK and MASK; openai_moderation through a moderation alias of model_list; generic_guardrail_api; default_on or named by the request; other guardrails and modes are refused',
  },
  {
    section: '(top level)',
    key: 'files_settings',
    kind: 'warned',
    why: "files and batches go to the deployment of the alias the call names (target_model_names or x-arbor-model), with that deployment's credentials",
  },
  { section: '(top level)', key: 'finetune_settings', kind: 'warned', why: 'fine-tuning is not served: its routes answer 404' },
  { section: '(top level)', key: 'mcp_servers', kind: 'refused', why: "MCP servers are the MCP gateway's (MCPGW_CONFIG); tools would silently vanish here" },
];

/** `general_settings.pass_through_endpoints[]`. */
export interface PassThroughEndpoint {
  /** Where the gateway serves it (`/azure-config-passthrough`). */
  path: string;
  /** Where it forwards to. */
  target: string;
  /** Headers added to the forwarded request (lower-case names; values may have come from `os.environ/`). */
  headers: Readonly<Record<string, string>>;
  /** Whether `path/anything` forwards to `target/anything` (else only `path` itself is served). */
  includeSubpath: boolean;
  /** Whether the client's own headers go along (the key's `authorization` / `x-api-key` never do). */
  forwardHeaders: boolean;
  /** USD added to the key's spend for each call. */
  costPerRequest: number;
}

/**
 * `general_settings.pass_through_allowed_paths[]`: a path of a vendor pass-through that the gateway
 * cannot attribute to a project, opened to every key (the master key may always use them).
 */
export interface PassThroughAllowedPath {
  /** Segments from the gateway's root (`openai`, `v1`, `organization`, `*`, `**`): `*` one segment, a last `**` any rest. */
  segments: readonly string[];
  /** Upper-case methods it is open to; undefined for all. */
  methods?: ReadonlySet<string>;
}

/** The served settings of `litellm_settings` and `general_settings`, typed; what the rest of the gateway reads. */
export interface LiteLLMSettings {
  dropParams: boolean;
  /** The response cache (`cache` with `cache_params` and LiteLLM's REDIS_* variables); undefined when `cache` is off. */
  cache?: ResponseCacheSettings;
  masterKey?: string;
  alwaysIncludeStreamUsage: boolean;
  passThroughEndpoints: readonly PassThroughEndpoint[];
  passThroughAllowedPaths: readonly PassThroughAllowedPath[];
  /** litellm_settings.num_retries / request_timeout (seconds), for router_settings that do not say. */
  numRetries?: number;
  requestTimeoutS?: number;
  /** The top-level `guardrails:` list; none when it is empty. */
  guardrails?: readonly GuardrailDefinition[];
  /** litellm_settings.max_budget, budget_duration and timezone; absent: no workspace budget, periods in UTC. */
  budgets?: BudgetSettings;
  /** Where budget alerts are sent (general_settings.alerting); none: the log and /metrics only. */
  budgetAlerts?: BudgetAlertWebhook;
  /** Records of single calls (/spend/logs): off with general_settings.disable_spend_logs; kept retentionMs (30 days unless maximum_spend_logs_retention_period says). */
  spendLogs?: { enabled: boolean; retentionMs: number };
  /** general_settings.store_prompts_in_spend_logs (and what overrides it); absent: no content is kept. */
  callContent?: CallContentSettings;
}

export const DEFAULT_LITELLM_SETTINGS: LiteLLMSettings = { dropParams: false, alwaysIncludeStreamUsage: false, passThroughEndpoints: [], passThroughAllowedPaths: [] };

export interface SettingsReading {
  settings: LiteLLMSettings;
  /** `router_settings` and `litellm_settings` as meant (a misspelt key read as the one it meant), for the router's own reading. */
  routerSection: Record<string, unknown>;
  litellmSection: Record<string, unknown>;
  problems: ConfigProblem[];
  /** One line each, logged at start: the warned keys that were set, and why they change nothing. */
  warnings: string[];
}

const VARIABLE = 'AIGW_CONFIG';
const PASS_THROUGH_KEYS = ['path', 'target', 'headers', 'include_subpath', 'forward_headers', 'auth', 'cost_per_request'];
const ALLOWED_PATH_KEYS = ['path', 'methods'];
const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];

/** Sorts the keys of the top level and both settings sections by SETTING_RULES, and reads the served ones. */
export function readLiteLLMSettings(root: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): SettingsReading {
  const problems: ConfigProblem[] = [];
  const warnings: string[] = [];
  const problem = (at: string, message: string) => problems.push({ variable: VARIABLE, message: `${at}: ${message}` });

  sortKeys('(top level)', root, problem, warnings);
  const meantRoot = asMeant(root, keysOf('(top level)'));
  const litellmAsWritten = section(meantRoot, 'litellm_settings', problem);
  const generalAsWritten = section(meantRoot, 'general_settings', problem);
  const routerAsWritten = section(meantRoot, 'router_settings', problem);
  sortKeys('litellm_settings', litellmAsWritten, problem, warnings);
  sortKeys('general_settings', generalAsWritten, problem, warnings);
  sortKeys('router_settings', routerAsWritten, problem, warnings);
  // A misspelt key is reported once above, then read as the key it meant.
  const litellm = asMeant(litellmAsWritten, keysOf('litellm_settings'));
  const general = asMeant(generalAsWritten, keysOf('general_settings'));
  const router = asMeant(routerAsWritten, keysOf('router_settings'));
  const checks = router['optional_pre_call_checks'];
  if (Array.isArray(checks) && checks.includes('router_budget_limiting')) {
    problem('router_settings.optional_pre_call_checks', 'refused: router_budget_limiting (provider budgets) is not enforced, and spend would pass them');
  }
  for (const [index, team] of (Array.isArray(litellm['default_team_settings']) ? litellm['default_team_settings'] : []).entries()) {
    if (typeof team !== 'object' || team === null) continue;
    for (const key of ['callbacks', 'success_callback', 'failure_callback']) {
      for (const hook of pythonCallbacks((team as Record<string, unknown>)[key]))
        problem(`litellm_settings.default_team_settings[${index}].${key}`, `refused: "${hook}" is a Python callback the gateway cannot run, and it may check or change calls`);
    }
  }
  for (const key of ['callbacks', 'success_callback', 'failure_callback', 'service_callback']) {
    for (const hook of pythonCallbacks(litellm[key]))
      problem(`litellm_settings.${key}`, `refused: "${hook}" is a Python callback the gateway cannot run, and it may check or change calls`);
  }

  const read = new LiteLlmSettingReader(problem);
  const { settings: cache, problems: cacheProblems } = readResponseCacheSettings(litellm, env);
  for (const { path, message } of cacheProblems) problem(path, message);
  const masterKey = read.string(general['master_key'], 'general_settings.master_key');
  const numRetries = read.count(litellm['num_retries'], 'litellm_settings.num_retries');
  const requestTimeoutS = read.positive(litellm['request_timeout'], 'litellm_settings.request_timeout');
  const guardrails = readGuardrails(meantRoot['guardrails'], problem, MODEL_CALL_GUARDRAILS);
  const budgets = readBudgetSettings(litellm, problem);
  const spendLogs = readSpendLogSettings(general, read, problem);
  const budgetAlerts = readBudgetAlertSettings(general, env, problem, warnings);
  const callContent = readCallContentSettings(litellm, general, read, spendLogs?.enabled === false, warnings);
  const settings: LiteLLMSettings = {
    dropParams: read.boolean(litellm['drop_params'], 'litellm_settings.drop_params') ?? false,
    ...(cache ? { cache } : {}),
    ...(masterKey !== undefined ? { masterKey } : {}),
    alwaysIncludeStreamUsage: read.boolean(general['always_include_stream_usage'], 'general_settings.always_include_stream_usage') ?? false,
    passThroughEndpoints: read.passThroughEndpoints(general['pass_through_endpoints'], 'general_settings.pass_through_endpoints'),
    passThroughAllowedPaths: read.passThroughAllowedPaths(general['pass_through_allowed_paths'], 'general_settings.pass_through_allowed_paths'),
    ...(numRetries !== undefined ? { numRetries } : {}),
    ...(requestTimeoutS !== undefined ? { requestTimeoutS } : {}),
    ...(guardrails.length > 0 ? { guardrails } : {}),
    ...(budgets.workspace || budgets.timeZone !== 'UTC' ? { budgets } : {}),
    ...(spendLogs ? { spendLogs } : {}),
    ...(budgetAlerts ? { budgetAlerts } : {}),
    ...(callContent ? { callContent } : {}),
  };
  return { settings, routerSection: router, litellmSection: litellm, problems, warnings };
}

/** Records of single calls are kept 30 days unless maximum_spend_logs_retention_period says otherwise. */
export const DEFAULT_SPEND_LOGS_RETENTION_MS = 30 * 86_400_000;
const RETENTION_UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

function readSpendLogSettings(general: Record<string, unknown>, read: SettingReader, problem: (at: string, message: string) => void): LiteLLMSettings['spendLogs'] {
  const disabled = read.boolean(general['disable_spend_logs'], 'general_settings.disable_spend_logs');
  const period = read.string(general['maximum_spend_logs_retention_period'], 'general_settings.maximum_spend_logs_retention_period');
  const [, amount, unit] = period === undefined ? [] : (/^([1-9][0-9]{0,5})(s|m|h|d|w)$/.exec(period) ?? []);
  if (period !== undefined && unit === undefined) problem('general_settings.maximum_spend_logs_retention_period', 'must look like 1h, 7d, 30d or 2w');
  if (disabled === undefined && period === undefined) return undefined;
  return { enabled: disabled !== true, retentionMs: unit !== undefined ? Number(amount) * (RETENTION_UNIT_MS[unit] ?? 0) : DEFAULT_SPEND_LOGS_RETENTION_MS };
}

/** The keys SETTING_RULES knows in one section. */
export function keysOf(name: SettingRule['section']): string[] {
  return SETTING_RULES.filter((rule) => rule.section === name).map((rule) => rule.key);
}

function section(root: Record<string, unknown>, name: string, problem: (at: string, message: string) => void): Record<string, unknown> {
  const value = root[name];
  if (value === undefined || value === null) return {};
  if (typeof value === 'object' && !Array.isArray(value) && !(value instanceof UnsetVariable)) return value as Record<string, unknown>;
  problem(name, 'must be a mapping');
  return {};
}

function sortKeys(name: SettingRule['section'], values: Record<string, unknown>, problem: (at: string, message: string) => void, warnings: string[]): void {
  const rules = SETTING_RULES.filter((rule) => rule.section === name);
  for (const key of Object.keys(values)) {
    const at = name === '(top level)' ? key : `${name}.${key}`;
    const rule = rules.find((candidate) => candidate.key === key);
    if (!rule)
      problem(
        at,
        unknownKeyMessage(
          key,
          rules.map((candidate) => candidate.key),
        ),
      );
    else if (rule.kind === 'refused') problem(at, `refused: ${rule.why}`);
    else if (rule.kind === 'warned' && values[key] !== null && values[key] !== false) warnings.push(`${at} is accepted and ignored: ${rule.why}`);
  }
}

/** Callback entries naming Python objects (`custom_callbacks.proxy_handler_instance`) rather than a logging integration. */
function pythonCallbacks(value: unknown): string[] {
  const entries = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
  return entries.filter((entry): entry is string => typeof entry === 'string' && !LOGGING_INTEGRATIONS.includes(entry) && entry.includes('.'));
}

/** The shared typed reads of @arbor/config, with LiteLLM's pass-through settings. */
class LiteLlmSettingReader extends SettingReader {
  passThroughEndpoints(value: unknown, at: string): PassThroughEndpoint[] {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      this.problem(at, 'must be a list of {path, target, headers, include_subpath}');
      return [];
    }
    const endpoints: PassThroughEndpoint[] = [];
    value.forEach((raw: unknown, index: number) => {
      const here = `${at}[${index}]`;
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
        this.problem(here, 'must be a mapping');
        return;
      }
      const entry = raw as Record<string, unknown>;
      for (const key of Object.keys(entry)) if (!PASS_THROUGH_KEYS.includes(key)) this.problem(`${here}.${key}`, unknownKeyMessage(key, PASS_THROUGH_KEYS));
      const path = this.string(entry['path'], `${here}.path`);
      if (entry['path'] === undefined) this.problem(`${here}.path`, 'is required');
      else if (path !== undefined && !/^\/[^?#\s]*$/.test(path)) this.problem(`${here}.path`, `must be a URL path starting with /, got "${path}"`);
      const target = this.string(entry['target'], `${here}.target`);
      if (entry['target'] === undefined) this.problem(`${here}.target`, 'is required');
      else if (target !== undefined && !parsedUrl(target)) this.problem(`${here}.target`, 'must be an http(s) URL');
      const headers: Record<string, string> = {};
      const rawHeaders = entry['headers'];
      if (rawHeaders !== undefined && rawHeaders !== null) {
        if (typeof rawHeaders !== 'object' || Array.isArray(rawHeaders)) this.problem(`${here}.headers`, 'must be a mapping of header names to values');
        else {
          for (const [name, headerValue] of Object.entries(rawHeaders as Record<string, unknown>)) {
            // A problem names the header, never its value (it is usually a secret).
            const text = typeof headerValue === 'number' ? String(headerValue) : this.string(headerValue, `${here}.headers.${name}`);
            if (text !== undefined) headers[name.toLowerCase()] = text;
          }
        }
      }
      const includeSubpath = this.boolean(entry['include_subpath'], `${here}.include_subpath`) ?? false;
      const forwardHeaders = this.boolean(entry['forward_headers'], `${here}.forward_headers`) ?? false;
      this.boolean(entry['auth'], `${here}.auth`);
      const costPerRequest = this.number(entry['cost_per_request'], `${here}.cost_per_request`) ?? 0;
      if (path === undefined || target === undefined) return;
      if (endpoints.some((other) => other.path === path)) this.problem(`${here}.path`, `"${path}" is used by an earlier endpoint`);
      endpoints.push({ path: path.length > 1 ? path.replace(/\/+$/, '') : path, target, headers, includeSubpath, forwardHeaders, costPerRequest });
    });
    return endpoints;
  }

  passThroughAllowedPaths(value: unknown, at: string): PassThroughAllowedPath[] {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      this.problem(at, 'must be a list of {path, methods}');
      return [];
    }
    const routes = providerAdapters().flatMap((adapter) => (adapter.passThrough ? [adapter.passThrough.route] : []));
    const allowed: PassThroughAllowedPath[] = [];
    value.forEach((raw: unknown, index: number) => {
      const here = `${at}[${index}]`;
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return this.problem(here, 'must be a mapping');
      const entry = raw as Record<string, unknown>;
      for (const key of Object.keys(entry)) if (!ALLOWED_PATH_KEYS.includes(key)) this.problem(`${here}.${key}`, unknownKeyMessage(key, ALLOWED_PATH_KEYS));
      if (entry['path'] === undefined) return this.problem(`${here}.path`, 'is required');
      const path = this.string(entry['path'], `${here}.path`);
      if (path === undefined) return;
      const segments = path.split('/').slice(1);
      const plain = /^[A-Za-z0-9._~:@!$&'()+,;=-]+$/;
      if (!path.startsWith('/') || !routes.includes(segments[0] ?? '') || segments.length < 2) {
        return this.problem(`${here}.path`, `must be a path below ${routes.map((route) => `/${route}/`).join(' or ')}, got "${excerpt(path)}"`);
      }
      const bad = segments.findIndex((segment, position) =>
        segment === '**' ? position !== segments.length - 1 : segment !== '*' && (!plain.test(segment) || segment === '.' || segment === '..'),
      );
      if (bad >= 0) {
        return this.problem(
          `${here}.path`,
          `segment ${bad + 1} ("${excerpt(segments[bad] ?? '')}") must be a plain path segment, * for any one segment, or a last ** for any rest`,
        );
      }
      let methods: Set<string> | undefined;
      if (entry['methods'] !== undefined && entry['methods'] !== null) {
        const list = entry['methods'];
        if (!Array.isArray(list) || list.length === 0 || list.some((method) => typeof method !== 'string' || !HTTP_METHODS.includes(method.toUpperCase()))) {
          return this.problem(`${here}.methods`, `must be a non-empty list of ${HTTP_METHODS.join(', ')}`);
        }
        methods = new Set(list.map((method: string) => method.toUpperCase()));
      }
      allowed.push({ segments, ...(methods ? { methods } : {}) });
    });
    return allowed;
  }
}

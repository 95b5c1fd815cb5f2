import { asMeant, ConfigError, ConfigProblem, parseYamlConfig, readYamlConfigFile, SettingReader, type SettingProblem, unknownKeyMessage, UnsetVariable } from '@arbor/config';
import { ProviderDeployment, providerAdapterFor, supportedProviders } from '@arbor/provider-adapters';
import { KnownModels } from './known-models';
import { DEFAULT_LITELLM_SETTINGS, keysOf, LiteLLMSettings, readLiteLLMSettings, type SettingsReading } from './litellm-settings';
import { aliasPattern, isWildcard } from './wildcard-alias';

/** One `model_list` entry: an alias served by one upstream model. */
export interface GatewayDeployment extends ProviderDeployment {
  /** `model_info.id`, else `<alias>-<index>`: what `x-arbor-model-id` reports. */
  id: string;
  /** `model_name` as configured (for a wildcard entry, its pattern: `anthropic/*`, `*`). */
  alias: string;
  rpm?: number;
  tpm?: number;
  modelInfo: Record<string, unknown>;
  /**
   * `model_info.supported_endpoints` (LiteLLM's name): the endpoint paths the upstream serves
   * itself (`/v1/responses`, …). When given, an endpoint family whose path is not listed is
   * bridged through chat completions even where the provider could serve it (an
   * OpenAI-compatible server without a Responses API, say).
   */
  supportedEndpoints?: ReadonlySet<string>;
  /** `stream_timeout`: the upstream timeout of streamed calls (between chunks), instead of `timeout`. */
  streamTimeoutMs?: number;
  /** `max_retries` (or LiteLLM's per-deployment `num_retries`): attempts again on this same deployment after a retryable failure, before the alias's own retries. */
  maxRetries?: number;
  /** `max_parallel_requests` (else router_settings.default_max_parallel_requests): calls in flight at once in this replica; a full deployment is skipped. */
  maxParallelRequests?: number;
  /** Request parameters of litellm_params (`temperature`, `max_tokens`, …): added to each call that does not set them. */
  defaults?: Readonly<Record<string, unknown>>;
  /**
   * A wildcard entry (`model_name: anthropic/*` with `model: anthropic/*`, or `*`): `pattern`
   * matches the names it serves, and `template` (litellm_params.model) says which upstream model
   * each is, `*` standing for what the pattern's `*` matched. `provider` is '' when the template
   * has no provider prefix: it is resolved per name, as LiteLLM does.
   */
  wildcard?: { pattern: RegExp; template: string };
}

export type RoutingStrategy = 'simple-shuffle' | 'least-busy' | 'usage-based-routing-v2' | 'latency-based-routing' | 'cost-based-routing';

/** LiteLLM's exception kinds, as retry_policy (`<Kind>Retries`) and allowed_fails_policy (`<Kind>AllowedFails`) name them. */
export const FAILURE_KINDS = ['BadRequestError', 'AuthenticationError', 'TimeoutError', 'RateLimitError', 'ContentPolicyViolationError', 'InternalServerError'] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];
/** Retries (or allowed failures) per failure kind; a kind not named follows num_retries (allowed_fails). */
export type PerFailureKind = Partial<Record<FailureKind, number>>;

/** `router_settings.model_group_alias` entry: another name for a model group, listed by /v1/models unless hidden. */
export interface ModelGroupAlias {
  group: string;
  hidden: boolean;
}

/** The AIGW_CONFIG file, checked: what the router and the routes read. */
export interface GatewayConfig {
  deployments: GatewayDeployment[];
  router: {
    numRetries: number;
    timeoutMs?: number;
    fallbacks: Record<string, string[]>[];
    contextWindowFallbacks: Record<string, string[]>[];
    contentPolicyFallbacks: Record<string, string[]>[];
    /** Tried after an alias without fallbacks of its own fails. */
    defaultFallbacks: string[];
    /** The most fallback aliases one call tries. */
    maxFallbacks: number;
    allowedFails?: number;
    cooldownTimeS?: number;
    disableCooldowns: boolean;
    /** retry_policy: retries by failure kind, instead of numRetries. */
    retryPolicy?: PerFailureKind;
    /** model_group_retry_policy: alias → its own retry policy (wins over retryPolicy). */
    groupRetryPolicies?: Readonly<Record<string, PerFailureKind>>;
    /** allowed_fails_policy: failures of a kind allowed within a minute before a cooldown, instead of allowedFails. */
    allowedFailsPolicy?: PerFailureKind;
    /** retry_after: seconds to wait before retrying an alias's only deployment. */
    retryAfterS?: number;
    routingStrategy: RoutingStrategy;
    /** Skip deployments whose context window the prompt does not fit, before the call. */
    preCallChecks: boolean;
    /** alias name → the model group it calls. */
    modelGroupAliases: Readonly<Record<string, ModelGroupAlias>>;
    /** router_settings.redis_url, or redis_host/redis_port/redis_password/redis_db as a URL: the gateway's Redis when AIGW_REDIS_URL is not set. */
    redisUrl?: string;
  };
  dropParams: boolean;
  masterKey?: string;
  alwaysIncludeStreamUsage: boolean;
  /** Everything litellm_settings and general_settings serve, typed (the cache, pass-through endpoints, …). */
  litellm: LiteLLMSettings;
  /** Aliases whose every deployment names a provider this gateway does not serve: calls to them answer 400 with this reason. */
  unservedAliases: Readonly<Record<string, string>>;
  /** Logged at start as information: how unprefixed models were resolved. */
  notices: string[];
  /** Logged at start as warnings: keys accepted and ignored, deployments not served. */
  warnings: string[];
}

/**
 * litellm_params LiteLLM documents that change nothing a client gets here: accepted, with a
 * start-up warning saying why.
 */
const IGNORED_PARAMS: Record<string, string> = {
  region_name: "region-based routing (a key's allowed_model_region) is not served; the deployment serves every caller",
  mock_timeout: "LiteLLM's test switch for a simulated timeout; calls go to the upstream",
  mock_response: "LiteLLM's test switch for a canned answer; calls go to the upstream",
  realtime_protocol: 'the realtime relay speaks the protocol the client asks for (its OpenAI-Beta header or subprotocol)',
};

// The gateway's own litellm_params; each provider adds those it reads (api_base, api_key, …).
const GATEWAY_PARAM_KEYS = [
  'model',
  'rpm',
  'tpm',
  'timeout',
  'stream_timeout',
  'max_retries',
  'num_retries',
  'max_parallel_requests',
  'custom_llm_provider',
  'input_cost_per_token',
  'output_cost_per_token',
  ...Object.keys(IGNORED_PARAMS),
];
/** OpenAI's request parameters, which LiteLLM takes in litellm_params as defaults of every call. */
export const DEFAULT_REQUEST_PARAMS = [
  'temperature',
  'top_p',
  'max_tokens',
  'max_completion_tokens',
  'stop',
  'presence_penalty',
  'frequency_penalty',
  'seed',
  'n',
  'user',
  'response_format',
  'reasoning_effort',
  'tool_choice',
  'parallel_tool_calls',
  'logprobs',
  'top_logprobs',
  'logit_bias',
  'top_k',
  'thinking',
];
const ENTRY_KEYS = ['model_name', 'litellm_params', 'model_info', 'rpm', 'tpm'];
// Provider keys with a field of their own in ProviderDeployment; the others go in its `params`.
const OWN_PARAM_KEYS = new Set(['api_base', 'api_key', 'api_version']);
const ROUTING_STRATEGIES: RoutingStrategy[] = ['simple-shuffle', 'least-busy', 'usage-based-routing-v2', 'latency-based-routing', 'cost-based-routing'];
// LiteLLM's default max_fallbacks.
const DEFAULT_MAX_FALLBACKS = 5;
const VARIABLE = 'AIGW_CONFIG';

export const EMPTY_GATEWAY_CONFIG: GatewayConfig = {
  deployments: [],
  router: {
    numRetries: 0,
    fallbacks: [],
    contextWindowFallbacks: [],
    contentPolicyFallbacks: [],
    defaultFallbacks: [],
    maxFallbacks: DEFAULT_MAX_FALLBACKS,
    disableCooldowns: false,
    routingStrategy: 'simple-shuffle',
    preCallChecks: false,
    modelGroupAliases: {},
  },
  dropParams: false,
  alwaysIncludeStreamUsage: false,
  litellm: DEFAULT_LITELLM_SETTINGS,
  unservedAliases: {},
  notices: [],
  warnings: [],
};

/** Reads and checks the file AIGW_CONFIG names (with its `include:` files); throws ConfigError with one line per problem. */
export function loadGatewayConfigFile(path: string, env: NodeJS.ProcessEnv = process.env, known = new KnownModels()): GatewayConfig {
  return checkGatewayConfig(readYamlConfigFile(path, { variable: VARIABLE, env, litellm: true }), env, known);
}

/** Checks a LiteLLM-shaped YAML document; `os.environ/NAME` values come from `env`. */
export function parseGatewayConfig(text: string, env: NodeJS.ProcessEnv = process.env, known = new KnownModels()): GatewayConfig {
  return checkGatewayConfig(parseYamlConfig(text, { variable: VARIABLE, env, litellm: true }), env, known);
}

function checkGatewayConfig(document: Record<string, unknown>, env: NodeJS.ProcessEnv, known: KnownModels): GatewayConfig {
  const problems: ConfigProblem[] = [];
  const problem = (path: string, message: string) => problems.push({ variable: VARIABLE, message: `${path}: ${message}` });
  const notices: string[] = [];
  const warnings: string[] = [];
  const read = new Reader(problem);
  const settingsReading = readLiteLLMSettings(document, env);
  // A misspelt top-level key (`model_lst`) is reported there once, and read here as the key it meant.
  const root = asMeant(document, keysOf('(top level)'));
  const { settings } = settingsReading;
  warnings.push(...settingsReading.warnings);

  const deployments: GatewayDeployment[] = [];
  const unserved: Record<string, string> = {};
  // Aliases of entries left out for a problem already reported: a fallback naming one is not a second problem.
  const dropped = new Set<string>();
  const list = root['model_list'] ?? [];
  if (!Array.isArray(list)) problem('model_list', 'must be a list');
  else {
    list.forEach((raw: unknown, index: number) => {
      const deployment = readDeployment(raw, index, { read, problem, notices, warnings, env, known });
      if (deployment && 'dropped' in deployment) {
        if (deployment.dropped !== undefined) dropped.add(deployment.dropped);
      } else if (deployment && 'unserved' in deployment) {
        warnings.push(`model_list[${index}] (${deployment.alias}): ${deployment.unserved}; calls to it answer 400`);
        unserved[deployment.alias] ??= deployment.unserved;
      } else if (deployment) deployments.push(deployment);
    });
  }
  const ids = new Set<string>();
  for (const deployment of deployments) {
    if (ids.has(deployment.id)) problem('model_list', `model_info.id "${deployment.id}" is used twice`);
    ids.add(deployment.id);
  }
  const servedAliases = new Set(deployments.map((d) => d.alias));
  for (const alias of Object.keys(unserved)) if (servedAliases.has(alias)) delete unserved[alias];

  const matchesDeployment = (name: string) => servedAliases.has(name) || name in unserved || dropped.has(name) || deployments.some((d) => d.wildcard?.pattern.test(name));
  const router = readRouterSettings(settingsReading, { read, problem, warnings, matchesDeployment, isModelName: (name) => servedAliases.has(name) });
  // A moderation guardrail asks an alias of this list.
  for (const [index, guardrail] of (settingsReading.settings.guardrails ?? []).entries()) {
    if (guardrail.kind === 'openai_moderation' && !servedAliases.has(guardrail.moderation.model)) {
      problem(
        `guardrails[${index}].litellm_params.model`,
        `"${guardrail.moderation.model}" is not a model_name of model_list: the moderation guardrail asks an alias of the gateway's own`,
      );
    }
  }
  withRouterDefaults(deployments, settingsReading.routerSection, read);

  problems.push(...settingsReading.problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    deployments,
    router,
    dropParams: settings.dropParams,
    ...(settings.masterKey !== undefined ? { masterKey: settings.masterKey } : {}),
    alwaysIncludeStreamUsage: settings.alwaysIncludeStreamUsage,
    litellm: settings,
    unservedAliases: unserved,
    notices,
    warnings,
  };
}

interface RouterReadContext {
  read: Reader;
  problem: (path: string, message: string) => void;
  warnings: string[];
  /** A name model_list serves (an exact alias, an unserved or dropped one, or one a wildcard matches). */
  matchesDeployment: (name: string) => boolean;
  /** An exact model_name of model_list. */
  isModelName: (name: string) => boolean;
}

/** router_settings (and the router keys LiteLLM also reads from litellm_settings), checked. */
function readRouterSettings(reading: SettingsReading, context: RouterReadContext): GatewayConfig['router'] {
  const { routerSection, litellmSection, settings } = reading;
  const { read, problem, warnings, matchesDeployment } = context;
  // LiteLLM reads most router settings from litellm_settings too; router_settings wins.
  const routerValue = (key: string): [unknown, string] =>
    routerSection[key] !== undefined || litellmSection[key] === undefined ? [routerSection[key], `router_settings.${key}`] : [litellmSection[key], `litellm_settings.${key}`];
  const writtenStrategy = read.string(routerSection['routing_strategy'], 'router_settings.routing_strategy') ?? 'simple-shuffle';
  // LiteLLM's first usage-based strategy, which its docs replace with v2.
  const strategy = writtenStrategy === 'usage-based-routing' ? 'usage-based-routing-v2' : writtenStrategy;
  if (!ROUTING_STRATEGIES.includes(strategy as RoutingStrategy)) {
    problem('router_settings.routing_strategy', `must be one of ${ROUTING_STRATEGIES.join(', ')}, got "${writtenStrategy}"`);
  }
  const modelGroupAliases = read.modelGroupAliases(routerSection['model_group_alias'], 'router_settings.model_group_alias', matchesDeployment);
  for (const name of Object.keys(modelGroupAliases)) {
    if (context.isModelName(name))
      warnings.push(`router_settings.model_group_alias: "${name}" is also a model_name of model_list; calls to it go to "${modelGroupAliases[name]?.group}", as in LiteLLM`);
  }
  const isAlias = (name: string) => matchesDeployment(name) || name in modelGroupAliases;
  const routerTimeout = read.positive(routerSection['timeout'], 'router_settings.timeout') ?? settings.requestTimeoutS;
  const allowedFails = read.count(routerSection['allowed_fails'], 'router_settings.allowed_fails');
  const cooldownTime = read.positive(routerSection['cooldown_time'], 'router_settings.cooldown_time');
  const [defaultFallbacks, defaultFallbacksAt] = routerValue('default_fallbacks');
  const redisUrl = read.redisUrl(routerSection);
  const retryPolicy = read.perFailureKind(routerSection['retry_policy'], 'router_settings.retry_policy', 'Retries');
  const allowedFailsPolicy = read.perFailureKind(routerSection['allowed_fails_policy'], 'router_settings.allowed_fails_policy', 'AllowedFails');
  const groupPolicies = read.object(routerSection['model_group_retry_policy'] ?? {}, 'router_settings.model_group_retry_policy') ?? {};
  const groupRetryPolicies: Record<string, PerFailureKind> = {};
  for (const [alias, policy] of Object.entries(groupPolicies)) {
    if (!isAlias(alias)) problem(`router_settings.model_group_retry_policy.${alias}`, `"${alias}" is not a model_name of model_list`);
    const own = read.perFailureKind(policy, `router_settings.model_group_retry_policy.${alias}`, 'Retries');
    if (own) groupRetryPolicies[alias] = own;
  }
  const retryAfter = read.number(routerSection['retry_after'], 'router_settings.retry_after');
  if (retryAfter !== undefined && retryAfter < 0) problem('router_settings.retry_after', 'must be 0 or more seconds');
  const router: GatewayConfig['router'] = {
    numRetries: read.count(routerSection['num_retries'], 'router_settings.num_retries') ?? settings.numRetries ?? 0,
    fallbacks: read.fallbacks(...routerValue('fallbacks'), isAlias),
    contextWindowFallbacks: read.fallbacks(...routerValue('context_window_fallbacks'), isAlias),
    contentPolicyFallbacks: read.fallbacks(...routerValue('content_policy_fallbacks'), isAlias),
    defaultFallbacks: read.aliasList(defaultFallbacks, defaultFallbacksAt, isAlias),
    maxFallbacks: read.count(routerSection['max_fallbacks'], 'router_settings.max_fallbacks') ?? DEFAULT_MAX_FALLBACKS,
    disableCooldowns: read.boolean(routerSection['disable_cooldowns'], 'router_settings.disable_cooldowns') ?? false,
    routingStrategy: strategy as RoutingStrategy,
    preCallChecks: read.boolean(routerSection['enable_pre_call_checks'], 'router_settings.enable_pre_call_checks') ?? false,
    modelGroupAliases,
    ...(routerTimeout !== undefined ? { timeoutMs: routerTimeout * 1000 } : {}),
    ...(allowedFails !== undefined ? { allowedFails } : {}),
    ...(cooldownTime !== undefined ? { cooldownTimeS: cooldownTime } : {}),
    ...(redisUrl !== undefined ? { redisUrl } : {}),
    ...(retryPolicy ? { retryPolicy } : {}),
    ...(Object.keys(groupRetryPolicies).length > 0 ? { groupRetryPolicies } : {}),
    ...(allowedFailsPolicy ? { allowedFailsPolicy } : {}),
    ...(retryAfter !== undefined && retryAfter > 0 ? { retryAfterS: retryAfter } : {}),
  };
  return router;
}

/** router_settings' defaults for every deployment, under each deployment's own: request parameters, stream_timeout, default_max_parallel_requests. */
function withRouterDefaults(deployments: GatewayDeployment[], routerSection: Record<string, unknown>, read: Reader): void {
  const streamTimeout = read.positive(routerSection['stream_timeout'], 'router_settings.stream_timeout');
  const maxParallel = read.positive(routerSection['default_max_parallel_requests'], 'router_settings.default_max_parallel_requests');
  const requestDefaults = read.requestDefaults(routerSection['default_litellm_params'], 'router_settings.default_litellm_params');
  for (const [index, deployment] of deployments.entries()) {
    const defaults = { ...requestDefaults, ...(deployment.defaults ?? {}) };
    deployments[index] = {
      ...deployment,
      ...(Object.keys(defaults).length > 0 ? { defaults } : {}),
      ...(deployment.streamTimeoutMs === undefined && streamTimeout !== undefined ? { streamTimeoutMs: streamTimeout * 1000 } : {}),
      ...(deployment.maxParallelRequests === undefined && maxParallel !== undefined ? { maxParallelRequests: maxParallel } : {}),
    };
  }
}

interface DeploymentContext {
  read: Reader;
  problem: (path: string, message: string) => void;
  notices: string[];
  warnings: string[];
  env: NodeJS.ProcessEnv;
  known: KnownModels;
}

/**
 * The upstream a `model:` names, as LiteLLM's get_llm_provider finds it: `custom_llm_provider`,
 * else a prefix naming a provider, else a model name known to the model map (`gpt-5-mini` →
 * openai). Undefined when nothing names a provider this gateway serves.
 */
function resolveModel(target: string, explicitProvider: string | undefined, known: KnownModels): { provider: string; model: string; how?: string } | { unserved: string } {
  if (explicitProvider !== undefined) {
    if (!providerAdapterFor(explicitProvider)) return { unserved: notServed(explicitProvider) };
    return { provider: explicitProvider, model: target.startsWith(`${explicitProvider}/`) ? target.slice(explicitProvider.length + 1) : target };
  }
  const slash = target.indexOf('/');
  const prefix = slash > 0 ? target.slice(0, slash) : undefined;
  if (prefix !== undefined && providerAdapterFor(prefix)) return { provider: prefix, model: target.slice(slash + 1) };
  const knownProvider = known.providerOf(target);
  if (knownProvider) return { provider: knownProvider, model: target, how: 'a known model' };
  if (prefix !== undefined) return { unserved: notServed(prefix, target) };
  return { unserved: `model "${target}" has no provider prefix and is not a model this gateway knows (write <provider>/${target}, or give AIGW_PRICE_MAP)` };
}

function notServed(provider: string, target?: string): string {
  return `provider "${provider}"${target ? ` (model "${target}")` : ''} is not served by this gateway (served: ${supportedProviders().join(', ')})`;
}

/** An entry left out for a problem already reported, with the alias it would have served when it names one. */
interface DroppedDeployment {
  dropped: string | undefined;
}

function readDeployment(raw: unknown, index: number, context: DeploymentContext): GatewayDeployment | { alias: string; unserved: string } | DroppedDeployment {
  const { read, problem, notices, warnings, env, known } = context;
  const at = `model_list[${index}]`;
  const entry = read.object(raw, at, ENTRY_KEYS);
  if (!entry) return { dropped: undefined };
  const alias = read.string(entry['model_name'], `${at}.model_name`, true);
  const paramsAsWritten = entry['litellm_params'] === undefined ? undefined : read.object(entry['litellm_params'], `${at}.litellm_params`);
  const modelInfo = entry['model_info'] === undefined ? {} : read.object(entry['model_info'], `${at}.model_info`);
  if (entry['litellm_params'] === undefined) problem(`${at}.litellm_params`, 'is required');
  if (!paramsAsWritten) return { dropped: alias };
  const target = read.string(paramsAsWritten['model'], `${at}.litellm_params.model`, true);
  const explicitProvider = read.string(paramsAsWritten['custom_llm_provider'], `${at}.litellm_params.custom_llm_provider`);
  if (alias === undefined || target === undefined) return { dropped: alias };

  // A wildcard template (`anthropic/*`, `*`): its provider is the prefix, or is resolved per name when there is none.
  const templated = target.includes('*');
  const resolved = templated ? resolveTemplate(target, explicitProvider) : resolveModel(target, explicitProvider, known);
  if ('unserved' in resolved) return { alias, unserved: resolved.unserved };
  const { provider, model } = resolved;
  if ('how' in resolved && resolved.how) notices.push(`${at} (${alias}): model "${target}" resolved to ${provider}/${model} (${resolved.how})`);
  if (isWildcard(alias) !== templated && templated) problem(`${at}.litellm_params.model`, `"${target}" has a * but model_name "${alias}" has none to fill it`);

  const adapter = provider === '' ? undefined : providerAdapterFor(provider);
  const providerKeys = adapter ? adapter.settings.params : [...new Set(supportedProviders().flatMap((name) => providerAdapterFor(name)?.settings.params ?? []))];
  const knownKeys = [...GATEWAY_PARAM_KEYS, ...DEFAULT_REQUEST_PARAMS, ...providerKeys];
  for (const key of Object.keys(paramsAsWritten)) {
    if (!knownKeys.includes(key))
      problem(`${at}.litellm_params.${key}`, `${unknownKeyMessage(key, knownKeys)}`.replace('unknown key', `unknown key for ${provider || 'any provider'}/`));
  }
  // Read on as meant (`api_bse` as api_base), so the typo is not reported again as a required key missing.
  const params = asMeant(paramsAsWritten, knownKeys);
  if (adapter) {
    for (const [key, variable] of Object.entries(adapter.settings.env ?? {})) {
      if (params[key] === undefined && env[variable]) params[key] = env[variable];
    }
    for (const [key, hint] of Object.entries(adapter.settings.required ?? {})) {
      if (params[key] === undefined) problem(`${at}.litellm_params.${key}`, `is required for ${provider}/ (${hint})`);
    }
  }
  const providerParams: Record<string, string> = {};
  for (const key of providerKeys) {
    if (OWN_PARAM_KEYS.has(key) || params[key] === undefined) continue;
    const value = read.string(params[key], `${at}.litellm_params.${key}`);
    if (value !== undefined) providerParams[key] = value;
  }
  const defaults: Record<string, unknown> = {};
  for (const key of DEFAULT_REQUEST_PARAMS) {
    if (params[key] === undefined) continue;
    if (params[key] instanceof UnsetVariable) problem(`${at}.litellm_params.${key}`, (params[key] as UnsetVariable).message);
    else defaults[key] = params[key];
  }
  const apiBase = read.url(params['api_base'], `${at}.litellm_params.api_base`);
  const apiKey = read.string(params['api_key'], `${at}.litellm_params.api_key`);
  const apiVersion = read.string(params['api_version'], `${at}.litellm_params.api_version`);
  // rpm / tpm beside litellm_params (LiteLLM's router reads both places).
  const rpm = read.positive(params['rpm'] ?? entry['rpm'], `${at}.${params['rpm'] !== undefined ? 'litellm_params.' : ''}rpm`);
  const tpm = read.positive(params['tpm'] ?? entry['tpm'], `${at}.${params['tpm'] !== undefined ? 'litellm_params.' : ''}tpm`);
  const timeout = read.positive(params['timeout'], `${at}.litellm_params.timeout`);
  const streamTimeout = read.positive(params['stream_timeout'], `${at}.litellm_params.stream_timeout`);
  // LiteLLM's per-deployment num_retries is its client retrying the same deployment, as max_retries.
  const maxRetries = read.count(params['max_retries'], `${at}.litellm_params.max_retries`) ?? read.count(params['num_retries'], `${at}.litellm_params.num_retries`);
  const maxParallelRequests = read.positive(params['max_parallel_requests'], `${at}.litellm_params.max_parallel_requests`);
  for (const [key, why] of Object.entries(IGNORED_PARAMS)) {
    if (params[key] !== undefined && params[key] !== false) warnings.push(`${at}.litellm_params.${key} is accepted and ignored: ${why}`);
  }
  const id = modelInfo?.['id'] === undefined ? undefined : read.string(modelInfo['id'], `${at}.model_info.id`);
  const endpoints = read.paths(modelInfo?.['supported_endpoints'], `${at}.model_info.supported_endpoints`);
  // Prices may stand in litellm_params too (LiteLLM reads both); model_info's win.
  const prices = Object.fromEntries(['input_cost_per_token', 'output_cost_per_token'].filter((key) => params[key] !== undefined).map((key) => [key, params[key]]));
  return {
    id: id ?? `${alias}-${index}`,
    alias,
    provider,
    model,
    ...(apiBase !== undefined ? { apiBase } : {}),
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(apiVersion !== undefined ? { apiVersion } : {}),
    ...(timeout !== undefined ? { timeoutMs: timeout * 1000 } : {}),
    ...(streamTimeout !== undefined ? { streamTimeoutMs: streamTimeout * 1000 } : {}),
    ...(maxRetries !== undefined && maxRetries > 0 ? { maxRetries } : {}),
    ...(maxParallelRequests !== undefined ? { maxParallelRequests } : {}),
    ...(Object.keys(providerParams).length > 0 ? { params: providerParams } : {}),
    ...(Object.keys(defaults).length > 0 ? { defaults } : {}),
    ...(rpm !== undefined ? { rpm } : {}),
    ...(tpm !== undefined ? { tpm } : {}),
    ...(endpoints !== undefined ? { supportedEndpoints: new Set(endpoints) } : {}),
    ...(isWildcard(alias) ? { wildcard: { pattern: aliasPattern(alias), template: target } } : {}),
    modelInfo: { ...prices, ...(modelInfo ?? {}) },
  };
}

/** `anthropic/*` → anthropic, model `*`; `*` (or `prefix/*` of no provider) → resolved per name. */
function resolveTemplate(target: string, explicitProvider: string | undefined): { provider: string; model: string } | { unserved: string } {
  if (explicitProvider !== undefined) return providerAdapterFor(explicitProvider) ? { provider: explicitProvider, model: target } : { unserved: notServed(explicitProvider) };
  const slash = target.indexOf('/');
  const prefix = slash > 0 ? target.slice(0, slash) : undefined;
  if (prefix !== undefined && !prefix.includes('*')) {
    return providerAdapterFor(prefix) ? { provider: prefix, model: target.slice(slash + 1) } : { unserved: notServed(prefix, target) };
  }
  return { provider: '', model: target };
}

/** The shared typed reads of @arbor/config (numbers read as text where text is asked for, as LiteLLM does), with the gateway's own. */
class Reader extends SettingReader {
  constructor(problem: SettingProblem) {
    super(problem, { numbersAsText: true });
  }

  /** A list of URL paths (`["/v1/chat/completions", "/v1/responses"]`). */
  paths(value: unknown, path: string): string[] | undefined {
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && item.startsWith('/'))) {
      this.problem(path, 'must be a list of endpoint paths, such as ["/v1/chat/completions", "/v1/responses"]');
      return undefined;
    }
    return value as string[];
  }

  /** `{alias: group}` or `{alias: {model: group, hidden: true}}`, where every group is a model_name of model_list. */
  modelGroupAliases(value: unknown, path: string, isModelName: (name: string) => boolean): Record<string, ModelGroupAlias> {
    const entries = value === undefined || value === null ? undefined : this.object(value, path);
    const aliases: Record<string, ModelGroupAlias> = {};
    for (const [name, target] of Object.entries(entries ?? {})) {
      const at = `${path}.${name}`;
      const spec = typeof target === 'string' ? { model: target } : this.object(target, at, ['model', 'hidden']);
      if (!spec) continue;
      const group = this.string(spec['model'], `${at}${typeof target === 'string' ? '' : '.model'}`, true);
      const hidden = this.boolean(spec['hidden'], `${at}.hidden`) ?? false;
      if (group === undefined) continue;
      if (!isModelName(group)) this.problem(at, `"${group}" is not a model_name of model_list`);
      else aliases[name] = { group, hidden };
    }
    return aliases;
  }

  /** `{RateLimitErrorRetries: 3, …}` (or `…AllowedFails`): a count per failure kind LiteLLM names. */
  perFailureKind(value: unknown, path: string, suffix: 'Retries' | 'AllowedFails'): PerFailureKind | undefined {
    if (value === undefined || value === null) return undefined;
    const keys = FAILURE_KINDS.map((kind) => `${kind}${suffix}`);
    const entries = this.object(value, path, keys);
    if (!entries) return undefined;
    const policy: PerFailureKind = {};
    for (const kind of FAILURE_KINDS) {
      const count = this.count(entries[`${kind}${suffix}`], `${path}.${kind}${suffix}`);
      if (count !== undefined) policy[kind] = count;
    }
    return policy;
  }

  /** A list of aliases (`default_fallbacks: [a, b]`), each served by model_list. */
  aliasList(value: unknown, path: string, isAlias: (name: string) => boolean): string[] {
    const names: string[] = [];
    for (const [index, name] of this.list(value, path).entries()) {
      if (typeof name !== 'string' || !isAlias(name)) this.problem(`${path}[${index}]`, `"${String(name)}" is not a model_name of model_list`);
      else names.push(name);
    }
    return names;
  }

  /** `default_litellm_params`: request parameters only (the ones a deployment's litellm_params take as defaults). */
  requestDefaults(value: unknown, path: string): Record<string, unknown> {
    if (value === undefined || value === null) return {};
    const entries = this.object(value, path, DEFAULT_REQUEST_PARAMS) ?? {};
    return Object.fromEntries(Object.entries(entries).filter(([key, item]) => DEFAULT_REQUEST_PARAMS.includes(key) && !(item instanceof UnsetVariable)));
  }

  /** redis_url, else redis_host with redis_port, redis_password and redis_db, as one URL. */
  redisUrl(router: Record<string, unknown>): string | undefined {
    const url = this.string(router['redis_url'], 'router_settings.redis_url');
    if (url !== undefined) {
      if (!/^rediss?:\/\/[^\s]+$/.test(url)) this.problem('router_settings.redis_url', 'must be a redis:// or rediss:// URL');
      return url;
    }
    if (router['redis_host'] === undefined || router['redis_host'] === null) {
      for (const key of ['redis_port', 'redis_password', 'redis_db']) {
        if (router[key] !== undefined && router[key] !== null && !(router[key] instanceof UnsetVariable)) this.problem(`router_settings.${key}`, 'is set but redis_host is not');
      }
      return undefined;
    }
    const host = this.string(router['redis_host'], 'router_settings.redis_host');
    const port = router['redis_port'] === undefined || router['redis_port'] === null ? 6379 : this.count(router['redis_port'], 'router_settings.redis_port');
    const db = router['redis_db'] === undefined || router['redis_db'] === null ? undefined : this.count(router['redis_db'], 'router_settings.redis_db');
    // An unset REDIS_PASSWORD is no password, as LiteLLM reads it.
    const rawPassword = router['redis_password'] instanceof UnsetVariable ? undefined : router['redis_password'];
    const password = rawPassword === undefined || rawPassword === null ? undefined : this.string(rawPassword, 'router_settings.redis_password');
    if (host === undefined || port === undefined) return undefined;
    const auth = password ? `:${encodeURIComponent(password)}@` : '';
    return `redis://${auth}${host.includes(':') ? `[${host}]` : host}:${port}${db !== undefined ? `/${db}` : ''}`;
  }

  /** `[{alias: [other, …]}, …]` where every name is served by model_list. */
  fallbacks(value: unknown, path: string, isAlias: (name: string) => boolean): Record<string, string[]>[] {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      this.problem(path, 'must be a list of {alias: [fallback aliases]}');
      return [];
    }
    const result: Record<string, string[]>[] = [];
    value.forEach((item: unknown, index: number) => {
      const entry = this.object(item, `${path}[${index}]`);
      if (!entry) return;
      for (const [from, to] of Object.entries(entry)) {
        const targets = Array.isArray(to) ? to : [to];
        for (const name of [from, ...targets]) {
          if (typeof name !== 'string' || !isAlias(name)) this.problem(`${path}[${index}]`, `"${String(name)}" is not a model_name of model_list`);
        }
        result.push({ [from]: targets.map(String) });
      }
    });
    return result;
  }
}

import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { ConfigError, ConfigProblem } from '@arbor/config';
import { ProviderDeployment, providerAdapterFor, supportedProviders } from '@arbor/provider-adapters';
import { readResponseCacheSettings, ResponseCacheSettings } from '../response-cache/response-cache.settings';

/** One `model_list` entry: an alias served by one upstream model. */
export interface GatewayDeployment extends ProviderDeployment {
  /** `model_info.id`, else `<alias>-<index>`: what `x-arbor-model-id` reports. */
  id: string;
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
}

export type RoutingStrategy = 'simple-shuffle' | 'least-busy' | 'latency-based-routing';

/** The AIGW_CONFIG file, checked: what the router and the routes read. */
export interface GatewayConfig {
  deployments: GatewayDeployment[];
  router: {
    numRetries: number;
    timeoutMs?: number;
    fallbacks: Record<string, string[]>[];
    contextWindowFallbacks: Record<string, string[]>[];
    allowedFails?: number;
    cooldownTimeS?: number;
    routingStrategy: RoutingStrategy;
  };
  dropParams: boolean;
  masterKey?: string;
  alwaysIncludeStreamUsage: boolean;
  /** `litellm_settings.cache` with `cache_params`: the response cache; absent when it is off. */
  responseCache?: ResponseCacheSettings;
}

// The keys a LiteLLM config may have that this gateway understands; anything else stops the start.
const TOP_KEYS = ['model_list', 'router_settings', 'litellm_settings', 'general_settings'];
const ENTRY_KEYS = ['model_name', 'litellm_params', 'model_info'];
// The gateway's own litellm_params; each provider adds those it reads (api_base, api_key, …).
const GATEWAY_PARAM_KEYS = ['model', 'rpm', 'tpm', 'timeout'];
// Provider keys with a field of their own in ProviderDeployment; the others go in its `params`.
const OWN_PARAM_KEYS = new Set(['api_base', 'api_key', 'api_version']);
const ROUTER_KEYS = ['num_retries', 'timeout', 'fallbacks', 'context_window_fallbacks', 'allowed_fails', 'cooldown_time', 'routing_strategy'];
const LITELLM_KEYS = ['drop_params', 'cache', 'cache_params'];
const GENERAL_KEYS = ['master_key', 'always_include_stream_usage'];
const ROUTING_STRATEGIES: RoutingStrategy[] = ['simple-shuffle', 'least-busy', 'latency-based-routing'];

export const EMPTY_GATEWAY_CONFIG: GatewayConfig = {
  deployments: [],
  router: { numRetries: 0, fallbacks: [], contextWindowFallbacks: [], routingStrategy: 'simple-shuffle' },
  dropParams: false,
  alwaysIncludeStreamUsage: false,
};

/** Reads and checks the file AIGW_CONFIG names; throws ConfigError with one line per problem. */
export function loadGatewayConfigFile(path: string, env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError([{ variable: 'AIGW_CONFIG', message: `cannot read ${path}: ${(error as Error).message}` }]);
  }
  return parseGatewayConfig(text, env);
}

/** Checks a LiteLLM-shaped YAML document; `os.environ/NAME` values come from `env`. */
export function parseGatewayConfig(text: string, env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const problems: ConfigProblem[] = [];
  const problem = (path: string, message: string) => problems.push({ variable: 'AIGW_CONFIG', message: `${path}: ${message}` });
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw new ConfigError([{ variable: 'AIGW_CONFIG', message: `not valid YAML: ${(error as Error).message.split('\n')[0]}` }]);
  }
  const read = new Reader(problem, env);
  const root = read.object(document ?? {}, '(top level)', TOP_KEYS) ?? {};

  const deployments: GatewayDeployment[] = [];
  const list = root['model_list'] ?? [];
  if (!Array.isArray(list)) problem('model_list', 'must be a list');
  else {
    list.forEach((raw: unknown, index: number) => {
      const at = `model_list[${index}]`;
      const entry = read.object(raw, at, ENTRY_KEYS);
      if (!entry) return;
      const alias = read.string(entry['model_name'], `${at}.model_name`, true);
      const params = read.object(entry['litellm_params'], `${at}.litellm_params`);
      const modelInfo = entry['model_info'] === undefined ? {} : read.object(entry['model_info'], `${at}.model_info`);
      if (!params) {
        if (entry['litellm_params'] === undefined) problem(`${at}.litellm_params`, 'is required');
        return;
      }
      const target = read.string(params['model'], `${at}.litellm_params.model`, true);
      const slash = target?.indexOf('/') ?? -1;
      if (target !== undefined && slash <= 0) {
        problem(`${at}.litellm_params.model`, `must be <provider>/<model>, got "${target}"`);
        return;
      }
      const provider = target?.slice(0, slash);
      const adapter = provider === undefined ? undefined : providerAdapterFor(provider);
      if (provider !== undefined && !adapter) {
        problem(`${at}.litellm_params.model`, `unknown provider "${provider}" (supported: ${supportedProviders().join(', ')})`);
      }
      if (adapter) {
        const known = [...GATEWAY_PARAM_KEYS, ...adapter.settings.params];
        for (const key of Object.keys(params)) {
          if (!known.includes(key)) problem(`${at}.litellm_params.${key}`, `unknown key for ${provider}/ (known: ${known.join(', ')})`);
        }
        for (const [key, variable] of Object.entries(adapter.settings.env ?? {})) {
          if (params[key] === undefined && env[variable]) params[key] = `os.environ/${variable}`;
        }
        for (const [key, hint] of Object.entries(adapter.settings.required ?? {})) {
          if (params[key] === undefined) problem(`${at}.litellm_params.${key}`, `is required for ${provider}/ (${hint})`);
        }
      }
      const providerParams: Record<string, string> = {};
      for (const key of adapter?.settings.params ?? []) {
        if (OWN_PARAM_KEYS.has(key) || params[key] === undefined) continue;
        const value = read.string(params[key], `${at}.litellm_params.${key}`);
        if (value !== undefined) providerParams[key] = value;
      }
      const apiBase = read.url(params['api_base'], `${at}.litellm_params.api_base`);
      const apiKey = read.string(params['api_key'], `${at}.litellm_params.api_key`);
      const apiVersion = read.string(params['api_version'], `${at}.litellm_params.api_version`);
      const rpm = read.positive(params['rpm'], `${at}.litellm_params.rpm`);
      const tpm = read.positive(params['tpm'], `${at}.litellm_params.tpm`);
      const timeout = read.positive(params['timeout'], `${at}.litellm_params.timeout`);
      const id = modelInfo?.['id'] === undefined ? undefined : read.string(modelInfo['id'], `${at}.model_info.id`);
      const endpoints = read.paths(modelInfo?.['supported_endpoints'], `${at}.model_info.supported_endpoints`);
      if (alias === undefined || target === undefined || provider === undefined) return;
      deployments.push({
        id: id ?? `${alias}-${index}`,
        alias,
        provider,
        model: target.slice(slash + 1),
        ...(apiBase !== undefined ? { apiBase } : {}),
        ...(apiKey !== undefined ? { apiKey } : {}),
        ...(apiVersion !== undefined ? { apiVersion } : {}),
        ...(timeout !== undefined ? { timeoutMs: timeout * 1000 } : {}),
        ...(Object.keys(providerParams).length > 0 ? { params: providerParams } : {}),
        ...(rpm !== undefined ? { rpm } : {}),
        ...(tpm !== undefined ? { tpm } : {}),
        ...(endpoints !== undefined ? { supportedEndpoints: new Set(endpoints) } : {}),
        modelInfo: modelInfo ?? {},
      });
    });
  }
  const ids = new Set<string>();
  for (const deployment of deployments) {
    if (ids.has(deployment.id)) problem('model_list', `model_info.id "${deployment.id}" is used twice`);
    ids.add(deployment.id);
  }

  const routerRaw = root['router_settings'] === undefined ? {} : read.object(root['router_settings'], 'router_settings', ROUTER_KEYS) ?? {};
  const strategy = read.string(routerRaw['routing_strategy'], 'router_settings.routing_strategy') ?? 'simple-shuffle';
  if (!ROUTING_STRATEGIES.includes(strategy as RoutingStrategy)) {
    problem('router_settings.routing_strategy', `must be one of ${ROUTING_STRATEGIES.join(', ')}, got "${strategy}"`);
  }
  const aliases = new Set(deployments.map((d) => d.alias));
  const routerTimeout = read.positive(routerRaw['timeout'], 'router_settings.timeout');
  const allowedFails = read.count(routerRaw['allowed_fails'], 'router_settings.allowed_fails');
  const cooldownTime = read.positive(routerRaw['cooldown_time'], 'router_settings.cooldown_time');
  const router: GatewayConfig['router'] = {
    numRetries: read.count(routerRaw['num_retries'], 'router_settings.num_retries') ?? 0,
    fallbacks: read.fallbacks(routerRaw['fallbacks'], 'router_settings.fallbacks', aliases),
    contextWindowFallbacks: read.fallbacks(routerRaw['context_window_fallbacks'], 'router_settings.context_window_fallbacks', aliases),
    routingStrategy: strategy as RoutingStrategy,
    ...(routerTimeout !== undefined ? { timeoutMs: routerTimeout * 1000 } : {}),
    ...(allowedFails !== undefined ? { allowedFails } : {}),
    ...(cooldownTime !== undefined ? { cooldownTimeS: cooldownTime } : {}),
  };

  const litellm = root['litellm_settings'] === undefined ? {} : read.object(root['litellm_settings'], 'litellm_settings', LITELLM_KEYS) ?? {};
  const general = root['general_settings'] === undefined ? {} : read.object(root['general_settings'], 'general_settings', GENERAL_KEYS) ?? {};
  const masterKey = read.string(general['master_key'], 'general_settings.master_key');
  const dropParams = read.boolean(litellm['drop_params'], 'litellm_settings.drop_params') ?? false;
  const alwaysIncludeStreamUsage = read.boolean(general['always_include_stream_usage'], 'general_settings.always_include_stream_usage') ?? false;
  const cache = readResponseCacheSettings(litellm, env);
  for (const { path, message } of cache.problems) problem(path, message);

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    deployments,
    router,
    dropParams,
    ...(masterKey !== undefined ? { masterKey } : {}),
    alwaysIncludeStreamUsage,
    ...(cache.settings ? { responseCache: cache.settings } : {}),
  };
}

/** Typed reads of YAML values that record a problem instead of throwing, so all problems are listed. */
class Reader {
  constructor(
    private readonly problem: (path: string, message: string) => void,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  object(value: unknown, path: string, allowedKeys?: string[]): Record<string, unknown> | undefined {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.problem(path, 'must be a mapping');
      return undefined;
    }
    const record = value as Record<string, unknown>;
    if (allowedKeys) {
      for (const key of Object.keys(record)) {
        if (!allowedKeys.includes(key)) this.problem(path === '(top level)' ? key : `${path}.${key}`, `unknown key (known: ${allowedKeys.join(', ')})`);
      }
    }
    return record;
  }

  string(value: unknown, path: string, required = false): string | undefined {
    if (value === undefined || value === null) {
      if (required) this.problem(path, 'is required');
      return undefined;
    }
    if (typeof value !== 'string' || value === '') {
      this.problem(path, 'must be a non-empty string');
      return undefined;
    }
    const name = /^os\.environ\/(.+)$/.exec(value)?.[1];
    if (name === undefined) return value;
    const resolved = this.env[name];
    if (resolved === undefined || resolved === '') {
      this.problem(path, `names the environment variable ${name}, which is not set`);
      return undefined;
    }
    return resolved;
  }

  url(value: unknown, path: string): string | undefined {
    const text = this.string(value, path);
    if (text === undefined) return undefined;
    try {
      const url = new URL(text);
      if (url.protocol === 'http:' || url.protocol === 'https:') return text;
    } catch {
      // reported below
    }
    this.problem(path, `must be an http(s) URL, got "${text}"`);
    return undefined;
  }

  positive(value: unknown, path: string): number | undefined {
    const number = this.number(value, path);
    if (number !== undefined && number <= 0) {
      this.problem(path, 'must be greater than 0');
      return undefined;
    }
    return number;
  }

  count(value: unknown, path: string): number | undefined {
    const number = this.number(value, path);
    if (number !== undefined && (!Number.isInteger(number) || number < 0)) {
      this.problem(path, 'must be a whole number, 0 or more');
      return undefined;
    }
    return number;
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

  boolean(value: unknown, path: string): boolean | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'boolean') return value;
    this.problem(path, 'must be true or false');
    return undefined;
  }

  /** `[{alias: [other, …]}, …]` where every name is an alias of model_list. */
  fallbacks(value: unknown, path: string, aliases: Set<string>): Record<string, string[]>[] {
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
          if (typeof name !== 'string' || !aliases.has(name)) this.problem(`${path}[${index}]`, `"${String(name)}" is not a model_name of model_list`);
        }
        result.push({ [from]: targets.map(String) });
      }
    });
    return result;
  }

  private number(value: unknown, path: string): number | undefined {
    if (value === undefined || value === null) return undefined;
    const resolved = typeof value === 'string' ? this.string(value, path) : value;
    const number = typeof resolved === 'string' && resolved.trim() !== '' ? Number(resolved) : resolved;
    if (typeof number !== 'number' || !Number.isFinite(number)) {
      if (resolved !== undefined) this.problem(path, 'must be a number');
      return undefined;
    }
    return number;
  }
}

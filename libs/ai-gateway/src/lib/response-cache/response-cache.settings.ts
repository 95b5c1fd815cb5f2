import { UnsetVariable } from '@arbor/config';

/** Where answers are kept: this process's memory, or a Redis every replica shares. */
export type ResponseCacheType = 'local' | 'redis';

/** `litellm_settings.cache` with its `cache_params`, checked: what the response cache needs. */
export interface ResponseCacheSettings {
  type: ResponseCacheType;
  /** Redis only; from cache_params, else REDIS_HOST / REDIS_PORT / REDIS_PASSWORD, else REDIS_URL. */
  redis?: { host: string; port: number; password?: string } | { url: string };
  /** How long an answer is kept unless the request says otherwise (`cache: {"ttl": …}`). */
  ttlSeconds: number;
  /** Prefix of every cache key (`<namespace>:<sha-256>`), so that several gateways can share one Redis. */
  namespace: string;
  /** LiteLLM's `supported_call_types`: a family is cached when its codec declares one of them; undefined: every family that declares any. */
  callTypes?: ReadonlySet<string>;
  /** `default_off`: only requests that send `cache: {"use-cache": true}` are cached. */
  mode: 'default_on' | 'default_off';
  /** In memory: at most this many answers (LiteLLM's `max_size_in_memory`). */
  maxEntries: number;
  /**
   * Arbor's own `cache_params.shared_across_projects`: a hit may serve an answer another project's
   * key paid for. Off by default: each project has its own answers.
   */
  sharedAcrossProjects: boolean;
}

/** A problem of the cache settings, at its path in the YAML (`litellm_settings.cache_params.port`). */
export interface CacheSettingsProblem {
  path: string;
  message: string;
}

export const DEFAULT_CACHE_TTL_SECONDS = 3600;
export const DEFAULT_CACHE_NAMESPACE = 'arbor-aigw-cache';
const DEFAULT_MAX_ENTRIES = 1000;

// LiteLLM's call types (sync and async names), the vocabulary of `supported_call_types`. Which
// family each one caches is the family's codec's to say (`callTypes`); a name no codec declares caches nothing.
const CALL_TYPES = [
  'completion',
  'acompletion',
  'text_completion',
  'atext_completion',
  'embedding',
  'aembedding',
  'responses',
  'aresponses',
  'anthropic_messages',
  'transcription',
  'atranscription',
  'rerank',
  'arerank',
  'image_generation',
  'aimage_generation',
  'speech',
  'aspeech',
];

const PARAM_KEYS = [
  'type',
  'host',
  'port',
  'password',
  'ttl',
  'default_in_memory_ttl',
  'default_in_redis_ttl',
  'namespace',
  'supported_call_types',
  'mode',
  'max_size_in_memory',
  'shared_across_projects',
];
// LiteLLM cache types and Redis options that need parts this gateway does not have.
const UNSERVED_TYPES = new Set(['redis-semantic', 'valkey-semantic', 'qdrant-semantic', 's3', 'gcs', 'disk', 'azure-blob']);

/**
 * The response cache's settings from LiteLLM's `litellm_settings` (`cache`, `cache_params`) and its
 * Redis variables (REDIS_HOST, REDIS_PORT, REDIS_PASSWORD, REDIS_URL); undefined when `cache` is
 * not on. Every problem is reported, none thrown: the caller stops the start with all of them.
 */
export function readResponseCacheSettings(
  litellmSettings: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): { settings?: ResponseCacheSettings; problems: CacheSettingsProblem[] } {
  const problems: CacheSettingsProblem[] = [];
  const problem = (path: string, message: string) => problems.push({ path: `litellm_settings.${path}`, message });
  const on = resolved(litellmSettings['cache'], env);
  const rawParams = litellmSettings['cache_params'];
  // As in LiteLLM, cache_params wait unused while cache is off.
  if (on === undefined || on === null || on === false) return { problems };
  if (on !== true) {
    problem('cache', 'must be true or false');
    return { problems };
  }
  if (rawParams !== undefined && rawParams !== null && (typeof rawParams !== 'object' || Array.isArray(rawParams))) {
    problem('cache_params', 'must be a mapping');
    return { problems };
  }
  const params: Record<string, unknown> = {};
  for (const [key, value] of Object.entries((rawParams ?? {}) as Record<string, unknown>)) {
    if (!PARAM_KEYS.includes(key)) problem(`cache_params.${key}`, `is not served by this gateway (known: ${PARAM_KEYS.join(', ')})`);
    else params[key] = resolved(value, env, (name) => problem(`cache_params.${key}`, `names the environment variable ${name}, which is not set`));
  }

  const redisFromEnv = env['REDIS_HOST'] || env['REDIS_URL'];
  const rawType = params['type'] ?? (params['host'] !== undefined || redisFromEnv ? 'redis' : 'local');
  let type: ResponseCacheType = 'local';
  if (rawType === 'local' || rawType === 'redis') type = rawType;
  else if (typeof rawType === 'string' && UNSERVED_TYPES.has(rawType)) problem('cache_params.type', `"${rawType}" is not served by this gateway; use local or redis`);
  else problem('cache_params.type', 'must be local or redis');

  let redis: ResponseCacheSettings['redis'];
  if (type === 'redis') {
    const host = text(params['host'], 'cache_params.host', problem) ?? (env['REDIS_HOST'] || undefined);
    const password = text(params['password'], 'cache_params.password', problem) ?? (env['REDIS_PASSWORD'] || undefined);
    const port = whole(params['port'] ?? env['REDIS_PORT'], params['port'] !== undefined ? 'cache_params.port' : 'REDIS_PORT', problem) ?? 6379;
    if (host !== undefined) redis = { host, port, ...(password !== undefined ? { password } : {}) };
    else if (env['REDIS_URL']) redis = { url: env['REDIS_URL'] };
    else problem('cache_params.host', 'is required for a redis cache (or set REDIS_HOST, REDIS_PORT, REDIS_PASSWORD, or REDIS_URL)');
  }

  const ttl = params['ttl'] ?? (type === 'redis' ? params['default_in_redis_ttl'] : params['default_in_memory_ttl']);
  const ttlSeconds = positive(ttl, 'cache_params.ttl', problem) ?? DEFAULT_CACHE_TTL_SECONDS;
  const namespace = text(params['namespace'], 'cache_params.namespace', problem) ?? DEFAULT_CACHE_NAMESPACE;
  const maxEntries = whole(params['max_size_in_memory'], 'cache_params.max_size_in_memory', problem) ?? DEFAULT_MAX_ENTRIES;

  const mode = params['mode'] ?? 'default_on';
  if (mode !== 'default_on' && mode !== 'default_off') problem('cache_params.mode', 'must be default_on or default_off');

  const shared = params['shared_across_projects'] ?? false;
  if (typeof shared !== 'boolean') problem('cache_params.shared_across_projects', 'must be true or false');

  let callTypes: Set<string> | undefined;
  const listed = params['supported_call_types'];
  if (listed !== undefined) {
    if (!Array.isArray(listed)) problem('cache_params.supported_call_types', 'must be a list of call types, such as ["acompletion", "aembedding"]');
    else {
      callTypes = new Set();
      for (const name of listed) {
        if (typeof name === 'string' && CALL_TYPES.includes(name)) callTypes.add(name);
        else problem('cache_params.supported_call_types', `"${String(name)}" is not a call type (known: ${CALL_TYPES.join(', ')})`);
      }
    }
  }

  if (problems.length > 0) return { problems };
  return {
    settings: {
      type,
      ...(redis ? { redis } : {}),
      ttlSeconds,
      namespace,
      ...(callTypes ? { callTypes } : {}),
      mode: mode as ResponseCacheSettings['mode'],
      maxEntries,
      sharedAcrossProjects: shared === true,
    },
    problems,
  };
}

/** A value as the config file's reader left it: an unset `os.environ/NAME` is reported, and undefined. */
function resolved(value: unknown, _env: NodeJS.ProcessEnv, missing?: (name: string) => void): unknown {
  if (!(value instanceof UnsetVariable)) return value;
  missing?.(value.name);
  return undefined;
}

type Problem = (path: string, message: string) => void;

function text(value: unknown, path: string, problem: Problem): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number') return String(value);
  problem(path, 'must be a non-empty string');
  return undefined;
}

function number(value: unknown): number | undefined {
  const parsed = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof parsed === 'number' && Number.isFinite(parsed) ? parsed : undefined;
}

function positive(value: unknown, path: string, problem: Problem): number | undefined {
  if (value === undefined || value === null) return undefined;
  const parsed = number(value);
  if (parsed !== undefined && parsed > 0) return parsed;
  problem(path, 'must be a number of seconds greater than 0');
  return undefined;
}

function whole(value: unknown, path: string, problem: Problem): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const parsed = number(value);
  if (parsed !== undefined && Number.isInteger(parsed) && parsed > 0) return parsed;
  problem(path, 'must be a whole number greater than 0');
  return undefined;
}

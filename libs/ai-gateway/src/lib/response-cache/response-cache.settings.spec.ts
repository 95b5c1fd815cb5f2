import { ConfigError } from '@arbor/config';
import { parseGatewayConfig } from '../config/gateway-config';
import { ENDPOINT_CODECS } from '../endpoints/endpoint-codecs';
import { cachesFamily, canonicalJson } from './response-cache';
import { cacheControls } from './cache-controls';
import { DEFAULT_CACHE_NAMESPACE, DEFAULT_CACHE_TTL_SECONDS, readResponseCacheSettings } from './response-cache.settings';

describe('the response cache settings (litellm_settings.cache, cache_params)', () => {
  it('is off unless cache is true', () => {
    expect(readResponseCacheSettings({}, {})).toEqual({ problems: [] });
    expect(readResponseCacheSettings({ cache: false, cache_params: { type: 'redis', host: 'cache.internal' } }, {})).toEqual({ problems: [] });
  });

  it('keeps answers in memory by default, for an hour, under its own namespace, for every call type', () => {
    const { settings } = readResponseCacheSettings({ cache: true }, {});
    expect(settings).toMatchObject({ type: 'local', ttlSeconds: DEFAULT_CACHE_TTL_SECONDS, namespace: DEFAULT_CACHE_NAMESPACE, mode: 'default_on', sharedAcrossProjects: false });
    expect(settings?.callTypes).toBeUndefined();
    expect(cachedFamilies(settings?.callTypes)).toEqual([
      'anthropic-messages',
      'openai-chat',
      'openai-completions',
      'openai-embeddings',
      'openai-responses',
      'openai-responses-compact',
    ]);
  });

  it("uses Redis from LiteLLM's REDIS_HOST, REDIS_PORT and REDIS_PASSWORD when cache_params do not name one", () => {
    const { settings } = readResponseCacheSettings({ cache: true }, { REDIS_HOST: 'cache.internal', REDIS_PORT: '6380', REDIS_PASSWORD: 'secret' });
    expect(settings).toMatchObject({ type: 'redis', redis: { host: 'cache.internal', port: 6380, password: 'secret' } });
    const explicit = readResponseCacheSettings({ cache: true, cache_params: { type: 'redis', host: 'redis.example', port: 7000, ttl: 60, namespace: 'team-a' } }, {});
    expect(explicit.settings).toMatchObject({ type: 'redis', redis: { host: 'redis.example', port: 7000 }, ttlSeconds: 60, namespace: 'team-a' });
    expect(readResponseCacheSettings({ cache: true }, { REDIS_URL: 'redis://user:pw@host:6379' }).settings).toMatchObject({
      type: 'redis',
      redis: { url: 'redis://user:pw@host:6379' },
    });
  });

  it("caches the families whose codecs declare one of LiteLLM's supported_call_types", () => {
    const { settings } = readResponseCacheSettings({ cache: true, cache_params: { supported_call_types: ['acompletion', 'aembedding', 'atranscription'] } }, {});
    expect(cachedFamilies(settings?.callTypes)).toEqual(['openai-chat', 'openai-embeddings']);
    expect(cachedFamilies(readResponseCacheSettings({ cache: true, cache_params: { supported_call_types: [] } }, {}).settings?.callTypes)).toEqual([]);
    expect(cachedFamilies(readResponseCacheSettings({ cache: true, cache_params: { supported_call_types: ['aresponses'] } }, {}).settings?.callTypes)).toEqual([
      'openai-responses',
      'openai-responses-compact',
    ]);
  });

  it('names every problem: caches it does not have, unknown keys and call types, bad values', () => {
    const { settings, problems } = readResponseCacheSettings(
      { cache: true, cache_params: { type: 's3', ttl: -1, supported_call_types: ['acompletion', 'fly'], colour: 'blue', mode: 'sometimes' } },
      {},
    );
    expect(settings).toBeUndefined();
    expect(problems.map((problem) => problem.path).sort()).toEqual([
      'litellm_settings.cache_params.colour',
      'litellm_settings.cache_params.mode',
      'litellm_settings.cache_params.supported_call_types',
      'litellm_settings.cache_params.ttl',
      'litellm_settings.cache_params.type',
    ]);
    expect(problems.find((problem) => problem.path.endsWith('.type'))?.message).toContain('"s3" is not served');
    expect(readResponseCacheSettings({ cache: true, cache_params: { type: 'redis' } }, {}).problems[0]?.message).toContain('REDIS_HOST');
  });

  it('stops the gateway at start through the config file, one line per problem', () => {
    const config = (settings: string) => `model_list: []\nlitellm_settings:\n${settings}`;
    expect(parseGatewayConfig(config('  cache: true\n  cache_params: { type: local, namespace: ns }\n')).litellm.cache).toMatchObject({ type: 'local', namespace: 'ns' });
    expect(() => parseGatewayConfig(config('  cache: true\n  cache_params: { type: disk }\n'))).toThrow(ConfigError);
  });
});

describe("a request's cache controls", () => {
  it("reads LiteLLM's cache object", () => {
    expect(cacheControls(undefined)).toEqual({ noCache: false, noStore: false, useCache: false });
    expect(cacheControls({ 'no-cache': true, 'no-store': true, ttl: 30, 's-maxage': 0, namespace: 'tests', 'use-cache': true })).toEqual({
      noCache: true,
      noStore: true,
      useCache: true,
      ttlSeconds: 30,
      maxAgeSeconds: 0,
      namespace: 'tests',
    });
  });

  it('refuses malformed ones with 400 naming the control', () => {
    for (const bad of ['yes', [], { 'no-cache': 'yes' }, { ttl: 0 }, { 's-maxage': -1 }, { namespace: '' }, { 'no-caching': true }]) {
      expect(() => cacheControls(bad)).toThrow(expect.objectContaining({ status: 400, param: 'cache' }));
    }
  });
});

describe('the cache key material', () => {
  it('does not depend on the order of object fields, and does on everything else', () => {
    expect(canonicalJson({ b: 1, a: [{ y: 2, x: 1 }] })).toBe(canonicalJson({ a: [{ x: 1, y: 2 }], b: 1 }));
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }));
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }));
  });
});

/** The endpoint families the response cache keeps answers of under `callTypes`, by codec name. */
function cachedFamilies(callTypes: ReadonlySet<string> | undefined): string[] {
  return ENDPOINT_CODECS.filter((codec) => cachesFamily(codec, callTypes))
    .map((codec) => codec.name)
    .sort();
}

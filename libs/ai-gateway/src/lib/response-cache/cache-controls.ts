import { badRequest } from '../gateway-errors';

/** A request's own say over the cache: LiteLLM's `cache` object in the body. */
export interface CacheControls {
  /** `no-cache`: do not answer from the cache (the fresh answer is still kept). */
  noCache: boolean;
  /** `no-store`: do not keep this answer. */
  noStore: boolean;
  /** `ttl`: keep this answer so long instead of the configured ttl. */
  ttlSeconds?: number;
  /** `s-maxage`: accept only a kept answer at most this old. */
  maxAgeSeconds?: number;
  /** `namespace`: answers kept apart from those of other namespaces. */
  namespace?: string;
  /** `use-cache`: opt in when the cache's mode is `default_off`. */
  useCache: boolean;
}

const FLAGS = ['no-cache', 'no-store', 'use-cache'] as const;
const KNOWN = [...FLAGS, 'ttl', 's-maxage', 'namespace'];

/** Reads `cache` of a request body; a malformed one is a 400 naming the field. */
export function cacheControls(raw: unknown): CacheControls {
  if (raw === undefined || raw === null) return { noCache: false, noStore: false, useCache: false };
  if (typeof raw !== 'object' || Array.isArray(raw)) throw badRequest('cache must be an object such as {"no-cache": true} or {"ttl": 300}.', 'cache');
  const controls = raw as Record<string, unknown>;
  for (const name of Object.keys(controls)) {
    if (!KNOWN.includes(name)) throw badRequest(`cache.${name} is not a cache control (known: ${KNOWN.join(', ')}).`, 'cache');
  }
  for (const flag of FLAGS) {
    if (controls[flag] !== undefined && typeof controls[flag] !== 'boolean') throw badRequest(`cache.${flag} must be true or false.`, 'cache');
  }
  const seconds = (name: string, allowZero: boolean): number | undefined => {
    const value = controls[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (!allowZero && value === 0))
      throw badRequest(`cache.${name} must be a number of seconds${allowZero ? '' : ' greater than 0'}.`, 'cache');
    return value;
  };
  const namespace = controls['namespace'];
  if (namespace !== undefined && (typeof namespace !== 'string' || namespace === '' || namespace.length > 200))
    throw badRequest('cache.namespace must be a non-empty string of at most 200 characters.', 'cache');
  const ttlSeconds = seconds('ttl', false);
  const maxAgeSeconds = seconds('s-maxage', true);
  return {
    noCache: controls['no-cache'] === true,
    noStore: controls['no-store'] === true,
    useCache: controls['use-cache'] === true,
    ...(ttlSeconds !== undefined ? { ttlSeconds } : {}),
    ...(maxAgeSeconds !== undefined ? { maxAgeSeconds } : {}),
    ...(typeof namespace === 'string' ? { namespace } : {}),
  };
}

import { CallUsage, count } from '../../calls/usage';

/**
 * Anthropic's `usage` as the gateway counts it: cache reads and writes are prompt tokens too
 * (Anthropic counts them apart from input_tokens), reads priced as cached tokens, writes at the
 * cache write price, one-hour writes (usage.cache_creation) at theirs. Undefined when `raw`
 * reports no tokens.
 */
export function usageOfMessages(raw: unknown): CallUsage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const usage = raw as Record<string, unknown>;
  const input = count(usage['input_tokens']);
  const output = count(usage['output_tokens']);
  if (input === undefined && output === undefined) return undefined;
  const cacheRead = count(usage['cache_read_input_tokens']) ?? 0;
  const cacheWrite = count(usage['cache_creation_input_tokens']) ?? 0;
  const byLifetime = usage['cache_creation'] as Record<string, unknown> | null | undefined;
  const oneHour = count(byLifetime?.['ephemeral_1h_input_tokens']) ?? 0;
  return {
    promptTokens: (input ?? 0) + cacheRead + cacheWrite,
    completionTokens: output ?? 0,
    cachedTokens: cacheRead,
    ...(cacheWrite > 0 ? { cacheWriteTokens: cacheWrite } : {}),
    ...(cacheWrite > 0 && oneHour > 0 ? { oneHourCacheWriteTokens: oneHour } : {}),
    // Anthropic bills thinking as output and does not count it apart.
    reasoningTokens: 0,
  };
}

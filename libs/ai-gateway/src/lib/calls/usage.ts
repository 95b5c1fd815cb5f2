/** Tokens of one call, as OpenAI-format `usage` reports them; what cost and limits are computed from. */
export interface CallUsage {
  promptTokens: number;
  completionTokens: number;
  /** Of promptTokens, read from the provider's prompt cache. */
  cachedTokens: number;
  /** Of promptTokens, written to the provider's prompt cache (Anthropic's cache_creation_input_tokens). */
  cacheWriteTokens?: number;
  /** Of cacheWriteTokens, written to Anthropic's one-hour cache (priced above the five-minute one). */
  oneHourCacheWriteTokens?: number;
  /** Of completionTokens, spent on reasoning. */
  reasoningTokens: number;
  /** Of promptTokens, audio (realtime sessions), priced at the audio input price. */
  audioPromptTokens?: number;
  /** Of completionTokens, audio (realtime sessions), priced at the audio output price. */
  audioCompletionTokens?: number;
  /** Searches billed per query rather than per token (Cohere's rerank search units). */
  searchUnits?: number;
  /** Counted by the gateway (the client hung up before the upstream reported usage), not reported. */
  estimated?: boolean;
  /** Images generated, with the size and quality they were made at (priced per image). */
  images?: { count: number; size?: string; quality?: string };
  /** Seconds of audio transcribed (priced per second). */
  audioSeconds?: number;
  /** Characters of text spoken (priced per character). */
  characters?: number;
}

export const NO_USAGE: CallUsage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0, reasoningTokens: 0 };

export function totalTokens(usage: CallUsage): number {
  return usage.promptTokens + usage.completionTokens;
}

/** An OpenAI-format `usage` object (chat, completions or embeddings) as CallUsage; undefined when it is not one. */
export function usageFrom(raw: unknown): CallUsage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const usage = raw as Record<string, unknown>;
  const prompt = count(usage['prompt_tokens']);
  const completion = count(usage['completion_tokens']);
  if (prompt === undefined && completion === undefined) return undefined;
  const promptDetails = usage['prompt_tokens_details'] as Record<string, unknown> | null | undefined;
  const completionDetails = usage['completion_tokens_details'] as Record<string, unknown> | null | undefined;
  const cacheWrites = count(usage['cache_creation_input_tokens']);
  const byLifetime = promptDetails?.['cache_creation_token_details'] as Record<string, unknown> | null | undefined;
  const oneHourWrites = count(byLifetime?.['ephemeral_1h_input_tokens']);
  return {
    promptTokens: prompt ?? 0,
    completionTokens: completion ?? 0,
    cachedTokens: count(promptDetails?.['cached_tokens']) ?? 0,
    ...(cacheWrites ? { cacheWriteTokens: cacheWrites } : {}),
    ...(cacheWrites && oneHourWrites ? { oneHourCacheWriteTokens: oneHourWrites } : {}),
    reasoningTokens: count(completionDetails?.['reasoning_tokens']) ?? 0,
  };
}

/**
 * The `usage` of a JSON answer without parsing all of it: embeddings answers run to megabytes of
 * vectors, and usage is a small object near the end.
 */
export function usageOfJsonAnswer(body: Buffer): CallUsage | undefined {
  return usageFrom(lastObjectNamed(body, 'usage'));
}

/**
 * A JSON answer with `"cost": <USD>` first in its usage object (the one usageOfJsonAnswer reads),
 * the rest of its bytes as they came; unchanged when it has none.
 */
export function withUsageCost(body: Buffer, cost: number): Buffer {
  const at = body.lastIndexOf('"usage"');
  const start = at < 0 ? -1 : body.indexOf('{', at);
  if (start < 0) return body;
  let next = start + 1;
  while (next < body.length && (body[next] === 0x20 || body[next] === 0x0a || body[next] === 0x0d || body[next] === 0x09)) next++;
  const member = `"cost":${cost}${body[next] === 0x7d ? '' : ','}`;
  return Buffer.concat([body.subarray(0, start + 1), Buffer.from(member), body.subarray(start + 1)]);
}

/** The last `"<name>": {…}` member of a JSON document, parsed; undefined when there is none. */
export function lastObjectNamed(body: Buffer, name: string): unknown {
  const at = body.lastIndexOf(`"${name}"`);
  if (at < 0) return undefined;
  const start = body.indexOf('{', at);
  if (start < 0) return undefined;
  let depth = 0;
  for (let index = start; index < body.length; index++) {
    const byte = body[index];
    if (byte === 0x7b) depth++;
    else if (byte === 0x7d && --depth === 0) {
      try {
        return JSON.parse(body.subarray(start, index + 1).toString('utf8'));
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

export function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

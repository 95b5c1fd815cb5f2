/** A duration as OpenAI writes it in x-ratelimit-reset-*: `850ms`, `1s`, `6m0s`, `1h2m3s`. */
export function openAiDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.ceil(ms))}ms`;
  const total = Math.ceil(ms / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}

export interface MinuteUsage {
  rpmLimit: number | null;
  tpmLimit: number | null;
  /** Requests counted in this minute, the current one included. */
  requests: number;
  tokens: number;
  /** Milliseconds until the minute's counters start again. */
  resetMs: number;
}

/** OpenAI's x-ratelimit-* names for the key's own limits, only those the key has. */
export function rateLimitHeaders(usage: MinuteUsage): Record<string, string> {
  const headers: Record<string, string> = {};
  const reset = openAiDuration(usage.resetMs);
  if (usage.rpmLimit !== null) {
    headers['x-ratelimit-limit-requests'] = String(usage.rpmLimit);
    headers['x-ratelimit-remaining-requests'] = String(Math.max(0, usage.rpmLimit - usage.requests));
    headers['x-ratelimit-reset-requests'] = reset;
  }
  if (usage.tpmLimit !== null) {
    headers['x-ratelimit-limit-tokens'] = String(usage.tpmLimit);
    headers['x-ratelimit-remaining-tokens'] = String(Math.max(0, usage.tpmLimit - usage.tokens));
    headers['x-ratelimit-reset-tokens'] = reset;
  }
  return headers;
}

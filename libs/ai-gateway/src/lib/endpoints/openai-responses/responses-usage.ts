import { CallUsage, count } from '../../calls/usage';

/** The Responses API's `usage` (input/output tokens and their details) as the gateway counts it; undefined when `raw` reports no tokens. */
export function usageOfResponses(raw: unknown): CallUsage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const usage = raw as Record<string, unknown>;
  const input = count(usage['input_tokens']);
  const output = count(usage['output_tokens']);
  if (input === undefined && output === undefined) return undefined;
  const inputDetails = usage['input_tokens_details'] as Record<string, unknown> | null | undefined;
  const outputDetails = usage['output_tokens_details'] as Record<string, unknown> | null | undefined;
  return {
    promptTokens: input ?? 0,
    completionTokens: output ?? 0,
    cachedTokens: count(inputDetails?.['cached_tokens']) ?? 0,
    reasoningTokens: count(outputDetails?.['reasoning_tokens']) ?? 0,
  };
}

import { CallUsage, count } from '../calls/usage';

/**
 * The usage of one realtime response (`response.done`'s `response.usage`): input and output
 * tokens with their text and audio parts, cached input (a part of the input, as OpenAI counts it).
 * Undefined when it reports no tokens.
 */
export function realtimeUsage(raw: unknown): CallUsage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const usage = raw as Record<string, unknown>;
  const input = count(usage['input_tokens']);
  const output = count(usage['output_tokens']);
  if (input === undefined && output === undefined) return undefined;
  const inputDetails = (usage['input_token_details'] ?? {}) as Record<string, unknown>;
  const outputDetails = (usage['output_token_details'] ?? {}) as Record<string, unknown>;
  const cachedDetails = (inputDetails['cached_tokens_details'] ?? {}) as Record<string, unknown>;
  // Cached audio is priced as cached; the audio left is the uncached part.
  const audioIn = Math.max(0, (count(inputDetails['audio_tokens']) ?? 0) - (count(cachedDetails['audio_tokens']) ?? 0));
  return {
    promptTokens: input ?? 0,
    completionTokens: output ?? 0,
    cachedTokens: count(inputDetails['cached_tokens']) ?? 0,
    reasoningTokens: 0,
    ...(audioIn > 0 ? { audioPromptTokens: audioIn } : {}),
    ...(count(outputDetails['audio_tokens']) ? { audioCompletionTokens: count(outputDetails['audio_tokens']) } : {}),
  };
}

import { CallUsage, count, lastObjectNamed, NO_USAGE } from '../../calls/usage';
import type { EndpointCodec } from '../endpoint-codec';
import { renderOpenAiError } from '../openai/openai-codecs';
import { StreamUsageTap } from '../openai/openai-stream-tap';

/**
 * The usage of a rerank answer in Cohere's shape: search units (Cohere bills by them) and input
 * tokens (Jina, Voyage and rerank servers bill by them), from `meta.billed_units` (or `meta.tokens`).
 */
export function usageOfRerank(meta: unknown): CallUsage | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const billed = ((meta as Record<string, unknown>)['billed_units'] ?? {}) as Record<string, unknown>;
  const tokens = ((meta as Record<string, unknown>)['tokens'] ?? {}) as Record<string, unknown>;
  const searchUnits = count(billed['search_units']);
  const input = count(billed['input_tokens']) ?? count(tokens['input_tokens']);
  if (searchUnits === undefined && input === undefined) return undefined;
  return { ...NO_USAGE, promptTokens: input ?? 0, ...(searchUnits ? { searchUnits } : {}) };
}

/**
 * Rerank (the gateway's extension, in Cohere's format): `POST /v1/rerank` and `/v2/rerank`
 * (`/rerank` too), answered `{id, results, meta}` whatever the provider (Cohere, Jina, Voyage,
 * OpenAI-compatible rerank servers: their folders translate); never streamed; errors in the family
 * A envelope; no bridge (a provider without rerank is refused with 400 naming it).
 */
export const COHERE_RERANK: EndpointCodec = {
  name: 'cohere-rerank',
  operation: 'rerank',
  description: 'rerank',
  paths: ['/v1/rerank', '/v2/rerank', '/rerank'],
  streamed: () => false,
  forwardedHeaders: () => undefined,
  prepare: () => undefined,
  usageOfAnswer: (body) => usageOfRerank(lastObjectNamed(body, 'meta')),
  // Never streamed: a tap only because the interface has one.
  streamTap: () => new StreamUsageTap(true),
  // A rerank the client hung up on before its answer is not billed by its provider.
  estimateUsage: () => Promise.resolve(NO_USAGE),
  renderError: renderOpenAiError,
  streamErrorEvent: () => '',
};

import { embeddingList, estimatedTokens } from '../lib/embeddings';

import type { BatchEmbedContentsResponse } from './gemini.wire';

export type { BatchEmbedContentsResponse } from './gemini.wire';

/** An OpenAI-format embeddings body as a batchEmbedContents request for `model`. */
export function toBatchEmbedContentsRequest(texts: string[], body: Record<string, unknown>, model: string): Record<string, unknown> {
  const dimensions = body['dimensions'];
  return {
    requests: texts.map((text) => ({
      model: `models/${model}`,
      content: { parts: [{ text }] },
      ...(typeof dimensions === 'number' ? { outputDimensionality: dimensions } : {}),
    })),
  };
}

/** A batchEmbedContents answer as an OpenAI-format embeddings list. */
export function toEmbeddingList(response: BatchEmbedContentsResponse, texts: string[], body: Record<string, unknown>, model: string): Record<string, unknown> {
  // Gemini's embedding answers carry no token counts: estimated.
  const vectors = (response.embeddings ?? []).map((embedding) => embedding.values ?? []);
  return embeddingList(vectors, body, model, response.usageMetadata?.promptTokenCount ?? estimatedTokens(texts));
}

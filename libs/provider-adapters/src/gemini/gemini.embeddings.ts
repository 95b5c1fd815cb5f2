import { ProviderError } from '../lib/provider-error';

import type { BatchEmbedContentsResponse } from './gemini.wire';

export type { BatchEmbedContentsResponse } from './gemini.wire';

/** The family A embeddings `input` (a string or a list of them) as texts; Gemini takes no token arrays. */
export function embeddingTexts(input: unknown): string[] {
  const texts = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(texts) || texts.length === 0 || !texts.every((text) => typeof text === 'string')) {
    throw new ProviderError(400, 'invalid_request_error', 'Gemini embeddings take input as a string or a list of strings (not tokens).', 'invalid_value', 'input');
  }
  return texts;
}

/** A family A embeddings body as a batchEmbedContents request for `model`. */
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

/**
 * A batchEmbedContents answer as a family A embeddings list, vectors as floats or (encoding_format
 * base64, the OpenAI SDK's default) as base64 of little-endian float32.
 */
export function toEmbeddingList(response: BatchEmbedContentsResponse, texts: string[], body: Record<string, unknown>, model: string): Record<string, unknown> {
  const base64 = body['encoding_format'] === 'base64';
  const data = (response.embeddings ?? []).map((embedding, index) => {
    const values = embedding.values ?? [];
    return { object: 'embedding', index, embedding: base64 ? float32Base64(values) : values };
  });
  // Gemini's embedding answers carry no token counts; about four characters a token is the usual estimate.
  const promptTokens = response.usageMetadata?.promptTokenCount ?? texts.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
  return { object: 'list', data, model, usage: { prompt_tokens: promptTokens, total_tokens: promptTokens } };
}

function float32Base64(values: number[]): string {
  const bytes = Buffer.alloc(values.length * 4);
  values.forEach((value, index) => bytes.writeFloatLE(value, index * 4));
  return bytes.toString('base64');
}

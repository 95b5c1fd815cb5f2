import { ProviderError } from './provider-error';

/** The OpenAI-format embeddings `input` (a string or a list of them) as texts, for providers that take no token arrays. */
export function embeddingTexts(input: unknown, provider: string): string[] {
  const texts = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(texts) || texts.length === 0 || !texts.every((text) => typeof text === 'string')) {
    throw new ProviderError(400, 'invalid_request_error', `${provider} embeddings take input as a string or a list of strings (not tokens).`, 'invalid_value', 'input');
  }
  return texts;
}

/**
 * Vectors as an OpenAI-format embeddings list, as floats or (encoding_format base64, the OpenAI SDK's
 * default) as base64 of little-endian float32.
 */
export function embeddingList(vectors: number[][], body: Record<string, unknown>, model: string, promptTokens: number): Record<string, unknown> {
  const base64 = body['encoding_format'] === 'base64';
  const data = vectors.map((values, index) => ({ object: 'embedding', index, embedding: base64 ? float32Base64(values) : values }));
  return { object: 'list', data, model, usage: { prompt_tokens: promptTokens, total_tokens: promptTokens } };
}

/** About four characters a token: the usual estimate for an answer that carries no token count. */
export function estimatedTokens(texts: string[]): number {
  return texts.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
}

function float32Base64(values: number[]): string {
  const bytes = Buffer.alloc(values.length * 4);
  values.forEach((value, index) => bytes.writeFloatLE(value, index * 4));
  return bytes.toString('base64');
}

import { z } from 'zod';
import { ProviderError } from '../lib/provider-error';

/** Titan takes one text a call; Cohere a list (up to 96). */
export type EmbeddingFamily = 'titan' | 'cohere';

export function embeddingFamilyOf(model: string): EmbeddingFamily {
  if (/(^|\.)cohere\.embed/.test(model)) return 'cohere';
  if (/(^|\.)amazon\.titan-embed/.test(model)) return 'titan';
  throw new ProviderError(
    400,
    'invalid_request_error',
    `Bedrock embeddings are served for Titan (amazon.titan-embed-…) and Cohere (cohere.embed-…) models, not "${model}".`,
    'invalid_value',
    'model',
  );
}

const COHERE_INPUT_TYPES = new Set(['search_document', 'search_query', 'classification', 'clustering']);

/** The InvokeModel bodies for `texts`: one per text for Titan, one for all of them for Cohere. */
export function embeddingRequests(family: EmbeddingFamily, texts: string[], body: Record<string, unknown>): Record<string, unknown>[] {
  if (family === 'titan') {
    const dimensions = body['dimensions'];
    return texts.map((inputText) => ({ inputText, ...(typeof dimensions === 'number' ? { dimensions, normalize: true } : {}) }));
  }
  const inputType = body['input_type'] ?? 'search_document';
  if (typeof inputType !== 'string' || !COHERE_INPUT_TYPES.has(inputType)) {
    throw new ProviderError(400, 'invalid_request_error', `input_type must be one of ${[...COHERE_INPUT_TYPES].join(', ')}.`, 'invalid_value', 'input_type');
  }
  return [{ texts, input_type: inputType }];
}

const titanAnswer = z.object({ embedding: z.array(z.number()), inputTextTokenCount: z.number().optional() });
const cohereAnswer = z.object({ embeddings: z.union([z.array(z.array(z.number())), z.object({ float: z.array(z.array(z.number())) })]) });

/** The vectors of one InvokeModel answer. */
export function embeddingVectors(family: EmbeddingFamily, json: unknown): number[][] {
  if (family === 'titan') {
    const parsed = titanAnswer.safeParse(json);
    if (parsed.success) return [parsed.data.embedding];
  } else {
    const parsed = cohereAnswer.safeParse(json);
    if (parsed.success) return Array.isArray(parsed.data.embeddings) ? parsed.data.embeddings : parsed.data.embeddings.float;
  }
  throw new ProviderError(502, 'server_error', 'Bedrock answered with embeddings of an unknown shape.', 'upstream_invalid_answer');
}

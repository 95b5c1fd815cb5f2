import { z } from 'zod';

// Google's answers as the translation reads them: zod checks their shape (unknown members are
// left out), so that a changed or broken answer is a clear 502, not a crash further on.

const part = z.object({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  functionCall: z.object({ name: z.string(), args: z.record(z.string(), z.unknown()).optional() }).optional(),
});

const usage = z.object({
  promptTokenCount: z.number().optional(),
  candidatesTokenCount: z.number().optional(),
  thoughtsTokenCount: z.number().optional(),
  cachedContentTokenCount: z.number().optional(),
  totalTokenCount: z.number().optional(),
});
export type GeminiUsage = z.infer<typeof usage>;

/** What Google Search grounding found: the queries, the pages (chunks), and which text each supports (UTF-8 byte offsets). */
const groundingMetadata = z.object({
  webSearchQueries: z.array(z.string()).optional(),
  groundingChunks: z.array(z.object({ web: z.object({ uri: z.string().optional(), title: z.string().optional() }).optional() })).optional(),
  groundingSupports: z
    .array(
      z.object({
        segment: z.object({ startIndex: z.number().optional(), endIndex: z.number().optional() }).optional(),
        groundingChunkIndices: z.array(z.number()).optional(),
      }),
    )
    .optional(),
});
export type GroundingMetadata = z.infer<typeof groundingMetadata>;

const candidate = z.object({
  index: z.number().optional(),
  content: z.object({ role: z.string().optional(), parts: z.array(part).optional() }).optional(),
  finishReason: z.string().optional(),
  groundingMetadata: groundingMetadata.optional(),
});
export type GeminiCandidate = z.infer<typeof candidate>;

export const generateContentResponse = z.object({
  candidates: z.array(candidate).optional(),
  promptFeedback: z.object({ blockReason: z.string().optional() }).optional(),
  usageMetadata: usage.optional(),
  modelVersion: z.string().optional(),
  responseId: z.string().optional(),
});
export type GenerateContentResponse = z.infer<typeof generateContentResponse>;

export const googleError = z.object({
  code: z.number().optional(),
  message: z.string().optional(),
  status: z.string().optional(),
  details: z.array(z.object({ '@type': z.string().optional(), reason: z.string().optional(), retryDelay: z.string().optional() }).loose()).optional(),
});

/** One event of streamGenerateContent?alt=sse: a piece of the answer, or an error. */
export const streamGenerateContentEvent = generateContentResponse.extend({ error: googleError.optional() });

export const batchEmbedContentsResponse = z.object({
  embeddings: z.array(z.object({ values: z.array(z.number()).optional() })).optional(),
  usageMetadata: z.object({ promptTokenCount: z.number().optional() }).optional(),
});
export type BatchEmbedContentsResponse = z.infer<typeof batchEmbedContentsResponse>;

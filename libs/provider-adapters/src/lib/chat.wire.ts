import { z } from 'zod';
import { ProviderError } from './provider-error';

// OpenAI's chat completion (and chunk) as the bridges read it back from a deployment serving chat.

/** A tool call as OpenAI writes it (Cohere's v2 writes the same). */
export const chatToolCall = z
  .object({ id: z.string().optional(), type: z.string().optional(), function: z.object({ name: z.string().optional(), arguments: z.string().optional() }).loose() })
  .loose();
const toolCall = chatToolCall;

export const chatUsage = z
  .object({
    prompt_tokens: z.number().optional(),
    completion_tokens: z.number().optional(),
    prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).loose().nullish(),
    completion_tokens_details: z.object({ reasoning_tokens: z.number().nullish() }).loose().nullish(),
  })
  .loose();
export type ChatUsage = z.infer<typeof chatUsage>;

/** A web page the answer cites, as OpenAI's chat completions write it (`message.annotations`), indices into the message's content. */
export const urlCitation = z
  .object({
    type: z.literal('url_citation'),
    url_citation: z.object({ url: z.string(), title: z.string().nullish(), start_index: z.number(), end_index: z.number() }).loose(),
  })
  .loose();
export type UrlCitation = z.infer<typeof urlCitation>;

/**
 * A web search the provider ran while answering (Anthropic's web search server tool, Gemini's
 * Google Search grounding), in `provider_specific_fields.web_search_calls` of the chat message or
 * delta (LiteLLM's field for what OpenAI's format has no place for): the Responses bridge makes a
 * `web_search_call` item of each.
 */
export const webSearchCall = z
  .object({
    id: z.string(),
    status: z.enum(['completed', 'failed']).optional(),
    query: z.string().nullish(),
    sources: z.array(z.object({ url: z.string(), title: z.string().nullish() }).loose()).nullish(),
  })
  .loose();
export type WebSearchCall = z.infer<typeof webSearchCall>;

const annotations = z.array(z.union([urlCitation, z.object({ type: z.string() }).loose()])).nullish();
const providerSpecificFields = z
  .object({ web_search_calls: z.array(webSearchCall).nullish() })
  .loose()
  .nullish();

export const chatCompletion = z
  .object({
    id: z.string().optional(),
    created: z.number().optional(),
    choices: z.array(
      z
        .object({
          message: z
            .object({
              content: z.string().nullish(),
              refusal: z.string().nullish(),
              reasoning_content: z.string().nullish(),
              tool_calls: z.array(toolCall).nullish(),
              annotations,
              provider_specific_fields: providerSpecificFields,
            })
            .loose(),
          finish_reason: z.string().nullish(),
        })
        .loose(),
    ),
    usage: chatUsage.nullish(),
  })
  .loose();
export type ChatCompletion = z.infer<typeof chatCompletion>;

export const chatCompletionChunk = z
  .object({
    id: z.string().optional(),
    created: z.number().optional(),
    choices: z
      .array(
        z
          .object({
            delta: z
              .object({
                content: z.string().nullish(),
                refusal: z.string().nullish(),
                reasoning_content: z.string().nullish(),
                tool_calls: z.array(toolCall.extend({ index: z.number() })).nullish(),
                annotations,
                provider_specific_fields: providerSpecificFields,
              })
              .loose()
              .nullish(),
            finish_reason: z.string().nullish(),
          })
          .loose(),
      )
      .optional(),
    usage: chatUsage.nullish(),
    error: z.object({ message: z.string().optional(), type: z.string().nullish(), code: z.unknown().optional() }).loose().optional(),
  })
  .loose();
export type ChatCompletionChunk = z.infer<typeof chatCompletionChunk>;

/** A chat completion answer's body, parsed and checked; ProviderError 502 when it is not one. */
export function parseChatCompletion(text: string): ChatCompletion {
  const parsed = chatCompletion.safeParse(parseJson(text, 'The upstream answered with a body that is not JSON.', 'upstream_invalid_answer'));
  if (!parsed.success) throw new ProviderError(502, 'server_error', 'The upstream answered with a body that is not a chat completion.', 'upstream_invalid_answer');
  return parsed.data;
}

/**
 * One chat stream event's data, parsed and checked; ProviderError 502 when it is not a chunk, and
 * the upstream's own error when the event is an error it sent mid-stream.
 */
export function parseChatChunk(data: string): ChatCompletionChunk {
  const parsed = chatCompletionChunk.safeParse(parseJson(data, 'The upstream stream sent an event that is not JSON.', 'upstream_stream_broken'));
  if (!parsed.success) throw new ProviderError(502, 'server_error', 'The upstream stream sent an event that is not a chat completion chunk.', 'upstream_stream_broken');
  const chunk = parsed.data;
  if (chunk.error) {
    const code = typeof chunk.error.code === 'string' ? chunk.error.code : (chunk.error.type ?? 'stream_error');
    throw new ProviderError(502, chunk.error.type ?? 'server_error', chunk.error.message ?? 'The upstream failed mid-stream.', code);
  }
  return chunk;
}

function parseJson(text: string, message: string, code: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderError(502, 'server_error', message, code);
  }
}

import { randomUUID } from 'node:crypto';
import { toolCallId, type GeminiPart } from './gemini.request';

import type { UrlCitation, WebSearchCall } from '../lib/chat.wire';
import type { GeminiUsage, GenerateContentResponse, GroundingMetadata } from './gemini.wire';

export type { GeminiCandidate, GeminiUsage, GenerateContentResponse } from './gemini.wire';

const CONTENT_FILTER_REASONS = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY']);

/** Gemini's finishReason in OpenAI-format terms; a STOP after function calls is "tool_calls", as OpenAI says it. */
export function finishReasonFor(reason: string | undefined, calledTools: boolean): string | null {
  if (reason === undefined) return null;
  if (reason === 'MAX_TOKENS') return 'length';
  if (CONTENT_FILTER_REASONS.has(reason)) return 'content_filter';
  return calledTools ? 'tool_calls' : 'stop';
}

/** The answer's text (thought summaries left out: they are not the answer). */
export function textOf(parts: GeminiPart[]): string {
  return parts
    .filter((part) => typeof part.text === 'string' && part.thought !== true)
    .map((part) => part.text)
    .join('');
}

/** The thought summaries of an answer (Gemini sends them when asked, with thinking on). */
export function thoughtsOf(parts: GeminiPart[]): string {
  return parts
    .filter((part) => typeof part.text === 'string' && part.thought === true)
    .map((part) => part.text)
    .join('');
}

/** Function calls as OpenAI-format tool calls, each with a fresh `call_…` id. */
export function toolCallsOf(parts: GeminiPart[]): { id: string; type: 'function'; function: { name: string; arguments: string } }[] {
  return parts.flatMap((part) =>
    part.functionCall
      ? [{ id: toolCallId(part.thoughtSignature), type: 'function' as const, function: { name: part.functionCall.name, arguments: JSON.stringify(part.functionCall.args ?? {}) } }]
      : [],
  );
}

/** Thinking tokens are output tokens (and billed as such); cached prompt tokens are part of the prompt. */
export function openAiUsage(usage: GeminiUsage | undefined): Record<string, unknown> {
  const prompt = usage?.promptTokenCount ?? 0;
  const reasoning = usage?.thoughtsTokenCount ?? 0;
  const completion = (usage?.candidatesTokenCount ?? 0) + reasoning;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: usage?.cachedContentTokenCount ?? 0 },
    completion_tokens_details: { reasoning_tokens: reasoning },
  };
}

/**
 * Google Search grounding as chat's fields: each query Gemini searched as a web search call (with
 * the pages it drew on), each grounded segment of `text` as url_citation annotations of its pages.
 */
export function groundingOf(metadata: GroundingMetadata | undefined, text: string): { searches: WebSearchCall[]; annotations: UrlCitation[] } {
  if (!metadata) return { searches: [], annotations: [] };
  const pages = (metadata.groundingChunks ?? []).map((chunk) => ({ url: chunk.web?.uri ?? '', title: chunk.web?.title ?? null }));
  const sources = pages.filter((page) => page.url !== '');
  const searches = (metadata.webSearchQueries ?? []).map((query, n) => ({ id: `ws_${randomUUID().replaceAll('-', '')}${n}`, status: 'completed' as const, query, sources }));
  // Gemini counts UTF-8 bytes; chat counts characters.
  const bytes = Buffer.from(text, 'utf8');
  const characterAt = (offset: number | undefined) => bytes.subarray(0, offset ?? 0).toString('utf8').length;
  const annotations: UrlCitation[] = [];
  for (const support of metadata.groundingSupports ?? []) {
    for (const chunk of support.groundingChunkIndices ?? []) {
      const page = pages[chunk];
      if (!page?.url) continue;
      annotations.push({
        type: 'url_citation',
        url_citation: { url: page.url, title: page.title, start_index: characterAt(support.segment?.startIndex), end_index: characterAt(support.segment?.endIndex) },
      });
    }
  }
  return { searches, annotations };
}

/** A generateContent answer as an OpenAI-format chat.completion. */
export function toChatCompletion(response: GenerateContentResponse, model: string, created: number): Record<string, unknown> {
  const choices = (response.candidates ?? []).map((candidate, position) => {
    const parts = candidate.content?.parts ?? [];
    const text = textOf(parts);
    const toolCalls = toolCallsOf(parts);
    const thoughts = thoughtsOf(parts);
    const { searches, annotations } = groundingOf(candidate.groundingMetadata, text);
    return {
      index: candidate.index ?? position,
      message: {
        role: 'assistant',
        content: text === '' && toolCalls.length > 0 ? null : text,
        refusal: null,
        ...(thoughts !== '' ? { reasoning_content: thoughts } : {}),
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        ...(annotations.length > 0 ? { annotations } : {}),
        ...(searches.length > 0 ? { provider_specific_fields: { web_search_calls: searches } } : {}),
      },
      logprobs: null,
      finish_reason: finishReasonFor(candidate.finishReason ?? 'STOP', toolCalls.length > 0),
    };
  });
  // A blocked prompt has no candidates, only promptFeedback: OpenAI-format says so with content_filter.
  if (choices.length === 0) {
    const finish = response.promptFeedback?.blockReason ? 'content_filter' : 'stop';
    choices.push({ index: 0, message: { role: 'assistant', content: null, refusal: null }, logprobs: null, finish_reason: finish });
  }
  return {
    id: chatCompletionId(response),
    object: 'chat.completion',
    created,
    model: response.modelVersion ?? model,
    choices,
    usage: openAiUsage(response.usageMetadata),
  };
}

export function chatCompletionId(response: GenerateContentResponse): string {
  return `chatcmpl-${response.responseId ?? randomUUID().replaceAll('-', '')}`;
}

import { translatedChatAnswer } from '../lib/chat-answer-translation';
import { parseChatCompletion } from '../lib/chat.wire';
import type { ProviderAnswer } from '../lib/provider-adapter';
import { itemId, responsesUsage } from './chat-to-responses.answer';
import { compactionItem } from './compaction-item';
import { toChatRequest, type BridgeOptions } from './responses-to-chat.request';

/** What the model is asked, after the conversation, to compact it. */
export const COMPACTION_REQUEST =
  'Summarize the conversation so far so that it can be continued from the summary alone: the goals, the decisions made, ' +
  'the facts and results learned (tool results included), and what remains to be done. Answer with the summary only.';

/**
 * POST /v1/responses/compact as a chat completion, for deployments without it: the conversation
 * (its input items, earlier turns already added by the gateway) followed by the request to
 * summarize it; tools and output formats have no part in a summary.
 */
export function compactToChatRequest(body: Record<string, unknown>, options: BridgeOptions): Record<string, unknown> {
  const input = body['input'];
  const items = typeof input === 'string' ? [{ role: 'user', content: input }] : Array.isArray(input) ? input : [];
  const { tools: _tools, tool_choice: _choice, text: _text, stream: _stream, ...rest } = body;
  return toChatRequest({ ...rest, input: [...items, { role: 'user', content: COMPACTION_REQUEST }] }, options);
}

/**
 * The chat answer to a compaction request as OpenAI's compacted response: every user message of
 * the conversation, then one compaction item carrying the summary, which the bridge reads back
 * as the conversation's context when the client sends it in a later turn.
 */
export function chatAnswerAsCompaction(answer: ProviderAnswer, request: Record<string, unknown>): ProviderAnswer {
  return translatedChatAnswer(answer, false, {
    whole: (text) => {
      const completion = parseChatCompletion(text);
      const summary = completion.choices[0]?.message.content ?? '';
      return {
        id: itemId('resp'),
        object: 'response.compaction',
        created_at: completion.created ?? Math.floor(Date.now() / 1000),
        output: [...userMessages(request['input']), compactionItem(summary)],
        usage: responsesUsage(completion.usage),
      };
    },
    stream: () => {
      throw new Error('compaction is never streamed');
    },
    frame: () => '',
  });
}

function userMessages(input: unknown): Record<string, unknown>[] {
  const items = typeof input === 'string' ? [{ role: 'user', content: input }] : Array.isArray(input) ? (input as Record<string, unknown>[]) : [];
  return items
    .filter((item) => (item['type'] === undefined || item['type'] === 'message') && item['role'] === 'user')
    .map((item) => ({
      id: itemId('msg'),
      type: 'message',
      status: 'completed',
      role: 'user',
      content: typeof item['content'] === 'string' ? [{ type: 'input_text', text: item['content'] }] : item['content'],
    }));
}

import { translatedChatAnswer } from '../lib/chat-answer-translation';
import type { ProviderAnswer } from '../lib/provider-adapter';
import { echoed, toTextCompletion } from './chat-to-completions.answer';
import { ChatToCompletionsStream, type CompletionsEvent } from './chat-to-completions.stream';

export { toChatRequest as completionsToChatRequest } from './completions-to-chat.request';

/**
 * A chat completion answer (JSON or stream) as the text completion answering `request`, for
 * deployments without a completions endpoint: a stream translated chunk by chunk as it arrives.
 */
export function chatAnswerAsCompletion(answer: ProviderAnswer, request: Record<string, unknown>, streamed: boolean): ProviderAnswer {
  return translatedChatAnswer(answer, streamed, {
    whole: (text) => toTextCompletion(text, request),
    stream: () => new ChatToCompletionsStream(String(request['model']), echoed(request)),
    frame: completionsFrame,
  });
}

/** Server-Sent Events as OpenAI writes a completions stream: data lines only, `[DONE]` last. */
function completionsFrame(event: CompletionsEvent): string {
  return `data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`;
}

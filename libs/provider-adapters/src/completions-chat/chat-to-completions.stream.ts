import { parseChatChunk } from '../lib/chat.wire';
import type { ChatStreamTranslator } from '../lib/chat-answer-translation';
import { completionId } from './chat-to-completions.answer';
import type { TextCompletion } from './completions.wire';

/** One event of a completions stream: a chunk, or the `[DONE]` that ends it. */
export type CompletionsEvent = TextCompletion | '[DONE]';

/**
 * Chat completion chunks as the chunks of a streamed text completion, one at a time as they
 * arrive: each content delta as a choice's `text`, a finish reason as it came, the usage chunk
 * (choices empty) with its usage, then `[DONE]`. The echoed prompt (`echo`) goes first, in each
 * choice's first chunk. An error the upstream sent in its stream throws ProviderError.
 */
export class ChatToCompletionsStream implements ChatStreamTranslator<CompletionsEvent> {
  private done = false;
  private readonly started = new Set<number>();

  constructor(
    private readonly model: string,
    private readonly echo: string,
  ) {}

  push(data: string): CompletionsEvent[] {
    if (this.done) return [];
    if (data === '[DONE]') {
      this.done = true;
      return ['[DONE]'];
    }
    const chunk = parseChatChunk(data);
    const shell = {
      id: completionId(chunk.id),
      object: 'text_completion' as const,
      created: chunk.created ?? Math.floor(Date.now() / 1000),
      model: typeof chunk['model'] === 'string' ? chunk['model'] : this.model,
    };
    const events: CompletionsEvent[] = [];
    for (const [position, choice] of (chunk.choices ?? []).entries()) {
      const index = typeof choice['index'] === 'number' ? choice['index'] : position;
      let text = choice.delta?.content ?? choice.delta?.refusal ?? '';
      if (!this.started.has(index) && (text !== '' || choice.finish_reason)) {
        this.started.add(index);
        text = this.echo + text;
      }
      // The chat stream's role-only first chunk and tool-call deltas carry no text.
      if (text === '' && !choice.finish_reason) continue;
      events.push({ ...shell, choices: [{ index, text, logprobs: null, finish_reason: choice.finish_reason ?? null }] });
    }
    if (chunk.usage) events.push({ ...shell, choices: [], usage: chunk.usage });
    return events;
  }

  end(): CompletionsEvent[] {
    if (this.done) return [];
    this.done = true;
    return ['[DONE]'];
  }
}

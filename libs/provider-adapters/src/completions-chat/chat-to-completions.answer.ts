import { randomUUID } from 'node:crypto';
import { parseChatCompletion } from '../lib/chat.wire';
import type { TextCompletion } from './completions.wire';

/** A chat completion's id as a text completion's (`chatcmpl-…` → `cmpl-…`). */
export function completionId(chatId: string | undefined): string {
  return `cmpl-${(chatId ?? randomUUID()).replace(/^chatcmpl-/, '')}`;
}

/** What `echo` puts before each answer: the prompt, when it is one string. */
export function echoed(request: Record<string, unknown>): string {
  if (request['echo'] !== true) return '';
  const prompt = request['prompt'];
  return typeof prompt === 'string' ? prompt : Array.isArray(prompt) && typeof prompt[0] === 'string' ? prompt[0] : '';
}

/**
 * A chat completion as the text completion answering `request`: each choice's message text as its
 * `text` (after the prompt, with `echo`), finish reasons and usage as chat reported them, under the
 * model the chat answer named.
 */
export function toTextCompletion(text: string, request: Record<string, unknown>): TextCompletion {
  const completion = parseChatCompletion(text);
  const prefix = echoed(request);
  const model = typeof completion['model'] === 'string' ? completion['model'] : String(request['model']);
  return {
    id: completionId(completion.id),
    object: 'text_completion',
    created: completion.created ?? Math.floor(Date.now() / 1000),
    model,
    choices: completion.choices.map((choice, index) => ({
      index: typeof choice['index'] === 'number' ? choice['index'] : index,
      text: prefix + (choice.message.content ?? choice.message.refusal ?? ''),
      logprobs: null,
      finish_reason: choice.finish_reason ?? 'stop',
    })),
    ...(completion.usage ? { usage: completion.usage } : {}),
  };
}

import type { AnswerText } from '../answer-text';
import { isObject, mapList, mapTextContent, type RequestText, withField } from '../request-text';

const TEXT_PARTS = new Set(['text']);

/** Chat completions: every message's content (system, developer, user, assistant and tool messages alike). */
export const CHAT_TEXT: RequestText = {
  map: (body, replace) =>
    withField(
      body,
      'messages',
      mapList(body['messages'], (message) => (isObject(message) ? withField(message, 'content', mapTextContent(message['content'], replace, TEXT_PARTS)) : message)),
    ),
};

/** A field holding one text or a list of them (token arrays are left as they are). */
export function textsIn(field: string): RequestText {
  return {
    map: (body, replace) => {
      const value = body[field];
      return withField(body, field, typeof value === 'string' ? replace(value) : mapList(value, (item) => (typeof item === 'string' ? replace(item) : item)));
    },
  };
}

/** Completions: the prompt. */
export const COMPLETIONS_TEXT = textsIn('prompt');

/** Embeddings: the input. */
export const EMBEDDINGS_TEXT = textsIn('input');

/** Image generations: the prompt. */
export const IMAGE_PROMPT_TEXT = textsIn('prompt');

/** Speech: the text to speak. */
export const SPEECH_TEXT = textsIn('input');

/** A message's or a delta's content and refusal. */
function mapMessage(message: unknown, replace: (text: string) => string): unknown {
  if (!isObject(message)) return message;
  const content = withField(message, 'content', mapTextContent(message['content'], replace, TEXT_PARTS));
  return typeof content['refusal'] === 'string' ? withField(content, 'refusal', replace(content['refusal'])) : content;
}

/** Chat completions: each choice's message (content and refusal); streamed, each choice's delta. */
export const CHAT_ANSWER_TEXT: AnswerText = {
  map: (answer, replace) =>
    withField(
      answer,
      'choices',
      mapList(answer['choices'], (choice) => (isObject(choice) ? withField(choice, 'message', mapMessage(choice['message'], replace)) : choice)),
    ),
  event: (data, delta) =>
    withField(
      data,
      'choices',
      mapList(data['choices'], (choice) => {
        if (!isObject(choice)) return choice;
        const channel = `choice:${String(choice['index'] ?? 0)}`;
        return withField(
          choice,
          'delta',
          mapMessage(choice['delta'], (text) => delta(channel, text)),
        );
      }),
    ),
};

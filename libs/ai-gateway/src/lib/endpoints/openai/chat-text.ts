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
function textsIn(field: string): RequestText {
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

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

/** Completions: the prompt, one text or a list of them. */
export const COMPLETIONS_TEXT: RequestText = {
  map: (body, replace) => {
    const prompt = body['prompt'];
    if (typeof prompt === 'string') return withField(body, 'prompt', replace(prompt));
    return withField(
      body,
      'prompt',
      mapList(prompt, (item) => (typeof item === 'string' ? replace(item) : item)),
    );
  },
};

/** Embeddings: the input, one text or a list of them (token arrays are left as they are). */
export const EMBEDDINGS_TEXT: RequestText = {
  map: (body, replace) => {
    const input = body['input'];
    if (typeof input === 'string') return withField(body, 'input', replace(input));
    return withField(
      body,
      'input',
      mapList(input, (item) => (typeof item === 'string' ? replace(item) : item)),
    );
  },
};

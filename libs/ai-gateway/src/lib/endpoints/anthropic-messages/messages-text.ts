import type { AnswerText } from '../answer-text';
import { isObject, mapList, mapTextContent, type RequestText, withField } from '../request-text';

const TEXT_BLOCKS = new Set(['text']);

/** A content block list's text blocks, and the text inside its tool results. */
function mapBlocks(content: unknown, replace: (text: string) => string): unknown {
  const texts = mapTextContent(content, replace, TEXT_BLOCKS);
  return mapList(texts, (block) =>
    isObject(block) && block['type'] === 'tool_result' ? withField(block, 'content', mapTextContent(block['content'], replace, TEXT_BLOCKS)) : block,
  );
}

/** Anthropic Messages: the system prompt and every message's content, tool results included. */
export const MESSAGES_TEXT: RequestText = {
  map: (body, replace) => {
    const withSystem = withField(body, 'system', mapTextContent(body['system'], replace, TEXT_BLOCKS));
    return withField(
      withSystem,
      'messages',
      mapList(body['messages'], (message) => (isObject(message) ? withField(message, 'content', mapBlocks(message['content'], replace)) : message)),
    );
  },
};

/**
 * Anthropic Messages: the answer's text blocks; streamed, each text block's `text_delta`s (and the
 * text a `content_block_start` already carries).
 */
export const MESSAGES_ANSWER_TEXT: AnswerText = {
  map: (answer, replace) => withField(answer, 'content', mapTextContent(answer['content'], replace, TEXT_BLOCKS)),
  event: (data, delta) => {
    const channel = `block:${String(data['index'] ?? 0)}`;
    const part = data['type'] === 'content_block_delta' ? data['delta'] : data['type'] === 'content_block_start' ? data['content_block'] : undefined;
    if (!isObject(part) || typeof part['text'] !== 'string' || (part['type'] !== 'text_delta' && part['type'] !== 'text')) return data;
    const text = delta(channel, part['text']);
    return text === part['text'] ? data : { ...data, [data['type'] === 'content_block_delta' ? 'delta' : 'content_block']: { ...part, text } };
  },
};

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

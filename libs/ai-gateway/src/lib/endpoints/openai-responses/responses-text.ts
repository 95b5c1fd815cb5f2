import { isObject, mapList, mapTextContent, type RequestText, withField } from '../request-text';

const TEXT_PARTS = new Set(['input_text', 'output_text', 'text']);

/** One input item: a message's text parts, a function call's output. */
function mapItem(item: unknown, replace: (text: string) => string): unknown {
  if (!isObject(item)) return item;
  if (item['type'] === 'function_call_output' || item['type'] === 'custom_tool_call_output') return withField(item, 'output', mapTextContent(item['output'], replace, TEXT_PARTS));
  if (item['type'] === undefined || item['type'] === 'message') return withField(item, 'content', mapTextContent(item['content'], replace, TEXT_PARTS));
  return item;
}

/** The Responses API: the instructions and the input, a text or a list of items. */
export const RESPONSES_TEXT: RequestText = {
  map: (body, replace) => {
    const instructions = body['instructions'];
    const withInstructions = typeof instructions === 'string' ? withField(body, 'instructions', replace(instructions)) : body;
    const input = withInstructions['input'];
    if (typeof input === 'string') return withField(withInstructions, 'input', replace(input));
    return withField(
      withInstructions,
      'input',
      mapList(input, (item) => mapItem(item, replace)),
    );
  },
};

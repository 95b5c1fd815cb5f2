import type { AnswerText } from '../answer-text';
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

/** A response's output: its messages' text parts (output_text and refusal). */
function mapOutput(response: unknown, replace: (text: string) => string): unknown {
  if (!isObject(response)) return response;
  return withField(
    response,
    'output',
    mapList(response['output'], (item) => (isObject(item) && item['type'] === 'message' ? withField(item, 'content', mapParts(item['content'], replace)) : item)),
  );
}

function mapParts(content: unknown, replace: (text: string) => string): unknown {
  return mapList(content, (part) => mapPart(part, replace));
}

function mapPart(part: unknown, replace: (text: string) => string): unknown {
  if (!isObject(part)) return part;
  if (part['type'] === 'output_text' && typeof part['text'] === 'string') return withField(part, 'text', replace(part['text']));
  if (part['type'] === 'refusal' && typeof part['refusal'] === 'string') return withField(part, 'refusal', replace(part['refusal']));
  return part;
}

/**
 * The Responses API: the output messages' text; streamed, each output part's `output_text.delta`
 * and `refusal.delta`s, and the whole texts the events repeat when a part, an item or the
 * response is done (`output_text.done`, `content_part.done`, `output_item.done`, `completed`…).
 */
export const RESPONSES_ANSWER_TEXT: AnswerText = {
  map: (answer, replace) => mapOutput(answer, replace) as Record<string, unknown>,
  event: (data, delta, whole) => {
    const type = String(data['type']);
    const channel = `${String(data['item_id'])}:${String(data['content_index'] ?? 0)}`;
    if ((type === 'response.output_text.delta' || type === 'response.refusal.delta') && typeof data['delta'] === 'string')
      return withField(data, 'delta', delta(channel, data['delta']));
    if (type === 'response.output_text.done' && typeof data['text'] === 'string') return withField(data, 'text', whole(data['text']));
    if (type === 'response.refusal.done' && typeof data['refusal'] === 'string') return withField(data, 'refusal', whole(data['refusal']));
    if (type === 'response.content_part.added' || type === 'response.content_part.done') return withField(data, 'part', mapPart(data['part'], whole));
    if (type === 'response.output_item.added' || type === 'response.output_item.done') {
      const item = data['item'];
      return isObject(item) && item['type'] === 'message' ? withField(data, 'item', withField(item, 'content', mapParts(item['content'], whole))) : data;
    }
    if (isObject(data['response'])) return withField(data, 'response', mapOutput(data['response'], whole));
    return data;
  },
};

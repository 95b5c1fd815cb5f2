import { itemId } from '@arbor/provider-adapters';
import type { StoredResponse } from './stored-response.entity';

type Item = Record<string, unknown>;

const ID_PREFIXES: Record<string, string> = { message: 'msg', function_call: 'fc', function_call_output: 'fco', reasoning: 'rs' };

/**
 * A request's `input` as the list of items it stands for, each with an id (what input_items lists
 * and pages by): a string is one user message; a message's string content one text part.
 */
export function inputItemsOf(input: unknown): Item[] {
  if (typeof input === 'string') return [{ id: itemId('msg'), type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }];
  if (!Array.isArray(input)) return [];
  return input
    .filter((item): item is Item => typeof item === 'object' && item !== null && !Array.isArray(item))
    .map((item) => {
      const type = typeof item['type'] === 'string' ? item['type'] : 'message';
      const content = item['content'];
      const normalised: Item = { ...item, type, id: typeof item['id'] === 'string' ? item['id'] : itemId(ID_PREFIXES[type] ?? 'item') };
      if (type === 'message' && typeof content === 'string') normalised['content'] = [{ type: item['role'] === 'assistant' ? 'output_text' : 'input_text', text: content }];
      return normalised;
    });
}

/**
 * The earlier turns of a conversation (oldest first) as input items for a deployment that does not
 * hold them: each turn's input, then its output — messages and function calls; reasoning and
 * built-in tool items stay with the upstream that wrote them. Ids are the gateway's or another
 * upstream's, so they are left out.
 */
export function conversationItems(chain: readonly StoredResponse[]): Item[] {
  const items: Item[] = [];
  for (const turn of chain) {
    for (const item of turn.input) if (item['type'] !== 'reasoning' && item['type'] !== 'item_reference') items.push(withoutId(item));
    const output = Array.isArray(turn.response['output']) ? (turn.response['output'] as Item[]) : [];
    for (const item of output) {
      const input = asInput(item);
      if (input) items.push(input);
    }
  }
  return items;
}

/**
 * An item of a stored response as an input item for another deployment: an answer's message and
 * function call in their input form, an input item without its id; undefined for what stays with
 * the upstream that wrote it (reasoning, built-in tool items).
 */
export function asInput(item: Item): Item | undefined {
  if (item['type'] === 'message' && item['role'] === 'assistant') {
    const parts = Array.isArray(item['content']) ? (item['content'] as Item[]) : [];
    return {
      type: 'message',
      role: 'assistant',
      content: parts.map((part) => (part['type'] === 'refusal' ? { type: 'refusal', refusal: part['refusal'] } : { type: 'output_text', text: part['text'] ?? '' })),
    };
  }
  const namespace = typeof item['namespace'] === 'string' ? { namespace: item['namespace'] } : {};
  if (item['type'] === 'function_call') return { type: 'function_call', call_id: item['call_id'], name: item['name'], arguments: item['arguments'], ...namespace };
  if (item['type'] === 'custom_tool_call') return { type: 'custom_tool_call', call_id: item['call_id'], name: item['name'], input: item['input'], ...namespace };
  if (item['type'] === 'message' || item['type'] === 'function_call_output' || item['type'] === 'custom_tool_call_output') return withoutId(item);
  return undefined;
}

/** The ids of the item_reference items of a request's input. */
export function referencedIds(input: unknown): string[] {
  if (!Array.isArray(input)) return [];
  return input.flatMap((item: unknown) => {
    const reference = item as { type?: unknown; id?: unknown } | null;
    return reference?.type === 'item_reference' && typeof reference.id === 'string' ? [reference.id] : [];
  });
}

function withoutId(item: Item): Item {
  const { id: _id, status: _status, ...rest } = item;
  return rest;
}

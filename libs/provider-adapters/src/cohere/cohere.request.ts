import { mapParameters } from '../lib/parameter-map';
import { ProviderError } from '../lib/provider-error';
import { COHERE_CHAT_PARAMETERS } from './cohere.params';

interface ChatMessage {
  role?: unknown;
  content?: unknown;
  tool_calls?: unknown;
  tool_call_id?: unknown;
}

const invalid = (message: string) => new ProviderError(400, 'invalid_request_error', message, 'invalid_request', 'messages');

/**
 * An OpenAI-format chat body as a Cohere chat v2 request. Cohere's messages are OpenAI's nearly as they
 * are (roles system, user, assistant, tool; tool calls and text or image_url parts alike): the
 * developer role becomes system, text parts keep only their text, an assistant's empty content
 * is left out.
 */
export function toCohereChatRequest(body: Record<string, unknown>, model: string): Record<string, unknown> {
  if (!Array.isArray(body['messages'])) throw invalid('messages must be a list of messages.');
  const messages = (body['messages'] as ChatMessage[]).map(toCohereMessage);
  return mapParameters(body, COHERE_CHAT_PARAMETERS, { model, messages, ...(body['stream'] === true ? { stream: true } : {}) });
}

function toCohereMessage(message: ChatMessage): Record<string, unknown> {
  switch (message.role) {
    case 'system':
    case 'developer':
      return { role: 'system', content: textOf(message.content) };
    case 'user':
      return { role: 'user', content: typeof message.content === 'string' ? message.content : contentParts(message.content) };
    case 'assistant': {
      const text = message.content === null || message.content === undefined ? '' : textOf(message.content);
      return {
        role: 'assistant',
        ...(text !== '' ? { content: text } : {}),
        ...(Array.isArray(message.tool_calls) && message.tool_calls.length > 0 ? { tool_calls: message.tool_calls } : {}),
      };
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.tool_call_id, content: textOf(message.content) };
    default:
      throw invalid(`Cohere takes messages of role system, developer, user, assistant and tool, not "${String(message.role)}".`);
  }
}

/** Text and image parts as Cohere's v2 content blocks (the same shapes: `text`, `image_url`). */
function contentParts(content: unknown): Record<string, unknown>[] {
  if (!Array.isArray(content)) throw invalid('A message content must be a string or a list of parts.');
  return content.map((part: { type?: unknown; text?: unknown; image_url?: unknown }) => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    if (part.type === 'image_url') return { type: 'image_url', image_url: part.image_url };
    throw invalid(`Cohere takes text and image_url parts, not "${String(part.type)}".`);
  });
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part: { text?: unknown }) => (typeof part.text === 'string' ? part.text : '')).join('');
  throw invalid('A message content must be a string or a list of text parts.');
}

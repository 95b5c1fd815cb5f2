import type { z } from 'zod';
import { ProviderError } from '../lib/provider-error';
import type { BridgeOptions } from '../lib/bridge-options';
import { messagesRequest, type ContentBlock, type MessagesRequest, type ServerTool } from './messages.wire';

type ChatMessage = Record<string, unknown>;
type ChatPart = Record<string, unknown>;

// The Messages fields this translation turns into chat fields; any other goes on by its own name,
// for the target's parameter list (and drop_params) to judge, but for service_tier, which
// Anthropic's values do not mean on other providers and which is dropped as on Anthropic aliases.
const TRANSLATED = new Set([
  'model',
  'max_tokens',
  'messages',
  'system',
  'stop_sequences',
  'stream',
  'temperature',
  'top_p',
  'metadata',
  'tools',
  'tool_choice',
  'thinking',
  'output_config',
  'service_tier',
]);
// Reasoning effort by Anthropic's output effort (`max` has no chat equivalent above `high`).
const EFFORTS: Record<string, string> = { low: 'low', medium: 'medium', high: 'high', max: 'high' };

/**
 * An Anthropic Messages request as an OpenAI chat completion request, for deployments that do not
 * serve messages: system prompt first, tool results as `tool` messages right after the assistant
 * turn that called them, images and PDF documents as content parts, tools and tool_choice, stop
 * sequences, the user id, and a thinking budget as reasoning_effort. Prompt-cache markers have no
 * chat equivalent and are left out. Throws ProviderError 400 naming what does not fit.
 */
export function toChatRequest(body: Record<string, unknown>, options?: BridgeOptions): Record<string, unknown> {
  const parsed = messagesRequest.safeParse(body);
  if (!parsed.success) throw invalidRequest(parsed.error);
  const request = parsed.data;
  const chat: Record<string, unknown> = { model: request.model, messages: chatMessages(request), max_tokens: request.max_tokens };
  for (const [name, value] of Object.entries(body)) if (!TRANSLATED.has(name) && !(name === 'context_management' && clearsOnlyThinking(request))) chat[name] = value;
  if (request.stream === true) chat['stream'] = true;
  if (request.temperature !== undefined) chat['temperature'] = request.temperature;
  if (request.top_p !== undefined) chat['top_p'] = request.top_p;
  if (request.stop_sequences && request.stop_sequences.length > 0) chat['stop'] = request.stop_sequences;
  if (typeof request.metadata?.user_id === 'string') chat['user'] = request.metadata.user_id;
  const functions = (request.tools ?? []).flatMap((tool, index) => {
    if ('input_schema' in tool && (tool.type === undefined || tool.type === 'custom')) {
      const { name, description, input_schema: parameters } = tool as { name: string; description?: string; input_schema: unknown };
      return [{ type: 'function', function: { name, ...(description !== undefined ? { description } : {}), parameters } }];
    }
    serverTool(tool as ServerTool, index, chat, options);
    return [];
  });
  if (functions.length > 0) chat['tools'] = functions;
  const choice = request.tool_choice;
  if (choice) {
    chat['tool_choice'] =
      choice.type === 'auto' ? 'auto' : choice.type === 'any' ? 'required' : choice.type === 'none' ? 'none' : { type: 'function', function: { name: choice.name } };
    if (choice.type !== 'none' && choice.disable_parallel_tool_use === true) chat['parallel_tool_calls'] = false;
  }
  const effort = request.output_config?.effort;
  if (request.thinking?.type === 'enabled') chat['reasoning_effort'] = effortFor(request.thinking.budget_tokens);
  else if (request.thinking?.type === 'adaptive' || (effort !== undefined && request.thinking?.type !== 'disabled')) chat['reasoning_effort'] = EFFORTS[effort ?? 'medium'];
  const format = request.output_config?.format;
  if (format) chat['response_format'] = { type: 'json_schema', json_schema: { name: 'output', schema: format.schema, strict: true } };
  return chat;
}

// Anthropic's web search server tool, by version.
const WEB_SEARCH_TOOL = /^web_search_\d{8}$/;

/**
 * A server tool Anthropic runs itself: its web search as chat's `web_search_options` (the
 * target's own search: Gemini's Google Search grounding, OpenAI's search models), its place and
 * domain list carried along, where the target takes them (every target when the caller does not
 * say); any other, or web search where the target has none, refused naming it, or dropped under
 * drop_params (and named in `options.dropped`).
 */
function serverTool(tool: ServerTool, index: number, chat: Record<string, unknown>, options: BridgeOptions | undefined): void {
  if (WEB_SEARCH_TOOL.test(tool.type) && (!options?.params || options.params.has('web_search_options'))) {
    const { user_location: location, allowed_domains: allowed } = tool as { user_location?: Record<string, unknown> | null; allowed_domains?: unknown };
    const search: Record<string, unknown> = {};
    if (location) {
      const { type: _type, ...place } = location;
      search['user_location'] = { type: 'approximate', approximate: place };
    }
    if (Array.isArray(allowed) && allowed.length > 0) search['filters'] = { allowed_domains: allowed };
    chat['web_search_options'] = search;
    return;
  }
  if (options?.dropParams) {
    options.dropped?.push(`tools.${index} (${tool.type})`);
    return;
  }
  const provider = options?.provider ?? 'this provider';
  throw new ProviderError(
    400,
    'invalid_request_error',
    `tools.${index}: the ${tool.type} tool is run by Anthropic's API${WEB_SEARCH_TOOL.test(tool.type) ? ' or a provider with a web search of its own' : ''}, and ${provider} has none. Remove it, or set drop_params: true to drop it.`,
    'unsupported_parameter',
    'tools',
  );
}

/**
 * Context editing that only clears old thinking is honoured by the bridge as it is (thinking
 * never reaches another provider); other edits (clearing tool results) are the target's to
 * honour, and drop_params judges them.
 */
function clearsOnlyThinking(request: MessagesRequest): boolean {
  const edits = request.context_management?.edits ?? [];
  return edits.every((edit) => edit.type.startsWith('clear_thinking_'));
}

/** A thinking budget as the nearest reasoning effort (Anthropic's minimum budget is 1024 tokens). */
function effortFor(budget: number): string {
  return budget < 2048 ? 'low' : budget < 8192 ? 'medium' : 'high';
}

function chatMessages(request: MessagesRequest): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (typeof request.system === 'string') messages.push({ role: 'system', content: request.system });
  else if (request.system && request.system.length > 0) messages.push({ role: 'system', content: request.system.map((block) => block.text).join('\n\n') });
  for (const [index, message] of request.messages.entries()) {
    const blocks: ContentBlock[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    if (message.role === 'assistant') messages.push(assistantMessage(blocks));
    else if (message.role === 'system') messages.push({ role: 'system', content: textOf(blocks, index) });
    else messages.push(...userMessages(blocks, index));
  }
  return messages;
}

/** The text of a system turn. */
function textOf(blocks: ContentBlock[], index: number): string {
  return blocks
    .map((block) => {
      if (block.type !== 'text') throw new ProviderError(400, 'invalid_request_error', `messages.${index}: system messages may contain only text.`, 'invalid_value', 'messages');
      return block.text;
    })
    .join('\n\n');
}

/**
 * An assistant turn: its text, and its tool_use blocks as tool calls (thinking, and the web
 * searches Anthropic's server tool ran, stay with the provider that made them).
 */
function assistantMessage(blocks: ContentBlock[]): ChatMessage {
  const text = blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  const toolCalls = blocks.flatMap((block) =>
    block.type === 'tool_use' ? [{ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } }] : [],
  );
  const message: ChatMessage = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text };
  if (toolCalls.length > 0) message['tool_calls'] = toolCalls;
  return message;
}

/** A user turn: its tool results first (chat wants them right after the calls), then what the user said. */
function userMessages(blocks: ContentBlock[], index: number): ChatMessage[] {
  const messages: ChatMessage[] = [];
  const parts: ChatPart[] = [];
  for (const block of blocks) {
    if (block.type === 'tool_result') {
      const content = typeof block.content === 'string' ? block.content : (block.content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
      messages.push({ role: 'tool', tool_call_id: block.tool_use_id, content: block.is_error === true && content === '' ? 'error' : content });
    } else if (block.type === 'text') parts.push({ type: 'text', text: block.text });
    else if (block.type === 'image') {
      const url = block.source.type === 'base64' ? `data:${block.source.media_type};base64,${block.source.data}` : block.source.url;
      parts.push({ type: 'image_url', image_url: { url } });
    } else if (block.type === 'document') parts.push(documentPart(block.source, block.title ?? undefined, index));
    else throw new ProviderError(400, 'invalid_request_error', `messages.${index}: user messages may not contain ${block.type} blocks.`, 'invalid_value', 'messages');
  }
  if (parts.length > 0) {
    const onlyText = parts.every((part) => part['type'] === 'text');
    messages.push({ role: 'user', content: onlyText ? parts.map((part) => part['text']).join('\n') : parts });
  }
  return messages;
}

/** A document as OpenAI's file part (a PDF as a base64 data URL), or its text. */
function documentPart(source: Extract<ContentBlock, { type: 'document' }>['source'], title: string | undefined, index: number): ChatPart {
  if (source.type === 'text') return { type: 'text', text: source.data };
  if (source.type === 'base64') return { type: 'file', file: { filename: title ?? 'document.pdf', file_data: `data:${source.media_type};base64,${source.data}` } };
  throw new ProviderError(
    400,
    'invalid_request_error',
    `messages.${index}: documents by URL are served only by Anthropic models; send the PDF as base64.`,
    'invalid_value',
    'messages',
  );
}

/** zod's first issue as Anthropic words it (`messages.0.content: …`). */
function invalidRequest(error: z.ZodError): ProviderError {
  const issue = error.issues[0];
  const path = issue?.path.join('.') ?? '';
  return new ProviderError(400, 'invalid_request_error', `${path}: ${issue?.message ?? 'invalid request'}`, 'invalid_value', String(issue?.path[0] ?? '') || null);
}

import type { z } from 'zod';
import type { BridgeOptions } from '../lib/bridge-options';
import { ProviderError } from '../lib/provider-error';
import { summaryOf } from './compaction-item';
import { chatToolName, customArguments } from './tool-names';
import { responsesRequest, type ContentPart, type InputItem, type ResponsesRequest } from './responses.wire';

type ChatMessage = Record<string, unknown>;

/** How a compacted conversation's summary reaches a chat model. */
const SUMMARY_HEADING = 'Summary of the conversation so far:';

export type { BridgeOptions };

/** The Responses API's web search tools, as OpenAI has named them over time. */
const WEB_SEARCH_TOOLS = new Set(['web_search', 'web_search_preview', 'web_search_2025_08_26', 'web_search_preview_2025_03_11']);

// The Responses fields this translation turns into chat fields, or that the gateway itself honours
// (storage, background, conversation state); any other goes on by its own name, for the target's
// parameter list (and drop_params) to judge.
const TRANSLATED = new Set([
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'text',
  'reasoning',
  'max_output_tokens',
  'stream',
  'metadata',
  'store',
  'include',
  'truncation',
  'background',
  'previous_response_id',
  'conversation',
  'stream_options',
  'safety_identifier',
  // What a client says about itself (Codex CLI sends it): nothing for a chat model.
  'client_metadata',
]);

/**
 * A Responses request as an OpenAI chat completion request, for deployments that do not serve the
 * Responses API: instructions as the system prompt, input items as messages (function calls as the
 * assistant's tool calls, their outputs as `tool` messages right after), function tools and
 * tool_choice, `text.format` as response_format, reasoning effort, the output token limit.
 * Reasoning items and web search calls stay with the provider that made them. The web search
 * tool becomes `web_search_options` where the target serves it (Anthropic's and Gemini's own
 * search); other built-in tools (code interpreter, file search, …) have no chat equivalent:
 * refused with 400 naming them, or dropped under drop_params (and named in `options.dropped`). Throws ProviderError 400 naming what does not fit.
 */
export function toChatRequest(body: Record<string, unknown>, options: BridgeOptions): Record<string, unknown> {
  const parsed = responsesRequest.safeParse(body);
  if (!parsed.success) throw invalidRequest(parsed.error);
  const request = parsed.data;
  const chat: Record<string, unknown> = { model: request.model, messages: chatMessages(request, options) };
  for (const [name, value] of Object.entries(body)) if (!TRANSLATED.has(name) && value !== null) chat[name] = value;
  if (request.stream === true) chat['stream'] = true;
  if (request.max_output_tokens != null) chat['max_completion_tokens'] = request.max_output_tokens;
  const user = request.safety_identifier ?? request.user;
  if (user != null) chat['user'] = user;
  const search = options.params?.has('web_search_options') ? (request.tools ?? []).find((tool) => WEB_SEARCH_TOOLS.has(tool.type)) : undefined;
  if (search) chat['web_search_options'] = webSearchOptions(search as Record<string, unknown>);
  const tools = (request.tools ?? []).flatMap((tool, index) => (search && WEB_SEARCH_TOOLS.has(tool.type) ? [] : chatTools(tool as Record<string, unknown>, index, options)));
  if (tools.length > 0) chat['tools'] = tools;
  const choice = request.tool_choice;
  if (choice !== undefined && tools.length > 0) {
    if (typeof choice === 'string') chat['tool_choice'] = choice;
    else if ((choice.type === 'function' || choice.type === 'custom') && 'name' in choice) {
      const { name, namespace } = choice as { name: string; namespace?: string | null };
      chat['tool_choice'] = { type: 'function', function: { name: chatToolName(name, namespace) } };
    } else if (!options.dropParams) throw unbridgeable(`tool_choice ${choice.type}`, options.provider, 'tool_choice');
    else options.dropped?.push(`tool_choice (${choice.type})`);
  }
  const format = request.text?.format;
  if (format?.type === 'json_object') chat['response_format'] = { type: 'json_object' };
  else if (format?.type === 'json_schema') {
    const { name, schema, description, strict } = format;
    chat['response_format'] = { type: 'json_schema', json_schema: { name, schema, ...(description != null ? { description } : {}), ...(strict != null ? { strict } : {}) } };
  }
  if (request.text?.verbosity != null) chat['verbosity'] = request.text.verbosity;
  if (request.reasoning?.effort != null) chat['reasoning_effort'] = request.reasoning.effort;
  return chat;
}

/**
 * A Responses tool as chat function tools: a function as it is, a custom (free-text) tool as a
 * function taking its text as `input`, a namespace's tools flattened (`<namespace>__<name>`).
 * Built-in tools have no chat equivalent: refused naming them, or dropped under drop_params.
 */
function chatTools(tool: Record<string, unknown>, index: number, options: BridgeOptions, namespace?: string): Record<string, unknown>[] {
  const name = typeof tool['name'] === 'string' ? tool['name'] : '';
  const description = typeof tool['description'] === 'string' ? tool['description'] : undefined;
  if (tool['type'] === 'function') {
    const { parameters, strict } = tool as { parameters?: Record<string, unknown> | null; strict?: boolean | null };
    return [
      {
        type: 'function',
        function: {
          name: chatToolName(name, namespace),
          ...(description !== undefined ? { description } : {}),
          parameters: parameters ?? { type: 'object', properties: {} },
          ...(strict != null ? { strict } : {}),
        },
      },
    ];
  }
  if (tool['type'] === 'custom') {
    const format = tool['format'] as { type?: unknown; syntax?: unknown; definition?: unknown } | undefined;
    const grammar = format?.type === 'grammar' && typeof format.definition === 'string' ? ` It must follow this ${String(format.syntax ?? '')} grammar:\n${format.definition}` : '';
    const input = { type: 'string', description: `The tool's input, as free text.${grammar}` };
    return [
      {
        type: 'function',
        function: {
          name: chatToolName(name, namespace),
          ...(description !== undefined ? { description } : {}),
          parameters: { type: 'object', properties: { input }, required: ['input'] },
        },
      },
    ];
  }
  if (tool['type'] === 'namespace' && namespace === undefined && Array.isArray(tool['tools'])) {
    return (tool['tools'] as Record<string, unknown>[]).flatMap((member) => chatTools(member, index, options, name));
  }
  if (options.dropParams) {
    options.dropped?.push(`tools.${index} (${String(tool['type'])})`);
    return [];
  }
  if (WEB_SEARCH_TOOLS.has(String(tool['type']))) {
    throw new ProviderError(
      400,
      'invalid_request_error',
      `tools.${index}: the ${String(tool['type'])} tool is served only by models with a native Responses API or a web search of their own (Anthropic's, Gemini's), and ${options.provider} has neither. Remove it, or set drop_params: true to drop it.`,
      'unsupported_parameter',
      'tools',
    );
  }
  throw unbridgeable(`tools.${index}: the ${String(tool['type'])} tool`, options.provider, 'tools');
}

/**
 * A Responses web search tool as chat's `web_search_options` (which the target's adapter turns
 * into its own search): the context size, the approximate place (chat nests it under
 * `approximate`), and `filters.allowed_domains` carried along for targets that take a domain list.
 */
function webSearchOptions(tool: Record<string, unknown>): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  if (tool['search_context_size'] != null) options['search_context_size'] = tool['search_context_size'];
  const location = tool['user_location'] as Record<string, unknown> | null | undefined;
  if (location != null) {
    const { type: _type, ...place } = location;
    options['user_location'] = { type: 'approximate', approximate: place };
  }
  const allowed = (tool['filters'] as { allowed_domains?: unknown } | null | undefined)?.allowed_domains;
  if (Array.isArray(allowed) && allowed.length > 0) options['filters'] = { allowed_domains: allowed };
  return options;
}

function chatMessages(request: ResponsesRequest, options: BridgeOptions): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (request.instructions != null && request.instructions !== '') messages.push({ role: 'system', content: request.instructions });
  const input = request.input ?? [];
  if (typeof input === 'string') {
    messages.push({ role: 'user', content: input });
    return messages;
  }
  for (const [index, item] of input.entries()) {
    const type = typeof item.type === 'string' ? item.type : 'message';
    if (type === 'message') messages.push(message(item as Extract<InputItem, { role: string }>, index));
    else if (type === 'function_call') {
      const call = item as { call_id: string; name: string; arguments: string; namespace?: string | null };
      toolCall(messages, { call_id: call.call_id, name: chatToolName(call.name, call.namespace), arguments: call.arguments });
    } else if (type === 'custom_tool_call') {
      const call = item as { call_id: string; name: string; input: string; namespace?: string | null };
      toolCall(messages, { call_id: call.call_id, name: chatToolName(call.name, call.namespace), arguments: customArguments(call.input) });
    } else if (type === 'function_call_output' || type === 'custom_tool_call_output') {
      const { call_id, output } = item as { call_id: string; output: string | ContentPart[] };
      messages.push({ role: 'tool', tool_call_id: call_id, content: typeof output === 'string' ? output : output.map((part) => textOfPart(part)).join('') });
    } else if (type === 'reasoning' || type === 'web_search_call') continue;
    else if (type === 'compaction') {
      const summary = summaryOf((item as { encrypted_content?: unknown }).encrypted_content);
      if (summary !== undefined) messages.push({ role: 'user', content: `${SUMMARY_HEADING}\n\n${summary}` });
      else if (!options.dropParams) throw unbridgeable(`input.${index}: a compaction item made by another provider`, options.provider, 'input');
      else options.dropped?.push(`input.${index} (compaction)`);
    } else if (!options.dropParams) throw unbridgeable(`input.${index}: an item of type ${type}`, options.provider, 'input');
    else options.dropped?.push(`input.${index} (${type})`);
  }
  return messages;
}

/** A function call joins the assistant turn right before it (chat carries calls on the assistant's message). */
function toolCall(messages: ChatMessage[], call: { call_id: string; name: string; arguments: string }): void {
  const last = messages.at(-1);
  const entry = { id: call.call_id, type: 'function', function: { name: call.name, arguments: call.arguments } };
  if (last?.['role'] === 'assistant') {
    const calls = (last['tool_calls'] as unknown[] | undefined) ?? [];
    last['tool_calls'] = [...calls, entry];
    if (last['content'] === '') last['content'] = null;
  } else messages.push({ role: 'assistant', content: null, tool_calls: [entry] });
}

function message(item: { role: string; content: string | ContentPart[] }, index: number): ChatMessage {
  const role = item.role === 'developer' ? 'system' : item.role;
  if (typeof item.content === 'string') return { role, content: item.content };
  if (role !== 'user') return { role, content: item.content.map((part) => textOfPart(part, index)).join('') };
  const parts = item.content.map((part) => userPart(part, index));
  const onlyText = parts.every((part) => part['type'] === 'text');
  return { role, content: onlyText ? parts.map((part) => part['text']).join('\n') : parts };
}

function userPart(part: ContentPart, index: number): Record<string, unknown> {
  switch (part.type) {
    case 'input_text':
    case 'output_text':
      return { type: 'text', text: part.text };
    case 'refusal':
      return { type: 'text', text: part.refusal };
    case 'input_image':
      if (part.image_url == null) throw fileIdRefused(index);
      return { type: 'image_url', image_url: { url: part.image_url, ...(part.detail != null ? { detail: part.detail } : {}) } };
    case 'input_file':
      if (part.file_data == null) throw fileIdRefused(index);
      return { type: 'file', file: { filename: part.filename ?? 'document.pdf', file_data: part.file_data } };
  }
}

/** The text of an assistant, system or tool turn's part; images there have no chat equivalent. */
function textOfPart(part: ContentPart, index?: number): string {
  if (part.type === 'input_text' || part.type === 'output_text') return part.text;
  if (part.type === 'refusal') return part.refusal;
  if (index === undefined) return '';
  throw new ProviderError(400, 'invalid_request_error', `input.${index}: only user messages may carry images and files.`, 'invalid_value', 'input');
}

function fileIdRefused(index: number): ProviderError {
  return new ProviderError(
    400,
    'invalid_request_error',
    `input.${index}: files by file_id are served only by models with a native Responses API; send the image by URL or the file as file_data.`,
    'invalid_value',
    'input',
  );
}

function unbridgeable(what: string, provider: string, param: string): ProviderError {
  return new ProviderError(
    400,
    'invalid_request_error',
    `${what} is served only by models with a native Responses API, and ${provider} has none. Remove it, or set drop_params: true to drop it.`,
    'unsupported_parameter',
    param,
  );
}

/** zod's first issue as OpenAI words it (`input.0.content: …`). */
function invalidRequest(error: z.ZodError): ProviderError {
  const issue = error.issues[0];
  const path = issue?.path.join('.') ?? '';
  return new ProviderError(400, 'invalid_request_error', `${path}: ${issue?.message ?? 'invalid request'}`, 'invalid_value', String(issue?.path[0] ?? '') || null);
}

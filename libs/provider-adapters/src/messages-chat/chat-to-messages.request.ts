import { ANTHROPIC_CHAT_PARAMETERS } from '../anthropic/anthropic.params';
import { mapParameters } from '../lib/parameter-map';
import { ProviderError } from '../lib/provider-error';
import { RESPONSE_FORMAT_TOOL, responseFormatFunction, wantedJson, type ResponseFormatTool } from '../lib/response-format-tool';

// reasoning_effort as a thinking budget (Anthropic's minimum budget is 1024 tokens).
const THINKING_BUDGETS: Record<string, number> = { minimal: 1024, low: 1024, medium: 2048, high: 4096 };

type Block = Record<string, unknown>;
interface Turn {
  role: 'user' | 'assistant';
  content: Block[];
}

/** An OpenAI-format chat completion body as a Messages API body for `model`: the parameter map's data, then what only code can translate. */
export function toAnthropicRequest(body: Record<string, unknown>, model: string): Record<string, unknown> {
  const { system, messages } = translateMessages(body['messages']);
  const request: Record<string, unknown> = { model, messages };
  if (system.length > 0) request['system'] = system;
  mapParameters(body, ANTHROPIC_CHAT_PARAMETERS, request);

  // Anthropic's own `thinking` (as LiteLLM takes it) wins over reasoning_effort.
  const thinking = body['thinking'] !== undefined && body['thinking'] !== null ? thinkingParam(body['thinking']) : undefined;
  const thinkingBudget = thinking ? thinking.budget_tokens : thinkingBudgetFor(body['reasoning_effort']);
  // The thinking budget is part of max_tokens, so the default leaves room for an answer after it.
  const maxTokensGiven = (body['max_completion_tokens'] ?? body['max_tokens']) != null;
  if (!maxTokensGiven && thinkingBudget !== undefined) request['max_tokens'] = (request['max_tokens'] as number) + thinkingBudget;
  if (thinking) request['thinking'] = thinking.param;
  else if (thinkingBudget !== undefined) request['thinking'] = { type: 'enabled', budget_tokens: thinkingBudget };

  const tools = Array.isArray(body['tools']) ? body['tools'].map(translateTool) : [];
  if (body['web_search_options'] != null) tools.push(webSearchTool(body['web_search_options']));
  if (tools.length > 0) request['tools'] = tools;
  const toolChoice = translateToolChoice(body['tool_choice'], body['parallel_tool_calls']);
  if (toolChoice) request['tool_choice'] = toolChoice;
  withResponseFormat(request, body, model);
  return request;
}

export { RESPONSE_FORMAT_TOOL, type ResponseFormatTool } from '../lib/response-format-tool';

/**
 * Whether Claude `model` has native structured outputs (`output_config.format`): Claude Opus 4.1,
 * Sonnet 4.5, Haiku 4.5 and every later one; earlier models (Claude 3, Sonnet 4, Opus 4) have not.
 * Hosts prefix or suffix the name (`us.anthropic.…-v1:0` on Bedrock, `…@20250929` on Vertex AI).
 */
export function hasStructuredOutputs(model: string): boolean {
  const version = /claude-(opus|sonnet|haiku)-(\d+)(?:[-.](\d{1,2}))?(?!\d)/.exec(model);
  if (!version) return false;
  const [, family, major, minor] = version;
  if (Number(major) !== 4) return Number(major) > 4;
  return Number(minor ?? 0) >= (family === 'opus' ? 1 : 5);
}

/**
 * The tool that carries the request's `response_format` to `model`, when one does: a JSON schema on
 * a model without native structured outputs, or `json_object` on any (Claude's native format
 * takes only closed schemas).
 */
export function responseFormatTool(body: Record<string, unknown>, model: string): ResponseFormatTool | undefined {
  const format = responseFormatOf(body);
  if (!format || (format.schema && hasStructuredOutputs(model))) return undefined;
  const tools = Array.isArray(body['tools']) && body['tools'].length > 0;
  // With thinking on, Claude takes no forced tool choice.
  const thinking = (body['thinking'] as { type?: unknown } | null | undefined)?.type === 'enabled' || thinkingBudgetFor(body['reasoning_effort']) !== undefined;
  return { name: RESPONSE_FORMAT_TOOL, forced: !tools && !thinking };
}

/**
 * `response_format` as Anthropic serves it, as LiteLLM does: a JSON schema as the native
 * `output_config.format` where the model has structured outputs, else (and for `json_object`) as
 * a tool whose input schema is the wanted JSON, called by force when it is the only tool (and
 * thinking is off, which allows no forced tool); the answer's translation reads its input back as
 * the message content. `text` asks for nothing.
 */
function withResponseFormat(request: Record<string, unknown>, body: Record<string, unknown>, model: string): void {
  const format = responseFormatOf(body);
  if (!format) return;
  const tool = responseFormatTool(body, model);
  if (!tool) {
    const config = typeof request['output_config'] === 'object' && request['output_config'] !== null ? request['output_config'] : {};
    request['output_config'] = { ...config, format: { type: 'json_schema', schema: closedObjects(format.schema) } };
    return;
  }
  const { name, description, parameters } = responseFormatFunction(format);
  request['tools'] = [...((request['tools'] as Block[] | undefined) ?? []), { name, description, input_schema: parameters }];
  if (tool.forced) request['tool_choice'] = { type: 'tool', name: tool.name };
}

/** The request's response_format, when it asks for JSON (a schema, or any JSON object); throws 400 naming it when malformed. */
function responseFormatOf(body: Record<string, unknown>): { schema?: Block; description?: string } | undefined {
  return wantedJson(body, (message) => invalid(message, 'response_format'));
}

/** Claude's structured outputs take closed objects only: an object schema that does not say otherwise gets `additionalProperties: false`. */
function closedObjects(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closedObjects);
  if (typeof schema !== 'object' || schema === null) return schema;
  const closed: Block = {};
  for (const [key, value] of Object.entries(schema)) {
    // Only where schemas nest: an enum's or a default's values stay as they are.
    closed[key] = SUBSCHEMA_KEYS.has(key) ? (key === 'properties' || key === '$defs' || key === 'definitions' ? mapValues(value, closedObjects) : closedObjects(value)) : value;
  }
  if (closed['type'] === 'object' && closed['additionalProperties'] === undefined) closed['additionalProperties'] = false;
  return closed;
}

const SUBSCHEMA_KEYS = new Set(['properties', 'items', 'anyOf', 'oneOf', 'allOf', '$defs', 'definitions', 'prefixItems']);

function mapValues(value: unknown, map: (entry: unknown) => unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, map(entry)]));
}

function thinkingBudgetFor(effort: unknown): number | undefined {
  if (effort === undefined || effort === null || effort === 'none') return undefined;
  const budget = typeof effort === 'string' ? THINKING_BUDGETS[effort] : undefined;
  if (budget === undefined) throw invalid(`reasoning_effort must be one of none, minimal, low, medium, high.`, 'reasoning_effort');
  return budget;
}

function thinkingParam(value: unknown): { param: Block; budget_tokens?: number } {
  const { type, budget_tokens: budget } = (typeof value === 'object' ? value : {}) as { type?: unknown; budget_tokens?: unknown };
  if (type === 'disabled') return { param: { type: 'disabled' } };
  if (type !== 'enabled' || !Number.isInteger(budget)) throw invalid('thinking must be {"type":"enabled","budget_tokens":<integer>} or {"type":"disabled"}.', 'thinking');
  return { param: { type: 'enabled', budget_tokens: budget }, budget_tokens: budget as number };
}

function translateMessages(value: unknown): { system: Block[]; messages: Turn[] } {
  if (!Array.isArray(value)) throw invalid('messages must be a list.', 'messages');
  const system: Block[] = [];
  const turns: Turn[] = [];
  for (const [index, message] of value.entries()) {
    if (typeof message !== 'object' || message === null) throw invalid(`messages[${index}] must be an object.`, 'messages');
    const { role } = message as { role?: unknown };
    if (role === 'system' || role === 'developer') system.push(...textBlocks(message as Block, index));
    else if (role === 'user') turns.push({ role: 'user', content: userBlocks(message as Block, index) });
    else if (role === 'assistant') turns.push({ role: 'assistant', content: assistantBlocks(message as Block, index) });
    else if (role === 'tool') turns.push({ role: 'user', content: [toolResultBlock(message as Block, index)] });
    else throw invalid(`messages[${index}].role "${String(role)}" is not supported for Anthropic models.`, 'messages');
  }
  return { system, messages: mergeSameRoleTurns(turns) };
}

/** Anthropic wants user and assistant turns to alternate: tool results after a tool call become one user turn. */
function mergeSameRoleTurns(turns: Turn[]): Turn[] {
  const merged: Turn[] = [];
  for (const turn of turns) {
    const last = merged.at(-1);
    if (last && last.role === turn.role) last.content.push(...turn.content);
    else merged.push({ role: turn.role, content: [...turn.content] });
  }
  return merged;
}

/** System messages and tool results take text only. */
function textBlocks(message: Block, index: number): Block[] {
  const { content } = message;
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw invalid(`messages[${index}].content must be a string or a list of parts.`, 'messages');
  return content.map((part: Block) => {
    if (part?.['type'] !== 'text') throw invalid(`messages[${index}] may contain only text parts.`, 'messages');
    return textBlock(part);
  });
}

function userBlocks(message: Block, index: number): Block[] {
  const { content } = message;
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw invalid(`messages[${index}].content must be a string or a list of parts.`, 'messages');
  return content.map((part: Block) => {
    if (part?.['type'] === 'text') return textBlock(part);
    if (part?.['type'] === 'image_url') return imageBlock(part['image_url'], index);
    throw invalid(`messages[${index}]: content parts of type "${String(part?.['type'])}" are not supported for Anthropic models.`, 'messages');
  });
}

function assistantBlocks(message: Block, index: number): Block[] {
  const { content, tool_calls: toolCalls, thinking_blocks: thinkingBlocks } = message;
  // With thinking on, Anthropic wants the turn's thinking back, signed and first, before its tool_use blocks.
  const blocks: Block[] = Array.isArray(thinkingBlocks) ? thinkingBlocks.map((block: Block) => thinkingBlock(block, index)) : [];
  if (typeof content === 'string') blocks.push({ type: 'text', text: content });
  else if (Array.isArray(content)) {
    for (const part of content as Block[]) {
      if (part?.['type'] === 'text') blocks.push(textBlock(part));
      else if (part?.['type'] === 'refusal') blocks.push({ type: 'text', text: part['refusal'] });
      else throw invalid(`messages[${index}]: assistant content parts of type "${String(part?.['type'])}" are not supported.`, 'messages');
    }
  }
  if (Array.isArray(toolCalls)) blocks.push(...toolCalls.map((call: Block) => toolUseBlock(call, index)));
  // Anthropic refuses empty text blocks, which OpenAI clients send beside tool calls.
  return blocks.filter((block) => !(block['type'] === 'text' && block['text'] === ''));
}

/** A thinking block as the answer gave it (LiteLLM's thinking_blocks), with only the fields Anthropic takes. */
function thinkingBlock(block: Block, index: number): Block {
  if (block?.['type'] === 'thinking' && typeof block['thinking'] === 'string' && typeof block['signature'] === 'string') {
    return { type: 'thinking', thinking: block['thinking'], signature: block['signature'] };
  }
  if (block?.['type'] === 'redacted_thinking' && typeof block['data'] === 'string') return { type: 'redacted_thinking', data: block['data'] };
  throw invalid(`messages[${index}].thinking_blocks must be thinking blocks (with their signature) or redacted_thinking blocks.`, 'messages');
}

function textBlock(part: Block): Block {
  const block: Block = { type: 'text', text: part['text'] };
  // LiteLLM clients mark prompt-cache breakpoints this way; Anthropic reads the same field.
  if (part['cache_control'] !== undefined) block['cache_control'] = part['cache_control'];
  return block;
}

function imageBlock(imageUrl: unknown, index: number): Block {
  const url = typeof imageUrl === 'string' ? imageUrl : (imageUrl as { url?: unknown } | undefined)?.url;
  if (typeof url !== 'string') throw invalid(`messages[${index}]: image_url.url is required.`, 'messages');
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (data) return { type: 'image', source: { type: 'base64', media_type: data[1], data: data[2] } };
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  throw invalid(`messages[${index}]: image_url.url must be an http(s) URL or a base64 data: URL.`, 'messages');
}

function toolUseBlock(call: Block, index: number): Block {
  const fn = call['function'] as { name?: unknown; arguments?: unknown } | undefined;
  if (call['type'] !== 'function' || typeof fn?.name !== 'string') throw invalid(`messages[${index}].tool_calls must be function calls.`, 'messages');
  let input: unknown = {};
  if (typeof fn.arguments === 'string' && fn.arguments.trim() !== '') {
    try {
      input = JSON.parse(fn.arguments);
    } catch {
      throw invalid(`messages[${index}].tool_calls: the arguments of "${fn.name}" are not valid JSON.`, 'messages');
    }
  }
  return { type: 'tool_use', id: call['id'], name: fn.name, input };
}

function toolResultBlock(message: Block, index: number): Block {
  if (typeof message['tool_call_id'] !== 'string') throw invalid(`messages[${index}].tool_call_id is required.`, 'messages');
  const content = typeof message['content'] === 'string' ? message['content'] : textBlocks(message, index);
  return { type: 'tool_result', tool_use_id: message['tool_call_id'], content };
}

function translateTool(tool: Block, index: number): Block {
  const fn = tool?.['function'] as { name?: unknown; description?: unknown; parameters?: unknown } | undefined;
  if (tool?.['type'] !== 'function' || typeof fn?.name !== 'string') throw invalid(`tools[${index}] must be a function tool.`, 'tools');
  const translated: Block = { name: fn.name };
  if (typeof fn.description === 'string') translated['description'] = fn.description;
  translated['input_schema'] = fn.parameters ?? { type: 'object', properties: {} };
  return translated;
}

// How many searches a call may make, by OpenAI's search_context_size (how much of the web the answer draws on).
const SEARCHES_BY_CONTEXT_SIZE: Record<string, number> = { low: 1, medium: 5, high: 10 };

/**
 * OpenAI's `web_search_options` as Anthropic's web search server tool: search_context_size as its
 * max_uses, user_location's approximate place, and the domain filter (`filters.allowed_domains`,
 * which the Responses API's web_search tool has) as allowed_domains.
 */
function webSearchTool(options: unknown): Block {
  if (typeof options !== 'object' || Array.isArray(options)) throw invalid('web_search_options must be an object.', 'web_search_options');
  const { search_context_size: size, user_location: location, filters } = options as { search_context_size?: unknown; user_location?: unknown; filters?: unknown };
  const tool: Block = { type: 'web_search_20250305', name: 'web_search' };
  if (size != null) {
    const uses = typeof size === 'string' ? SEARCHES_BY_CONTEXT_SIZE[size] : undefined;
    if (uses === undefined) throw invalid('web_search_options.search_context_size must be low, medium or high.', 'web_search_options');
    tool['max_uses'] = uses;
  }
  const place = (location as { approximate?: unknown } | null | undefined)?.approximate;
  if (typeof place === 'object' && place !== null) {
    const fields = Object.entries(place as Record<string, unknown>).filter(
      ([name, value]) => ['city', 'region', 'country', 'timezone'].includes(name) && typeof value === 'string',
    );
    if (fields.length > 0) tool['user_location'] = { type: 'approximate', ...Object.fromEntries(fields) };
  }
  const allowed = (filters as { allowed_domains?: unknown } | null | undefined)?.allowed_domains;
  if (Array.isArray(allowed) && allowed.length > 0) tool['allowed_domains'] = allowed.filter((domain) => typeof domain === 'string');
  return tool;
}

function translateToolChoice(choice: unknown, parallelToolCalls: unknown): Block | undefined {
  let translated: Block | undefined;
  if (choice === 'auto') translated = { type: 'auto' };
  else if (choice === 'none') translated = { type: 'none' };
  else if (choice === 'required') translated = { type: 'any' };
  else if (typeof choice === 'object' && choice !== null) {
    const name = (choice as { function?: { name?: unknown } }).function?.name;
    if (typeof name !== 'string') throw invalid('tool_choice must name a function.', 'tool_choice');
    translated = { type: 'tool', name };
  } else if (choice !== undefined && choice !== null) {
    throw invalid('tool_choice must be auto, none, required or a function.', 'tool_choice');
  }
  if (parallelToolCalls === false && translated?.['type'] !== 'none') {
    return { ...(translated ?? { type: 'auto' }), disable_parallel_tool_use: true };
  }
  return translated;
}

function invalid(message: string, param: string): ProviderError {
  return new ProviderError(400, 'invalid_request_error', message, 'invalid_value', param);
}

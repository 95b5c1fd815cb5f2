// Anthropic's Messages API (POST /v1/messages) as api.anthropic.com speaks it: a key (x-api-key or
// bearer) and anthropic-version (2023-06-01 or 2026-10-21) required, `{"type":"error","error":{...}}` bodies with a request-id header,
// and streams of named events (message_start, content_block_*, ping, message_delta, message_stop).
// The model name chooses what happens, as in openai-fake.ts:
//   fail-<400|401|403|404|413|429|500|529|context|timeout|midstream|drop> (or x-fake-fail): that
//   error (context: "prompt is too long"; 529: overloaded; timeout: no answer; midstream: a stream
//   sends its first text delta, then an error event; drop: first text delta, then the connection drops)
//   window-<N>: a context window of N tokens (counted as count_tokens counts them): a longer prompt
//   is refused as Anthropic refuses it, "prompt is too long: <count> tokens > N maximum"
//   tokens-<input>-<output>[-cache-<written>-<read>]: the usage reported (default 7 and 5, no cache);
//   the written tokens go to the one-hour cache when a cache_control in the request asks for
//   `"ttl":"1h"`, else to the five-minute one (usage.cache_creation says which, as Anthropic does)
//   pause-<N> (or x-fake-pause-ms), hold-<name>: a stream stops after its first text delta for N
//   ms, or until POST /_fake/release/<name>
// The answer is "fake answer from <model>", cut at the first stop sequence or after max_tokens
// words, or with `output_config.format` (structured outputs) a JSON text conforming to its schema;
// with tools (and tool_choice not none) it also calls the chosen or first tool, unless the last
// turn already carries tool results: with an input conforming to its input_schema when tool_choice
// forces it (schema-sample.ts), else with {"argument":"fake"} (a coding agent's tools then refuse
// the call instead of running a sub-agent that would ask the fake again, and again). With `thinking` enabled (or adaptive, as
// Claude Code asks of the 4.6 models) the answer starts with a signed thinking block (streamed as
// thinking_delta and signature_delta).
// POST /v1/messages/count_tokens answers {"input_tokens": N} (N: the words of every text and
// tool definition, plus 3 a message) and refuses fields it does not take, as Anthropic does.
// Requests are checked as Anthropic checks them (roles, alternating tool_use/tool_result ids,
// non-empty text; with thinking on, the assistant turn whose tool_use the last turn answers must
// start with its thinking block, signature intact), and non-streamed answers echo what arrived in `fake_echo`.
// With Anthropic's web search server tool (`{"type":"web_search_20250305","name":"web_search"}`, or
// the 20260209 version) the answer is as the API's: a server_tool_use block searching the last
// user text, a web_search_tool_result block with two results (on the first allowed_domains entry
// when given), then the text, cited (a web_search_result_location citation of the first result;
// streamed as citations_delta), and usage.server_tool_use.web_search_requests: 1.
import { saidText, streamedPieces } from './said-text.ts';
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { handleAnthropicPlatform } from './anthropic-platform-fake.ts';
import { held, type FakeHandler } from './openai-fake.ts';
import { sampleOf } from './schema-sample.ts';

const ERRORS: Record<string, { status: number; type: string; message: string }> = {
  '400': { status: 400, type: 'invalid_request_error', message: 'fake: invalid request' },
  '401': { status: 401, type: 'authentication_error', message: 'invalid x-api-key' },
  '403': { status: 403, type: 'permission_error', message: 'fake: your API key does not have permission to use the specified resource' },
  '404': { status: 404, type: 'not_found_error', message: 'fake: model not found' },
  '413': { status: 413, type: 'request_too_large', message: 'fake: request exceeds the maximum allowed number of bytes' },
  '429': { status: 429, type: 'rate_limit_error', message: 'fake: this request would exceed the rate limit for your organization' },
  '500': { status: 500, type: 'api_error', message: 'Internal server error' },
  '529': { status: 529, type: 'overloaded_error', message: 'Overloaded' },
  context: { status: 400, type: 'invalid_request_error', message: 'prompt is too long: 208310 tokens > 200000 maximum' },
};

// 2026-10-21 (the SDKs' default since their 1.0/2.0 majors) no longer takes temperature, top_p or top_k.
const API_VERSIONS = ['2023-06-01', '2026-10-21'];

export const FAKE_TOOL_INPUT = { argument: 'fake' };
export const FAKE_THINKING = 'The user wants a fake answer; a tool may help.';

/** The fake's signature of a thinking text: a block sent back altered fails as it would at Anthropic. */
function signatureOf(thinking: string): string {
  return `fakesig-${Buffer.from(thinking).toString('base64')}`;
}

interface Block {
  type?: unknown;
  text?: unknown;
  id?: unknown;
  tool_use_id?: unknown;
  thinking?: unknown;
  signature?: unknown;
  data?: unknown;
}

export interface MessagesRequest {
  model?: unknown;
  max_tokens?: unknown;
  messages?: unknown;
  system?: unknown;
  stop_sequences?: unknown;
  temperature?: unknown;
  top_p?: unknown;
  top_k?: unknown;
  stream?: unknown;
  tools?: { name?: unknown; type?: unknown; input_schema?: unknown; max_uses?: unknown; allowed_domains?: unknown; blocked_domains?: unknown }[];
  tool_choice?: { type?: unknown; name?: unknown };
  thinking?: { type?: unknown; budget_tokens?: unknown };
  output_config?: { format?: { type?: unknown; schema?: unknown } | null };
}

export function sendAnthropicError(res: ServerResponse, status: number, type: string, message: string): void {
  const requestId = `req_fake${Date.now()}`;
  const headers: Record<string, string> = { 'content-type': 'application/json', 'request-id': requestId };
  if (status === 429) headers['retry-after'] = '1';
  res.writeHead(status, headers);
  res.end(JSON.stringify({ type: 'error', error: { type, message }, request_id: requestId }));
}

export const handleAnthropic: FakeHandler = async (req, res, body, seen, rawPath) => {
  const url = new URL(rawPath, 'http://fake');
  const path = url.pathname;
  const platform = path !== '/v1/messages' && path !== '/v1/messages/count_tokens';
  if (platform ? !['POST', 'GET', 'DELETE'].includes(req.method ?? '') : req.method !== 'POST') {
    sendAnthropicError(res, 404, 'not_found_error', `fake: unknown url ${req.method} ${path}`);
    return;
  }
  // The API takes the key in x-api-key, or (as newer SDKs send it) as a bearer token.
  const apiKey = req.headers['x-api-key'] ?? /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  if (typeof apiKey !== 'string') {
    sendAnthropicError(res, 401, 'authentication_error', 'x-api-key header is required');
    return;
  }
  const version = req.headers['anthropic-version'];
  if (typeof version !== 'string') {
    sendAnthropicError(res, 400, 'invalid_request_error', 'anthropic-version: header is required');
    return;
  }
  if (!API_VERSIONS.includes(version)) {
    sendAnthropicError(res, 400, 'invalid_request_error', `anthropic-version: unknown version "${version}"`);
    return;
  }
  if (platform) {
    if (!handleAnthropicPlatform(req, res, body, path, url.searchParams)) sendAnthropicError(res, 404, 'not_found_error', `fake: unknown url ${req.method} ${path}`);
    return;
  }
  let request: MessagesRequest;
  try {
    request = JSON.parse(body) as MessagesRequest;
  } catch {
    sendAnthropicError(res, 400, 'invalid_request_error', 'fake: the request body is not valid JSON');
    return;
  }
  if (path === '/v1/messages/count_tokens') return countTokens(res, request);
  const problem = problemWith(request, version);
  if (problem) {
    sendAnthropicError(res, 400, 'invalid_request_error', problem);
    return;
  }
  const model = request.model as string;
  const failHeader = req.headers['x-fake-fail'];
  const fail = (typeof failHeader === 'string' ? failHeader : undefined) ?? /^fail-(.+)$/.exec(model)?.[1];
  if (fail === 'timeout') return; // never answers; the caller's timeout or abort ends it
  const failure = fail ? ERRORS[fail] : undefined;
  if (failure) {
    sendAnthropicError(res, failure.status, failure.type, failure.message);
    return;
  }
  const window = Number(/^window-(\d+)$/.exec(model)?.[1] ?? Infinity);
  if (promptTokens(request) > window) {
    sendAnthropicError(res, 400, 'invalid_request_error', `prompt is too long: ${promptTokens(request)} tokens > ${window} maximum`);
    return;
  }

  const { message, events } = claudeAnswer(request, model);
  const headers = { 'request-id': `req_fake${Date.now()}`, 'x-fake-received-model': model };

  if (request.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ ...message, fake_echo: { body: request, api_key: apiKey, anthropic_version: version } }));
    return;
  }

  const firstDelta = events.findIndex((event) => event.type === 'content_block_delta');
  const pauseHeader = req.headers['x-fake-pause-ms'];
  const pauseMs = Number((typeof pauseHeader === 'string' ? pauseHeader : undefined) ?? /^pause-(\d+)$/.exec(model)?.[1] ?? 0);
  const hold = /^hold-(.+)$/.exec(model)?.[1];
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...headers });
  res.flushHeaders();
  for (const [index, event] of events.entries()) {
    if (seen.aborted || res.destroyed) return;
    const frame = `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
    if (index !== firstDelta) {
      res.write(frame);
      continue;
    }
    // Flushed before a pause or a failure, so the caller has really seen the first delta.
    await new Promise<void>((resolve) => res.write(frame, () => resolve()));
    if (pauseMs > 0) await sleep(pauseMs);
    if (hold) await held(hold);
    if (fail === 'midstream') {
      res.end(`event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })}\n\n`);
      return;
    }
    if (fail === 'drop') {
      res.destroy();
      return;
    }
  }
  res.end();
};

/**
 * Claude's answer to a checked Messages request, wherever Claude is hosted (Anthropic, Bedrock,
 * Vertex): the message, and the events that stream it. `model` chooses the usage (tokens-…).
 */
export function claudeAnswer(request: MessagesRequest, model: string): { message: Record<string, unknown>; events: { type: string; [field: string]: unknown }[] } {
  const tokens = /^tokens-(\d+)-(\d+)(?:-cache-(\d+)-(\d+))?$/.exec(model);
  const written = Number(tokens?.[3] ?? 0);
  const oneHour = asksForOneHourCache(request);
  const usage = {
    input_tokens: tokens ? Number(tokens[1]) : 7,
    cache_creation_input_tokens: written,
    cache_read_input_tokens: Number(tokens?.[4] ?? 0),
    cache_creation: { ephemeral_5m_input_tokens: oneHour ? 0 : written, ephemeral_1h_input_tokens: oneHour ? written : 0 },
    output_tokens: tokens ? Number(tokens[2]) : 5,
  };
  const answer = answerFor(request, model);
  if (answer.searches > 0) Object.assign(usage, { server_tool_use: { web_search_requests: answer.searches } });
  const id = `msg_fake${Date.now()}`;
  const message = { id, type: 'message', role: 'assistant', model, content: answer.content, stop_reason: answer.stopReason, stop_sequence: answer.stopSequence, usage };
  return { message, events: streamEvents(id, model, answer, usage) };
}

// The fields count_tokens takes; anything else is refused as Anthropic refuses extra inputs.
const COUNT_TOKENS_FIELDS = new Set(['model', 'messages', 'system', 'tools', 'tool_choice', 'thinking', 'mcp_servers']);

function countTokens(res: ServerResponse, request: MessagesRequest): void {
  const extra = Object.keys(request).find((name) => !COUNT_TOKENS_FIELDS.has(name));
  if (extra) return sendAnthropicError(res, 400, 'invalid_request_error', `${extra}: Extra inputs are not permitted`);
  if (typeof request.model !== 'string') return sendAnthropicError(res, 400, 'invalid_request_error', 'model: Field required');
  if (!Array.isArray(request.messages)) return sendAnthropicError(res, 400, 'invalid_request_error', 'messages: Field required');
  res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_fake${Date.now()}` });
  res.end(JSON.stringify({ input_tokens: promptTokens(request) }));
}

/** The fake's token count of a prompt: the words of every text and tool definition, plus 3 a message. */
function promptTokens(request: MessagesRequest): number {
  const words = (value: unknown): number =>
    typeof value === 'string'
      ? value.split(/\s+/).filter(Boolean).length
      : Array.isArray(value)
        ? value.reduce((sum: number, item) => sum + words(item), 0)
        : typeof value === 'object' && value !== null
          ? Object.values(value).reduce((sum: number, item) => sum + words(item), 0)
          : 0;
  const messages = Array.isArray(request.messages) ? (request.messages as unknown[]) : [];
  return words(request.system) + words(request.tools) + messages.reduce((sum: number, message) => sum + 3 + words((message as { content?: unknown }).content), 0);
}

/** Whether any cache_control breakpoint (in system, messages or tools) asks for the one-hour cache. */
function asksForOneHourCache(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(asksForOneHourCache);
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  if ((record['cache_control'] as { ttl?: unknown } | undefined)?.ttl === '1h') return true;
  return Object.values(record).some(asksForOneHourCache);
}

/** The first thing Anthropic's validation would refuse, in its wording; undefined when the request is fine. */
export function problemWith(request: MessagesRequest, version: string): string | undefined {
  if (typeof request.model !== 'string') return 'model: Field required';
  if (version !== '2023-06-01') {
    const sampling = (['temperature', 'top_p', 'top_k'] as const).find((name) => request[name] !== undefined);
    if (sampling) return `${sampling}: Extra inputs are not permitted in API version ${version}`;
  }
  if (!Number.isInteger(request.max_tokens) || (request.max_tokens as number) < 1) return 'max_tokens: Field required';
  if (!Array.isArray(request.messages)) return 'messages: Field required';
  if (
    request.system !== undefined &&
    typeof request.system !== 'string' &&
    !(Array.isArray(request.system) && request.system.every((block: Block) => block?.type === 'text' && typeof block.text === 'string'))
  ) {
    return 'system: Input should be a valid string or a list of text blocks';
  }
  if (request.stop_sequences !== undefined && !(Array.isArray(request.stop_sequences) && request.stop_sequences.every((stop) => typeof stop === 'string'))) {
    return 'stop_sequences: Input should be a valid list of strings';
  }
  for (const [index, tool] of (Array.isArray(request.tools) ? request.tools : []).entries()) {
    if (typeof tool?.type !== 'string' || !tool.type.startsWith('web_search')) continue;
    if (!WEB_SEARCH_TOOL.test(tool.type)) return `tools.${index}: Input tag '${tool.type}' found using 'type' does not match any of the expected tags`;
    if (tool.name !== 'web_search') return `tools.${index}.${tool.type}.name: Input should be 'web_search'`;
    if (tool.max_uses !== undefined && !(Number.isInteger(tool.max_uses) && (tool.max_uses as number) > 0))
      return `tools.${index}.${tool.type}.max_uses: Input should be greater than 0`;
    if (tool.allowed_domains !== undefined && tool.blocked_domains !== undefined) return `tools.${index}: Only one of allowed_domains or blocked_domains may be set`;
  }
  const thinking = request.thinking;
  if (thinking !== undefined && thinking?.type !== 'disabled') {
    if (thinking?.type !== 'enabled' && thinking?.type !== 'adaptive') return "thinking.type: Input should be 'enabled', 'adaptive' or 'disabled'";
    if ((thinking.type === 'enabled' && !Number.isInteger(thinking.budget_tokens)) || (thinking.budget_tokens as number) < 1024)
      return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
    if (thinking.type === 'enabled' && (thinking.budget_tokens as number) >= (request.max_tokens as number)) return '`max_tokens` must be greater than `thinking.budget_tokens`';
  }
  let previousToolUses = new Set<unknown>();
  for (const [index, message] of (request.messages as { role?: unknown; content?: unknown }[]).entries()) {
    if (message?.role !== 'user' && message?.role !== 'assistant') return `messages.${index}.role: Input should be 'user' or 'assistant'`;
    const blocks: Block[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : Array.isArray(message.content) ? message.content : [];
    if (blocks.length === 0) return `messages.${index}: all messages must have non-empty content`;
    for (const [position, block] of blocks.entries()) {
      if (block?.type === 'text' && (typeof block.text !== 'string' || block.text === '')) return `messages.${index}.content.${position}: text content blocks must be non-empty`;
      if (block?.type === 'thinking' && (typeof block.signature !== 'string' || block.signature !== signatureOf(String(block.thinking)))) {
        return `messages.${index}.content.${position}: Invalid \`signature\` in \`thinking\` block`;
      }
      if (block?.type === 'tool_result' && !previousToolUses.has(block.tool_use_id)) {
        return `messages.${index}.content.${position}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      }
    }
    previousToolUses = new Set(blocks.filter((block) => block?.type === 'tool_use').map((block) => block.id));
  }
  if (request.thinking?.type === 'enabled' || request.thinking?.type === 'adaptive') return thinkingTurnProblem(request.messages as { role?: unknown; content?: unknown }[]);
  return undefined;
}

/**
 * Anthropic's rule with thinking on: when the last turn carries tool results, the assistant turn
 * with their tool_use must start with its (signed) thinking block, sent back unchanged.
 */
function thinkingTurnProblem(messages: { role?: unknown; content?: unknown }[]): string | undefined {
  const last = messages.at(-1);
  if (last?.role !== 'user' || !Array.isArray(last.content) || !last.content.some((block: Block) => block?.type === 'tool_result')) return undefined;
  const index = messages.length - 2;
  const turn = messages[index];
  const first = Array.isArray(turn?.content) ? (turn.content[0] as Block | undefined) : { type: 'text' };
  if (first?.type === 'thinking' || first?.type === 'redacted_thinking') return undefined;
  return `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`.`;
}

interface Answer {
  content: Record<string, unknown>[];
  stopReason: string;
  stopSequence: string | null;
  /** Web searches the server tool made. */
  searches: number;
  /** The text is what the request said to say (streamed in pieces that cut through words). */
  said: boolean;
}

const WEB_SEARCH_TOOL = /^web_search_(20250305|20260209)$/;

/** The web search server tool the request offers, if it does (and the last turn is not tool results). */
function webSearchOf(request: MessagesRequest): { allowed_domains?: unknown } | undefined {
  const tool = (Array.isArray(request.tools) ? request.tools : []).find((offered) => typeof offered?.type === 'string' && WEB_SEARCH_TOOL.test(offered.type));
  const last = (request.messages as { content?: unknown }[]).at(-1);
  if (!tool || (Array.isArray(last?.content) && last.content.some((block: Block) => block?.type === 'tool_result'))) return undefined;
  return tool;
}

/** The text of the last user turn: what the fake searches for. */
function lastUserText(request: MessagesRequest): string {
  const last = (request.messages as { role?: unknown; content?: unknown }[]).filter((message) => message.role === 'user').at(-1);
  if (typeof last?.content === 'string') return last.content;
  return (Array.isArray(last?.content) ? (last.content as Block[]) : [])
    .filter((block) => block?.type === 'text')
    .map((block) => String(block.text))
    .join(' ');
}

/** A search as Anthropic's answer shows it: the server's tool call, its results, and the results' citation for the text after them. */
function webSearchBlocks(tool: { allowed_domains?: unknown }, query: string): { blocks: Record<string, unknown>[]; citation: Record<string, unknown> } {
  const domain = Array.isArray(tool.allowed_domains) && typeof tool.allowed_domains[0] === 'string' ? tool.allowed_domains[0] : 'example.com';
  const id = `srvtoolu_fake${Date.now()}`;
  const results = [1, 2].map((n) => ({
    type: 'web_search_result',
    url: `https://${domain}/fake-result-${n}`,
    title: `Fake result ${n}`,
    encrypted_content: Buffer.from(`fake page ${n} about ${query}`).toString('base64'),
    page_age: 'November 27, 2026',
  }));
  const first = results[0] as { url: string; title: string };
  return {
    blocks: [
      { type: 'server_tool_use', id, name: 'web_search', input: { query } },
      { type: 'web_search_tool_result', tool_use_id: id, content: results },
    ],
    citation: {
      type: 'web_search_result_location',
      url: first.url,
      title: first.title,
      encrypted_index: Buffer.from('fake index').toString('base64'),
      cited_text: `fake page 1 about ${query}`,
    },
  };
}

function answerFor(request: MessagesRequest, model: string): Answer {
  const format = request.output_config?.format;
  const said = saidText(lastUserText(request));
  let text = format?.type === 'json_schema' ? JSON.stringify(sampleOf(format.schema)) : (said ?? `fake answer from ${model}`);
  let stopReason = 'end_turn';
  let stopSequence: string | null = null;
  for (const stop of (request.stop_sequences as string[] | undefined) ?? []) {
    const at = text.indexOf(stop);
    if (stop !== '' && at >= 0) {
      text = text.slice(0, at);
      stopReason = 'stop_sequence';
      stopSequence = stop;
    }
  }
  // One word is one token here.
  const words = text.split(' ');
  if (!format && words.length > (request.max_tokens as number)) {
    text = words.slice(0, request.max_tokens as number).join(' ');
    stopReason = 'max_tokens';
    stopSequence = null;
  }
  const content: Record<string, unknown>[] = [];
  if (request.thinking?.type === 'enabled' || request.thinking?.type === 'adaptive')
    content.push({ type: 'thinking', thinking: FAKE_THINKING, signature: signatureOf(FAKE_THINKING) });
  const search = webSearchOf(request);
  if (search) {
    const { blocks, citation } = webSearchBlocks(search, lastUserText(request));
    content.push(...blocks, { type: 'text', text: 'According to the search: ' });
    if (text !== '') content.push({ type: 'text', text, citations: [citation] });
  } else if (text !== '') content.push({ type: 'text', text });
  const tool = toolToCall(request);
  if (tool && stopReason === 'end_turn') {
    // Forced, the input conforms to the tool's schema; chosen freely (auto), it is a placeholder, so
    // that an agent's tools (a sub-agent that would call the fake again…) fail rather than run.
    const forced = request.tool_choice?.type === 'tool' || request.tool_choice?.type === 'any';
    const schema = forced ? request.tools?.find((candidate) => candidate.name === tool)?.input_schema : undefined;
    content.push({ type: 'tool_use', id: `toolu_fake${Date.now()}`, name: tool, input: schema === undefined ? FAKE_TOOL_INPUT : sampleOf(schema) });
    stopReason = 'tool_use';
  }
  return { content, stopReason, stopSequence, searches: search ? 1 : 0, said: said !== undefined };
}

function toolToCall(request: MessagesRequest): string | undefined {
  // The client's own tools (server tools such as web search carry a versioned type and are run by the API).
  const tools = (Array.isArray(request.tools) ? request.tools : []).filter((tool) => tool?.type === undefined || tool.type === 'custom');
  if (tools.length === 0 || request.tool_choice?.type === 'none') return undefined;
  const last = (request.messages as { content?: unknown }[]).at(-1);
  if (Array.isArray(last?.content) && last.content.some((block: Block) => block?.type === 'tool_result')) return undefined;
  const name = request.tool_choice?.type === 'tool' ? request.tool_choice.name : tools[0]?.name;
  return typeof name === 'string' ? name : undefined;
}

function streamEvents(id: string, model: string, answer: Answer, usage: { output_tokens: number; [field: string]: unknown }): { type: string; [field: string]: unknown }[] {
  const events: { type: string; [field: string]: unknown }[] = [
    {
      type: 'message_start',
      message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
    },
  ];
  for (const [index, block] of answer.content.entries()) {
    if (block['type'] === 'text') {
      const citations = block['citations'] as unknown[] | undefined;
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '', ...(citations ? { citations: [] } : {}) } });
      if (index === 0) events.push({ type: 'ping' });
      for (const citation of citations ?? []) events.push({ type: 'content_block_delta', index, delta: { type: 'citations_delta', citation } });
      for (const piece of streamedPieces(String(block['text']), answer.said)) events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
    } else if (block['type'] === 'thinking') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      for (const piece of String(block['thinking']).split(/(?<=; )/)) events.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: piece } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block['signature'] } });
    } else if (block['type'] === 'web_search_tool_result') {
      events.push({ type: 'content_block_start', index, content_block: block });
    } else {
      events.push({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
      const json = JSON.stringify(block['input']);
      const half = Math.floor(json.length / 2);
      for (const piece of [json.slice(0, half), json.slice(half)]) events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } });
    }
    events.push({ type: 'content_block_stop', index });
  }
  events.push({ type: 'message_delta', delta: { stop_reason: answer.stopReason, stop_sequence: answer.stopSequence }, usage: { output_tokens: usage['output_tokens'] } });
  events.push({ type: 'message_stop' });
  return events;
}

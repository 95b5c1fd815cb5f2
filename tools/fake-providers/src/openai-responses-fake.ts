// OpenAI's Responses API (POST /v1/responses), plain and streamed, in the wire format of the API
// reference: a response object with `output` items and `usage` in input/output tokens; a stream of
// typed events, each with its sequence_number, ending with response.completed. POST
// /v1/responses/compact answers the input's user messages and one compaction item whose
// encrypted_content is `fake-encrypted:<n items>`; POST /v1/responses/input_tokens counts a token a
// word of the request's text. A previous_response_id that is not the id of a response this process
// made is refused as OpenAI refuses it (404 previous_response_not_found). Responses made with
// `store` (the default) are kept, the latest 1000: GET and DELETE /v1/responses/{id}, GET
// /v1/responses/{id}/input_items, POST /v1/responses/{id}/cancel (404 `Response with id '…' not found.`).
// With function tools, the answer is one function_call item (status completed, arguments conforming
// to the tool's parameters, schema-sample.ts) when tool_choice forces one (`required`: the first
// tool; `{"type":"function","name"}`: that one), or, with tool_choice auto, when the last user
// message names a tool; never after the input's last item is a function_call_output, nor with
// tool_choice none.
import { saidText, streamedPieces } from './said-text.ts';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendOpenAiError, type SeenRequest } from './openai-fake.ts';
import { sampleOf } from './schema-sample.ts';

// The ids of responses this process made: its own prefix and a count, so it knows them without keeping them.
const ID_PREFIX = `resp_fake${randomBytes(4).toString('hex')}_`;
let made = 0;
// Kept responses: the object as it ended, and its input as items.
const kept = new Map<string, { object: Record<string, unknown>; input: Record<string, unknown>[] }>();
const MAX_KEPT = 1000;

function keep(object: Record<string, unknown>, request: ResponsesRequest): void {
  if (request.store === false) return;
  kept.set(String(object['id']), { object, input: itemsOf(request.input).map((item, index) => ({ id: `msg_fakein${index}`, ...item })) });
  if (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value as string);
}

/** Answers a request about a kept response (true), else leaves it to the caller. */
export function handleStoredResponses(req: IncomingMessage, res: ServerResponse, path: string): boolean {
  const match = /^\/v1\/responses\/([^/]+)(\/input_items|\/cancel)?$/.exec(path);
  const method = req.method ?? 'GET';
  if (!match || (method === 'POST' && match[2] !== '/cancel') || (method !== 'POST' && match[2] === '/cancel')) return false;
  const id = decodeURIComponent(match[1] ?? '');
  const found = kept.get(id);
  const send = (body: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `req_fake_${Date.now()}` });
    res.end(JSON.stringify(body));
  };
  if (!found) sendOpenAiError(res, 404, 'invalid_request_error', null, `Response with id '${id}' not found.`, 'response_id');
  else if (match[2] === '/input_items' && method === 'GET') {
    send({ object: 'list', data: found.input, first_id: found.input[0]?.['id'] ?? null, last_id: found.input.at(-1)?.['id'] ?? null, has_more: false });
  } else if (match[2] === '/cancel') sendOpenAiError(res, 400, 'invalid_request_error', null, 'Only responses created with background can be cancelled.', null);
  else if (method === 'GET') send(found.object);
  else if (method === 'DELETE') {
    kept.delete(id);
    send({ id, object: 'response', deleted: true });
  } else return false;
  return true;
}

/** Whether `id` is that of a response this process made. */
function madeHere(id: string): boolean {
  if (!id.startsWith(ID_PREFIX)) return false;
  const count = Number(id.slice(ID_PREFIX.length));
  return Number.isInteger(count) && count >= 1 && count <= made;
}

export interface ResponsesRequest {
  model?: unknown;
  stream?: unknown;
  instructions?: unknown;
  input?: unknown;
  metadata?: unknown;
  max_output_tokens?: unknown;
  previous_response_id?: unknown;
  store?: unknown;
  tools?: unknown;
  tool_choice?: unknown;
}

interface FunctionTool {
  type: 'function';
  name: string;
  parameters?: unknown;
}

/** The function tool the answer calls, if it calls one (see the header). */
function toolToCall(request: ResponsesRequest): FunctionTool | undefined {
  const tools = (Array.isArray(request.tools) ? request.tools : []).filter(
    (tool): tool is FunctionTool => typeof tool === 'object' && tool !== null && (tool as FunctionTool).type === 'function' && typeof (tool as FunctionTool).name === 'string',
  );
  const choice = request.tool_choice ?? 'auto';
  const items = itemsOf(request.input);
  if (tools.length === 0 || choice === 'none' || items.at(-1)?.['type'] === 'function_call_output') return undefined;
  if (choice === 'required') return tools[0];
  if (typeof choice === 'object' && choice !== null && (choice as { type?: unknown }).type === 'function')
    return tools.find((tool) => tool.name === (choice as { name?: unknown }).name);
  const asked = textOf(items.filter((item) => item['role'] === 'user').at(-1)?.['content']);
  return tools.find((tool) => new RegExp(`\\b${tool.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(asked));
}

/** The text of a message's content (a string, or its text parts). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (typeof (part as { text?: unknown })?.text === 'string' ? (part as { text: string }).text : '')).join(' ');
}

function responseObject(request: ResponsesRequest, model: string, id: string, status: 'in_progress' | 'completed', output: unknown[], usage: unknown): Record<string, unknown> {
  return {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    error: null,
    incomplete_details: null,
    instructions: typeof request.instructions === 'string' ? request.instructions : null,
    max_output_tokens: typeof request.max_output_tokens === 'number' ? request.max_output_tokens : null,
    model,
    output,
    parallel_tool_calls: true,
    previous_response_id: typeof request.previous_response_id === 'string' ? request.previous_response_id : null,
    reasoning: { effort: null, summary: null },
    store: request.store !== false,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: request.tool_choice ?? 'auto',
    tools: Array.isArray(request.tools) ? request.tools : [],
    top_p: 1,
    truncation: 'disabled',
    usage,
    user: null,
    metadata: typeof request.metadata === 'object' && request.metadata !== null ? request.metadata : {},
  };
}

export async function answerResponses(
  res: ServerResponse,
  request: ResponsesRequest,
  model: string,
  tokens: { prompt: number; completion: number },
  headers: Record<string, string>,
  seen: SeenRequest,
  fail: string | undefined,
): Promise<void> {
  if (typeof request.previous_response_id === 'string' && !madeHere(request.previous_response_id)) {
    return sendOpenAiError(
      res,
      404,
      'invalid_request_error',
      'previous_response_not_found',
      `Previous response with id '${request.previous_response_id}' not found.`,
      'previous_response_id',
    );
  }
  const id = `${ID_PREFIX}${++made}`;
  const messageId = `msg_fake${Date.now()}`;
  const said = saidText(lastUserContent(request.input));
  const text = said ?? `fake answer from ${model}`;
  const usage = {
    input_tokens: tokens.prompt,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: tokens.completion,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: tokens.prompt + tokens.completion,
  };
  const part = { type: 'output_text', text, annotations: [] };
  const message = { type: 'message', id: messageId, status: 'completed', role: 'assistant', content: [part] };
  const tool = toolToCall(request);
  const call = tool
    ? {
        type: 'function_call',
        id: `fc_fake${Date.now()}`,
        call_id: `call_fake${Date.now()}`,
        name: tool.name,
        arguments: JSON.stringify(sampleOf(tool.parameters ?? {})),
        status: 'completed',
      }
    : undefined;
  const finished = responseObject(request, model, id, 'completed', [call ?? message], usage);
  keep(finished, request);
  if (request.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(finished));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
  res.flushHeaders();
  const started = responseObject(request, model, id, 'in_progress', [], null);
  const item = { item_id: messageId, output_index: 0, content_index: 0 };
  const events: Record<string, unknown>[] = call
    ? [
        { type: 'response.created', response: started },
        { type: 'response.in_progress', response: started },
        { type: 'response.output_item.added', output_index: 0, item: { ...call, status: 'in_progress', arguments: '' } },
        ...[call.arguments.slice(0, Math.floor(call.arguments.length / 2)), call.arguments.slice(Math.floor(call.arguments.length / 2))].map((delta) => ({
          type: 'response.function_call_arguments.delta',
          item_id: call.id,
          output_index: 0,
          delta,
        })),
        { type: 'response.function_call_arguments.done', item_id: call.id, output_index: 0, name: call.name, arguments: call.arguments },
        { type: 'response.output_item.done', output_index: 0, item: call },
        { type: 'response.completed', response: finished },
      ]
    : textEvents();
  function textEvents(): Record<string, unknown>[] {
    return [
      { type: 'response.created', response: started },
      { type: 'response.in_progress', response: started },
      { type: 'response.output_item.added', output_index: 0, item: { ...message, status: 'in_progress', content: [] } },
      { type: 'response.content_part.added', ...item, part: { ...part, text: '' } },
      ...streamedPieces(text, said !== undefined).map((delta) => ({ type: 'response.output_text.delta', ...item, delta, logprobs: [] })),
      { type: 'response.output_text.done', ...item, text, logprobs: [] },
      { type: 'response.content_part.done', ...item, part },
      { type: 'response.output_item.done', output_index: 0, item: message },
      { type: 'response.completed', response: finished },
    ];
  }
  for (const [index, event] of events.entries()) {
    if (seen.aborted || res.destroyed) return;
    res.write(`event: ${String(event['type'])}\ndata: ${JSON.stringify({ ...event, sequence_number: index })}\n\n`);
    if (index === 4 && fail === 'midstream') {
      const error = { type: 'error', code: 'server_error', message: 'fake: the server had an error while processing your request', param: null, sequence_number: index + 1 };
      res.end(`event: error\ndata: ${JSON.stringify(error)}\n\n`);
      return;
    }
  }
  res.end();
}

/** The input as items (a string is one user message). */
function itemsOf(input: unknown): Record<string, unknown>[] {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  return Array.isArray(input) ? (input as Record<string, unknown>[]) : [];
}

export function compactedResponse(request: ResponsesRequest, tokens: { prompt: number; completion: number }): Record<string, unknown> {
  const items = itemsOf(request.input);
  const users = items
    .filter((item) => (item['type'] ?? 'message') === 'message' && item['role'] === 'user')
    .map((item, index) => ({
      id: `msg_fakecompact${index}`,
      type: 'message',
      status: 'completed',
      role: 'user',
      content: typeof item['content'] === 'string' ? [{ type: 'input_text', text: item['content'] }] : item['content'],
    }));
  return {
    id: `resp_fakecompact${Date.now()}`,
    object: 'response.compaction',
    created_at: Math.floor(Date.now() / 1000),
    output: [...users, { id: `cmp_fake${Date.now()}`, type: 'compaction', encrypted_content: `fake-encrypted:${items.length}` }],
    usage: {
      input_tokens: tokens.prompt,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: tokens.completion,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: tokens.prompt + tokens.completion,
    },
  };
}

export function inputTokens(request: ResponsesRequest): Record<string, unknown> {
  const text = `${typeof request.instructions === 'string' ? request.instructions : ''} ${JSON.stringify(request.input ?? '')}`;
  return { object: 'response.input_tokens', input_tokens: text.split(/\W+/).filter((word) => word !== '').length };
}

/** The content of the input's last user message (the input itself when it is a text). */
function lastUserContent(input: unknown): unknown {
  if (typeof input === 'string') return input;
  const last = (Array.isArray(input) ? (input as { role?: unknown; content?: unknown }[]) : []).filter((item) => item?.role === 'user').at(-1);
  return last?.content;
}

// The OpenAI wire format as the gateway sees it from api.openai.com or any compatible server.
// Failure modes are chosen per request (a header, or the model name for callers such as a gateway
// that do not forward headers), so that tests need no shared state:
//   x-fake-fail: 400|401|404|429|500|503|context|timeout|midstream|drop, or model fail-<that>:
//   that error (context: OpenAI's 400 context_length_exceeded; timeout: no answer; midstream: a
//   streamed call sends one chunk, then an error event; drop: one chunk, then the connection drops)
//   model tokens-<prompt>-<completion>: the usage reported (default 7 and 5)
//   x-fake-pause-ms: N, or model pause-<N>: streamed calls stop after the first chunk for N ms
//   model hold-<name>: streamed calls stop after the first chunk until POST /_fake/release/<name>
// Chat with `tools` (and tool_choice not none) calls the chosen or first function, finish_reason
// tool_calls, unless the last message is a tool result: with arguments conforming to its
// parameters when tool_choice forces it (schema-sample.ts), else with {"argument":"fake"} (a coding
// agent's tools then refuse the call instead of running a sub-agent that asks the fake again).
// With response_format json_schema, the answer is a JSON text conforming to the schema.
// Every answer echoes what arrived in the `x-fake-*` headers and in `fake_echo` (non-streamed),
// so that a test can assert what the gateway sent.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerImages, answerModeration, answerSpeech, answerTranscription, readForm } from './openai-media-fake.ts';
import { handleConversations } from './openai-conversations-fake.ts';
import { handleRealtimeSessions } from './realtime-fake.ts';
import { handleOpenAiResources, isResourcePath } from './openai-resources-fake.ts';
import { answerResponses, compactedResponse, handleStoredResponses, inputTokens, type ResponsesRequest } from './openai-responses-fake.ts';
import { saidText, streamedPieces } from './said-text.ts';
import { sampleOf } from './schema-sample.ts';

export const FAKE_OPENAI_MODELS = ['gpt-4o-mini', 'gpt-4o', 'fake-small'];

/** One provider's fake: `path` is the request path with the provider's prefix removed. */
export type FakeHandler = (req: IncomingMessage, res: ServerResponse, body: string, seen: SeenRequest, path: string) => Promise<void>;

/** Upstream requests seen, newest last; tests read them through GET /_fake/requests. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  aborted: boolean;
}

const ERRORS: Record<string, { status: number; type: string; code: string | null; message: string; param?: string }> = {
  '400': { status: 400, type: 'invalid_request_error', code: 'invalid_value', message: 'fake: invalid request' },
  '401': { status: 401, type: 'invalid_request_error', code: 'invalid_api_key', message: 'fake: incorrect API key provided' },
  '404': { status: 404, type: 'invalid_request_error', code: 'model_not_found', message: 'fake: the model does not exist' },
  '429': { status: 429, type: 'requests', code: 'rate_limit_exceeded', message: 'fake: rate limit reached for requests' },
  '500': { status: 500, type: 'server_error', code: null, message: 'fake: the server had an error while processing your request' },
  context: {
    status: 400,
    type: 'invalid_request_error',
    code: 'context_length_exceeded',
    param: 'messages',
    message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
  },
  '503': { status: 503, type: 'server_error', code: null, message: 'fake: the engine is currently overloaded' },
};

export function sendOpenAiError(res: ServerResponse, status: number, type: string, code: string | null, message: string, param: string | null = null): void {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-request-id': `req_fake_${Date.now()}` };
  if (status === 429) headers['retry-after'] = '1';
  res.writeHead(status, headers);
  res.end(JSON.stringify({ error: { message, type, param, code } }));
}

/**
 * How a compatible server departs from OpenAI. `usageAlwaysStreamed`: as Mistral, Together AI,
 * Perplexity and Cerebras do, every stream reports its usage on its last chunk unasked, and
 * `stream_options` is refused (Mistral's 422 for a field it does not know).
 */
export interface CompatibleServer {
  usageAlwaysStreamed?: boolean;
  /** Answers without an API key (Ollama). */
  keyless?: boolean;
  /** The model served whatever the request says (Azure's deployment in the URL). */
  model?: string;
}

/** An OpenAI-compatible server that streams usage unasked (mounted at /openai-compatible). */
export const handleUsageAlwaysStreamed: FakeHandler = (req, res, body, seen, rawPath) => handleOpenAi(req, res, body, seen, rawPath, { usageAlwaysStreamed: true });

/** Ollama's OpenAI-compatible API (mounted at /ollama): a local server that asks for no key. */
export const handleOllama: FakeHandler = (req, res, body, seen, rawPath) => handleOpenAi(req, res, body, seen, rawPath, { keyless: true });

export const handleOpenAi = async (req: IncomingMessage, res: ServerResponse, body: string, seen: SeenRequest, rawPath: string, server: CompatibleServer = {}): Promise<void> => {
  const path = new URL(rawPath, 'http://fake').pathname;
  if (isResourcePath(path)) return handleOpenAiResources(req, res, body, rawPath);
  if (req.method === 'GET' && path === '/v1/models') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data: FAKE_OPENAI_MODELS.map((id) => ({ id, object: 'model', created: 1700000000, owned_by: 'fake' })) }));
    return;
  }
  if (handleConversations(req, res, body, path) || handleRealtimeSessions(req, res, body, path) || handleStoredResponses(req, res, path)) return;
  const operation = req.method !== 'POST' ? undefined : OPERATIONS[path];
  if (!operation) {
    sendOpenAiError(res, 404, 'invalid_request_error', 'unknown_url', `fake: unknown url ${req.method} ${path}`);
    return;
  }
  if (!server.keyless && (req.headers.authorization === undefined || !req.headers.authorization.startsWith('Bearer '))) {
    sendOpenAiError(res, 401, 'invalid_request_error', 'invalid_api_key', 'fake: you did not provide an API key');
    return;
  }
  let request: FakeRequest;
  if (operation === 'image_edit' || operation === 'audio_transcription') {
    if (!/^multipart\/form-data/.test(req.headers['content-type'] ?? '')) {
      sendOpenAiError(res, 400, 'invalid_request_error', null, "fake: this endpoint takes multipart/form-data ('Content-Type' multipart/form-data expected)");
      return;
    }
    request = (await readForm(req, seen)) as FakeRequest;
  } else {
    try {
      request = JSON.parse(body) as typeof request;
    } catch {
      sendOpenAiError(res, 400, 'invalid_request_error', null, 'fake: we could not parse the JSON body of your request');
      return;
    }
  }
  if (server.usageAlwaysStreamed && request.stream_options !== undefined) {
    sendOpenAiError(res, 422, 'invalid_request_error', 'extra_forbidden', 'fake: stream_options: Extra inputs are not permitted', 'stream_options');
    return;
  }
  const model = server.model ?? (typeof request.model === 'string' ? request.model : '');
  const fail = header(req, 'x-fake-fail') ?? /^fail-(.+)$/.exec(model)?.[1];
  if (fail === 'timeout') return; // never answers; the caller's timeout or abort ends it
  const failure = fail ? ERRORS[fail] : undefined;
  if (failure) {
    sendOpenAiError(res, failure.status, failure.type, failure.code, failure.message, failure.param ?? null);
    return;
  }
  const tokens = /^tokens-(\d+)-(\d+)$/.exec(model);
  const promptTokens = tokens ? Number(tokens[1]) : 7;
  const completionTokens = tokens ? Number(tokens[2]) : 5;
  const echoHeaders = { 'x-request-id': `req_fake_${Date.now()}`, 'x-fake-received-model': model, 'openai-processing-ms': '1' };
  const media = request as Record<string, unknown>;
  switch (operation) {
    case 'image_generation':
    case 'image_edit':
      return answerImages(res, media, model, operation === 'image_edit', echoHeaders);
    case 'audio_transcription':
      return answerTranscription(res, media, model, echoHeaders);
    case 'audio_speech':
      return answerSpeech(res, media, model, echoHeaders, seen);
    case 'moderation':
      return answerModeration(res, media, model, echoHeaders);
  }
  const echo = { body: JSON.parse(body) as unknown, authorization: req.headers.authorization };
  if (operation === 'responses_compact' || operation === 'responses_input_tokens') {
    res.writeHead(200, { 'content-type': 'application/json', ...echoHeaders });
    res.end(
      JSON.stringify(
        operation === 'responses_compact'
          ? compactedResponse(request as ResponsesRequest, { prompt: promptTokens, completion: completionTokens })
          : inputTokens(request as ResponsesRequest),
      ),
    );
    return;
  }
  if (operation === 'responses') {
    await answerResponses(res, request as ResponsesRequest, model, { prompt: promptTokens, completion: completionTokens }, echoHeaders, seen, fail);
    return;
  }
  if (operation === 'embeddings') {
    res.writeHead(200, { 'content-type': 'application/json', ...echoHeaders });
    res.end(JSON.stringify(embeddingsAnswer(request, model, promptTokens, echo)));
    return;
  }
  const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
  const id = operation === 'chat' ? `chatcmpl-fake${Date.now()}` : `cmpl-fake${Date.now()}`;
  // Structured outputs: a JSON text conforming to the schema, as the model would write it.
  const format = operation === 'chat' ? request.response_format : undefined;
  const said = operation === 'chat' ? saidText(request.messages?.filter((message) => message.role === 'user').at(-1)?.content) : undefined;
  const content = format?.type === 'json_schema' ? JSON.stringify(sampleOf(format.json_schema?.schema)) : (said ?? `fake answer from ${model}`);
  const created = Math.floor(Date.now() / 1000);
  // Worked out before any header goes: a request it cannot read fails as a whole.
  const call = operation === 'chat' ? toolCallFor(request) : undefined;
  if (request.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json', ...echoHeaders });
    const choice =
      operation === 'chat'
        ? {
            index: 0,
            message: { role: 'assistant', content, refusal: null, ...(call ? { tool_calls: [call] } : {}) },
            logprobs: null,
            finish_reason: call ? 'tool_calls' : 'stop',
          }
        : { index: 0, text: content, logprobs: null, finish_reason: 'stop' };
    res.end(JSON.stringify({ id, object: operation === 'chat' ? 'chat.completion' : 'text_completion', created, model, choices: [choice], usage, fake_echo: echo }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...echoHeaders });
  res.flushHeaders();
  // With include_usage, OpenAI puts "usage": null on every chunk and the usage on a last one.
  const withUsage = request.stream_options?.include_usage === true;
  const chunk = (text: string | undefined, finish: string | null, first = false) => ({
    id,
    object: operation === 'chat' ? 'chat.completion.chunk' : 'text_completion',
    created,
    model,
    choices: [
      operation === 'chat'
        ? { index: 0, delta: text === undefined ? {} : first ? { role: 'assistant', content: text } : { content: text }, logprobs: null, finish_reason: finish }
        : { index: 0, text: text ?? '', logprobs: null, finish_reason: finish },
    ],
    ...(withUsage ? { usage: null } : {}),
  });
  const pauseMs = Number(header(req, 'x-fake-pause-ms') ?? /^pause-(\d+)$/.exec(model)?.[1] ?? 0);
  const hold = /^hold-(.+)$/.exec(model)?.[1];
  const events: unknown[] = [chunk('', null, true)];
  if (said !== undefined) for (const piece of streamedPieces(said, true)) events.push(chunk(piece, null));
  else for (const word of content.split(' ')) events.push(chunk(`${word} `, null));
  if (call) {
    // As OpenAI streams a call: id and name first, then the arguments in pieces.
    const toolDelta = (delta: Record<string, unknown>) => ({
      ...chunk('', null),
      choices: [{ index: 0, delta: { tool_calls: [{ index: 0, ...delta }] }, logprobs: null, finish_reason: null }],
    });
    events.push(toolDelta({ id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }));
    const half = Math.floor(call.function.arguments.length / 2);
    for (const piece of [call.function.arguments.slice(0, half), call.function.arguments.slice(half)]) events.push(toolDelta({ function: { arguments: piece } }));
  }
  events.push({ ...chunk(undefined, call ? 'tool_calls' : 'stop'), ...(server.usageAlwaysStreamed ? { usage } : {}) });
  if (withUsage) events.push({ id, object: operation === 'chat' ? 'chat.completion.chunk' : 'text_completion', created, model, choices: [], usage });
  for (const [index, event] of events.entries()) {
    if (seen.aborted || res.destroyed) return;
    res.write(`data: ${JSON.stringify(event)}\n\n`);
    if (index === 0 && pauseMs > 0) await sleep(pauseMs);
    if (index === 0 && hold) await held(hold);
    if (index === 0 && fail === 'midstream') {
      res.end(`data: ${JSON.stringify({ error: { message: 'fake: the server had an error while processing your request', type: 'server_error', param: null, code: null } })}\n\n`);
      return;
    }
    if (index === 0 && fail === 'drop') {
      res.destroy();
      return;
    }
  }
  res.end('data: [DONE]\n\n');
};

type Operation =
  | 'chat'
  | 'completions'
  | 'embeddings'
  | 'responses'
  | 'responses_compact'
  | 'responses_input_tokens'
  | 'image_generation'
  | 'image_edit'
  | 'audio_transcription'
  | 'audio_speech'
  | 'moderation';

const OPERATIONS: Record<string, Operation> = {
  '/v1/chat/completions': 'chat',
  '/v1/responses': 'responses',
  '/v1/responses/compact': 'responses_compact',
  '/v1/responses/input_tokens': 'responses_input_tokens',
  '/v1/completions': 'completions',
  '/v1/embeddings': 'embeddings',
  '/v1/images/generations': 'image_generation',
  '/v1/images/edits': 'image_edit',
  '/v1/audio/transcriptions': 'audio_transcription',
  '/v1/audio/speech': 'audio_speech',
  '/v1/moderations': 'moderation',
};

interface FakeRequest {
  model?: unknown;
  stream?: unknown;
  messages?: { role?: unknown; content?: unknown }[];
  tools?: { function?: { name?: unknown; parameters?: unknown } }[];
  tool_choice?: unknown;
  response_format?: { type?: unknown; json_schema?: { schema?: unknown } };
  input?: unknown;
  dimensions?: unknown;
  encoding_format?: unknown;
  stream_options?: { include_usage?: unknown };
}

/** One vector per input, `dimensions` long (default 8), as floats or as base64 of float32 (the SDK's default). */
function embeddingsAnswer(request: FakeRequest, model: string, promptTokens: number, echo: unknown): unknown {
  const inputs = Array.isArray(request.input) ? request.input : [request.input];
  const size = typeof request.dimensions === 'number' ? request.dimensions : 8;
  const data = inputs.map((_input, index) => {
    const vector = Array.from({ length: size }, (_, i) => Math.round(((index + 1) * (i + 1)) % 7) / 7);
    const embedding = request.encoding_format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
    return { object: 'embedding', index, embedding };
  });
  return { object: 'list', data, model, usage: { prompt_tokens: promptTokens, total_tokens: promptTokens }, fake_echo: echo };
}

/** The function call the fake answers with: the chosen or first tool, unless tools are off or the last message is a tool result. */
function toolCallFor(request: FakeRequest): { id: string; type: 'function'; function: { name: string; arguments: string } } | undefined {
  if (!Array.isArray(request.tools) || request.tools.length === 0 || request.tool_choice === 'none') return undefined;
  if (Array.isArray(request.messages) && request.messages.at(-1)?.role === 'tool') return undefined;
  const chosen = (request.tool_choice as { function?: { name?: unknown } } | null | undefined)?.function?.name;
  const name = typeof chosen === 'string' ? chosen : request.tools[0]?.function?.name;
  if (typeof name !== 'string') return undefined;
  // Forced, the arguments conform to the tool's parameters; chosen freely (auto), a placeholder (see the header).
  const forced = request.tool_choice === 'required' || typeof chosen === 'string';
  const parameters = forced ? request.tools.find((tool) => tool.function?.name === name)?.function?.parameters : undefined;
  return { id: `call_fake${Date.now()}`, type: 'function', function: { name, arguments: JSON.stringify(parameters === undefined ? { argument: 'fake' } : sampleOf(parameters)) } };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

const holds = new Map<string, { promise: Promise<void>; release: () => void }>();

function holdFor(name: string): { promise: Promise<void>; release: () => void } {
  let entry = holds.get(name);
  if (!entry) {
    let release!: () => void;
    const promise = new Promise<void>((resolve) => (release = resolve));
    entry = { promise, release };
    holds.set(name, entry);
  }
  return entry;
}

/** Streams of model hold-<name> wait here after their first chunk: a test decides when they go on. */
export function held(name: string): Promise<void> {
  return holdFor(name).promise;
}

/** POST /_fake/release/<name>: the held streams of that name (and later ones) go on. */
export function releaseHold(name: string): void {
  holdFor(name).release();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

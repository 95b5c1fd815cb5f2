// The OpenAI wire format as the gateway sees it from api.openai.com or any compatible server.
// Failure modes are chosen per request (a header, or the model name for callers such as a gateway
// that do not forward headers), so that tests need no shared state:
//   x-fake-fail: 400|401|404|429|500|503|context|timeout, or model fail-<that>: that error
//   (context: OpenAI's 400 context_length_exceeded; timeout: no answer)
//   x-fake-pause-ms: N, or model pause-<N>: streamed calls stop after the first chunk for N ms
//   model hold-<name>: streamed calls stop after the first chunk until POST /_fake/release/<name>
// Every answer echoes what arrived in the `x-fake-*` headers and in `fake_echo` (non-streamed),
// so that a test can assert what the gateway sent.
import type { IncomingMessage, ServerResponse } from 'node:http';

export const FAKE_OPENAI_MODELS = ['gpt-4o-mini', 'gpt-4o', 'fake-small'];

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
    status: 400, type: 'invalid_request_error', code: 'context_length_exceeded', param: 'messages',
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

export async function handleOpenAi(req: IncomingMessage, res: ServerResponse, body: string, seen: SeenRequest): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://fake');
  const path = url.pathname.replace(/^\/openai/, '');
  if (req.method === 'GET' && path === '/v1/models') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data: FAKE_OPENAI_MODELS.map((id) => ({ id, object: 'model', created: 1700000000, owned_by: 'fake' })) }));
    return;
  }
  if (req.method !== 'POST' || path !== '/v1/chat/completions') {
    sendOpenAiError(res, 404, 'invalid_request_error', 'unknown_url', `fake: unknown url ${req.method} ${path}`);
    return;
  }
  if (req.headers.authorization === undefined || !req.headers.authorization.startsWith('Bearer ')) {
    sendOpenAiError(res, 401, 'invalid_request_error', 'invalid_api_key', 'fake: you did not provide an API key');
    return;
  }
  let request: { model?: unknown; stream?: unknown; messages?: unknown; stream_options?: { include_usage?: unknown } };
  try {
    request = JSON.parse(body) as typeof request;
  } catch {
    sendOpenAiError(res, 400, 'invalid_request_error', null, 'fake: we could not parse the JSON body of your request');
    return;
  }
  const model = typeof request.model === 'string' ? request.model : '';
  const fail = header(req, 'x-fake-fail') ?? /^fail-(.+)$/.exec(model)?.[1];
  if (fail === 'timeout') return; // never answers; the caller's timeout or abort ends it
  const failure = fail ? ERRORS[fail] : undefined;
  if (failure) {
    sendOpenAiError(res, failure.status, failure.type, failure.code, failure.message, failure.param ?? null);
    return;
  }
  const id = `chatcmpl-fake${Date.now()}`;
  const content = `fake answer from ${model}`;
  const usage = { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 };
  const echoHeaders = { 'x-request-id': `req_fake_${Date.now()}`, 'x-fake-received-model': model, 'openai-processing-ms': '1' };
  if (request.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json', ...echoHeaders });
    res.end(JSON.stringify({
      id,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage,
      fake_echo: { body: JSON.parse(body) as unknown, authorization: req.headers.authorization },
    }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...echoHeaders });
  res.flushHeaders();
  const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
    id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const pauseMs = Number(header(req, 'x-fake-pause-ms') ?? /^pause-(\d+)$/.exec(model)?.[1] ?? 0);
  const hold = /^hold-(.+)$/.exec(model)?.[1];
  const events: unknown[] = [chunk({ role: 'assistant', content: '' }, null)];
  for (const word of content.split(' ')) events.push(chunk({ content: `${word} ` }, null));
  events.push(chunk({}, 'stop'));
  if (request.stream_options?.include_usage === true) events.push({ id, object: 'chat.completion.chunk', created: 0, model, choices: [], usage });
  for (const [index, event] of events.entries()) {
    if (seen.aborted || res.destroyed) return;
    res.write(`data: ${JSON.stringify(event)}\n\n`);
    if (index === 0 && pauseMs > 0) await sleep(pauseMs);
    if (index === 0 && hold) await held(hold);
  }
  res.end('data: [DONE]\n\n');
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
function held(name: string): Promise<void> {
  return holdFor(name).promise;
}

/** POST /_fake/release/<name>: the held streams of that name (and later ones) go on. */
export function releaseHold(name: string): void {
  holdFor(name).release();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

import type { NativeOperation, ProviderAdapter, ProviderAnswer, ProviderCall } from '../lib/provider-adapter';
import { readJsonAnswer } from '../lib/json-answer';
import type { ProviderError } from '../lib/provider-error';
import { openAiEventStream, jsonBody, readSseEvents } from '../lib/sse';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, readBody, sendUpstream, type UpstreamResponse } from '../lib/upstream-http';
import { keyHeaders, rootOf } from '../lib/upstream-target';
import { passThroughUrl } from '../lib/pass-through-url';
import { responseFormatTool, toAnthropicRequest } from '../messages-chat/chat-to-messages.request';
import { toChatCompletion } from '../messages-chat/messages-to-chat.answer';
import { anthropicMessage } from '../messages-chat/messages.wire';
import { toChatCompletionChunks } from '../messages-chat/messages-to-chat.stream';
import { anthropicApiError, anthropicError } from './anthropic.error';
import { ANTHROPIC_CHAT_PARAMS, ANTHROPIC_COUNT_TOKENS_PARAMS, ANTHROPIC_MESSAGES_PARAMS, DEFAULT_ANTHROPIC_VERSION, knownBetas } from './anthropic.params';
import { ANTHROPIC_PRICES } from './anthropic.prices';
import { ANTHROPIC_PASS_THROUGH_RESOURCES } from './anthropic.pass-through-resources';

const DEFAULT_API_BASE = 'https://api.anthropic.com';

/**
 * Anthropic's Messages API (`anthropic/claude-sonnet-4-5`): its own messages and token counts
 * passed through, and OpenAI-format chat completions translated to and from messages.
 */
export const anthropicAdapter: ProviderAdapter = {
  provider: 'anthropic',
  operations: messagesApiOperations('x-api-key'),
  settings: { params: ['api_base', 'api_key'], env: { api_key: 'ANTHROPIC_API_KEY', api_base: 'ANTHROPIC_API_BASE' } },
  prices: ANTHROPIC_PRICES,
  batchPriceFactor: 0.5,
  litellm: { providerNames: ['anthropic_text'], precedence: 2 },
  // `/anthropic/v1/…` → `{api_base}/v1/…`, the provider key in x-api-key.
  passThrough: {
    route: 'anthropic',
    target: (deployment, path, search) => ({
      url: passThroughUrl(rootOf(deployment.apiBase ?? DEFAULT_API_BASE, /(\/v1)?(\/messages)?$/), path, search),
      headers: keyHeaders('x-api-key', deployment.apiKey),
    }),
    // One {custom_id, result: {type, message}} line per request.
    resources: ANTHROPIC_PASS_THROUGH_RESOURCES,
    batchResults: { path: /^\/v1\/messages\/batches\/[^/]+\/results$/ },
    // The Skills API (the seed's family B: "Skills API: Yes") at `/v1/skills` too.
    rootRoutes: { paths: ['/v1/skills'], defaultHeaders: { 'anthropic-version': DEFAULT_ANTHROPIC_VERSION } },
  },
};

/**
 * The operations of Anthropic's Messages API wherever it is served with a key (Anthropic's own,
 * Claude on Azure AI Foundry), the key sent in `keyHeader`.
 */
export function messagesApiOperations(keyHeader: string): Record<'messages' | 'count_tokens' | 'chat', NativeOperation> {
  return {
    messages: { params: ANTHROPIC_MESSAGES_PARAMS, unknownParams: 'dropped', call: (call) => passThrough(call, 'messages', keyHeader) },
    count_tokens: { params: ANTHROPIC_COUNT_TOKENS_PARAMS, unknownParams: 'dropped', call: (call) => passThrough(call, 'messages/count_tokens', keyHeader) },
    chat: { params: ANTHROPIC_CHAT_PARAMS, call: (call) => chatOverMessages(call, keyHeader) },
  };
}

/** The client's own Messages request, sent on with the provider model and key, its answer untouched. */
async function passThrough(call: ProviderCall, path: 'messages' | 'messages/count_tokens', keyHeader: string): Promise<ProviderAnswer> {
  const stream = call.body['stream'] === true;
  const version = header(call, 'anthropic-version') ?? DEFAULT_ANTHROPIC_VERSION;
  const betas = knownBetas(call);
  const response = await post(call, path, { ...call.body, model: call.deployment.model }, version, betas, keyHeader);
  if (response.statusCode < 200 || response.statusCode >= 300) throw await errorOf(response, anthropicApiError);
  const contentType = response.headers['content-type'];
  return {
    status: response.statusCode,
    headers: response.headers,
    contentType: typeof contentType === 'string' ? contentType : stream ? 'text/event-stream' : 'application/json',
    body: response.body,
  };
}

/** OpenAI-format chat completions as a Messages call, the answer translated back. */
function chatOverMessages(call: ProviderCall, keyHeader: string): Promise<ProviderAnswer> {
  return serveChatOverMessages(call, async (request) => {
    const response = await post(call, 'messages', request, DEFAULT_ANTHROPIC_VERSION, [], keyHeader);
    if (response.statusCode < 200 || response.statusCode >= 300) throw await errorOf(response, anthropicError);
    return response;
  });
}

/**
 * An OpenAI-format chat completion through Claude's Messages and back, wherever Claude is served: `send`
 * POSTs the Messages request (with `model`, and `stream` when streamed) and rejects a non-2xx
 * answer with its ProviderError (Anthropic's API here, Vertex AI in vertex_ai/).
 */
export async function serveChatOverMessages(call: ProviderCall, send: (request: Record<string, unknown>) => Promise<UpstreamResponse>): Promise<ProviderAnswer> {
  const { deployment, body } = call;
  const stream = body['stream'] === true;
  const response = await send(toAnthropicRequest(body, deployment.model));
  const created = Math.floor(Date.now() / 1000);
  const jsonTool = responseFormatTool(body, deployment.model);
  if (stream) {
    const includeUsage = (body['stream_options'] as { include_usage?: unknown } | undefined)?.include_usage === true;
    const chunks = toChatCompletionChunks(readSseEvents(response.body), deployment.model, created, includeUsage, jsonTool);
    return { status: response.statusCode, headers: response.headers, contentType: 'text/event-stream', body: openAiEventStream(chunks) };
  }
  const message = await readJsonAnswer(response, anthropicMessage, 'Claude');
  return {
    status: response.statusCode,
    headers: response.headers,
    contentType: 'application/json',
    body: jsonBody(toChatCompletion(message, deployment.model, created, jsonTool)),
  };
}

function post(call: ProviderCall, path: string, request: unknown, version: string, betas: string[], keyHeader: string): Promise<UpstreamResponse> {
  const { deployment } = call;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: call.body['stream'] === true ? 'text/event-stream' : 'application/json',
    'anthropic-version': version,
  };
  if (betas.length > 0) headers['anthropic-beta'] = betas.join(',');
  if (deployment.apiKey) headers[keyHeader] = deployment.apiKey;
  return sendUpstream({
    url: endpointUrl(deployment.apiBase ?? DEFAULT_API_BASE, path),
    method: 'POST',
    headers,
    body: Buffer.from(JSON.stringify(request)),
    signal: call.signal,
    timeoutMs: deployment.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
  });
}

export async function errorOf(response: UpstreamResponse, map: (status: number, body: string, retryAfter?: string) => ProviderError): Promise<ProviderError> {
  const retryAfter = response.headers['retry-after'];
  return map(response.statusCode, await readBody(response.body, 65_536).catch(() => ''), typeof retryAfter === 'string' ? retryAfter : undefined);
}

function header(call: ProviderCall, name: string): string | undefined {
  const value = call.headers?.[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** LiteLLM configs name the host (`https://api.anthropic.com`), sometimes with `/v1` or the whole `/v1/messages`. */
function endpointUrl(apiBase: string, path: string): URL {
  const base = apiBase.replace(/\/+$/, '').replace(/\/messages$/, '');
  return new URL(base.endsWith('/v1') ? `${base}/${path}` : `${base}/v1/${path}`);
}

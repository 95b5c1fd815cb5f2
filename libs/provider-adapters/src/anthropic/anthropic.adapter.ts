import type { ProviderAdapter, ProviderAnswer, ProviderCall } from '../lib/provider-adapter';
import { ProviderError } from '../lib/provider-error';
import { familyAEventStream, jsonBody, readSseEvents } from '../lib/sse';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, readBody, sendUpstream } from '../lib/upstream-http';
import { ANTHROPIC_PARAMS } from './anthropic.params';
import { toAnthropicRequest } from './anthropic.request';
import { anthropicError, toChatCompletion, type AnthropicMessage } from './anthropic.response';
import { toChatCompletionChunks } from './anthropic.stream';

const DEFAULT_API_BASE = 'https://api.anthropic.com';
const ANTHROPIC_VERSION = '2023-06-01';
// A whole non-streamed answer is read before translating it; the largest outputs stay well below this.
const MAX_ANSWER_BYTES = 32 * 1_048_576;

/** Anthropic's Messages API behind family A chat completions (`anthropic/claude-sonnet-4-5`). */
export const anthropicAdapter: ProviderAdapter = {
  provider: 'anthropic',
  params: ANTHROPIC_PARAMS,
  chatCompletions: callMessages,
};

async function callMessages(call: ProviderCall): Promise<ProviderAnswer> {
  const { deployment, body } = call;
  const stream = body['stream'] === true;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
    'anthropic-version': ANTHROPIC_VERSION,
  };
  if (deployment.apiKey) headers['x-api-key'] = deployment.apiKey;
  const response = await sendUpstream({
    url: messagesUrl(deployment.apiBase ?? DEFAULT_API_BASE),
    method: 'POST',
    headers,
    body: Buffer.from(JSON.stringify(toAnthropicRequest(body, deployment.model))),
    signal: call.signal,
    timeoutMs: deployment.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
  });
  const status = response.statusCode;
  if (status < 200 || status >= 300) {
    const retryAfter = response.headers['retry-after'];
    throw anthropicError(status, await readBody(response.body, 65_536).catch(() => ''), typeof retryAfter === 'string' ? retryAfter : undefined);
  }
  const created = Math.floor(Date.now() / 1000);
  if (stream) {
    const includeUsage = (body['stream_options'] as { include_usage?: unknown } | undefined)?.include_usage === true;
    const chunks = toChatCompletionChunks(readSseEvents(response.body), deployment.model, created, includeUsage);
    return { status, headers: response.headers, contentType: 'text/event-stream', body: familyAEventStream(chunks) };
  }
  const text = await readBody(response.body, MAX_ANSWER_BYTES);
  let message: AnthropicMessage;
  try {
    message = JSON.parse(text) as AnthropicMessage;
  } catch {
    throw new ProviderError(502, 'server_error', 'Anthropic answered with a body that is not JSON.', 'upstream_invalid_answer');
  }
  return { status, headers: response.headers, contentType: 'application/json', body: jsonBody(toChatCompletion(message, deployment.model, created)) };
}

/** LiteLLM configs name the host (`https://api.anthropic.com`), sometimes with `/v1` or the whole `/v1/messages`. */
function messagesUrl(apiBase: string): URL {
  const base = apiBase.replace(/\/+$/, '');
  if (base.endsWith('/v1/messages')) return new URL(base);
  return new URL(base.endsWith('/v1') ? `${base}/messages` : `${base}/v1/messages`);
}

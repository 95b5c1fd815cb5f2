import { readJsonAnswer } from '../lib/json-answer';
import type { ListPrice, ProviderAdapter, ProviderAnswer, ProviderCall } from '../lib/provider-adapter';
import { openAiEventStream, jsonBody, readSseEvents } from '../lib/sse';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, readBody, sendUpstream } from '../lib/upstream-http';
import { openAiCompatibleAdapter, sameNames } from '../openai/openai-compatible';
import { cohereError } from './cohere.error';
import { COHERE_CHAT_PARAMS } from './cohere.params';
import { toCohereChatRequest } from './cohere.request';
import { toChatCompletion, toChatCompletionChunks } from './cohere.response';
import { cohereChatResponse } from './cohere.wire';

const DEFAULT_API_BASE = 'https://api.cohere.com';

// Embeddings stay on Cohere's Compatibility API (OpenAI's /embeddings format at {api_base}/compatibility/v1).
const compatibility = openAiCompatibleAdapter({
  provider: 'cohere',
  apiBase: `${DEFAULT_API_BASE}/compatibility/v1`,
  env: { api_key: 'COHERE_API_KEY' },
  chat: { rules: {} },
  embeddings: { rules: sameNames('model', 'input', 'encoding_format') },
  // Rerank's root is Cohere's host, whatever /compatibility/v1 or /v2 follows it in api_base.
  rerank: { wire: 'cohere', apiBase: DEFAULT_API_BASE, apiBaseSuffix: /(\/compatibility)?\/v\d+$/, extraParams: ['max_tokens_per_doc'] },
  endpoint: (apiBase, path) => new URL(`${apiBase.replace(/\/+$/, '')}/compatibility/v1${path}`),
});

/**
 * Cohere (`cohere/command-a-03-2025`, `api_base` Cohere's host, https://api.cohere.com by
 * default): chat completions through its native chat v2 (POST /v2/chat, streamed as Cohere's
 * v2 events, tools, usage from billed units), embeddings through its Compatibility API, and its own v2 rerank
 * (`/v1/rerank` and `/v2/rerank` of the gateway), billed by search units.
 */
export const cohereAdapter: ProviderAdapter = {
  provider: 'cohere',
  litellm: { providerNames: ['cohere_chat'], precedence: 3 },
  operations: {
    chat: { params: COHERE_CHAT_PARAMS, call: callChat },
    ...(compatibility.operations.embeddings ? { embeddings: compatibility.operations.embeddings } : {}),
    ...(compatibility.operations.rerank ? { rerank: compatibility.operations.rerank } : {}),
  },
  settings: compatibility.settings,
  prices: new Map<string, ListPrice>([
    ['command-a-03-2025', { input: 2.5, output: 10 }],
    ['command-r-plus-08-2024', { input: 2.5, output: 10 }],
    ['command-r-08-2024', { input: 0.15, output: 0.6 }],
    ['command-r7b-12-2024', { input: 0.0375, output: 0.15 }],
    ['embed-v4.0', { input: 0.12, output: 0 }],
    ['embed-english-v3.0', { input: 0.1, output: 0 }],
    // Rerank: USD 2 per 1,000 searches (a query over up to 100 documents).
    ['rerank-v3.5', { input: 0, output: 0, perQuery: 0.002 }],
    ['rerank-english-v3.0', { input: 0, output: 0, perQuery: 0.002 }],
    ['rerank-multilingual-v3.0', { input: 0, output: 0, perQuery: 0.002 }],
  ]),
};

async function callChat(call: ProviderCall): Promise<ProviderAnswer> {
  const { deployment, body } = call;
  const stream = body['stream'] === true;
  const url = new URL(`${(deployment.apiBase ?? DEFAULT_API_BASE).replace(/\/+$/, '').replace(/\/v[12]$/, '')}/v2/chat`);
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json' };
  if (deployment.apiKey) headers['authorization'] = `Bearer ${deployment.apiKey}`;
  const response = await sendUpstream({
    url,
    method: 'POST',
    headers,
    body: Buffer.from(JSON.stringify(toCohereChatRequest(body, deployment.model))),
    signal: call.signal,
    timeoutMs: deployment.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
  });
  if (response.statusCode < 200 || response.statusCode >= 300) {
    const retryAfter = response.headers['retry-after'];
    throw cohereError(response.statusCode, await readBody(response.body, 65_536).catch(() => ''), typeof retryAfter === 'string' ? retryAfter : undefined);
  }
  const created = Math.floor(Date.now() / 1000);
  if (stream) {
    const includeUsage = (body['stream_options'] as { include_usage?: unknown } | undefined)?.include_usage === true;
    return {
      status: 200,
      headers: response.headers,
      contentType: 'text/event-stream',
      body: openAiEventStream(toChatCompletionChunks(readSseEvents(response.body), deployment.model, created, includeUsage)),
    };
  }
  const answer = await readJsonAnswer(response, cohereChatResponse, 'Cohere');
  return { status: 200, headers: response.headers, contentType: 'application/json', body: jsonBody(toChatCompletion(answer, deployment.model, created)) };
}

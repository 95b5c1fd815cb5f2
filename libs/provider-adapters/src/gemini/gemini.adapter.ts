import type { ProviderAdapter, ProviderAnswer, ProviderCall } from '../lib/provider-adapter';
import { ProviderError } from '../lib/provider-error';
import { openAiEventStream, jsonBody, readSseEvents } from '../lib/sse';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, readBody, sendUpstream, type UpstreamResponse } from '../lib/upstream-http';
import { readJsonAnswer } from '../lib/json-answer';
import { embeddingTexts } from '../lib/embeddings';
import { toBatchEmbedContentsRequest, toEmbeddingList } from './gemini.embeddings';
import { geminiError } from './gemini.error';
import { GEMINI_CHAT_PARAMS, GEMINI_EMBEDDING_PARAMS } from './gemini.params';
import { GEMINI_PRICES } from './gemini.prices';
import { toGenerateContentRequest } from './gemini.request';
import { toChatCompletion } from './gemini.response';
import { batchEmbedContentsResponse, generateContentResponse } from './gemini.wire';
import { toChatCompletionChunks } from './gemini.stream';
import { GEMINI_IMAGE_GENERATION_PARAMS, imagenResponse, toImagenRequest, toImagesResponse } from './gemini.images';

const DEFAULT_API_BASE = 'https://generativelanguage.googleapis.com';

/** Google's Gemini API (generateContent, streamGenerateContent, batchEmbedContents) behind the OpenAI format (`gemini/gemini-2.5-flash`). */
export const geminiAdapter: ProviderAdapter = {
  provider: 'gemini',
  operations: {
    chat: { params: GEMINI_CHAT_PARAMS, call: callGenerateContent },
    embeddings: { params: GEMINI_EMBEDDING_PARAMS, call: callBatchEmbedContents },
    // Imagen models (`gemini/imagen-4.0-generate-001`) through `:predict`.
    image_generation: { params: GEMINI_IMAGE_GENERATION_PARAMS, call: callImagenPredict },
  },
  settings: { params: ['api_base', 'api_key'], env: { api_key: 'GEMINI_API_KEY' } },
  prices: GEMINI_PRICES,
};

function callGenerateContent(call: ProviderCall): Promise<ProviderAnswer> {
  return serveGenerateContent(call, (method, request) => post(call, method, request));
}

/**
 * An OpenAI-format chat completion through generateContent (or streamGenerateContent?alt=sse) and back,
 * wherever Gemini is served: `send` POSTs the request to the model's `method` and rejects a non-2xx
 * answer with its ProviderError (the Gemini API here, Vertex AI in vertex_ai/).
 */
export async function serveGenerateContent(call: ProviderCall, send: (method: string, request: unknown) => Promise<UpstreamResponse>): Promise<ProviderAnswer> {
  const { deployment, body } = call;
  const stream = body['stream'] === true;
  const request = toGenerateContentRequest(body);
  const response = await send(stream ? 'streamGenerateContent?alt=sse' : 'generateContent', request);
  const created = Math.floor(Date.now() / 1000);
  if (stream) {
    const includeUsage = (body['stream_options'] as { include_usage?: unknown } | undefined)?.include_usage === true;
    const chunks = toChatCompletionChunks(readSseEvents(response.body), deployment.model, created, includeUsage);
    return { status: 200, headers: response.headers, contentType: 'text/event-stream', body: openAiEventStream(chunks) };
  }
  const answer = await readJsonAnswer(response, generateContentResponse, 'Gemini');
  return { status: 200, headers: response.headers, contentType: 'application/json', body: jsonBody(toChatCompletion(answer, deployment.model, created)) };
}

async function callBatchEmbedContents(call: ProviderCall): Promise<ProviderAnswer> {
  const model = modelName(call.deployment.model);
  const texts = embeddingTexts(call.body['input'], 'Gemini');
  const response = await post(call, 'batchEmbedContents', toBatchEmbedContentsRequest(texts, call.body, model));
  const answer = await readJsonAnswer(response, batchEmbedContentsResponse, 'Gemini');
  return { status: 200, headers: response.headers, contentType: 'application/json', body: jsonBody(toEmbeddingList(answer, texts, call.body, call.deployment.model)) };
}

async function callImagenPredict(call: ProviderCall): Promise<ProviderAnswer> {
  const response = await post(call, 'predict', toImagenRequest(call.body));
  const answer = await readJsonAnswer(response, imagenResponse, 'Imagen');
  return { status: 200, headers: response.headers, contentType: 'application/json', body: jsonBody(toImagesResponse(answer, Math.floor(Date.now() / 1000))) };
}

/** POSTs to `models/{model}:{method}`; a non-2xx answer rejects with the mapped ProviderError. */
async function post(call: ProviderCall, method: string, request: unknown): Promise<UpstreamResponse> {
  const { deployment } = call;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (deployment.apiKey) headers['x-goog-api-key'] = deployment.apiKey;
  const response = await sendUpstream({
    url: new URL(`${versionBase(deployment.apiBase ?? DEFAULT_API_BASE)}/models/${encodeURIComponent(modelName(deployment.model))}:${method}`),
    method: 'POST',
    headers,
    body: Buffer.from(JSON.stringify(request)),
    signal: call.signal,
    timeoutMs: deployment.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
  });
  const status = response.statusCode;
  if (status >= 200 && status < 300) return response;
  throw await geminiErrorOf(response);
}

/** A non-2xx Google answer as its ProviderError. */
export async function geminiErrorOf(response: UpstreamResponse): Promise<ProviderError> {
  const retryAfter = response.headers['retry-after'];
  return geminiError(response.statusCode, await readBody(response.body, 65_536).catch(() => ''), typeof retryAfter === 'string' ? retryAfter : undefined);
}

/** LiteLLM configs name the host; some name the API version too (`…/v1beta`, `…/v1`). */
function versionBase(apiBase: string): string {
  const base = apiBase.replace(/\/+$/, '');
  return /\/v1(beta|alpha)?$/.test(base) ? base : `${base}/v1beta`;
}

/** Google's resource name is `models/gemini-2.5-flash`; configs may give either form. */
function modelName(model: string): string {
  return model.replace(/^models\//, '');
}

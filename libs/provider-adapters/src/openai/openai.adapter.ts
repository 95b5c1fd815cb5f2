import type { ProviderAdapter, ProviderAnswer, ProviderCall } from '../lib/provider-adapter';
import { ProviderError } from '../lib/provider-error';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, readBody, sendUpstream, type UpstreamResponse } from '../lib/upstream-http';
import { multipartUpload } from '../lib/uploaded-file';
import {
  OPENAI_CHAT_COMPLETION_PARAMS,
  OPENAI_COMPLETION_PARAMS,
  OPENAI_EMBEDDING_PARAMS,
  OPENAI_IMAGE_EDIT_PARAMS,
  OPENAI_IMAGE_GENERATION_PARAMS,
  OPENAI_MODERATION_PARAMS,
  OPENAI_RESPONSES_COMPACT_PARAMS,
  OPENAI_RESPONSES_INPUT_TOKENS_PARAMS,
  OPENAI_RESPONSES_PARAMS,
  OPENAI_SPEECH_PARAMS,
  OPENAI_TRANSCRIPTION_PARAMS,
} from './openai.params';
import { asWebSocketUrl, keyHeaders, rootOf } from '../lib/upstream-target';
import { passThroughUrl } from '../lib/pass-through-url';
import { OPENAI_PRICES } from './openai.prices';
import { OPENAI_PASS_THROUGH_RESOURCES } from './openai.pass-through-resources';

const DEFAULT_API_BASE = 'https://api.openai.com/v1';

/**
 * OpenAI and every OpenAI-compatible server (`api_base`: vLLM, Ollama, Groq, …): the request
 * passes through with only `model` replaced, the answer's bytes are not touched.
 */
export const openAiAdapter: ProviderAdapter = {
  provider: 'openai',
  operations: {
    chat: { params: OPENAI_CHAT_COMPLETION_PARAMS, unknownParams: 'forwarded', call: (call) => callOpenAi(call, '/chat/completions') },
    completions: { params: OPENAI_COMPLETION_PARAMS, unknownParams: 'forwarded', call: (call) => callOpenAi(call, '/completions') },
    embeddings: { params: OPENAI_EMBEDDING_PARAMS, unknownParams: 'forwarded', call: (call) => callOpenAi(call, '/embeddings') },
    responses: { params: OPENAI_RESPONSES_PARAMS, unknownParams: 'forwarded', call: (call) => callOpenAi(call, '/responses') },
    responses_compact: { params: OPENAI_RESPONSES_COMPACT_PARAMS, unknownParams: 'forwarded', call: (call) => callOpenAi(call, '/responses/compact') },
    responses_input_tokens: { params: OPENAI_RESPONSES_INPUT_TOKENS_PARAMS, unknownParams: 'forwarded', call: (call) => callOpenAi(call, '/responses/input_tokens') },
    image_generation: { params: OPENAI_IMAGE_GENERATION_PARAMS, unknownParams: 'forwarded', call: (call) => callOpenAi(call, '/images/generations') },
    image_edit: { params: OPENAI_IMAGE_EDIT_PARAMS, unknownParams: 'forwarded', call: (call) => callOpenAi(call, '/images/edits', true) },
    audio_transcription: { params: OPENAI_TRANSCRIPTION_PARAMS, unknownParams: 'forwarded', call: (call) => callOpenAi(call, '/audio/transcriptions', true) },
    audio_speech: { params: OPENAI_SPEECH_PARAMS, unknownParams: 'forwarded', call: (call) => callOpenAi(call, '/audio/speech') },
    // Moderations are OpenAI's own: no other provider offers the endpoint.
    moderation: { params: OPENAI_MODERATION_PARAMS, unknownParams: 'forwarded', call: (call) => callOpenAi(call, '/moderations') },
  },
  settings: { params: ['api_base', 'api_key', 'organization'], env: { api_key: 'OPENAI_API_KEY', api_base: 'OPENAI_API_BASE', organization: 'OPENAI_ORGANIZATION' } },
  prices: OPENAI_PRICES,
  batchPriceFactor: 0.5,
  litellm: { providerNames: ['text-completion-openai'], precedence: 1 },
  // `/openai/v1/…` → `{api_base without /v1}/v1/…`, the key as a bearer token.
  passThrough: {
    route: 'openai',
    target: (deployment, path, search) => ({ url: passThroughUrl(rootOf(deployment.apiBase ?? DEFAULT_API_BASE), path, search), headers: keyHeaders('bearer', deployment.apiKey) }),
    // A batch's output file: one {custom_id, response: {status_code, body}} line per request.
    resources: OPENAI_PASS_THROUGH_RESOURCES,
    batchResults: { path: /^\/v1\/files\/[^/]+\/content$/ },
  },
  // wss://api.openai.com/v1/realtime?model=<model>
  realtime: {
    target: (deployment) => {
      const url = asWebSocketUrl(endpointUrl(deployment.apiBase ?? DEFAULT_API_BASE, '/realtime'));
      url.searchParams.set('model', deployment.model);
      return { url, headers: keyHeaders('bearer', deployment.apiKey) };
    },
  },
  resources: (deployment, path) => ({
    // Not through endpointUrl's cache: resource paths carry ids, each seen a few times at most.
    url: new URL(`${versioned(deployment.apiBase ?? DEFAULT_API_BASE)}${path}`),
    headers: deployment.apiKey ? { authorization: `Bearer ${deployment.apiKey}` } : ({} as Record<string, string>),
  }),
};

function callOpenAi(call: ProviderCall, path: string, multipart = false): Promise<ProviderAnswer> {
  const { deployment } = call;
  const headers: Record<string, string> = {};
  if (deployment.apiKey) headers['authorization'] = `Bearer ${deployment.apiKey}`;
  // LiteLLM's `organization`: which of the key's OpenAI organizations is billed.
  const organization = deployment.params?.['organization'];
  if (organization) headers['openai-organization'] = organization;
  const url = endpointUrl(deployment.apiBase ?? DEFAULT_API_BASE, path);
  return multipart ? sendOpenAiMultipart(call, url, headers, { model: deployment.model }) : sendOpenAiShaped(call, url, headers, { model: deployment.model });
}

/**
 * POSTs an OpenAI-format body to an OpenAI-shaped endpoint (OpenAI, Azure OpenAI, compatible servers)
 * with `replace` merged over it, and hands the answer over untouched; errors become ProviderError.
 */
export async function sendOpenAiShaped(call: ProviderCall, url: URL, authHeaders: Record<string, string>, replace: Record<string, unknown>): Promise<ProviderAnswer> {
  const stream = call.body['stream'] === true;
  const response = await sendUpstream({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json', ...authHeaders },
    body: Buffer.from(JSON.stringify({ ...call.body, ...replace })),
    signal: call.signal,
    timeoutMs: call.deployment.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
  });
  return openAiAnswer(response, stream);
}

/**
 * POSTs a multipart request (its text fields and the files the gateway spooled, `replace` merged
 * over them) to an OpenAI-shaped endpoint, the files streamed from disk; the answer as sendOpenAiShaped's.
 */
export async function sendOpenAiMultipart(call: ProviderCall, url: URL, authHeaders: Record<string, string>, replace: Record<string, string>): Promise<ProviderAnswer> {
  // Multipart fields are text: `stream=true`.
  const stream = call.body['stream'] === 'true' || call.body['stream'] === true;
  const upload = multipartUpload(call.body, replace);
  const response = await sendUpstream({
    url,
    method: 'POST',
    headers: { 'content-type': upload.contentType, 'content-length': String(upload.contentLength), accept: stream ? 'text/event-stream' : 'application/json', ...authHeaders },
    body: upload.body,
    signal: call.signal,
    timeoutMs: call.deployment.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
  });
  return openAiAnswer(response, stream);
}

/** A 2xx answer handed over untouched (its own content type: JSON, SSE, text, audio); anything else a ProviderError. */
async function openAiAnswer(response: UpstreamResponse, stream: boolean): Promise<ProviderAnswer> {
  if (response.statusCode >= 200 && response.statusCode < 300) {
    const contentType = response.headers['content-type'];
    return {
      status: response.statusCode,
      headers: response.headers,
      contentType: typeof contentType === 'string' ? contentType : stream ? 'text/event-stream' : 'application/json',
      body: response.body,
    };
  }
  throw await openAiErrorFrom(response);
}

/** An api_base with its version segment (`/v1` added when it names none). */
function versioned(apiBase: string): string {
  const base = apiBase.replace(/\/+$/, '');
  return /\/v\d+$/.test(base) ? base : `${base}/v1`;
}

const endpoints = new Map<string, URL>();

/** `https://host/v1` + `/chat/completions`; an `api_base` without `/v1` (vLLM, Ollama docs) gets it added. Worked out once per deployment and path. */
export function endpointUrl(apiBase: string, path: string): URL {
  const known = endpoints.get(apiBase + path);
  if (known) return known;
  const url = new URL(`${versioned(apiBase)}${path}`);
  if (endpoints.size >= 1024) endpoints.clear();
  endpoints.set(apiBase + path, url);
  return url;
}

const STATUSES_KEPT = new Set([400, 401, 403, 404, 408, 409, 413, 422, 429, 500, 502, 503, 504]);

/** An OpenAI error answer as ProviderError: same status, same envelope fields, Retry-After kept. */
export async function openAiErrorFrom(response: UpstreamResponse): Promise<ProviderError> {
  const status = response.statusCode;
  const text = await readBody(response.body, 65_536).catch(() => '');
  let error: { message?: unknown; type?: unknown; param?: unknown; code?: unknown } = {};
  try {
    const parsed = JSON.parse(text) as { error?: typeof error };
    if (parsed && typeof parsed.error === 'object' && parsed.error !== null) error = parsed.error;
  } catch {
    // Not JSON (a proxy's HTML page, say): the status alone says what happened.
  }
  const headers: Record<string, string> = {};
  const retryAfter = response.headers['retry-after'];
  if (typeof retryAfter === 'string') headers['retry-after'] = retryAfter;
  return new ProviderError(
    STATUSES_KEPT.has(status) ? status : status >= 500 ? 502 : 400,
    typeof error.type === 'string' ? error.type : status >= 500 ? 'server_error' : 'invalid_request_error',
    typeof error.message === 'string' ? error.message : `The upstream answered ${status}.`,
    typeof error.code === 'string' ? error.code : typeof error.code === 'number' ? String(error.code) : null,
    typeof error.param === 'string' ? error.param : null,
    headers,
  );
}

import { z } from 'zod';
import { embeddingList, embeddingTexts, estimatedTokens } from '../lib/embeddings';
import { readJsonAnswer } from '../lib/json-answer';
import type { ProviderAdapter, ProviderAnswer, ProviderCall } from '../lib/provider-adapter';
import type { ProviderError } from '../lib/provider-error';
import { jsonBody } from '../lib/sse';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, readBody, sendUpstream, type UpstreamResponse } from '../lib/upstream-http';
import { anthropicApiError, anthropicError } from '../anthropic/anthropic.error';
import { serveChatOverMessages } from '../anthropic/anthropic.adapter';
import { ANTHROPIC_CHAT_PARAMS, ANTHROPIC_COUNT_TOKENS_PARAMS, ANTHROPIC_MESSAGES_PARAMS, knownBetas } from '../anthropic/anthropic.params';
import { ANTHROPIC_PRICES } from '../anthropic/anthropic.prices';
import { geminiErrorOf, serveGenerateContent } from '../gemini/gemini.adapter';
import { geminiError } from '../gemini/gemini.error';
import { GEMINI_CHAT_PARAMS } from '../gemini/gemini.params';
import { GEMINI_PRICES } from '../gemini/gemini.prices';
import { toGenerateContentRequest } from '../gemini/gemini.request';
import { messagesThroughChat } from '../messages-chat/messages-bridge';
import { toAnthropicRequest } from '../messages-chat/chat-to-messages.request';
import { toChatRequest as messagesToChat } from '../messages-chat/messages-to-chat.request';
import { OPENAI_RESPONSES_INPUT_TOKENS_PARAMS } from '../openai/openai.params';
import { toChatRequest as responsesToChat } from '../responses-chat/responses-to-chat.request';
import { vertexRequestAuth } from './vertex-ai.auth';

/** The `anthropic_version` Claude on Vertex AI requires in the body. */
const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/**
 * Google Vertex AI (`vertex_ai/gemini-2.5-flash`, `vertex_ai/claude-sonnet-4-5@20250929`,
 * `vertex_ai/text-embedding-005`): Gemini through generateContent (the gemini adapter's
 * translation), Claude through rawPredict / streamRawPredict (Anthropic's Messages: passed
 * through for /v1/messages, translated for chat completions), embeddings through predict; a
 * bearer token from google-auth-library (vertex-ai.auth.ts). The chat parameters a deployment
 * honours are its model family's (`paramsFor`).
 */
export const vertexAiAdapter: ProviderAdapter = {
  provider: 'vertex_ai',
  // vertex_ai-language-models, vertex_ai-anthropic_models, …
  litellm: { providerNames: ['vertex_ai-*'], precedence: 5 },
  operations: {
    chat: {
      params: new Set([...GEMINI_CHAT_PARAMS, ...ANTHROPIC_CHAT_PARAMS]),
      paramsFor: (deployment) => (isClaude(deployment.model) ? ANTHROPIC_CHAT_PARAMS : GEMINI_CHAT_PARAMS),
      call: callChat,
    },
    messages: { params: ANTHROPIC_MESSAGES_PARAMS, unknownParams: 'dropped', call: callMessages },
    count_tokens: { params: ANTHROPIC_COUNT_TOKENS_PARAMS, unknownParams: 'dropped', call: countMessagesTokens },
    responses_input_tokens: { params: OPENAI_RESPONSES_INPUT_TOKENS_PARAMS, unknownParams: 'dropped', call: countResponsesInputTokens },
    embeddings: { params: new Set(['model', 'input', 'dimensions', 'encoding_format', 'input_type']), call: callEmbeddings },
  },
  settings: {
    params: ['api_base', 'vertex_project', 'vertex_location', 'vertex_credentials'],
    env: { vertex_project: 'VERTEXAI_PROJECT', vertex_location: 'VERTEXAI_LOCATION', vertex_credentials: 'VERTEXAI_CREDENTIALS' },
  },
  // Vertex AI's list prices for these models are the vendors' own.
  prices: new Map([...GEMINI_PRICES, ...ANTHROPIC_PRICES, ['text-embedding-005', { input: 0.025, output: 0 }], ['text-multilingual-embedding-002', { input: 0.025, output: 0 }]]),
};

const isClaude = (model: string) => /^claude-/.test(model);

function callChat(call: ProviderCall): Promise<ProviderAnswer> {
  const { model } = call.deployment;
  if (!isClaude(model)) return serveGenerateContent(call, (method, request) => post(call, 'google', method, request, geminiErrorOf));
  return serveChatOverMessages(call, (request) =>
    post(call, 'anthropic', request['stream'] === true ? 'streamRawPredict' : 'rawPredict', claudeBody(request), (response) => claudeErrorOf(response, anthropicError)),
  );
}

/**
 * Anthropic's Messages: passed through to Claude (the body without `model`, with Vertex's
 * `anthropic_version`; betas in the header) so prompt caching and thinking reach it as sent; on
 * Gemini, bridged through generateContent.
 */
async function callMessages(call: ProviderCall): Promise<ProviderAnswer> {
  const { deployment, body } = call;
  const stream = body['stream'] === true;
  if (!isClaude(deployment.model)) {
    return messagesThroughChat(call, callChat);
  }
  const betas = knownBetas(call);
  const response = await post(call, 'anthropic', stream ? 'streamRawPredict' : 'rawPredict', claudeBody(body), (answer) => claudeErrorOf(answer, anthropicApiError), betas);
  const contentType = response.headers['content-type'];
  return {
    status: response.statusCode,
    headers: response.headers,
    contentType: typeof contentType === 'string' ? contentType : stream ? 'text/event-stream' : 'application/json',
    body: response.body,
  };
}

function claudeBody(request: Record<string, unknown>): Record<string, unknown> {
  const { model: _model, ...rest } = request;
  return { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...rest };
}

const countTokensAnswer = z.object({ totalTokens: z.number() });
const claudeCountAnswer = z.object({ input_tokens: z.number() });

/**
 * Anthropic's POST /v1/messages/count_tokens counted by the model's own tokenizer: Claude's
 * count-tokens:rawPredict (the request as sent, the model in the body), Gemini's countTokens
 * (the generateContent request the chat bridge would send).
 */
function countMessagesTokens(call: ProviderCall): Promise<ProviderAnswer> {
  const { deployment, body } = call;
  if (isClaude(deployment.model)) return countClaudeTokens(call, body, (tokens) => ({ input_tokens: tokens }));
  return countGeminiTokens(call, messagesToChat({ ...body, max_tokens: 1 }), (tokens) => ({ input_tokens: tokens }));
}

/** OpenAI's POST /v1/responses/input_tokens, counted as the request the Responses bridge would send. */
function countResponsesInputTokens(call: ProviderCall): Promise<ProviderAnswer> {
  const { deployment, body } = call;
  const chat = responsesToChat(body, { provider: deployment.provider, dropParams: true });
  const answer = (tokens: number) => ({ object: 'response.input_tokens', input_tokens: tokens });
  if (!isClaude(deployment.model)) return countGeminiTokens(call, chat, answer);
  const { messages, system, tools } = toAnthropicRequest(chat, deployment.model);
  return countClaudeTokens(call, { messages, ...(system !== undefined ? { system } : {}), ...(tools !== undefined ? { tools } : {}) }, answer);
}

async function countClaudeTokens(call: ProviderCall, request: Record<string, unknown>, answer: (tokens: number) => Record<string, unknown>): Promise<ProviderAnswer> {
  const response = await post(
    call,
    'anthropic',
    'rawPredict',
    { ...request, model: call.deployment.model },
    (failed) => claudeErrorOf(failed, anthropicApiError),
    knownBetas(call),
    'count-tokens',
  );
  const counted = await readJsonAnswer(response, claudeCountAnswer, 'Vertex AI');
  return { status: 200, headers: response.headers, contentType: 'application/json', body: jsonBody(answer(counted.input_tokens)) };
}

async function countGeminiTokens(call: ProviderCall, chat: Record<string, unknown>, answer: (tokens: number) => Record<string, unknown>): Promise<ProviderAnswer> {
  const { contents, systemInstruction, tools } = toGenerateContentRequest(chat);
  const request = { contents, ...(systemInstruction ? { systemInstruction } : {}), ...(tools ? { tools } : {}) };
  const response = await post(call, 'google', 'countTokens', request, geminiErrorOf);
  const counted = await readJsonAnswer(response, countTokensAnswer, 'Vertex AI');
  return { status: 200, headers: response.headers, contentType: 'application/json', body: jsonBody(answer(counted.totalTokens)) };
}

const predictAnswer = z.object({
  predictions: z.array(z.object({ embeddings: z.object({ values: z.array(z.number()), statistics: z.object({ token_count: z.number().optional() }).optional() }) })),
});

const TASK_TYPES = new Set([
  'RETRIEVAL_QUERY',
  'RETRIEVAL_DOCUMENT',
  'SEMANTIC_SIMILARITY',
  'CLASSIFICATION',
  'CLUSTERING',
  'QUESTION_ANSWERING',
  'FACT_VERIFICATION',
  'CODE_RETRIEVAL_QUERY',
]);

/** Text embeddings through predict: one instance a text, `dimensions` as outputDimensionality, `input_type` as the task type. */
async function callEmbeddings(call: ProviderCall): Promise<ProviderAnswer> {
  const { body, deployment } = call;
  const texts = embeddingTexts(body['input'], 'Vertex AI');
  const taskType = typeof body['input_type'] === 'string' && TASK_TYPES.has(body['input_type'].toUpperCase()) ? body['input_type'].toUpperCase() : undefined;
  const dimensions = body['dimensions'];
  const request = {
    instances: texts.map((content) => ({ content, ...(taskType ? { task_type: taskType } : {}) })),
    ...(typeof dimensions === 'number' ? { parameters: { outputDimensionality: dimensions } } : {}),
  };
  const response = await post(call, 'google', 'predict', request, geminiErrorOf);
  const answer = await readJsonAnswer(response, predictAnswer, 'Vertex AI');
  const counted = answer.predictions.map((prediction) => prediction.embeddings.statistics?.token_count);
  const tokens = counted.every((count) => count !== undefined) ? counted.reduce<number>((sum, count) => sum + (count ?? 0), 0) : estimatedTokens(texts);
  const vectors = answer.predictions.map((prediction) => prediction.embeddings.values);
  return { status: 200, headers: response.headers, contentType: 'application/json', body: jsonBody(embeddingList(vectors, body, deployment.model, tokens)) };
}

/** POSTs to `…/publishers/{publisher}/models/{model}:{method}` with the deployment's bearer token; a non-2xx answer rejects. */
async function post(
  call: ProviderCall,
  publisher: 'google' | 'anthropic',
  method: string,
  request: unknown,
  errorOf: (response: UpstreamResponse) => Promise<ProviderError>,
  betas: string[] = [],
  /** The model in the URL: the deployment's, or Claude's `count-tokens` endpoint. */
  urlModel = call.deployment.model,
): Promise<UpstreamResponse> {
  const { deployment } = call;
  const { url, authorization } = await vertexRequestAuth(deployment, (project, location) => {
    const host = deployment.apiBase?.replace(/\/+$/, '') ?? (location === 'global' ? 'https://aiplatform.googleapis.com' : `https://${location}-aiplatform.googleapis.com`);
    return new URL(
      `${host}/v1/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(location)}/publishers/${publisher}/models/${encodeURIComponent(urlModel)}:${method}`,
    );
  });
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization };
  if (betas.length > 0) headers['anthropic-beta'] = betas.join(',');
  const response = await sendUpstream({
    url,
    method: 'POST',
    headers,
    body: Buffer.from(JSON.stringify(request)),
    signal: call.signal,
    timeoutMs: deployment.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
  });
  if (response.statusCode >= 200 && response.statusCode < 300) return response;
  throw await errorOf(response);
}

/** Claude on Vertex answers model errors in Anthropic's shape, and Google's own (quota, auth) in Google's. */
async function claudeErrorOf(response: UpstreamResponse, anthropicMapping: (status: number, body: string, retryAfter?: string) => ProviderError): Promise<ProviderError> {
  const text = await readBody(response.body, 65_536).catch(() => '');
  const retryAfter = typeof response.headers['retry-after'] === 'string' ? response.headers['retry-after'] : undefined;
  let anthropicShaped = false;
  try {
    anthropicShaped = (JSON.parse(text) as { type?: unknown }).type === 'error';
  } catch {
    // not JSON: the status decides, in Anthropic's terms
    anthropicShaped = true;
  }
  return anthropicShaped ? anthropicMapping(response.statusCode, text, retryAfter) : geminiError(response.statusCode, text, retryAfter);
}

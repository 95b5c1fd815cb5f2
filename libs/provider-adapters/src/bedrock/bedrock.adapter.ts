import { z } from 'zod';
import { embeddingList, embeddingTexts } from '../lib/embeddings';
import { readJsonAnswer } from '../lib/json-answer';
import { chunksFromTool, completionFromTool, responseFormatAsTool } from '../lib/response-format-tool';
import type { ProviderAdapter, ProviderAnswer, ProviderCall } from '../lib/provider-adapter';
import { ProviderError } from '../lib/provider-error';
import { openAiEventStream, jsonBody } from '../lib/sse';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, readBody, sendUpstream, type UpstreamResponse } from '../lib/upstream-http';
import { ANTHROPIC_COUNT_TOKENS_PARAMS, ANTHROPIC_MESSAGES_PARAMS, knownBetas } from '../anthropic/anthropic.params';
import { OPENAI_RESPONSES_INPUT_TOKENS_PARAMS } from '../openai/openai.params';
import { countMessagesTokens, countResponsesInputTokens } from './bedrock.count-tokens';
import { messagesThroughChat } from '../messages-chat/messages-bridge';
import { BEDROCK_SETTINGS, bedrockAuth } from './bedrock.auth';
import { converseResponse, toChatCompletion, toConverseRequest } from './bedrock.converse';
import { embeddingFamilyOf, embeddingRequests, embeddingVectors } from './bedrock.embeddings';
import { bedrockError } from './bedrock.error';
import { readBedrockEvents } from './bedrock.event-stream';
import { BEDROCK_ANTHROPIC_VERSION, BEDROCK_CHAT_PARAMS, BEDROCK_EMBEDDING_PARAMS } from './bedrock.params';
import { BEDROCK_PRICES } from './bedrock.prices';
import { toAnthropicSse, toChatCompletionChunks } from './bedrock.stream';

/**
 * AWS Bedrock Runtime (`bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0`, inference profiles
 * `bedrock/us.anthropic…`, ARNs): chat completions through Converse and ConverseStream for every
 * model family Bedrock hosts, embeddings through InvokeModel (Titan, Cohere), and Anthropic's
 * Messages natively on Claude (InvokeModel with `anthropic_version`), bridged through Converse on
 * the others. Every request is signed with SigV4 (bedrock.auth.ts).
 */
export const bedrockAdapter: ProviderAdapter = {
  provider: 'bedrock',
  litellm: { providerNames: ['bedrock_converse'], precedence: 6 },
  operations: {
    chat: { params: BEDROCK_CHAT_PARAMS, call: callConverse },
    embeddings: { params: BEDROCK_EMBEDDING_PARAMS, call: callEmbeddings },
    messages: { params: ANTHROPIC_MESSAGES_PARAMS, unknownParams: 'dropped', call: callMessages },
    count_tokens: { params: ANTHROPIC_COUNT_TOKENS_PARAMS, unknownParams: 'dropped', call: countMessagesTokens(post, claudeInvokeBody, isClaude) },
    responses_input_tokens: { params: OPENAI_RESPONSES_INPUT_TOKENS_PARAMS, unknownParams: 'dropped', call: countResponsesInputTokens(post) },
  },
  settings: {
    params: BEDROCK_SETTINGS,
    env: { aws_region_name: 'AWS_REGION', api_key: 'AWS_BEARER_TOKEN_BEDROCK' },
    required: { aws_region_name: 'the AWS region, e.g. us-east-1; or set AWS_REGION' },
  },
  prices: BEDROCK_PRICES,
};

async function callConverse(call: ProviderCall): Promise<ProviderAnswer> {
  const { deployment } = call;
  const stream = call.body['stream'] === true;
  // response_format as a tool whose input is the answer: Converse has no JSON output of its own for every model.
  const { body, tool } = responseFormatAsTool(call.body, (message) => new ProviderError(400, 'invalid_request_error', message, 'invalid_value', 'response_format'));
  const response = await post(call, stream ? 'converse-stream' : 'converse', toConverseRequest(body));
  const created = Math.floor(Date.now() / 1000);
  if (stream) {
    const includeUsage = (body['stream_options'] as { include_usage?: unknown } | undefined)?.include_usage === true;
    const chunks = chunksFromTool(toChatCompletionChunks(readBedrockEvents(response.body), deployment.model, created, includeUsage), tool);
    return { status: 200, headers: response.headers, contentType: 'text/event-stream', body: openAiEventStream(chunks) };
  }
  const answer = await readJsonAnswer(response, converseResponse, 'Bedrock');
  return { status: 200, headers: response.headers, contentType: 'application/json', body: jsonBody(completionFromTool(toChatCompletion(answer, deployment.model, created), tool)) };
}

async function callEmbeddings(call: ProviderCall): Promise<ProviderAnswer> {
  const { deployment, body } = call;
  const family = embeddingFamilyOf(deployment.model);
  const texts = embeddingTexts(body['input'], 'Bedrock');
  const vectors: number[][] = [];
  let tokens = 0;
  let headers: UpstreamResponse['headers'] = {};
  // Titan embeds one text a call: in turn, so that a list does not become a burst against the account's quota.
  for (const request of embeddingRequests(family, texts, body)) {
    const response = await post(call, 'invoke', request);
    headers = response.headers;
    tokens += Number(response.headers['x-amzn-bedrock-input-token-count'] ?? 0) || 0;
    vectors.push(...embeddingVectors(family, await readJsonAnswer(response, z.unknown(), 'Bedrock')));
  }
  return { status: 200, headers, contentType: 'application/json', body: jsonBody(embeddingList(vectors, body, deployment.model, tokens)) };
}

/**
 * Anthropic's Messages: passed through to Claude (InvokeModel, claudeInvokeBody), so prompt
 * caching and thinking reach it as sent; on other model families, bridged through Converse.
 */
async function callMessages(call: ProviderCall): Promise<ProviderAnswer> {
  const { deployment, body } = call;
  const stream = body['stream'] === true;
  if (!isClaude(deployment.model)) {
    return messagesThroughChat(call, callConverse);
  }
  const response = await post(call, stream ? 'invoke-with-response-stream' : 'invoke', claudeInvokeBody(call));
  if (stream) return { status: 200, headers: response.headers, contentType: 'text/event-stream', body: toAnthropicSse(readBedrockEvents(response.body)) };
  return { status: 200, headers: response.headers, contentType: 'application/json', body: response.body };
}

function isClaude(model: string): boolean {
  return /(^|\.)anthropic\.claude/.test(model);
}

/** Claude's InvokeModel body: the Messages body without `model` and `stream`, with Bedrock's `anthropic_version` and the client's known betas. */
function claudeInvokeBody(call: ProviderCall): Record<string, unknown> {
  const { model: _model, stream: _stream, ...rest } = call.body;
  const betas = knownBetas(call);
  return { anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...(betas.length > 0 ? { anthropic_beta: betas } : {}), ...rest };
}

/** POSTs a signed JSON request to `/model/{modelId}/{action}`; a non-2xx answer rejects with the mapped ProviderError. */
async function post(call: ProviderCall, action: string, request: unknown, modelId = call.deployment.model): Promise<UpstreamResponse> {
  const { deployment } = call;
  const { endpoint, authorize } = bedrockAuth(deployment);
  const url = new URL(`${endpoint}/model/${encodeURIComponent(modelId)}/${action}`);
  const payload = Buffer.from(JSON.stringify(request));
  const streamed = action.endsWith('stream');
  const headers = await authorize(url, { 'content-type': 'application/json', accept: streamed ? 'application/vnd.amazon.eventstream' : 'application/json' }, payload);
  const response = await sendUpstream({ url, method: 'POST', headers, body: payload, signal: call.signal, timeoutMs: deployment.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS });
  const status = response.statusCode;
  if (status >= 200 && status < 300) return response;
  const errorType = response.headers['x-amzn-errortype'];
  const retryAfter = response.headers['retry-after'];
  throw bedrockError(
    status,
    typeof errorType === 'string' ? errorType : undefined,
    await readBody(response.body, 65_536).catch(() => ''),
    typeof retryAfter === 'string' ? retryAfter : undefined,
  );
}

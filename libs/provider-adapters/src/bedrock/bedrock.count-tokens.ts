import { z } from 'zod';
import { readJsonAnswer } from '../lib/json-answer';
import type { ProviderAnswer, ProviderCall } from '../lib/provider-adapter';
import { jsonBody } from '../lib/sse';
import type { UpstreamResponse } from '../lib/upstream-http';
import { toChatRequest as messagesToChat } from '../messages-chat/messages-to-chat.request';
import { toChatRequest as responsesToChat } from '../responses-chat/responses-to-chat.request';
import { toConverseRequest } from './bedrock.converse';

/** POSTs a signed request to `/model/{modelId}/{action}` (the adapter's own `post`), for the model id given. */
export type BedrockPost = (call: ProviderCall, action: string, request: unknown, modelId?: string) => Promise<UpstreamResponse>;

const countTokensAnswer = z.object({ inputTokens: z.number() });

// CountTokens takes foundation-model ids, not cross-region inference profiles (`us.anthropic…`).
const INFERENCE_PROFILE_PREFIX = /^(us|eu|apac|jp|au|us-gov|global)\./;

/**
 * Anthropic's POST /v1/messages/count_tokens through Bedrock's CountTokens: Claude counts the
 * InvokeModel body it would get (so cache markers and tools count as they would), other models
 * the Converse request the chat bridge would send.
 */
export function countMessagesTokens(post: BedrockPost, claudeBody: (call: ProviderCall) => Record<string, unknown>, isClaude: (model: string) => boolean) {
  return (call: ProviderCall): Promise<ProviderAnswer> => {
    // max_tokens does not count; the bodies it is counted as require one.
    const counted = { ...call, body: { ...call.body, max_tokens: 1 } };
    const input = isClaude(call.deployment.model)
      ? { invokeModel: { body: Buffer.from(JSON.stringify(claudeBody(counted))).toString('base64') } }
      : { converse: converseInput(messagesToChat(counted.body)) };
    return countTokens(post, call, input, (tokens) => ({ input_tokens: tokens }));
  };
}

/** OpenAI's POST /v1/responses/input_tokens through CountTokens, as the Converse request the Responses bridge would send. */
export function countResponsesInputTokens(post: BedrockPost) {
  return (call: ProviderCall): Promise<ProviderAnswer> => {
    const chat = responsesToChat(call.body, { provider: call.deployment.provider, dropParams: true });
    return countTokens(post, call, { converse: converseInput(chat) }, (tokens) => ({ object: 'response.input_tokens', input_tokens: tokens }));
  };
}

/** What of a Converse request CountTokens counts: the messages, the system prompt and the tools. */
function converseInput(chat: Record<string, unknown>): Record<string, unknown> {
  const { messages, system, toolConfig } = toConverseRequest(chat);
  return { messages, ...(system ? { system } : {}), ...(toolConfig ? { toolConfig } : {}) };
}

async function countTokens(post: BedrockPost, call: ProviderCall, input: Record<string, unknown>, answer: (tokens: number) => Record<string, unknown>): Promise<ProviderAnswer> {
  const response = await post(call, 'count-tokens', { input }, call.deployment.model.replace(INFERENCE_PROFILE_PREFIX, ''));
  const counted = await readJsonAnswer(response, countTokensAnswer, 'Bedrock');
  return { status: 200, headers: response.headers, contentType: 'application/json', body: jsonBody(answer(counted.inputTokens)) };
}

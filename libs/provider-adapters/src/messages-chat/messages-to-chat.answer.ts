import type { ResponseFormatTool } from './chat-to-messages.request';
import type { AnthropicBlock, AnthropicMessage, AnthropicUsage } from './messages.wire';

export type { AnthropicBlock, AnthropicMessage, AnthropicUsage } from './messages.wire';

const FINISH_REASONS: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

export function finishReasonFor(stopReason: string | null | undefined): string {
  return (stopReason && FINISH_REASONS[stopReason]) || 'stop';
}

/**
 * Anthropic counts cache reads and writes apart from input_tokens; OpenAI-format counts them all as
 * prompt tokens, reads as cached_tokens. Writes cost more than input, so, as LiteLLM does, they
 * are also reported as cache_creation_input_tokens (and reads as cache_read_input_tokens), and,
 * when some went to the one-hour cache (dearer still), split by lifetime in
 * prompt_tokens_details.cache_creation_token_details.
 */
export function openAiUsage(usage: AnthropicUsage): Record<string, unknown> {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  const promptTokens = (usage.input_tokens ?? 0) + cacheWrite + cacheRead;
  const completionTokens = usage.output_tokens ?? 0;
  const oneHourWrites = usage.cache_creation?.ephemeral_1h_input_tokens ?? 0;
  const promptDetails: Record<string, unknown> = { cached_tokens: cacheRead };
  if (oneHourWrites > 0) {
    promptDetails['cache_creation_tokens'] = cacheWrite;
    promptDetails['cache_creation_token_details'] = {
      ephemeral_5m_input_tokens: usage.cache_creation?.ephemeral_5m_input_tokens ?? cacheWrite - oneHourWrites,
      ephemeral_1h_input_tokens: oneHourWrites,
    };
  }
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: promptDetails,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
  };
}

/** A thinking or redacted_thinking block in LiteLLM's thinking_blocks shape. */
export function thinkingBlockOf(block: AnthropicBlock): Record<string, unknown> {
  if (block.type === 'redacted_thinking') return { type: 'redacted_thinking', data: block.data ?? '' };
  return { type: 'thinking', thinking: block.thinking ?? '', signature: block.signature ?? '' };
}

/**
 * A Messages API answer as an OpenAI-format chat.completion. `jsonTool`: the tool that carried the
 * request's response_format; its call, when Claude made it, is the message content (as JSON text),
 * not a tool call, and the answer stops as any other.
 */
export function toChatCompletion(message: AnthropicMessage, model: string, created: number, jsonTool?: ResponseFormatTool): Record<string, unknown> {
  const json = jsonTool ? message.content.find((block) => block.type === 'tool_use' && block.name === jsonTool.name) : undefined;
  if (json)
    message = {
      ...message,
      content: message.content.filter((block) => block !== json && block.type !== 'text'),
      stop_reason: message.stop_reason === 'tool_use' ? 'end_turn' : message.stop_reason,
    };
  const text = json
    ? JSON.stringify(json.input ?? {})
    : message.content
        .filter((block) => block.type === 'text')
        .map((block) => block.text ?? '')
        .join('');
  const thinking = message.content
    .filter((block) => block.type === 'thinking')
    .map((block) => block.thinking ?? '')
    .join('');
  const toolCalls = message.content
    .filter((block) => block.type === 'tool_use')
    .map((block) => ({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } }));
  const reply: Record<string, unknown> = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text, refusal: null };
  if (thinking !== '') reply['reasoning_content'] = thinking;
  const thinkingBlocks = message.content.filter((block) => block.type === 'thinking' || block.type === 'redacted_thinking').map(thinkingBlockOf);
  // As LiteLLM returns them: the client sends them back with the tool results, and Anthropic requires that.
  if (thinkingBlocks.length > 0) reply['thinking_blocks'] = thinkingBlocks;
  if (toolCalls.length > 0) reply['tool_calls'] = toolCalls;
  return {
    id: message.id,
    object: 'chat.completion',
    created,
    model,
    choices: [{ index: 0, message: reply, logprobs: null, finish_reason: finishReasonFor(message.stop_reason) }],
    usage: openAiUsage(message.usage),
  };
}

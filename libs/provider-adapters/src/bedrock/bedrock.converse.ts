import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { mapParameters } from '../lib/parameter-map';
import { ProviderError } from '../lib/provider-error';
import { BEDROCK_CHAT_PARAMETERS } from './bedrock.params';

// Converse's wire format (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html), the subset written and read here.
type ContentBlock =
  | { text: string }
  | { image: { format: string; source: { bytes: string } } }
  | { document: { format: string; name: string; source: { bytes: string } } }
  | { toolUse: { toolUseId: string; name: string; input: unknown } }
  | { toolResult: { toolUseId: string; content: { text: string }[] } }
  | { reasoningContent: { reasoningText: { text: string; signature?: string } } };

interface ConverseMessage {
  role: 'user' | 'assistant';
  content: ContentBlock[];
}

export interface ConverseRequest {
  messages: ConverseMessage[];
  system?: { text: string }[];
  inferenceConfig?: Record<string, unknown>;
  toolConfig?: { tools: { toolSpec: { name: string; description?: string; inputSchema: { json: unknown } } }[]; toolChoice?: Record<string, unknown> };
  additionalModelRequestFields?: Record<string, unknown>;
  guardrailConfig?: unknown;
  performanceConfig?: unknown;
}

interface ChatMessage {
  role?: unknown;
  content?: unknown;
  tool_calls?: { id?: unknown; function?: { name?: unknown; arguments?: unknown } }[];
  tool_call_id?: unknown;
  thinking_blocks?: { type?: unknown; thinking?: unknown; signature?: unknown }[];
}

const invalid = (message: string, param = 'messages') => new ProviderError(400, 'invalid_request_error', message, 'invalid_value', param);

// Claude's thinking budgets for reasoning_effort, as the Anthropic adapter sets them.
const THINKING_BUDGETS: Record<string, number> = { minimal: 1024, low: 1024, medium: 2048, high: 4096 };

/** An OpenAI-format chat-completion body as a Converse (or ConverseStream) request. */
export function toConverseRequest(body: Record<string, unknown>): ConverseRequest {
  if (!Array.isArray(body['messages'])) throw invalid('messages must be a list of messages.');
  const request = mapParameters(body, BEDROCK_CHAT_PARAMETERS, { messages: [] }) as unknown as ConverseRequest;
  const system: { text: string }[] = [];
  for (const message of body['messages'] as ChatMessage[]) {
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...textBlocks(message.content));
        break;
      case 'user':
        append(request.messages, 'user', userBlocks(message.content));
        break;
      case 'assistant': {
        const blocks: ContentBlock[] = [];
        for (const block of message.thinking_blocks ?? []) {
          if (block.type === 'thinking' && typeof block.thinking === 'string') {
            blocks.push({ reasoningContent: { reasoningText: { text: block.thinking, ...(typeof block.signature === 'string' ? { signature: block.signature } : {}) } } });
          }
        }
        blocks.push(...textBlocks(message.content));
        for (const call of message.tool_calls ?? []) blocks.push(toolUseBlock(call));
        if (blocks.length > 0) append(request.messages, 'assistant', blocks);
        break;
      }
      case 'tool':
        if (typeof message.tool_call_id !== 'string') throw invalid('A tool message needs the tool_call_id it answers.');
        append(request.messages, 'user', [{ toolResult: { toolUseId: message.tool_call_id, content: textBlocks(message.content) } }]);
        break;
      default:
        throw invalid(`Bedrock takes messages of role system, developer, user, assistant and tool, not "${String(message.role)}".`);
    }
  }
  if (system.length > 0) request.system = system;
  const toolConfig = toToolConfig(body['tools'], body['tool_choice']);
  if (toolConfig) request.toolConfig = toolConfig;
  const additional = { ...(request.additionalModelRequestFields ?? {}), ...(isRecord(body['additionalModelRequestFields']) ? body['additionalModelRequestFields'] : {}) };
  const thinking = thinkingOf(body);
  if (thinking) additional['thinking'] = thinking;
  if (Object.keys(additional).length > 0) request.additionalModelRequestFields = additional;
  return request;
}

/** Converse wants turns to alternate: consecutive messages of one role (parallel tool results) become one turn. */
function append(messages: ConverseMessage[], role: ConverseMessage['role'], content: ContentBlock[]): void {
  const last = messages.at(-1);
  if (last?.role === role) last.content.push(...content);
  else messages.push({ role, content });
}

function textBlocks(content: unknown): { text: string }[] {
  if (content === undefined || content === null || content === '') return [];
  if (typeof content === 'string') return [{ text: content }];
  if (!Array.isArray(content)) throw invalid('Message content must be a string or a list of parts.');
  return content.map((part: { type?: unknown; text?: unknown; refusal?: unknown }) => {
    if (part.type === 'text' && typeof part.text === 'string') return { text: part.text };
    if (part.type === 'refusal' && typeof part.refusal === 'string') return { text: part.refusal };
    throw invalid(`Bedrock takes only text parts in system, assistant and tool messages, not "${String(part.type)}".`);
  });
}

const IMAGE_FORMATS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/jpg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' };

function userBlocks(content: unknown): ContentBlock[] {
  if (typeof content === 'string') return [{ text: content }];
  if (!Array.isArray(content)) throw invalid('Message content must be a string or a list of parts.');
  return content.map((part: { type?: unknown; text?: unknown; image_url?: { url?: unknown } | string; file?: { file_data?: unknown; filename?: unknown } }): ContentBlock => {
    if (part.type === 'text' && typeof part.text === 'string') return { text: part.text };
    if (part.type === 'image_url') {
      const url = typeof part.image_url === 'string' ? part.image_url : part.image_url?.url;
      const data = typeof url === 'string' ? /^data:([^;,]+);base64,(.*)$/s.exec(url) : null;
      const format = data ? IMAGE_FORMATS[data[1]?.toLowerCase() ?? ''] : undefined;
      if (!data || !format) throw invalid('Bedrock takes images as base64 data URLs of PNG, JPEG, GIF or WebP (data:image/png;base64,…), not links.');
      return { image: { format, source: { bytes: data[2] ?? '' } } };
    }
    if (part.type === 'file') {
      const data = typeof part.file?.file_data === 'string' ? /^data:application\/pdf;base64,(.*)$/s.exec(part.file.file_data) : null;
      if (!data) throw invalid('Bedrock takes files as base64 PDF data URLs (data:application/pdf;base64,…).');
      // Converse allows letters, digits, spaces, hyphens, parentheses and brackets in a document name.
      const name = (typeof part.file?.filename === 'string' ? part.file.filename : 'document').replace(/\.pdf$/i, '').replace(/[^A-Za-z0-9 ()[\]-]/g, '-') || 'document';
      return { document: { format: 'pdf', name, source: { bytes: data[1] ?? '' } } };
    }
    throw invalid(`Bedrock takes text, image_url and file parts in user messages, not "${String(part.type)}".`);
  });
}

function toolUseBlock(call: { id?: unknown; function?: { name?: unknown; arguments?: unknown } }): ContentBlock {
  if (typeof call.id !== 'string' || typeof call.function?.name !== 'string') throw invalid('A tool call needs an id and a function name.');
  let input: unknown = {};
  const args = call.function.arguments;
  if (typeof args === 'string' && args.trim() !== '') {
    try {
      input = JSON.parse(args);
    } catch {
      throw invalid(`The arguments of tool call ${call.id} are not JSON.`);
    }
  }
  return { toolUse: { toolUseId: call.id, name: call.function.name, input } };
}

function toToolConfig(tools: unknown, choice: unknown): ConverseRequest['toolConfig'] | undefined {
  if (tools == null) return undefined;
  if (!Array.isArray(tools)) throw invalid('tools must be a list.', 'tools');
  // Converse cannot turn tools off for one call: "none" sends none.
  if (choice === 'none') return undefined;
  const specs = tools.map((tool: { type?: unknown; function?: { name?: unknown; description?: unknown; parameters?: unknown } }) => {
    if (tool.type !== 'function' || typeof tool.function?.name !== 'string') throw invalid('Bedrock takes function tools only.', 'tools');
    return {
      toolSpec: {
        name: tool.function.name,
        ...(typeof tool.function.description === 'string' ? { description: tool.function.description } : {}),
        inputSchema: { json: tool.function.parameters ?? { type: 'object', properties: {} } },
      },
    };
  });
  const config: NonNullable<ConverseRequest['toolConfig']> = { tools: specs };
  if (choice === 'auto') config.toolChoice = { auto: {} };
  else if (choice === 'required') config.toolChoice = { any: {} };
  else if (isRecord(choice) && isRecord(choice['function']) && typeof choice['function']['name'] === 'string') config.toolChoice = { tool: { name: choice['function']['name'] } };
  else if (choice != null) throw invalid('tool_choice must be none, auto, required or a function.', 'tool_choice');
  return config;
}

/** Anthropic's own `thinking` wins; else a reasoning_effort budget (Claude on Bedrock reads it from additionalModelRequestFields). */
function thinkingOf(body: Record<string, unknown>): Record<string, unknown> | undefined {
  if (isRecord(body['thinking'])) return body['thinking'];
  const effort = body['reasoning_effort'];
  const budget = typeof effort === 'string' ? THINKING_BUDGETS[effort] : undefined;
  return budget === undefined ? undefined : { type: 'enabled', budget_tokens: budget };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// The answer.
const usageSchema = z.object({
  inputTokens: z.number().optional(),
  outputTokens: z.number().optional(),
  totalTokens: z.number().optional(),
  cacheReadInputTokens: z.number().optional(),
  cacheWriteInputTokens: z.number().optional(),
});
export type ConverseUsage = z.infer<typeof usageSchema>;

const answerBlock = z.object({
  text: z.string().optional(),
  toolUse: z.object({ toolUseId: z.string(), name: z.string(), input: z.unknown() }).optional(),
  reasoningContent: z.object({ reasoningText: z.object({ text: z.string(), signature: z.string().optional() }).optional(), redactedContent: z.string().optional() }).optional(),
});

export const converseResponse = z.object({
  output: z.object({ message: z.object({ role: z.string(), content: z.array(answerBlock) }).optional() }),
  stopReason: z.string(),
  usage: usageSchema.optional(),
});
export type ConverseResponse = z.infer<typeof converseResponse>;

/** Converse's stopReason in OpenAI-format terms. */
export function finishReasonFor(stopReason: string | undefined): string | null {
  switch (stopReason) {
    case undefined:
      return null;
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content_filter';
    default:
      return 'stop';
  }
}

/** Bedrock's input tokens leave cache reads and writes out; OpenAI-format's prompt tokens hold them. */
export function openAiUsage(usage: ConverseUsage | undefined): Record<string, unknown> {
  const read = usage?.cacheReadInputTokens ?? 0;
  const written = usage?.cacheWriteInputTokens ?? 0;
  const prompt = (usage?.inputTokens ?? 0) + read + written;
  const completion = usage?.outputTokens ?? 0;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: read },
    ...(written > 0 || read > 0 ? { cache_creation_input_tokens: written, cache_read_input_tokens: read } : {}),
  };
}

export function chatCompletionId(): string {
  return `chatcmpl-${randomUUID().replaceAll('-', '')}`;
}

type ThinkingBlock = { type: string; thinking?: string; signature?: string; data?: string };

/** A Converse answer as an OpenAI-format chat.completion. */
export function toChatCompletion(response: ConverseResponse, model: string, created: number): Record<string, unknown> {
  const blocks = response.output.message?.content ?? [];
  const text = blocks.map((block) => block.text ?? '').join('');
  const toolCalls = blocks.flatMap((block) =>
    block.toolUse ? [{ id: block.toolUse.toolUseId, type: 'function', function: { name: block.toolUse.name, arguments: JSON.stringify(block.toolUse.input ?? {}) } }] : [],
  );
  const thinking = blocks.flatMap((block): ThinkingBlock[] =>
    block.reasoningContent?.reasoningText
      ? [{ type: 'thinking', thinking: block.reasoningContent.reasoningText.text, signature: block.reasoningContent.reasoningText.signature ?? '' }]
      : block.reasoningContent?.redactedContent !== undefined
        ? [{ type: 'redacted_thinking', data: block.reasoningContent.redactedContent }]
        : [],
  );
  const reasoning = thinking.map((block) => block.thinking ?? '').join('');
  return {
    id: chatCompletionId(),
    object: 'chat.completion',
    created,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text === '' && toolCalls.length > 0 ? null : text,
          refusal: null,
          ...(reasoning !== '' ? { reasoning_content: reasoning } : {}),
          ...(thinking.length > 0 ? { thinking_blocks: thinking } : {}),
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: finishReasonFor(response.stopReason),
      },
    ],
    usage: openAiUsage(response.usage),
  };
}

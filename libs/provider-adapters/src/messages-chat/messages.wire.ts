import { z } from 'zod';

// Anthropic's Messages request as the bridge reads it (unknown fields pass, loose where Anthropic
// adds members often; what the translation needs is checked).

const cacheControl = z.object({ type: z.string(), ttl: z.string().optional() }).loose();

export const textBlock = z.object({ type: z.literal('text'), text: z.string(), cache_control: cacheControl.nullish() }).loose();

const imageSource = z.discriminatedUnion('type', [
  z.object({ type: z.literal('base64'), media_type: z.string(), data: z.string() }).loose(),
  z.object({ type: z.literal('url'), url: z.string() }).loose(),
]);

const documentSource = z.discriminatedUnion('type', [
  z.object({ type: z.literal('base64'), media_type: z.string(), data: z.string() }).loose(),
  z.object({ type: z.literal('url'), url: z.string() }).loose(),
  z.object({ type: z.literal('text'), media_type: z.string().optional(), data: z.string() }).loose(),
]);

const imageBlock = z.object({ type: z.literal('image'), source: imageSource }).loose();
const documentBlock = z.object({ type: z.literal('document'), source: documentSource, title: z.string().nullish() }).loose();
const toolUseBlock = z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }).loose();
const toolResultBlock = z
  .object({
    type: z.literal('tool_result'),
    tool_use_id: z.string(),
    content: z.union([z.string(), z.array(z.union([textBlock, imageBlock, documentBlock]))]).optional(),
    is_error: z.boolean().optional(),
  })
  .loose();
const thinkingBlock = z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string().optional() }).loose();
const redactedThinkingBlock = z.object({ type: z.literal('redacted_thinking'), data: z.string() }).loose();

// A search Anthropic's web search server tool ran, sent back in the assistant turn that made it.
const serverToolUseBlock = z.object({ type: z.literal('server_tool_use'), id: z.string(), name: z.string(), input: z.unknown() }).loose();
const webSearchToolResultBlock = z.object({ type: z.literal('web_search_tool_result'), tool_use_id: z.string(), content: z.unknown() }).loose();

export const contentBlock = z.discriminatedUnion('type', [
  textBlock,
  imageBlock,
  documentBlock,
  toolUseBlock,
  toolResultBlock,
  thinkingBlock,
  redactedThinkingBlock,
  serverToolUseBlock,
  webSearchToolResultBlock,
]);
export type ContentBlock = z.infer<typeof contentBlock>;

// `system` turns: instructions amid the conversation (Claude Code sends its environment so).
export const messageParam = z.object({ role: z.enum(['user', 'assistant', 'system']), content: z.union([z.string(), z.array(contentBlock)]) });

const customTool = z
  .object({ name: z.string(), description: z.string().optional(), input_schema: z.record(z.string(), z.unknown()), type: z.literal('custom').optional() })
  .loose();
/** A tool Anthropic runs itself (`web_search_20250305`, `code_execution_…`), named by its versioned type. */
const serverTool = z.object({ type: z.string().refine((type) => type !== 'custom'), name: z.string() }).loose();
export type ServerTool = z.infer<typeof serverTool>;

export const messagesRequest = z
  .object({
    model: z.string(),
    max_tokens: z.number().int().positive(),
    messages: z.array(messageParam),
    system: z.union([z.string(), z.array(textBlock)]).optional(),
    stop_sequences: z.array(z.string()).optional(),
    stream: z.boolean().optional(),
    temperature: z.number().optional(),
    top_p: z.number().optional(),
    metadata: z.object({ user_id: z.string().nullish() }).loose().optional(),
    tools: z.array(z.union([customTool, serverTool])).optional(),
    tool_choice: z
      .discriminatedUnion('type', [
        z.object({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }),
        z.object({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }),
        z.object({ type: z.literal('tool'), name: z.string(), disable_parallel_tool_use: z.boolean().optional() }),
        z.object({ type: z.literal('none') }),
      ])
      .optional(),
    thinking: z
      .discriminatedUnion('type', [
        z.object({ type: z.literal('enabled'), budget_tokens: z.number().int() }).loose(),
        z.object({ type: z.literal('disabled') }).loose(),
        z.object({ type: z.literal('adaptive') }).loose(),
      ])
      .optional(),
    output_config: z
      .object({
        effort: z.enum(['low', 'medium', 'high', 'max']).optional(),
        format: z
          .object({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()) })
          .loose()
          .nullish(),
      })
      .loose()
      .optional(),
    context_management: z
      .object({ edits: z.array(z.object({ type: z.string() }).loose()).optional() })
      .loose()
      .optional(),
  })
  .loose();
export type MessagesRequest = z.infer<typeof messagesRequest>;

// Anthropic's Messages answer and stream events as the chat translation reads them.

const anthropicUsage = z
  .object({
    input_tokens: z.number().optional(),
    output_tokens: z.number().optional(),
    cache_creation_input_tokens: z.number().nullish(),
    cache_read_input_tokens: z.number().nullish(),
    /** The cache writes by lifetime: a one-hour write costs more than a five-minute one. */
    cache_creation: z.object({ ephemeral_5m_input_tokens: z.number().nullish(), ephemeral_1h_input_tokens: z.number().nullish() }).loose().nullish(),
  })
  .loose();
export type AnthropicUsage = z.infer<typeof anthropicUsage>;

const anthropicBlock = z
  .object({
    type: z.string(),
    text: z.string().optional(),
    thinking: z.string().optional(),
    signature: z.string().optional(),
    /** redacted_thinking: encrypted thinking, to be sent back as it is. */
    data: z.string().optional(),
    id: z.string().optional(),
    name: z.string().optional(),
    input: z.unknown().optional(),
  })
  .loose();
export type AnthropicBlock = z.infer<typeof anthropicBlock>;

export const anthropicMessage = z.object({ id: z.string(), content: z.array(anthropicBlock), stop_reason: z.string().nullable(), usage: anthropicUsage }).loose();
export type AnthropicMessage = z.infer<typeof anthropicMessage>;

export const anthropicStreamEvent = z
  .object({
    type: z.string(),
    message: z.object({ id: z.string().optional(), usage: anthropicUsage.optional() }).loose().optional(),
    index: z.number().optional(),
    content_block: anthropicBlock.optional(),
    delta: z
      .object({
        type: z.string().optional(),
        text: z.string().optional(),
        thinking: z.string().optional(),
        signature: z.string().optional(),
        partial_json: z.string().optional(),
        stop_reason: z.string().nullish(),
      })
      .loose()
      .optional(),
    usage: anthropicUsage.optional(),
  })
  .loose();

/** The Messages answer the bridge writes (and the SDKs read). */
export interface MessagesAnswer {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: Record<string, unknown>[];
  stop_reason: string | null;
  stop_sequence: string | null;
  usage: MessagesUsage;
}

export interface MessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

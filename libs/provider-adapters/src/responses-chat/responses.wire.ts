import { z } from 'zod';

// OpenAI's Responses API request as the bridge reads it (unknown fields pass; what the translation
// needs is checked). Items without a `type` are messages, as the API reads them.

const inputText = z.object({ type: z.literal('input_text'), text: z.string() }).loose();
const outputText = z.object({ type: z.literal('output_text'), text: z.string() }).loose();
const refusal = z.object({ type: z.literal('refusal'), refusal: z.string() }).loose();
const inputImage = z.object({ type: z.literal('input_image'), image_url: z.string().nullish(), file_id: z.string().nullish(), detail: z.string().nullish() }).loose();
const inputFile = z
  .object({ type: z.literal('input_file'), file_data: z.string().nullish(), file_id: z.string().nullish(), file_url: z.string().nullish(), filename: z.string().nullish() })
  .loose();

export const contentPart = z.discriminatedUnion('type', [inputText, outputText, refusal, inputImage, inputFile]);
export type ContentPart = z.infer<typeof contentPart>;

const message = z
  .object({
    type: z.literal('message').optional(),
    role: z.enum(['user', 'assistant', 'system', 'developer']),
    content: z.union([z.string(), z.array(contentPart)]),
  })
  .loose();
const functionCall = z.object({ type: z.literal('function_call'), call_id: z.string(), name: z.string(), arguments: z.string(), namespace: z.string().nullish() }).loose();
const functionCallOutput = z.object({ type: z.literal('function_call_output'), call_id: z.string(), output: z.union([z.string(), z.array(contentPart)]) }).loose();
const reasoning = z.object({ type: z.literal('reasoning') }).loose();
const compaction = z.object({ type: z.literal('compaction'), encrypted_content: z.string() }).loose();
const customToolCall = z.object({ type: z.literal('custom_tool_call'), call_id: z.string(), name: z.string(), input: z.string(), namespace: z.string().nullish() }).loose();
const customToolCallOutput = z.object({ type: z.literal('custom_tool_call_output'), call_id: z.string(), output: z.union([z.string(), z.array(contentPart)]) }).loose();
const KNOWN_ITEMS = new Set(['message', 'function_call', 'function_call_output', 'reasoning', 'compaction', 'custom_tool_call', 'custom_tool_call_output']);
/** Any other item (built-in tool calls, item references): named in the refusal. */
const otherItem = z.object({ type: z.string().refine((type) => !KNOWN_ITEMS.has(type)) }).loose();

export const inputItem = z.union([message, functionCall, functionCallOutput, reasoning, compaction, customToolCall, customToolCallOutput, otherItem]);
export type InputItem = z.infer<typeof inputItem>;

const functionTool = z
  .object({
    type: z.literal('function'),
    name: z.string(),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
    strict: z.boolean().nullish(),
  })
  .loose();
export const tool = z.union([functionTool, z.object({ type: z.string() }).loose()]);

const toolChoice = z.union([
  z.enum(['auto', 'none', 'required']),
  z.object({ type: z.enum(['function', 'custom']), name: z.string(), namespace: z.string().nullish() }).loose(),
  z.object({ type: z.string() }).loose(),
]);

const textFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }).loose(),
  z.object({ type: z.literal('json_object') }).loose(),
  z
    .object({ type: z.literal('json_schema'), name: z.string(), schema: z.record(z.string(), z.unknown()), description: z.string().nullish(), strict: z.boolean().nullish() })
    .loose(),
]);

export const responsesRequest = z
  .object({
    model: z.string(),
    input: z.union([z.string(), z.array(inputItem)]).optional(),
    instructions: z.string().nullish(),
    tools: z.array(tool).optional(),
    tool_choice: toolChoice.optional(),
    parallel_tool_calls: z.boolean().nullish(),
    text: z
      .object({ format: textFormat.optional(), verbosity: z.enum(['low', 'medium', 'high']).nullish() })
      .loose()
      .nullish(),
    reasoning: z.object({ effort: z.string().nullish(), summary: z.string().nullish() }).loose().nullish(),
    max_output_tokens: z.number().int().positive().nullish(),
    temperature: z.number().nullish(),
    top_p: z.number().nullish(),
    stream: z.boolean().nullish(),
    user: z.string().nullish(),
    safety_identifier: z.string().nullish(),
    prompt_cache_key: z.string().nullish(),
    service_tier: z.string().nullish(),
    top_logprobs: z.number().int().nullish(),
    metadata: z.record(z.string(), z.string()).nullish(),
  })
  .loose();
export type ResponsesRequest = z.infer<typeof responsesRequest>;

/** The Responses answer the bridge writes (the response object, as the SDKs read it). */
export type ResponseObject = Record<string, unknown> & {
  id: string;
  object: 'response';
  status: 'completed' | 'incomplete' | 'in_progress' | 'failed' | 'queued' | 'cancelled';
  output: OutputItem[];
  usage: ResponsesUsage | null;
};

export type OutputItem = Record<string, unknown> & { id: string; type: string };

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

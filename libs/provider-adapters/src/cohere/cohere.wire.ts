import { z } from 'zod';
import { chatToolCall as toolCall } from '../lib/chat.wire';

// Cohere's chat v2 (POST /v2/chat) as the adapter reads it: the answer, its stream events, errors.

/** `billed_units` is what Cohere charges; `tokens` what the model saw (with Cohere's own preamble). */
export const cohereUsage = z
  .object({
    billed_units: z.object({ input_tokens: z.number().optional(), output_tokens: z.number().optional() }).loose().optional(),
    tokens: z.object({ input_tokens: z.number().optional(), output_tokens: z.number().optional() }).loose().optional(),
  })
  .loose();
export type CohereUsage = z.infer<typeof cohereUsage>;

export const cohereChatResponse = z
  .object({
    id: z.string().optional(),
    finish_reason: z.string().optional(),
    message: z
      .object({
        content: z.array(z.object({ type: z.string(), text: z.string().optional(), thinking: z.string().optional() }).loose()).optional(),
        tool_plan: z.string().optional(),
        tool_calls: z.array(toolCall).optional(),
      })
      .loose(),
    usage: cohereUsage.optional(),
  })
  .loose();
export type CohereChatResponse = z.infer<typeof cohereChatResponse>;

/** One event of a v2 chat stream, told apart by `type` (message-start, content-delta, tool-call-start, message-end, …). */
export const cohereStreamEvent = z
  .object({
    type: z.string(),
    id: z.string().optional(),
    index: z.number().optional(),
    delta: z
      .object({
        message: z
          .object({
            // Objects on the deltas; message-start opens them as empty lists.
            content: z.union([z.object({ text: z.string().optional(), thinking: z.string().optional() }).loose(), z.array(z.unknown())]).optional(),
            tool_plan: z.string().optional(),
            tool_calls: z.union([toolCall, z.array(z.unknown())]).optional(),
          })
          .loose()
          .optional(),
        finish_reason: z.string().optional(),
        usage: cohereUsage.optional(),
        error: z.string().optional(),
      })
      .loose()
      .optional(),
  })
  .loose();
export type CohereStreamEvent = z.infer<typeof cohereStreamEvent>;

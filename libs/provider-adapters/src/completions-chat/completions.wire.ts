import { z } from 'zod';

// OpenAI's legacy completions request (POST /v1/completions) as the chat bridge reads it.

/** `prompt`: a string, strings, or token ids (which only the model's own tokenizer can read). */
export const completionsRequest = z
  .object({
    model: z.string(),
    prompt: z.union([z.string(), z.array(z.string()), z.array(z.number()), z.array(z.array(z.number()))]).nullish(),
    suffix: z.string().nullish(),
    echo: z.boolean().nullish(),
    best_of: z.number().int().nullish(),
    logprobs: z.number().int().nullish(),
    n: z.number().int().nullish(),
    stream: z.boolean().nullish(),
  })
  .loose();
export type CompletionsRequest = z.infer<typeof completionsRequest>;

/** One choice of a text completion (or of one of its stream chunks). */
export interface CompletionChoice {
  index: number;
  text: string;
  logprobs: null;
  finish_reason: string | null;
}

/** A text completion (`object: "text_completion"`), whole or one stream chunk (OpenAI names both alike). */
export interface TextCompletion {
  id: string;
  object: 'text_completion';
  created: number;
  model: string;
  choices: CompletionChoice[];
  usage?: Record<string, unknown> | null;
}

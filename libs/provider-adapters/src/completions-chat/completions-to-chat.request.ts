import type { z } from 'zod';
import { ProviderError } from '../lib/provider-error';
import type { BridgeOptions } from '../responses-chat/responses-to-chat.request';
import { completionsRequest } from './completions.wire';

// The completions fields this translation turns into chat fields (or answers itself); any other
// (max_tokens, temperature, stop, n, seed, penalties, user, stream_options…) goes on by its own
// name, for the target's parameter list (and drop_params) to judge.
const TRANSLATED = new Set(['prompt', 'suffix', 'echo', 'best_of', 'logprobs']);

/**
 * A completions request as an OpenAI chat completion request, for deployments without a
 * completions endpoint (Claude, Gemini, Bedrock…), as LiteLLM's text-completion bridge does it:
 * the prompt as one user message. What chat cannot express (`suffix`, `logprobs`, `best_of` above
 * `n`, several prompts, token ids) is refused with 400 naming it, or dropped under drop_params;
 * `echo` is answered by the bridge (chat-to-completions.answer.ts). Throws ProviderError 400.
 */
export function toChatRequest(body: Record<string, unknown>, options: BridgeOptions): Record<string, unknown> {
  const parsed = completionsRequest.safeParse(body);
  if (!parsed.success) throw invalidRequest(parsed.error);
  const request = parsed.data;
  const chat: Record<string, unknown> = { model: request.model, messages: [{ role: 'user', content: promptText(request.prompt, options.provider) }] };
  for (const [name, value] of Object.entries(body)) if (!TRANSLATED.has(name) && value !== null) chat[name] = value;
  const unbridgeable = [
    request.suffix != null && request.suffix !== '' ? 'suffix' : undefined,
    request.logprobs != null ? 'logprobs' : undefined,
    request.best_of != null && request.best_of > (request.n ?? 1) ? 'best_of' : undefined,
  ].filter((name): name is string => name !== undefined);
  const first = unbridgeable[0];
  if (first !== undefined && !options.dropParams) {
    throw new ProviderError(
      400,
      'invalid_request_error',
      `${first} is served only by models with a native completions endpoint, and ${options.provider} has none. Remove it, or set drop_params: true to drop it.`,
      'unsupported_parameter',
      first,
    );
  }
  return chat;
}

/** The one prompt as text; several prompts, or token ids, are not a chat message. */
function promptText(prompt: z.infer<typeof completionsRequest>['prompt'], provider: string): string {
  if (prompt == null) return '';
  if (typeof prompt === 'string') return prompt;
  if (prompt.length === 1 && typeof prompt[0] === 'string') return prompt[0];
  if (prompt.length === 0) return '';
  const what = prompt.every((item) => typeof item === 'string') ? 'several prompts in one request' : 'a prompt as token ids';
  throw new ProviderError(
    400,
    'invalid_request_error',
    `${provider} models are reached through chat completions, which take one prompt as text: ${what} cannot be sent. Send one string per request.`,
    'unsupported_prompt',
    'prompt',
  );
}

function invalidRequest(error: z.ZodError): ProviderError {
  const issue = error.issues[0];
  const path = issue?.path.join('.') ?? '';
  return new ProviderError(400, 'invalid_request_error', `${path}: ${issue?.message ?? 'invalid request'}`, 'invalid_value', String(issue?.path[0] ?? '') || null);
}

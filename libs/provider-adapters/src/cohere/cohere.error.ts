import { errorTypeOfStatus, ProviderError } from '../lib/provider-error';

const CODE_BY_STATUS: Record<number, string> = { 401: 'invalid_api_key', 404: 'model_not_found', 429: 'rate_limit_exceeded' };
const CONTEXT_TOO_LONG = /too many tokens|exceeds? the (model's )?(maximum )?context|context length/i;

/**
 * A Cohere error answer (`{"id", "message"}` with the HTTP status: 400 bad request, 401 invalid
 * token, 402 billing, 404 model, 422 unprocessable, 429 rate limit, 499 cancelled, 5xx) as ProviderError.
 */
export function cohereError(httpStatus: number, text: string, retryAfter?: string): ProviderError {
  let message = `Cohere answered ${httpStatus}.`;
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed.message === 'string') message = parsed.message;
  } catch {
    // Not JSON: the status says what happened.
  }
  const status = httpStatus === 402 ? 403 : httpStatus === 422 ? 400 : httpStatus === 499 ? 408 : httpStatus >= 500 ? (httpStatus === 503 ? 503 : 500) : httpStatus;
  const code = status === 400 && CONTEXT_TOO_LONG.test(message) ? 'context_length_exceeded' : (CODE_BY_STATUS[status] ?? null);
  return new ProviderError(status, errorTypeOfStatus(status), message, code, null, status === 429 && retryAfter !== undefined ? { 'retry-after': retryAfter } : {});
}

import { ProviderError } from '../lib/provider-error';

// Anthropic's error types as OpenAI-format: status the OpenAI SDK maps to its error classes, type, code.
const ERRORS: Record<string, { status: number; type: string; code: string }> = {
  invalid_request_error: { status: 400, type: 'invalid_request_error', code: 'invalid_request_error' },
  authentication_error: { status: 401, type: 'authentication_error', code: 'invalid_api_key' },
  billing_error: { status: 403, type: 'permission_error', code: 'billing_error' },
  permission_error: { status: 403, type: 'permission_error', code: 'permission_denied' },
  not_found_error: { status: 404, type: 'invalid_request_error', code: 'model_not_found' },
  request_too_large: { status: 413, type: 'invalid_request_error', code: 'request_too_large' },
  rate_limit_error: { status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded' },
  api_error: { status: 500, type: 'server_error', code: 'api_error' },
  timeout_error: { status: 408, type: 'timeout', code: 'timeout' },
  overloaded_error: { status: 503, type: 'server_error', code: 'overloaded' },
};

const ERROR_TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

// Both of Anthropic's wordings for an input that does not fit the model's context window.
const CONTEXT_TOO_LONG = /prompt is too long|exceed context limit|context window/i;

/**
 * Anthropic's `{"type":"error","error":{"type","message"}}` (an answer body or a stream's error
 * event) as ProviderError. The error type decides (a stream error has no status of its own);
 * without one, the HTTP status does.
 */
export function anthropicError(status: number | undefined, bodyText: string, retryAfter?: string): ProviderError {
  let error: { type?: unknown; message?: unknown } = {};
  try {
    const parsed = JSON.parse(bodyText) as { error?: typeof error };
    if (typeof parsed?.error === 'object' && parsed.error !== null) error = parsed.error;
  } catch {
    // Not JSON (a proxy's HTML page, say): the status alone says what happened.
  }
  const anthropicType = typeof error.type === 'string' ? error.type : status !== undefined ? ERROR_TYPE_BY_STATUS[status] : undefined;
  const known = anthropicType !== undefined ? ERRORS[anthropicType] : undefined;
  const fallbackStatus = status === undefined || status >= 500 ? 502 : 400;
  const message = typeof error.message === 'string' ? error.message : `Anthropic answered ${status ?? 'with an error'}.`;
  const code = known?.status === 400 && CONTEXT_TOO_LONG.test(message) ? 'context_length_exceeded' : (known?.code ?? null);
  return new ProviderError(
    known?.status ?? fallbackStatus,
    known?.type ?? (fallbackStatus === 502 ? 'server_error' : 'invalid_request_error'),
    message,
    code,
    code === 'context_length_exceeded' ? 'messages' : null,
    retryAfter !== undefined ? { 'retry-after': retryAfter } : {},
  );
}

/**
 * Anthropic's error as Anthropic's own clients must see it, for calls of its own Messages API:
 * its status (529 stays 529) and its error type kept, OpenAI-format's code added (the gateway answers
 * both envelopes at once).
 */
export function anthropicApiError(status: number, bodyText: string, retryAfter?: string): ProviderError {
  const mapped = anthropicError(status, bodyText, retryAfter);
  let type: unknown;
  try {
    type = (JSON.parse(bodyText) as { error?: { type?: unknown } })?.error?.type;
  } catch {
    // Not JSON: the status says what happened.
  }
  const anthropicType = typeof type === 'string' ? type : (ERROR_TYPE_BY_STATUS[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'));
  return new ProviderError(status >= 400 && status <= 599 ? status : 502, anthropicType, mapped.message, mapped.code, mapped.param, mapped.headers);
}

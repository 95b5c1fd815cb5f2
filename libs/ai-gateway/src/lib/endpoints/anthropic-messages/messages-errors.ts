import { ProviderError } from '@arbor/provider-adapters';
import { openAiError } from '../../gateway-errors';
import type { RenderedError } from '../endpoint-codec';

// Anthropic's error types by HTTP status, as its API answers them.
const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  408: 'timeout_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  503: 'overloaded_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};
// And back: the status each of Anthropic's types stands for (a stream's error event has none of its own).
const STATUS_BY_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};
// Types whose meaning the status alone does not carry (a 403 may be about billing, a 500 an overload).
const KEPT_TYPES = new Set(['billing_error', 'overloaded_error', 'timeout_error', 'api_error']);

/** Anthropic's error type for an error: the upstream's own when Anthropic sent it, else by status. */
export function anthropicTypeOf(error: ProviderError): string {
  if (KEPT_TYPES.has(error.type)) return error.type;
  return TYPE_BY_STATUS[error.status] ?? (error.status >= 500 ? 'api_error' : 'invalid_request_error');
}

/**
 * The error envelope of Anthropic-format calls, which is OpenAI-format's at the same time:
 * `{"type":"error","error":{"type","message","param","code"}}`, so that the Anthropic SDKs
 * (reading `error.type` and `error.message`, choosing the class by status) and the OpenAI SDKs
 * (reading `error.message`, `error.code`) both raise their matching errors.
 */
export function messagesErrorBody(error: ProviderError): { type: 'error'; error: { type: string; message: string; param: string | null; code: string | null } } {
  return { type: 'error', error: { type: anthropicTypeOf(error), message: error.message, param: error.param, code: error.code } };
}

export function renderMessagesError(exception: unknown): RenderedError {
  const error = openAiError(exception);
  return { status: error.status, headers: error.headers, body: messagesErrorBody(error) };
}

/** The event that ends an Anthropic-format stream with `error`. */
export function messagesErrorEvent(error: ProviderError): string {
  return `event: error\ndata: ${JSON.stringify(messagesErrorBody(error))}\n\n`;
}

/** An `error` event an upstream sent in its stream, as the failure the metrics record. */
export function messagesErrorOf(event: { error?: unknown }): ProviderError {
  const { type, message } = (typeof event.error === 'object' && event.error !== null ? event.error : {}) as { type?: unknown; message?: unknown };
  const errorType = typeof type === 'string' ? type : 'api_error';
  return new ProviderError(STATUS_BY_TYPE[errorType] ?? 502, errorType, typeof message === 'string' ? message : 'stream error', errorType);
}

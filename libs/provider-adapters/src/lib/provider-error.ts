/** The OpenAI-format error envelope, as OpenAI and every gateway route answer it. */
export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/**
 * An upstream failure mapped to OpenAI-format: the status the client gets and the envelope fields.
 * `headers` carries what the client may act on (Retry-After).
 */
export class ProviderError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly code: string | null = null,
    readonly param: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ProviderError';
  }

  /** The OpenAI-format envelope, `type` in OpenAI's vocabulary (the specific reason stays in `code`). */
  toBody(): OpenAiErrorBody {
    return { error: { message: this.message, type: openAiErrorType(this.type), param: this.param, code: this.code } };
  }
}

/** The OpenAI-format error type of a status, as OpenAI names them (`server_error` for the rest). */
export function errorTypeOfStatus(status: number): string {
  return ERROR_TYPES_BY_STATUS[status] ?? 'server_error';
}

const ERROR_TYPES_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  408: 'timeout',
  409: 'conflict_error',
  429: 'rate_limit_error',
};

/**
 * Other vendors' and the gateway's own error types in OpenAI's words, as OpenAI's API answers:
 * `invalid_request_error` for a bad request, a bad key, an unknown model or path, a refused
 * permission (`code` says which); `rate_limit_error` for 429s; `server_error` for failures on
 * the upstream's side. OpenAI's own types (and any an OpenAI-shaped upstream sent) pass unchanged.
 */
export function openAiErrorType(type: string): string {
  return OPENAI_TYPE_OF[type] ?? type;
}

const OPENAI_TYPE_OF: Record<string, string> = {
  authentication_error: 'invalid_request_error',
  permission_error: 'invalid_request_error',
  not_found_error: 'invalid_request_error',
  conflict_error: 'invalid_request_error',
  request_too_large: 'invalid_request_error',
  billing_error: 'invalid_request_error',
  rate_limit_exceeded: 'rate_limit_error',
  api_error: 'server_error',
  overloaded_error: 'server_error',
  api_connection_error: 'server_error',
};

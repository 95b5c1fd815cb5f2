/** The family A error envelope, as OpenAI and every gateway route answer it. */
export interface FamilyAErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/**
 * An upstream failure mapped to family A: the status the client gets and the envelope fields.
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

  toBody(): FamilyAErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** The family A error type of a status, as OpenAI names them (`server_error` for the rest). */
export function familyAErrorType(status: number): string {
  return FAMILY_A_ERROR_TYPES[status] ?? 'server_error';
}

const FAMILY_A_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  408: 'timeout',
  409: 'conflict_error',
  429: 'rate_limit_error',
};

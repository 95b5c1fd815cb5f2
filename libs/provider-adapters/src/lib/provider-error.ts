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

import { HttpException } from '@nestjs/common';

/** The suite's error envelope: `{"error": {"code", "message", "details"?}}`. */
export interface ErrorEnvelope {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

/**
 * An HTTP answer of this package, in the suite's envelope. Nest's default filter sends the
 * envelope as it is; a product's own global filter sees an ordinary HttpException.
 */
export class ContractHttpError extends HttpException {
  constructor(
    status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super({ error: { code, message, ...(details ? { details } : {}) } } satisfies ErrorEnvelope, status);
    this.message = message;
    this.name = 'ContractHttpError';
  }
}

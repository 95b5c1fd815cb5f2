import { HttpException } from '@nestjs/common';

/** The JSON body of every Arbor error: a stable machine-readable code and a human message. */
export interface ErrorBody {
  error: {
    code: string;
    message: string;
    /** Extra facts a client can act on, such as the parameters that were wrong. */
    details?: Record<string, unknown>;
  };
}

/**
 * An error a client sees. Domain exceptions extend it (ProjectNotFound → 404 project_not_found);
 * the platform's exception filter renders it as ErrorBody with its headers.
 */
export class ApiError extends HttpException {
  constructor(
    status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(message, status);
    this.name = 'ApiError';
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

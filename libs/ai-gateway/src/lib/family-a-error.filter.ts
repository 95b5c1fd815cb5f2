import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { ProviderError } from '@arbor/provider-adapters';

// Nest's own HTTP exceptions (malformed JSON, say) rendered as the family A types of their status.
const TYPES_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  408: 'timeout',
  413: 'invalid_request_error',
  422: 'invalid_request_error',
  429: 'rate_limit_exceeded',
};

/**
 * Every error of the family A routes in the family A envelope {"error":{message,type,param,code}},
 * so that the official SDKs raise their matching error classes. Scoped to the gateway's
 * controllers; the platform's own routes keep the platform envelope.
 */
@Catch()
export class FamilyAErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('ai-gateway');

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    if (response.headersSent) {
      // Mid-stream failure: the status is gone; close the stream rather than hang.
      response.end();
      return;
    }
    const error = this.toProviderError(exception);
    for (const [name, value] of Object.entries(error.headers)) response.setHeader(name, value);
    response.status(error.status).json(error.toBody());
  }

  private toProviderError(exception: unknown): ProviderError {
    if (exception instanceof ProviderError) return exception;
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const body = exception.getResponse();
      const message = typeof body === 'string' ? body : String((body as { message?: unknown }).message ?? exception.message);
      return new ProviderError(status, TYPES_BY_STATUS[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error'), message);
    }
    this.logger.error({ err: exception }, 'unhandled error');
    return new ProviderError(500, 'server_error', 'The gateway failed to handle the request.');
  }
}

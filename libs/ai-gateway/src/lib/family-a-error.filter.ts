import type { ServerResponse } from 'node:http';
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request } from 'express';
import { ProviderError } from '@arbor/provider-adapters';
import type { ErrorRenderer } from '@arbor/platform';

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

const logger = new Logger('ai-gateway');

/** Any error as family A: ProviderError as it is, Nest's HTTP exceptions by status, the rest a 500 (logged, not shown). */
export function familyAError(exception: unknown): ProviderError {
  if (exception instanceof ProviderError) return exception;
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const body = exception.getResponse();
    const message = typeof body === 'string' ? body : String((body as { message?: unknown }).message ?? exception.message);
    const code = status === 413 ? 'request_too_large' : status === 400 ? 'invalid_request' : status === 404 ? 'not_found' : null;
    return new ProviderError(status, TYPES_BY_STATUS[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error'), message, code);
  }
  logger.error({ err: exception }, 'unhandled error');
  return new ProviderError(500, 'server_error', 'The gateway failed to handle the request.');
}

/**
 * Every error of the family A routes in the family A envelope {"error":{message,type,param,code}},
 * so that the official SDKs raise their matching error classes. Scoped to the gateway's
 * controllers; the platform's own routes keep the platform envelope.
 */
@Catch()
export class FamilyAErrorFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    sendFamilyAError(host.switchToHttp().getResponse<ServerResponse>(), exception);
  }
}

/** Answers with `exception` in the family A envelope; a stream already under way (status gone) is closed rather than left hanging. */
export function sendFamilyAError(response: ServerResponse, exception: unknown): void {
  if (response.headersSent) return void response.end();
  const error = familyAError(exception);
  const body = JSON.stringify(error.toBody());
  response.writeHead(error.status, { ...error.headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body);
}

// The platform's own routes and the admin API keep the platform envelope.
const PLATFORM_PATHS = /^\/(api\/|healthz$|readyz$|metrics$)/;

/**
 * For the platform's error filter: errors raised before a gateway controller runs (a malformed
 * JSON body, a body over the size limit, an unknown route) answered in family A on the family A
 * paths, so that SDKs read them as they read OpenAI's.
 */
export const renderFamilyAErrors: ErrorRenderer = (exception: unknown, request: Request) => {
  if (PLATFORM_PATHS.test(request.path)) return undefined;
  const error = familyAError(exception);
  return { status: error.status, body: error.toBody(), headers: error.headers };
};

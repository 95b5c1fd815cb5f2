import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Inject, Logger, Optional } from '@nestjs/common';
import type { Request, Response } from 'express';
import { errorFields } from '@arbor/observability';
import { excerpt } from '../input/input-rules';
import { ApiError, ErrorBody } from './api-error';

const CODES_BY_STATUS: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable_entity',
  429: 'rate_limited',
  503: 'unavailable',
};

/** A rendering of errors of the service's own, for routes whose callers expect another envelope (an OpenAI SDK, say). */
export interface RenderedError {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** Returns undefined to leave the error to the platform envelope. */
export type ErrorRenderer = (exception: unknown, request: Request) => RenderedError | undefined;

export const ERROR_RENDERER = Symbol('arbor.error-renderer');

/**
 * Renders every error as ErrorBody (unless the service's ErrorRenderer claims it): ApiError as it says, Nest's own HTTP exceptions (unknown
 * route, malformed JSON) with a code derived from the status, anything else as a 500 whose
 * details stay in the log, never in the answer.
 */
@Catch()
export class ErrorEnvelopeFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  constructor(@Optional() @Inject(ERROR_RENDERER) private readonly serviceRenderer?: ErrorRenderer) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    if (response.headersSent) return;
    const request = host.switchToHttp().getRequest<Request>();
    const { status, body, headers } = this.serviceRenderer?.(exception, request) ?? this.render(exception, request);
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    response.status(status).json(body);
  }

  private render(exception: unknown, request: Request): { status: number; body: ErrorBody; headers: Record<string, string> } {
    if (exception instanceof ApiError) {
      return { status: exception.getStatus(), body: exception.toBody(), headers: exception.headers };
    }
    // @arbor/contract's errors (its guard's 401/403/503) come in this envelope already, with their own codes and headers.
    if (exception instanceof HttpException && isEnvelope(exception.getResponse())) {
      const headers = (exception as { headers?: unknown }).headers;
      return { status: exception.getStatus(), body: exception.getResponse() as ErrorBody, headers: isStringRecord(headers) ? headers : {} };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      return {
        status,
        body: { error: { code: CODES_BY_STATUS[status] ?? `http_${status}`, message: withUrlExcerpt(messageOf(exception), request.originalUrl ?? request.url) } },
        headers: {},
      };
    }
    this.logger.error('unhandled error', { err: errorFields(exception) });
    return {
      status: HttpStatus.INTERNAL_SERVER_ERROR,
      body: { error: { code: 'internal_error', message: 'The server failed to handle the request.' } },
      headers: {},
    };
  }
}

function isEnvelope(body: unknown): body is ErrorBody {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string';
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return typeof value === 'object' && value !== null && Object.values(value).every((item) => typeof item === 'string');
}

/** The framework's own messages quote the request's URL ("Cannot GET /…"): as an excerpt, like every quote of what was sent. */
function withUrlExcerpt(message: string, url: string | undefined): string {
  if (!url) return message;
  const short = excerpt(url);
  return short === url ? message : message.split(url).join(short);
}

function messageOf(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}

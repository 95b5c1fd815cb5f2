import { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, NestMiddleware } from '@nestjs/common';
import type { LevelWithSilent } from 'pino';
import { HttpLogger, pinoHttp } from 'pino-http';
import { requestTraceContext } from '../tracing/trace-context.middleware';
import { redactHeaders, redactUrl } from './redaction';
import { RootLogger } from './root-logger';

/** Probes and scrapes: logged at debug so that `http=info` shows only real traffic. */
const QUIET_PATHS = new Set(['/metrics', '/healthz', '/readyz', '/livez']);

interface SerializedRequest {
  method?: string;
  url?: string;
  headers?: Record<string, unknown>;
  remoteAddress?: string;
}

interface SerializedResponse {
  statusCode?: number;
  headers?: Record<string, unknown>;
}

/** One line per request under target `http`, with its trace id, redacted headers and no body. */
@Injectable()
export class RequestLoggingMiddleware implements NestMiddleware<IncomingMessage, ServerResponse> {
  private readonly httpLogger: HttpLogger;

  constructor(root: RootLogger) {
    this.httpLogger = pinoHttp({
      logger: root.pino,
      customLogLevel: (request, response, error): LevelWithSilent => {
        const level = error || response.statusCode >= 500 ? 'error' : isQuiet(request) ? 'debug' : 'info';
        return root.enabled('http', level) ? level : 'silent';
      },
      customSuccessObject: (request, _response, fields) => ({ context: 'http', ...fields, ...traceFields(request) }),
      customErrorObject: (request, _response, _error, fields) => ({ context: 'http', ...fields, ...traceFields(request) }),
      serializers: {
        // pino-http hands these pino's standard serialized forms; only what we need, redacted.
        req: (request: SerializedRequest) => ({
          method: request.method,
          url: redactUrl(request.url),
          headers: redactHeaders(request.headers),
          remoteAddress: request.remoteAddress,
        }),
        res: (response: SerializedResponse) => ({ statusCode: response.statusCode, headers: redactHeaders(response.headers) }),
      },
    });
  }

  use(request: IncomingMessage, response: ServerResponse, next: () => void): void {
    this.httpLogger(request, response, next);
  }
}

function isQuiet(request: IncomingMessage): boolean {
  // Express rewrites `url` below a middleware's mount path; `originalUrl` is what the client sent.
  const url = (request as IncomingMessage & { originalUrl?: string }).originalUrl ?? request.url ?? '';
  const queryStart = url.indexOf('?');
  return QUIET_PATHS.has(queryStart < 0 ? url : url.slice(0, queryStart));
}

function traceFields(request: IncomingMessage): Record<string, string> {
  const context = requestTraceContext(request);
  return context ? { trace_id: context.traceId, span_id: context.spanId } : {};
}

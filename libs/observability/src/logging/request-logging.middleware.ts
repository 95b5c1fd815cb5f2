import { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, NestMiddleware } from '@nestjs/common';
import type { LogLineLevel } from './log-filter';
import { requestTraceContext } from '../tracing/trace-context.middleware';
import { redactHeaders, redactUrl } from './redaction';
import { RootLogger } from './root-logger';

/** Probes and scrapes: logged at debug so that `http=info` shows only real traffic. */
const QUIET_PATHS = new Set(['/metrics', '/healthz', '/readyz', '/livez']);

/**
 * One line per request under target `http`: method, URL and request headers (credentials
 * redacted), status, duration and trace id; no body and no response headers (the service's own,
 * and half the cost of a line). Written when the response has gone out (`request completed`, or
 * `request errored` for a 5xx) or the client went away first (`request aborted`); nothing is
 * built for a line the filter drops. Written here rather than with pino-http: one listener and
 * one object per request, where pino-http's child logger, serializers and four listeners were a
 * tenth of a gateway call's CPU time.
 */
@Injectable()
export class RequestLog {
  constructor(private readonly root: RootLogger) {}

  /** Logs `request` when its response closes; `startedAt` from `performance.now()`. */
  attach(request: IncomingMessage, response: ServerResponse, startedAt = performance.now()): void {
    response.once('close', () => this.write(request, response, startedAt));
  }

  private write(request: IncomingMessage, response: ServerResponse, startedAt: number): void {
    const completed = response.writableFinished;
    const level: LogLineLevel = response.statusCode >= 500 ? 'error' : isQuiet(request) ? 'debug' : 'info';
    if (!this.root.enabled('http', level)) return;
    const context = requestTraceContext(request);
    this.root.pino[level](
      {
        context: 'http',
        req: {
          method: request.method,
          url: redactUrl(originalUrl(request)),
          headers: redactHeaders(request.headers),
          remoteAddress: request.socket?.remoteAddress,
        },
        res: { statusCode: response.statusCode },
        responseTime: Math.round((performance.now() - startedAt) * 10) / 10,
        ...(context ? { trace_id: context.traceId, span_id: context.spanId } : {}),
      },
      !completed ? 'request aborted' : response.statusCode >= 500 ? 'request errored' : 'request completed',
    );
  }
}

/** The request log for every route served through Nest. */
@Injectable()
export class RequestLoggingMiddleware implements NestMiddleware<IncomingMessage, ServerResponse> {
  constructor(private readonly log: RequestLog) {}

  use(request: IncomingMessage, response: ServerResponse, next: () => void): void {
    this.log.attach(request, response);
    next();
  }
}

// Express rewrites `url` below a middleware's mount path; `originalUrl` is what the client sent.
function originalUrl(request: IncomingMessage): string | undefined {
  return (request as IncomingMessage & { originalUrl?: string }).originalUrl ?? request.url;
}

function isQuiet(request: IncomingMessage): boolean {
  const url = originalUrl(request) ?? '';
  const queryStart = url.indexOf('?');
  return QUIET_PATHS.has(queryStart < 0 ? url : url.slice(0, queryStart));
}

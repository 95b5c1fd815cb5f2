import { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, NestMiddleware } from '@nestjs/common';
import type { LogLineLevel } from './log-filter';
import { requestTraceContext } from '../tracing/trace-context.middleware';
import { ALREADY_REDACTED, redactUrl } from './redaction';
import { RootLogger } from './root-logger';

/**
 * The request headers a line carries: what tells callers and requests apart. Named, not all
 * headers redacted: credentials under names no pattern knows stay out, and SDK clients send a
 * dozen headers per request that are noise in an access log (and most of the cost of a line).
 */
const LOGGED_HEADERS = ['user-agent', 'content-type', 'content-length', 'x-request-id', 'x-forwarded-for', 'origin'] as const;

/** Probes and scrapes: logged at debug so that `http=info` shows only real traffic. */
const QUIET_PATHS = new Set(['/metrics', '/healthz', '/readyz', '/livez']);

/**
 * One line per request under target `http`: method, URL (credentials in the query redacted), a
 * few request headers (LOGGED_HEADERS), status, duration and trace id; no body, no other header. Written when the response has gone out (`request completed`, or
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

  /** The line of a request whose response has closed. */
  write(request: IncomingMessage, response: ServerResponse, startedAt: number): void {
    const { statusCode } = response;
    const level: LogLineLevel = statusCode >= 500 ? 'error' : isQuiet(request) ? 'debug' : this.root.requestLevel;
    if (!this.root.enabled('http', level)) return;
    const message = !response.writableFinished ? 'request aborted' : statusCode >= 500 ? 'request errored' : 'request completed';
    const context = requestTraceContext(request);
    const url = redactUrl(originalUrl(request));
    const responseTime = Math.round((performance.now() - startedAt) * 10) / 10;
    const remoteAddress = request.socket?.remoteAddress;
    // The same fields as the pino line below, serialised by hand: this line is written per request.
    const fieldsJson =
      `"context":"http","req":{"method":${JSON.stringify(request.method)}${url === undefined ? '' : `,"url":${JSON.stringify(url)}`}` +
      `,"headers":${loggedHeadersJson(request)}${remoteAddress === undefined ? '' : `,"remoteAddress":${JSON.stringify(remoteAddress)}`}}` +
      `,"res":{"statusCode":${statusCode}},"responseTime":${responseTime}` +
      (context ? `,"trace_id":"${context.traceId}","span_id":"${context.spanId}"` : '');
    if (this.root.writeJsonLine(level, fieldsJson, message)) return;
    this.root.pino[level](
      {
        context: 'http',
        req: { method: request.method, url, headers: loggedHeaders(request), remoteAddress },
        res: { statusCode },
        responseTime,
        ...(context ? { trace_id: context.traceId, span_id: context.spanId } : {}),
        [ALREADY_REDACTED]: true,
      },
      message,
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

function loggedHeadersJson(request: IncomingMessage): string {
  let json = '';
  for (const name of LOGGED_HEADERS) {
    const value = request.headers[name];
    if (value !== undefined) json += `${json === '' ? '' : ','}"${name}":${JSON.stringify(value)}`;
  }
  return `{${json}}`;
}

function loggedHeaders(request: IncomingMessage): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const name of LOGGED_HEADERS) {
    const value = request.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  return headers;
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

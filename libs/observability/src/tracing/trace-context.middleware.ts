import { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, NestMiddleware } from '@nestjs/common';
import { runInTraceContext, traceContextForRequest } from './trace-context';
import { TraceContext } from './traceparent';

const REQUEST_TRACE_CONTEXT = Symbol('arbor.traceContext');
type TracedRequest = IncomingMessage & { [REQUEST_TRACE_CONTEXT]?: TraceContext };

/** The trace context a request was served in (also after its handler returned, as in the request log). */
export function requestTraceContext(request: IncomingMessage): TraceContext | undefined {
  return (request as TracedRequest)[REQUEST_TRACE_CONTEXT];
}

/** Gives `request` its trace context, continued from its `traceparent` header or new. */
export function beginRequestTrace(request: IncomingMessage): TraceContext {
  const context = traceContextForRequest(request.headers.traceparent);
  (request as TracedRequest)[REQUEST_TRACE_CONTEXT] = context;
  return context;
}

/** Runs every request served through Nest in its trace context. */
@Injectable()
export class TraceContextMiddleware implements NestMiddleware<IncomingMessage, ServerResponse> {
  use(request: IncomingMessage, _response: ServerResponse, next: () => void): void {
    runInTraceContext(beginRequestTrace(request), next);
  }
}

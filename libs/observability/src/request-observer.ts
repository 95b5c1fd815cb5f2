import { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import { RequestLog } from './logging/request-logging.middleware';
import { HttpServerMetrics } from './metrics/http-metrics.middleware';
import { runInTraceContext } from './tracing/trace-context';
import { beginRequestTrace } from './tracing/trace-context.middleware';

/**
 * What the middleware gives every request served through Nest, for a request served below it
 * (a service's hot routes, see the platform's DirectRoutes): its trace context, its request log
 * line and the `http_server_request_duration_seconds` observation under `route`.
 */
@Injectable()
export class RequestObserver {
  constructor(
    private readonly log: RequestLog,
    private readonly metrics: HttpServerMetrics,
  ) {}

  /** Runs `handler` for `request` in its trace context, logged and measured as any other request. */
  serve<T>(request: IncomingMessage, response: ServerResponse, route: string, handler: () => T): T {
    const context = beginRequestTrace(request);
    const startedAt = performance.now();
    // One listener for both: this runs on every hot call.
    response.once('close', () => {
      this.log.write(request, response, startedAt);
      this.metrics.observe(request, response, route, startedAt);
    });
    return runInTraceContext(context, handler);
  }
}

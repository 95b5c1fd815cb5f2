import { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, NestMiddleware } from '@nestjs/common';
import { MetricsRegistry } from './metrics-registry';
import { HistogramSeries, SeriesHistogram } from './series-metrics';

/** Requests that matched no route share one label value, so scanners cannot blow up cardinality. */
export const UNMATCHED_ROUTE = 'unmatched';

// OpenTelemetry's HTTP duration buckets, extended for model calls that stream for minutes.
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60, 120, 300];

type RoutedRequest = IncomingMessage & { baseUrl?: string; route?: { path?: unknown } };

/** `http_server_request_duration_seconds{method,route,status_code}`, route being the matched pattern. */
@Injectable()
export class HttpServerMetrics {
  readonly duration: SeriesHistogram<'method' | 'route' | 'status_code'>;
  /**
   * By route, method and status: no key string is built per request. Bounded by the app's
   * routes (unmatched paths share one) and the methods Node's parser admits.
   */
  private readonly seriesByRoute = new Map<string, Map<string, Map<number, HistogramSeries>>>();

  constructor(registry: MetricsRegistry) {
    this.duration = new SeriesHistogram({
      name: 'http_server_request_duration_seconds',
      help: 'Duration of HTTP server requests, by method, matched route pattern and status code.',
      labelNames: ['method', 'route', 'status_code'],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    });
  }

  /** Observes `request` when its response closes ('close' follows 'finish', and also comes alone when the client goes away). */
  track(request: IncomingMessage, response: ServerResponse, route: () => string): void {
    const start = performance.now();
    response.once('close', () => this.observe(request, response, route(), start));
  }

  /** The observation of a request whose response has closed; `start` from `performance.now()`. */
  observe(request: IncomingMessage, response: ServerResponse, route: string, start: number): void {
    const method = request.method ?? 'UNKNOWN';
    const status = response.statusCode;
    let byMethod = this.seriesByRoute.get(route);
    if (!byMethod) this.seriesByRoute.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (!series) byStatus.set(status, (series = this.duration.series({ method, route, status_code: String(status) })));
    series.observe((performance.now() - start) / 1000);
  }
}

@Injectable()
export class HttpMetricsMiddleware implements NestMiddleware<IncomingMessage, ServerResponse> {
  constructor(private readonly metrics: HttpServerMetrics) {}

  use(request: IncomingMessage, response: ServerResponse, next: () => void): void {
    // Nest mounts middleware as an Express route; a request that stays on it matched no handler.
    const middlewareRoute = (request as RoutedRequest).route;
    this.metrics.track(request, response, () => routePattern(request, middlewareRoute));
    next();
  }
}

/** Nest's not-found handler under a global prefix. */
const NEST_NOT_FOUND_PATH = '*path';

/** The route pattern Express matched (`/api/v1/projects/:id`), never the raw path. */
export function routePattern(request: IncomingMessage, middlewareRoute?: unknown): string {
  const { route, baseUrl } = request as RoutedRequest;
  if (!route || route === middlewareRoute || route.path === undefined || route.path === NEST_NOT_FOUND_PATH) return UNMATCHED_ROUTE;
  return `${baseUrl ?? ''}${String(route.path)}`;
}

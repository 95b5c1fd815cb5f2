import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { once } from 'node:events';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { CounterSeries, HistogramSeries, MetricsRegistry, SeriesCounter, SeriesHistogram } from '@arbor/observability';
import { DirectRoutes, withHopByHop } from '@arbor/platform';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, passThroughHeaders, passThroughUrl, ProviderError, sendUpstream } from '@arbor/provider-adapters';
import { CallAccounting } from '../calls/call-accounting';
import { NO_USAGE } from '../calls/usage';
import type { GatewayDeployment } from '../config/gateway-config';
import type { PassThroughEndpoint } from '../config/litellm-settings';
import { OPENAI_CHAT } from '../endpoints/openai/openai-codecs';
import { sendError } from '../endpoints/endpoint-codec';
import { GatewayAuthentication } from '../gateway-key.guard';
import { GATEWAY_SETTINGS, GatewaySettings } from '../gateway-settings';
import { hasBody } from '../calls/request-body';

// The upstream's hop, and who and when it answered (this server says its own).
const HOP_HEADERS = withHopByHop('host', 'date', 'server');

/**
 * LiteLLM's `general_settings.pass_through_endpoints`: each `path` (and, with `include_subpath`,
 * what lies below it) forwarded to its `target` with the endpoint's `headers`, for any method.
 * The caller's virtual key is checked and its limits and budget apply, whatever LiteLLM's `auth`
 * says; the call counts in metrics and (at `cost_per_request`) in spend under the path as its
 * alias. Bodies pass both ways as they arrive, never buffered; a client that hangs up aborts the
 * upstream request.
 */
@Injectable()
export class ConfiguredPassThroughRoutes implements OnModuleInit {
  private readonly requests: SeriesCounter<'path' | 'status'>;
  private readonly duration: SeriesHistogram<'path'>;
  private readonly series = new Map<string, { duration: HistogramSeries; byStatus: Map<number, CounterSeries> }>();

  constructor(
    private readonly routes: DirectRoutes,
    private readonly authentication: GatewayAuthentication,
    private readonly accounting: CallAccounting,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    registry: MetricsRegistry,
  ) {
    const registers = [registry];
    this.requests = new SeriesCounter({
      name: 'arbor_aigw_pass_through_requests_total',
      help: 'Calls to pass_through_endpoints, by configured path and upstream status.',
      labelNames: ['path', 'status'],
      registers,
    });
    this.duration = new SeriesHistogram({
      name: 'arbor_aigw_pass_through_duration_seconds',
      help: 'Calls to pass_through_endpoints, first byte in to last byte out.',
      labelNames: ['path'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers,
    });
  }

  onModuleInit(): void {
    for (const endpoint of this.settings.litellm.passThroughEndpoints) {
      this.routes.add({
        route: endpoint.includeSubpath ? `${endpoint.path}/*` : endpoint.path,
        endpoints: [{ methods: ['*'], path: endpoint.includeSubpath ? `${endpoint.path === '/' ? '' : endpoint.path}/{path*}` : endpoint.path }],
        matches: (_method, path) => path === endpoint.path || (endpoint.includeSubpath && path.startsWith(`${endpoint.path === '/' ? '' : endpoint.path}/`)),
        handle: (request, response, path) => this.forward(endpoint, request, response, path),
      });
    }
  }

  private async forward(endpoint: PassThroughEndpoint, request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
    const started = performance.now();
    let status = 500;
    try {
      const caller = await this.authentication.caller(request);
      // Refuses a path that would leave the target's base before anything is counted or sent.
      const url = targetUrl(endpoint, path, request.url ?? '/');
      const admission = await this.accounting.admit(caller, undefined, undefined, request.headers);
      const abort = new AbortController();
      response.once('close', () => {
        if (!response.writableFinished) abort.abort(new Error('client disconnected'));
      });
      let failed = true;
      try {
        const upstream = await sendUpstream({
          url,
          method: request.method ?? 'GET',
          headers: forwardedHeaders(endpoint, request.headers),
          ...(hasBody(request) ? { body: request } : {}),
          signal: abort.signal,
          timeoutMs: DEFAULT_UPSTREAM_TIMEOUT_MS,
        });
        status = upstream.statusCode;
        failed = status >= 400;
        response.writeHead(status, { ...answerHeaders(upstream.headers), ...admission.rateLimitHeaders });
        for await (const chunk of upstream.body) {
          if (!response.write(chunk)) await once(response, 'drain', { signal: abort.signal });
        }
        response.end();
      } finally {
        admission.settle({ alias: endpoint.path, deployment: spendTarget(endpoint), usage: NO_USAGE, cost: failed ? 0 : endpoint.costPerRequest, failed });
      }
    } catch (error) {
      if (error instanceof ProviderError) status = error.status;
      if (!response.destroyed) sendError(OPENAI_CHAT, response, error);
    } finally {
      this.observe(endpoint.path, status, (performance.now() - started) / 1000);
    }
  }

  private observe(path: string, status: number, seconds: number): void {
    let series = this.series.get(path);
    if (!series) this.series.set(path, (series = { duration: this.duration.series({ path }), byStatus: new Map() }));
    series.duration.observe(seconds);
    let counter = series.byStatus.get(status);
    if (!counter) series.byStatus.set(status, (counter = this.requests.series({ path, status: String(status) })));
    counter.inc();
  }
}

/** `target` plus what follows `path` (with include_subpath, kept below the target's path) and the query string. */
function targetUrl(endpoint: PassThroughEndpoint, path: string, rawUrl: string): URL {
  const query = rawUrl.includes('?') ? rawUrl.slice(rawUrl.indexOf('?')) : '';
  const rest = endpoint.includeSubpath ? path.slice(endpoint.path === '/' ? 0 : endpoint.path.length) : '';
  return passThroughUrl(endpoint.target, rest, query);
}

/** The caller's headers (all of them with forward_headers, else the allow-list; never its credentials), then the endpoint's own. */
function forwardedHeaders(endpoint: PassThroughEndpoint, incoming: IncomingHttpHeaders): Record<string, string> {
  return { ...passThroughHeaders(incoming, { allHeaders: endpoint.forwardHeaders }), ...endpoint.headers };
}

function answerHeaders(upstream: IncomingHttpHeaders): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const name in upstream) {
    const value = upstream[name];
    if (value !== undefined && !HOP_HEADERS.has(name)) headers[name] = value;
  }
  return headers;
}

/** What spend records the call under: the endpoint as a deployment of its own. */
const spendTargets = new Map<string, GatewayDeployment>();

function spendTarget(endpoint: PassThroughEndpoint): GatewayDeployment {
  let target = spendTargets.get(endpoint.path);
  if (!target)
    spendTargets.set(endpoint.path, (target = { id: `pass-through:${endpoint.path}`, alias: endpoint.path, provider: 'pass-through', model: endpoint.path, modelInfo: {} }));
  return target;
}

import { Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { CounterSeries, HistogramSeries, MetricsRegistry, SeriesCounter, SeriesHistogram } from '@arbor/observability';
import type { UpstreamHealth } from '../registry/upstream-catalogue';
import { RecentToolCalls } from './recent-tool-calls';

/** How a call to an upstream ended. */
export type McpCallOutcome = 'ok' | 'tool_error' | 'error' | 'timeout' | 'unavailable' | 'cancelled';

/** What a call is counted under: each label comes from the registry or the upstream's catalogue, never from free request input. */
export interface McpCallLabels {
  /** The virtual server, or `/mcp` for the union endpoint; empty for the gateway's own calls (catalogue, health). */
  server: string;
  upstream: string;
  method: string;
  /** The tool or prompt as the upstream lists it, `(unlisted)` for a name it does not list, empty for other methods. */
  tool: string;
}

const LABELS = ['server', 'upstream', 'method', 'tool'] as const;

/**
 * The MCP gateway's Prometheus series: calls to upstreams by virtual server, upstream, method,
 * tool and outcome, their latency, each upstream's health and the open downstream sessions —
 * what an operator pages on and the dashboard summarises.
 */
@Injectable()
export class McpMetrics {
  private readonly calls: SeriesCounter<(typeof LABELS)[number] | 'outcome'>;
  private readonly duration: SeriesHistogram<(typeof LABELS)[number]>;
  private readonly series = new Map<string, { duration: HistogramSeries; outcomes: Map<McpCallOutcome, CounterSeries> }>();
  private readonly rateLimited: SeriesCounter<'server' | 'tool'>;
  private readonly rateLimitedSeries = new Map<string, CounterSeries>();
  private health: () => readonly UpstreamHealth[] = () => [];
  private sessions: () => number = () => 0;
  /** Tool calls by virtual server (or `/mcp`) and by tool over the last 24 h, for the dashboard summary and the admin UI's charts. */
  readonly recentToolCalls = new RecentToolCalls();

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.calls = new SeriesCounter({ name: 'arbor_mcpgw_calls_total', help: 'Calls forwarded to upstreams, by outcome.', labelNames: [...LABELS, 'outcome'], registers });
    this.duration = new SeriesHistogram({
      name: 'arbor_mcpgw_call_duration_seconds',
      help: 'Calls forwarded to upstreams, until the upstream answered.',
      labelNames: LABELS,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.rateLimited = new SeriesCounter({
      name: 'arbor_mcpgw_tool_rate_limited_total',
      help: "Tool calls refused by a virtual server's per-tool rate limit (tool_rate_limits), by server and tool as the limit names it.",
      labelNames: ['server', 'tool'],
      registers,
    });
    // `collect` runs on each scrape; it reads the runtime's state through the sources set below.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const metrics = this;
    new Gauge({
      name: 'arbor_mcpgw_upstream_up',
      help: 'Whether each upstream answered its last ping or call (1), is down (0) or connecting (0.5).',
      labelNames: ['upstream', 'protocol_version'],
      registers,
      collect() {
        this.reset();
        for (const health of metrics.health()) {
          this.set({ upstream: health.upstream, protocol_version: health.protocolVersion ?? '' }, health.state === 'up' ? 1 : health.state === 'down' ? 0 : 0.5);
        }
      },
    });
    new Gauge({
      name: 'arbor_mcpgw_sessions',
      help: 'Downstream sessions open (stateful Streamable HTTP, HTTP+SSE, WebSocket).',
      registers,
      collect() {
        this.set(metrics.sessions());
      },
    });
  }

  /** Where the upstreams' health is read at each scrape. */
  observeUpstreams(health: () => readonly UpstreamHealth[]): void {
    this.health = health;
  }

  /** Where the number of open downstream sessions is read at each scrape. */
  observeSessions(count: () => number): void {
    this.sessions = count;
  }

  /** A tool call a rate limit refused; `tool` is a name of the server's tool_rate_limits, so the series stay bounded. */
  recordRateLimited(server: string, tool: string): void {
    const key = `${server}\u0000${tool}`;
    let counter = this.rateLimitedSeries.get(key);
    if (!counter) {
      counter = this.rateLimited.series({ server, tool });
      this.rateLimitedSeries.set(key, counter);
    }
    counter.inc();
  }

  /** One finished call. */
  record(labels: McpCallLabels, outcome: McpCallOutcome, seconds: number): void {
    const key = `${labels.server}\u0000${labels.upstream}\u0000${labels.method}\u0000${labels.tool}`;
    let entry = this.series.get(key);
    if (!entry) {
      entry = { duration: this.duration.series({ ...labels }), outcomes: new Map() };
      this.series.set(key, entry);
    }
    let counter = entry.outcomes.get(outcome);
    if (!counter) {
      counter = this.calls.series({ ...labels, outcome });
      entry.outcomes.set(outcome, counter);
    }
    counter.inc();
    entry.duration.observe(seconds);
    if (labels.method === 'tools/call' && labels.server !== '' && outcome !== 'cancelled') this.recentToolCalls.record(labels.server, outcome !== 'ok', labels.tool, seconds);
  }
}

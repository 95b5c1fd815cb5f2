import { Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { CounterSeries, HistogramSeries, MetricsRegistry, SeriesCounter, SeriesHistogram } from '@arbor/observability';
import { RecentToolCalls } from '../metrics/recent-tool-calls';

/** How a call to an agent ended: answered, answered with an A2A error, not reached, refused by the gateway, or given up by the caller. */
export type AgentCallOutcome = 'ok' | 'error' | 'unavailable' | 'refused' | 'cancelled';

export interface AgentHealthReading {
  agent: string;
  state: 'up' | 'down' | 'connecting';
}

/**
 * The agents' series beside the MCP gateway's own: calls by agent, A2A method and outcome, their
 * duration (until the answer, or until a stream ended), the time streams stayed open, each
 * agent's health — and the last 24 h of calls per agent for the dashboard.
 */
@Injectable()
export class AgentMetrics {
  private readonly calls: SeriesCounter<'agent' | 'method' | 'outcome'>;
  private readonly duration: SeriesHistogram<'agent' | 'method'>;
  private readonly streaming: SeriesHistogram<'agent' | 'method'>;
  private readonly series = new Map<string, { duration: HistogramSeries; streaming?: HistogramSeries; outcomes: Map<AgentCallOutcome, CounterSeries> }>();
  private health: () => readonly AgentHealthReading[] = () => [];
  /** Calls and errors per agent over the last 24 h, and per A2A method hour by hour (this replica's). */
  readonly recentCalls = new RecentToolCalls();

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.calls = new SeriesCounter({
      name: 'arbor_mcpgw_agent_calls_total',
      help: 'Calls to A2A agents (proxied, or as tools), by outcome.',
      labelNames: ['agent', 'method', 'outcome'],
      registers,
    });
    this.duration = new SeriesHistogram({
      name: 'arbor_mcpgw_agent_call_duration_seconds',
      help: 'Calls to A2A agents, until the answer (a stream: until it ended).',
      labelNames: ['agent', 'method'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    });
    this.streaming = new SeriesHistogram({
      name: 'arbor_mcpgw_agent_stream_seconds',
      help: 'How long streams from A2A agents (SendStreamingMessage, SubscribeToTask) stayed open.',
      labelNames: ['agent', 'method'],
      buckets: [0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600],
      registers,
    });
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const metrics = this;
    new Gauge({
      name: 'arbor_mcpgw_agent_up',
      help: 'Whether each agent answered its last card read or call (1), is down (0) or not yet read (0.5).',
      labelNames: ['agent'],
      registers,
      collect() {
        this.reset();
        for (const reading of metrics.health()) this.set({ agent: reading.agent }, reading.state === 'up' ? 1 : reading.state === 'down' ? 0 : 0.5);
      },
    });
  }

  observeHealth(health: () => readonly AgentHealthReading[]): void {
    this.health = health;
  }

  /** One finished call; `streamSeconds` for a stream, how long it was open. */
  record(agent: string, method: string, outcome: AgentCallOutcome, seconds: number, streamSeconds?: number): void {
    const key = `${agent}\u0000${method}`;
    let entry = this.series.get(key);
    if (!entry) {
      entry = { duration: this.duration.series({ agent, method }), outcomes: new Map() };
      this.series.set(key, entry);
    }
    let counter = entry.outcomes.get(outcome);
    if (!counter) {
      counter = this.calls.series({ agent, method, outcome });
      entry.outcomes.set(outcome, counter);
    }
    counter.inc();
    entry.duration.observe(seconds);
    if (streamSeconds !== undefined) {
      entry.streaming ??= this.streaming.series({ agent, method });
      entry.streaming.observe(streamSeconds);
    }
    if (outcome !== 'cancelled') this.recentCalls.record(agent, outcome !== 'ok', method, seconds);
  }
}

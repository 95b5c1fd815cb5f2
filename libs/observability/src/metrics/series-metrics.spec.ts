import { Counter, Histogram, Registry } from 'prom-client';
import { SeriesCounter, SeriesHistogram } from './series-metrics';

const LABEL_SETS = [
  { alias: 'gpt-4o', deployment: 'gpt-4o-0', provider: 'openai' },
  { alias: 'claude', deployment: 'eu "west"\\1', provider: 'anthropic' },
  { alias: 'multi\nline', deployment: '', provider: 'azure' },
  { alias: 'gpt-4o', deployment: 'gpt-4o-1', provider: 'openai' },
];
// Includes a value on a bound, one above the last bound, zero and fractions whose sum rounds.
const VALUES = [0.004, 0.005, 0.3, 7, 120, 121, 0, 0.1, 0.2, 2.5, 59.99, 1e-9];

/** Two registries with the service label Arbor sets: prom-client's own metrics in one, ours in the other. */
function registries(): { prom: Registry; series: Registry } {
  const prom = new Registry();
  const series = new Registry();
  for (const registry of [prom, series]) registry.setDefaultLabels({ service: 'ai-gateway' });
  return { prom, series };
}

describe('SeriesCounter and SeriesHistogram', () => {
  it('print the same counter text as prom-client for the same observations', async () => {
    const { prom, series } = registries();
    const config = { name: 'arbor_calls_total', help: 'Calls, by "status"\\n.', labelNames: ['alias', 'deployment', 'provider', 'status'] as const };
    const promCounter = new Counter({ ...config, labelNames: [...config.labelNames], registers: [prom] });
    const counter = new SeriesCounter({ ...config, registers: [series] });

    VALUES.forEach((value, i) => {
      // Label sets in another order than created, and a numeric label value.
      const labels = { ...LABEL_SETS[(i * 3) % LABEL_SETS.length], status: i % 2 ? 200 : '429' };
      promCounter.inc(labels, value * 1000);
      counter.series(labels).inc(value * 1000);
      promCounter.inc(labels);
      counter.series(labels).inc();
    });

    expect(await series.metrics()).toBe(await prom.metrics());
    expect(await series.metrics()).toContain('deployment="eu \\"west\\"\\\\1"');
    expect(await series.getMetricsAsJSON()).toEqual(await prom.getMetricsAsJSON());
  });

  it('print the same histogram text as prom-client, bucket lines, sum and count included', async () => {
    const { prom, series } = registries();
    const config = { name: 'arbor_call_seconds', help: 'Call time.', labelNames: ['alias', 'deployment', 'provider'] as const, buckets: [0.005, 0.01, 0.1, 1, 2.5, 60, 120] };
    const promHistogram = new Histogram({ ...config, labelNames: [...config.labelNames], registers: [prom] });
    const histogram = new SeriesHistogram({ ...config, registers: [series] });
    const handles = LABEL_SETS.map((labels) => histogram.series(labels));

    VALUES.forEach((value, i) => {
      const set = (i * 3) % LABEL_SETS.length;
      promHistogram.observe(LABEL_SETS[set], value);
      handles[set].observe(value);
    });

    const text = await series.metrics();
    expect(text).toBe(await prom.metrics());
    expect(text).toContain('arbor_call_seconds_bucket{le="+Inf",service="ai-gateway",alias="gpt-4o",deployment="gpt-4o-0",provider="openai"} 3');
    expect(await series.getMetricsAsJSON()).toEqual(await prom.getMetricsAsJSON());
  });

  it('print series only once observed, in the order first observed, as prom-client does', async () => {
    const { prom, series } = registries();
    const promCounter = new Counter({ name: 'tokens_total', help: 'Tokens.', labelNames: ['kind'], registers: [prom] });
    const promHistogram = new Histogram({ name: 'wait_seconds', help: 'Wait.', labelNames: ['kind'], registers: [prom] });
    const counter = new SeriesCounter({ name: 'tokens_total', help: 'Tokens.', labelNames: ['kind'], registers: [series] });
    const histogram = new SeriesHistogram({ name: 'wait_seconds', help: 'Wait.', labelNames: ['kind'], registers: [series] });
    const [prompt, completion] = [counter.series({ kind: 'prompt' }), counter.series({ kind: 'completion' })];
    const [fast, slow] = [histogram.series({ kind: 'fast' }), histogram.series({ kind: 'slow' })];

    expect(await series.metrics()).toBe(await prom.metrics());
    completion.inc(0);
    promCounter.inc({ kind: 'completion' }, 0);
    prompt.inc(3);
    promCounter.inc({ kind: 'prompt' }, 3);
    slow.observe(4);
    promHistogram.observe({ kind: 'slow' }, 4);
    expect(await series.metrics()).toBe(await prom.metrics());
    expect(fast).toBe(histogram.series({ kind: 'fast' }));
  });

  it('print metrics without labels and after reset() as prom-client does', async () => {
    const { prom, series } = registries();
    const promCounter = new Counter({ name: 'restarts_total', help: 'Restarts.', registers: [prom] });
    const promHistogram = new Histogram({ name: 'gc_seconds', help: 'GC.', registers: [prom] });
    const promLabelled = new Counter({ name: 'calls_total', help: 'Calls.', labelNames: ['alias'], registers: [prom] });
    const counter = new SeriesCounter({ name: 'restarts_total', help: 'Restarts.', registers: [series] });
    const histogram = new SeriesHistogram({ name: 'gc_seconds', help: 'GC.', registers: [series] });
    const labelled = new SeriesCounter({ name: 'calls_total', help: 'Calls.', labelNames: ['alias'], registers: [series] });
    const calls = labelled.series({ alias: 'a' });
    expect(await series.metrics()).toBe(await prom.metrics());

    counter.series().inc(2);
    promCounter.inc(2);
    histogram.series().observe(0.3);
    promHistogram.observe(0.3);
    calls.inc();
    promLabelled.inc({ alias: 'a' });
    series.resetMetrics();
    prom.resetMetrics();
    expect(await series.metrics()).toBe(await prom.metrics());

    calls.inc(5);
    promLabelled.inc({ alias: 'a' }, 5);
    histogram.series().observe(1);
    promHistogram.observe(1);
    expect(await series.metrics()).toBe(await prom.metrics());
  });

  it('refuse what prom-client refuses: unknown labels when the series is resolved, bad values when recorded', () => {
    const { series } = registries();
    const counter = new SeriesCounter({ name: 'c_total', help: 'C.', labelNames: ['alias'], registers: [series] });
    const histogram = new SeriesHistogram({ name: 'h_seconds', help: 'H.', labelNames: ['alias'], registers: [series] });
    counter.series({ alias: 'a' });
    expect(() => counter.series({ alias: 'a', model: 'b' } as never)).toThrow('Added label "model" is not included in initial labelset');
    expect(() => counter.series({ alias: 'a' }).inc(-1)).toThrow('It is not possible to decrease a counter');
    expect(() => histogram.series({ alias: 'a' }).observe(Number.POSITIVE_INFINITY)).toThrow('Value is not a valid number');
    expect(() => new SeriesHistogram({ name: 'h2', help: 'H.', labelNames: ['le'], registers: [series] })).toThrow('le is a reserved label keyword');
    expect(() => new SeriesCounter({ name: 'bad-name', help: 'B.', registers: [series] })).toThrow('Invalid metric name');
    expect(() => new SeriesCounter({ name: 'c2', help: 'B.', labelNames: ['bad-label'], registers: [series] })).toThrow('Invalid label name');
    expect(() => new SeriesCounter({ name: 'c_total', help: 'Again.', registers: [series] })).toThrow('A metric with the name c_total has already been registered.');
  });
});

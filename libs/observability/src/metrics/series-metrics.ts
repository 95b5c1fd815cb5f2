import { format } from 'node:util';
import type { Metric, Registry } from 'prom-client';

// prom-client's rules (validation.js), from Prometheus's data model.
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export type SeriesLabels<L extends string> = Partial<Record<L, string | number>>;

export interface SeriesMetricConfiguration<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
  /** Required: Arbor's metrics go on the app's MetricsRegistry, never prom-client's global one. */
  registers: Registry[];
}

export interface SeriesHistogramConfiguration<L extends string> extends SeriesMetricConfiguration<L> {
  /** Upper bounds, increasing; default prom-client's. */
  buckets?: readonly number[];
}

/** One label set of a metric: what its handle records into, and what the registry prints. */
abstract class Series<L extends string> {
  private published = false;

  constructor(
    readonly labels: SeriesLabels<L>,
    private readonly publish: (series: Series<L>) => void,
  ) {}

  /** Printed from now on, even at zero; recording does this itself (prom-client prints series in the order first observed). */
  markPrinted(): void {
    if (this.published) return;
    this.published = true;
    this.publish(this);
  }

  /** Unprinted, as prom-client's `reset()` leaves a metric; each kind of series also zeroes its values. */
  clear(): void {
    this.published = false;
  }
}

/**
 * A metric whose series are resolved once per label set: `series(labels)` validates the labels
 * and finds the series, and the handle it returns records with plain arithmetic. Registered on
 * a prom-client Registry, which prints it exactly as prom-client's own metric of that type.
 */
abstract class SeriesMetric<L extends string, S extends Series<L>> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  /** For prom-client's AggregatorRegistry, as its own metrics default. */
  readonly aggregator = 'sum';
  abstract readonly type: 'counter' | 'histogram';
  private readonly sortedLabelNames: readonly L[];
  private readonly byKey = new Map<string, S>();
  /** The series observed at least once, in the order prom-client would print them. */
  protected printed: S[] = [];

  constructor(config: SeriesMetricConfiguration<L>) {
    if (!config.help) throw new Error('Missing mandatory help parameter');
    if (!config.name) throw new Error('Missing mandatory name parameter');
    if (!METRIC_NAME.test(config.name)) throw new Error('Invalid metric name');
    const labelNames = config.labelNames ?? [];
    if (!labelNames.every((label) => LABEL_NAME.test(label))) throw new Error('Invalid label name');
    this.name = config.name;
    this.help = config.help;
    this.labelNames = labelNames;
    this.sortedLabelNames = [...labelNames].sort();
    // The registry reads name, help, type and get(); prom-client's types only name its own classes.
    for (const registry of config.registers) registry.registerMetric(this as unknown as Metric);
  }

  /** The series of `labels`, the same handle each time; keep it rather than calling this per observation. */
  series(labels: SeriesLabels<L> = {}): S {
    for (const label in labels) {
      if (!this.labelNames.includes(label)) throw new Error(`Added label "${label}" is not included in initial labelset: ${format(this.labelNames)}`);
    }
    const key = this.keyOf(labels);
    let series = this.byKey.get(key);
    if (!series) {
      series = this.createSeries({ ...labels }, (published) => this.printed.push(published as S));
      this.byKey.set(key, series);
    }
    return series;
  }

  /** Every series back to zero and unprinted; handles stay valid. */
  reset(): void {
    for (const series of this.byKey.values()) series.clear();
    this.printed = [];
  }

  protected abstract createSeries(labels: SeriesLabels<L>, publish: (series: Series<L>) => void): S;

  /** prom-client's label hash (util.js hashObject): label sets that print alike are one series. */
  private keyOf(labels: SeriesLabels<L>): string {
    let key = '';
    for (const name of this.sortedLabelNames) {
      const value = labels[name];
      if (value !== undefined) key += `${name}:${value},`;
    }
    return key;
  }
}

export class CounterSeries<L extends string = string> extends Series<L> {
  value = 0;

  /** Adds `value` (default 1); throws as prom-client's Counter does on a negative or infinite value. */
  inc(value = 1): void {
    if (value && !Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${format(value)}`);
    if (value < 0) throw new Error('It is not possible to decrease a counter');
    this.value += value;
    this.markPrinted();
  }

  override clear(): void {
    super.clear();
    this.value = 0;
  }
}

/** A prom-client Counter whose series are resolved once: `counter.series({ alias }).inc()`. */
export class SeriesCounter<L extends string = string> extends SeriesMetric<L, CounterSeries<L>> {
  readonly type = 'counter';

  constructor(config: SeriesMetricConfiguration<L>) {
    super(config);
    this.reset();
  }

  /** As prom-client's Counter: a counter without labels prints 0 from the start. */
  override reset(): void {
    super.reset();
    if (this.labelNames.length === 0) this.series().markPrinted();
  }

  async get(): Promise<{ name: string; help: string; type: 'counter'; aggregator: 'sum'; values: { value: number; labels: SeriesLabels<L> }[] }> {
    const values = this.printed.map(({ value, labels }) => ({ value, labels }));
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  protected createSeries(labels: SeriesLabels<L>, publish: (series: Series<L>) => void): CounterSeries<L> {
    return new CounterSeries(labels, publish);
  }
}

const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class HistogramSeries<L extends string = string> extends Series<L> {
  sum = 0;
  count = 0;
  /** Observations per bucket (not cumulative); above the last bound only `count` grows. */
  readonly bucketCounts: number[];

  constructor(
    labels: SeriesLabels<L>,
    publish: (series: Series<L>) => void,
    private readonly upperBounds: readonly number[],
  ) {
    super(labels, publish);
    this.bucketCounts = upperBounds.map(() => 0);
  }

  /** Records `value`; throws as prom-client's Histogram does on a value that is not finite. */
  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${format(value)}`);
    const bounds = this.upperBounds;
    let bucket = 0;
    while (bucket < bounds.length && value > bounds[bucket]) bucket++;
    if (bucket < bounds.length) this.bucketCounts[bucket]++;
    this.sum += value;
    this.count++;
    this.markPrinted();
  }

  override clear(): void {
    super.clear();
    this.sum = 0;
    this.count = 0;
    this.bucketCounts.fill(0);
  }
}

/** One printed line of a histogram, in the shape prom-client's Registry reads. */
interface HistogramLine<L extends string> {
  metricName: string;
  labels: { le?: number | '+Inf' };
  sharedLabels: SeriesLabels<L>;
  value: number;
  exemplar: null | undefined;
}

/** A prom-client Histogram whose series are resolved once: `histogram.series({ alias }).observe(seconds)`. */
export class SeriesHistogram<L extends string = string> extends SeriesMetric<L, HistogramSeries<L>> {
  readonly type = 'histogram';
  readonly upperBounds: readonly number[];

  constructor(config: SeriesHistogramConfiguration<L>) {
    if (config.labelNames?.includes('le' as L)) throw new Error('le is a reserved label keyword');
    const buckets = config.buckets ?? DEFAULT_BUCKETS;
    // prom-client does not check; out of order, its buckets stop being cumulative.
    if (buckets.some((bound, i) => i > 0 && bound <= buckets[i - 1])) throw new Error('Histogram buckets must increase');
    super(config);
    this.upperBounds = [...buckets];
    // As prom-client's Histogram: one without labels prints zeros from the start (until reset()).
    if (this.labelNames.length === 0) this.series().markPrinted();
  }

  /** What the registry prints: the label set of the series is shared by its bucket, sum and count lines. */
  async getForPromString(): Promise<{ name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: HistogramLine<L>[] }> {
    const bucketName = `${this.name}_bucket`;
    const values: HistogramLine<L>[] = [];
    for (const series of this.printed) {
      const sharedLabels = series.labels;
      let cumulative = 0;
      this.upperBounds.forEach((le, i) => {
        cumulative += series.bucketCounts[i];
        values.push({ metricName: bucketName, labels: { le }, sharedLabels, value: cumulative, exemplar: null });
      });
      values.push(
        { metricName: bucketName, labels: { le: '+Inf' }, sharedLabels, value: series.count, exemplar: null },
        { metricName: `${this.name}_sum`, labels: {}, sharedLabels, value: series.sum, exemplar: undefined },
        { metricName: `${this.name}_count`, labels: {}, sharedLabels, value: series.count, exemplar: undefined },
      );
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** As prom-client's `get()`: each line's labels with the series labels merged in (for getMetricsAsJSON). */
  async get(): Promise<{ name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: Omit<HistogramLine<L>, 'sharedLabels'>[] }> {
    const data = await this.getForPromString();
    const values = data.values.map(({ sharedLabels, labels, ...line }) => ({ ...line, labels: { ...labels, ...sharedLabels } }));
    return { ...data, values };
  }

  protected createSeries(labels: SeriesLabels<L>, publish: (series: Series<L>) => void): HistogramSeries<L> {
    return new HistogramSeries(labels, publish, this.upperBounds);
  }
}

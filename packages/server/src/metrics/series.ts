/**
 * Metric families whose series are plain objects the hot path holds on to: recording is an
 * increment on a number, with no label hashing or string building per request (prom-client's
 * own children hash their labels on every observation). A family implements prom-client's
 * metric interface (name, help, type, get), so it is exposed by a prom-client Registry beside
 * the library's own metrics.
 */
import type { Registry } from 'prom-client';

/** What a prom-client Registry reads from a metric when it writes the text format. */
interface Sample {
  labels: Labels;
  value: number;
  metricName?: string;
}
interface Exposed {
  name: string;
  help: string;
  type: string;
  aggregator: string;
  values: Sample[];
}

type Labels = Record<string, string>;

/** Label names in the order client_golang writes them: sorted. */
function sortedLabels(names: readonly string[], values: readonly string[]): Labels {
  const pairs = names.map((n, i) => [n, values[i] ?? ''] as const).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const labels: Labels = {};
  for (const [n, v] of pairs) labels[n] = v;
  return labels;
}

/** Go's strconv.FormatFloat(f, 'g', -1, 64), as client_golang writes `le`: 1e+06, not 1000000. */
export function goFloat(f: number): string {
  if (f === Infinity) return '+Inf';
  if (f === 0) return '0';
  const exp = Math.floor(Math.log10(Math.abs(f)));
  if (exp < -4 || exp >= 6) {
    const [mant, e] = f.toExponential().split('e');
    const n = Number(e);
    return `${mant}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
  }
  return String(f);
}

/** A histogram's series as the text format lists them: cumulative buckets, then _sum and _count. */
function histogramSamples(name: string, le: readonly string[], series: ReadonlyArray<{ labels: Labels; counts: ArrayLike<number>; sum: number; count: number }>): Sample[] {
  const values: Sample[] = [];
  const bucketName = `${name}_bucket`;
  for (const s of series) {
    let acc = 0;
    for (let i = 0; i < le.length; i++) {
      acc += s.counts[i];
      values.push({ labels: { ...s.labels, le: le[i] }, value: acc, metricName: bucketName });
    }
    values.push({ labels: s.labels, value: s.sum, metricName: `${name}_sum` });
    values.push({ labels: s.labels, value: s.count, metricName: `${name}_count` });
  }
  return values;
}

abstract class Family<S> {
  protected series: S[] = [];
  /** How a `--workers` primary combines the workers' values (prom-client's aggregators). */
  aggregator: 'sum' | 'max' | 'first' = 'sum';
  abstract readonly type: string;
  /** Sets series values just before a scrape, for values the server already keeps (cache sizes, counters of its own). */
  collect?: () => void | Promise<void>;
  constructor(readonly name: string, readonly help: string, readonly labelNames: readonly string[]) {}

  /** Families whose value every worker sees alike (object counts, versions) are taken once, not summed. */
  aggregate(how: 'sum' | 'max' | 'first'): this {
    this.aggregator = how;
    return this;
  }

  register(registry: Registry): this {
    registry.registerMetric(this as never);
    return this;
  }

  reset(): void {
    this.series = [];
  }

  abstract get(): Promise<Exposed>;
}

export class CounterSeries {
  value = 0;
  constructor(readonly labels: Labels) {}
  inc(n = 1): void {
    this.value += n;
  }
}

export class GaugeSeries extends CounterSeries {
  dec(n = 1): void {
    this.value -= n;
  }
  set(v: number): void {
    this.value = v;
  }
}

export class Counter extends Family<CounterSeries> {
  readonly type = 'counter';
  /** A new series; the caller keeps it (the family never looks series up by labels). */
  child(...values: string[]): CounterSeries {
    const s = new CounterSeries(sortedLabels(this.labelNames, values));
    this.series.push(s);
    return s;
  }
  async get(): Promise<Exposed> {
    await this.collect?.();
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.series.map((s) => ({ labels: s.labels, value: s.value })) };
  }
}

export class Gauge extends Family<GaugeSeries> {
  readonly type = 'gauge';
  child(...values: string[]): GaugeSeries {
    const s = new GaugeSeries(sortedLabels(this.labelNames, values));
    this.series.push(s);
    return s;
  }
  async get(): Promise<Exposed> {
    await this.collect?.();
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.series.map((s) => ({ labels: s.labels, value: s.value })) };
  }
}

export class HistogramSeries {
  /** Per-bucket (not cumulative) counts; the last is +Inf. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(readonly labels: Labels, private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }
  observe(v: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && v > b[i]) i++;
    this.counts[i]++;
    this.sum += v;
    this.count++;
  }
}

export class Histogram extends Family<HistogramSeries> {
  readonly type = 'histogram';
  private readonly le: string[];
  constructor(name: string, help: string, labelNames: readonly string[], readonly buckets: readonly number[]) {
    super(name, help, labelNames);
    this.le = [...buckets.map(goFloat), '+Inf'];
  }
  child(...values: string[]): HistogramSeries {
    const s = new HistogramSeries(sortedLabels(this.labelNames, values), this.buckets);
    this.series.push(s);
    return s;
  }
  async get(): Promise<Exposed> {
    await this.collect?.();
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: histogramSamples(this.name, this.le, this.series) };
  }
}

/** client_golang's ExponentialBuckets. */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  const out: number[] = [];
  for (let i = 0, v = start; i < count; i++, v *= factor) out.push(v);
  return out;
}

/** Nanoseconds on a monotonic clock, as a double (exact for ~104 days of uptime). */
export function monotonicNanos(): number {
  return Math.round(performance.now() * 1e6);
}

/**
 * component-base's TimingRatioHistogram member: a gauge of numerator/denominator whose value
 * is observed "at the end of every nanosecond" — each bucket accumulates the nanoseconds the
 * ratio spent at or below its bound, `_count` the nanoseconds since the series was made,
 * `_sum` the time integral of the ratio (in ratio × ns). Setting it costs a clock read and
 * a bucket search, nothing allocated.
 */
export class TimingRatioSeries {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  private numerator = 0;
  private ratio = 0;
  private last: number;
  constructor(readonly labels: Labels, private readonly bounds: readonly number[], private readonly now: () => number, private denominator: number) {
    this.counts = new Float64Array(bounds.length + 1);
    this.last = now();
  }

  /** `nowNs`: a clock reading the caller already has (the family's clock), saving one. */
  set(numerator: number, nowNs?: number): void {
    this.advance(nowNs);
    this.numerator = numerator;
    this.ratio = numerator / this.denominator;
  }

  setDenominator(denominator: number): void {
    this.advance();
    this.denominator = denominator;
    this.ratio = this.numerator / denominator;
  }

  /** Accounts the time since the last change to the ratio that held during it. */
  advance(nowNs?: number): void {
    const now = nowNs ?? this.now();
    const dt = now - this.last;
    if (dt <= 0) return;
    const b = this.bounds;
    const v = this.ratio;
    let i = 0;
    while (i < b.length && v > b[i]) i++;
    this.counts[i] += dt;
    this.sum += v * dt;
    this.count += dt;
    this.last = now;
  }
}

/** A TimingRatioHistogramVec: exposed as a histogram whose observations are weighted by nanoseconds. */
export class TimingRatioHistogram extends Family<TimingRatioSeries> {
  readonly type = 'histogram';
  private readonly le: string[];
  constructor(name: string, help: string, labelNames: readonly string[], readonly buckets: readonly number[], private readonly now: () => number = monotonicNanos) {
    super(name, help, labelNames);
    this.le = [...buckets.map(goFloat), '+Inf'];
  }
  /** kube's NewForLabelValuesSafe(initialNumerator 0, initialDenominator, labels). */
  child(denominator: number, ...values: string[]): TimingRatioSeries {
    const s = new TimingRatioSeries(sortedLabels(this.labelNames, values), this.buckets, this.now, denominator);
    this.series.push(s);
    return s;
  }
  async get(): Promise<Exposed> {
    await this.collect?.();
    // As kube's Write: the time since the last change counts before the figures are read.
    for (const s of this.series) s.advance();
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: histogramSamples(this.name, this.le, this.series) };
  }
}

/**
 * kube's max-in-flight filter (--max-requests-inflight, --max-mutating-requests-inflight):
 * beyond the limit a request is answered 429 with `Retry-After: 1`, except for members of
 * system:masters, who always get an answer (kube: "a super-admin or a loopback connection").
 * Long-running requests (watches) are not counted. Limit 0 means no limit, as in kube.
 */
import type { ServerResponse } from 'node:http';
import type { TimingRatioSeries } from '../metrics/series.js';
import type { RequestKindSeries } from '../metrics/flowcontrol.js';

export interface InflightLimits {
  /** kube's default 400. */
  maxRequestsInflight: number;
  /** kube's default 200. */
  maxMutatingRequestsInflight: number;
}

export const defaultInflightLimits: InflightLimits = { maxRequestsInflight: 400, maxMutatingRequestsInflight: 200 };

const privilegedGroup = 'system:masters';

/**
 * The two kinds' counts, their per-second high-water marks (apiserver_current_inflight_requests)
 * and the slots in use as a fraction of the limit over time
 * (apiserver_flowcontrol_read_vs_write_current_requests{phase="executing"}).
 */
export class InflightLimiter {
  /** Every admitted request in flight, privileged ones over the limit included (shutdown waits for them). */
  readOnly = 0;
  mutating = 0;
  /** The most in flight since the last tick: apiserver_current_inflight_requests reports the maximum of the last second. */
  private readOnlyHigh = 0;
  private mutatingHigh = 0;
  /** Set only for a kind with a limit: kube records slots of a kind's channel, and a kind without a limit has none. */
  private readonly readOnlySlots?: TimingRatioSeries;
  private readonly mutatingSlots?: TimingRatioSeries;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly limits: InflightLimits, series: { readOnly: RequestKindSeries; mutating: RequestKindSeries }) {
    const { maxRequestsInflight: ro, maxMutatingRequestsInflight: mu } = limits;
    // kube installs no filter when both limits are 0, and then makes no flowcontrol series.
    if (ro > 0 || mu > 0) {
      const roSlots = series.readOnly.executing(ro);
      const muSlots = series.mutating.executing(mu);
      if (ro > 0) this.readOnlySlots = roSlots;
      if (mu > 0) this.mutatingSlots = muSlots;
    }
    this.timer = setInterval(() => {
      series.readOnly.inflight.set(this.readOnlyHigh);
      series.mutating.inflight.set(this.mutatingHigh);
      this.readOnlyHigh = this.slots(this.readOnly, ro);
      this.mutatingHigh = this.slots(this.mutating, mu);
    }, 1000);
    this.timer.unref();
  }

  /**
   * Slots in use, as kube's len(channel): a privileged request beyond the limit is served
   * without one, so the count never shows more than the limit.
   */
  private slots(count: number, limit: number): number {
    return limit > 0 && count > limit ? limit : count;
  }

  /**
   * false: over the limit, and the caller answers 429. `atMs`: the request's start on
   * performance.now()'s clock if the caller has it, saving a clock read (each one also
   * allocates a number).
   */
  tryAcquire(mutating: boolean, groups: readonly string[] | undefined, atMs?: number): boolean {
    if (mutating) {
      const max = this.limits.maxMutatingRequestsInflight;
      if (max > 0 && this.mutating >= max && !groups?.includes(privilegedGroup)) return false;
      const n = this.slots(++this.mutating, max);
      if (n > this.mutatingHigh) this.mutatingHigh = n;
      this.mutatingSlots?.set(n, nanos(atMs));
    } else {
      const max = this.limits.maxRequestsInflight;
      if (max > 0 && this.readOnly >= max && !groups?.includes(privilegedGroup)) return false;
      const n = this.slots(++this.readOnly, max);
      if (n > this.readOnlyHigh) this.readOnlyHigh = n;
      this.readOnlySlots?.set(n, nanos(atMs));
    }
    return true;
  }

  /** kube notes the level after a request frees its slot too: both states contribute to the sampled figures. */
  release(mutating: boolean, atMs?: number): void {
    if (mutating) this.mutatingSlots?.set(this.slots(--this.mutating, this.limits.maxMutatingRequestsInflight), nanos(atMs));
    else this.readOnlySlots?.set(this.slots(--this.readOnly, this.limits.maxRequestsInflight), nanos(atMs));
  }

  get inflight(): number {
    return this.readOnly + this.mutating;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** performance.now() milliseconds on the timing series' clock (monotonicNanos). */
function nanos(ms: number | undefined): number | undefined {
  return ms === undefined ? undefined : Math.round(ms * 1e6);
}

/** kube's tooManyRequests: plain text through http.Error, not a Status. */
export function writeTooManyRequests(res: ServerResponse): void {
  res.writeHead(429, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Retry-After': '1' });
  res.end('Too many requests, please try again later.\n');
}

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

/** How a request got in: with a slot of its kind, or privileged, beyond the limit, without one. */
export type Admission = 'slot' | 'exempt';

/**
 * The two kinds' counts, their per-second high-water marks (apiserver_current_inflight_requests)
 * and the slots in use as a fraction of the limit over time
 * (apiserver_flowcontrol_read_vs_write_current_requests{phase="executing"}).
 */
export class InflightLimiter {
  /** Requests in flight holding a slot of their kind. */
  readOnly = 0;
  mutating = 0;
  /**
   * Privileged requests that found every slot taken: kube serves them without one, so they
   * never keep another request out (shutdown still waits for them).
   */
  private exempt = 0;
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
      this.readOnlyHigh = this.readOnly;
      this.mutatingHigh = this.mutating;
    }, 1000);
    this.timer.unref();
  }

  /**
   * null: over the limit, and the caller answers 429; else how the request was admitted, to
   * hand back to release(). `atMs`: the request's start on performance.now()'s clock if the
   * caller has it, saving a clock read (each one also allocates a number).
   */
  tryAcquire(mutating: boolean, groups: readonly string[] | undefined, atMs?: number): Admission | null {
    const max = mutating ? this.limits.maxMutatingRequestsInflight : this.limits.maxRequestsInflight;
    if (max > 0 && (mutating ? this.mutating : this.readOnly) >= max) {
      if (!groups?.includes(privilegedGroup)) return null;
      this.exempt++;
      return 'exempt';
    }
    if (mutating) {
      const n = ++this.mutating;
      if (n > this.mutatingHigh) this.mutatingHigh = n;
      this.mutatingSlots?.set(n, nanos(atMs));
    } else {
      const n = ++this.readOnly;
      if (n > this.readOnlyHigh) this.readOnlyHigh = n;
      this.readOnlySlots?.set(n, nanos(atMs));
    }
    return 'slot';
  }

  release(mutating: boolean, admission: Admission, atMs?: number): void {
    if (admission === 'exempt') this.exempt--;
    else if (mutating) this.mutatingSlots?.set(--this.mutating, nanos(atMs));
    else this.readOnlySlots?.set(--this.readOnly, nanos(atMs));
  }

  get inflight(): number {
    return this.readOnly + this.mutating + this.exempt;
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

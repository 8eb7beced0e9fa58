/**
 * kube's max-in-flight filter (--max-requests-inflight, --max-mutating-requests-inflight):
 * beyond the limit a request is answered 429 with `Retry-After: 1`, except for members of
 * system:masters, who always get an answer (kube: "a super-admin or a loopback connection").
 * Long-running requests (watches) are not counted. Limit 0 means no limit, as in kube.
 */
import type { ServerResponse } from 'node:http';
import type { GaugeSeries } from '../metrics/series.js';

export interface InflightLimits {
  /** kube's default 400. */
  maxRequestsInflight: number;
  /** kube's default 200. */
  maxMutatingRequestsInflight: number;
}

export const defaultInflightLimits: InflightLimits = { maxRequestsInflight: 400, maxMutatingRequestsInflight: 200 };

const privilegedGroup = 'system:masters';

export class InflightLimiter {
  readOnly = 0;
  mutating = 0;
  /** The most in flight since the last tick: apiserver_current_inflight_requests reports the maximum of the last second. */
  private readOnlyHigh = 0;
  private mutatingHigh = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly limits: InflightLimits, gauges: { readOnly: GaugeSeries; mutating: GaugeSeries }) {
    this.timer = setInterval(() => {
      gauges.readOnly.set(this.readOnlyHigh);
      gauges.mutating.set(this.mutatingHigh);
      this.readOnlyHigh = this.readOnly;
      this.mutatingHigh = this.mutating;
    }, 1000);
    this.timer.unref();
  }

  /** false: over the limit, and the caller answers 429. */
  tryAcquire(mutating: boolean, groups: readonly string[] | undefined): boolean {
    if (mutating) {
      const max = this.limits.maxMutatingRequestsInflight;
      if (max > 0 && this.mutating >= max && !groups?.includes(privilegedGroup)) return false;
      if (++this.mutating > this.mutatingHigh) this.mutatingHigh = this.mutating;
    } else {
      const max = this.limits.maxRequestsInflight;
      if (max > 0 && this.readOnly >= max && !groups?.includes(privilegedGroup)) return false;
      if (++this.readOnly > this.readOnlyHigh) this.readOnlyHigh = this.readOnly;
    }
    return true;
  }

  release(mutating: boolean): void {
    if (mutating) this.mutating--;
    else this.readOnly--;
  }

  get inflight(): number {
    return this.readOnly + this.mutating;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** kube's tooManyRequests: plain text through http.Error, not a Status. */
export function writeTooManyRequests(res: ServerResponse): void {
  res.writeHead(429, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Retry-After': '1' });
  res.end('Too many requests, please try again later.\n');
}

/**
 * The apiserver_flowcontrol_* series a max-in-flight server exports (kube 1.35/1.36,
 * k8s.io/apiserver pkg/server/filters/maxinflight.go and pkg/util/flowcontrol/metrics).
 *
 * Windlass serves FlowSchema and PriorityLevelConfiguration objects but does not do API
 * Priority and Fairness: requests are limited by --max-requests-inflight and
 * --max-mutating-requests-inflight, as kube-apiserver with APF off. In that mode kube's
 * max-in-flight filter is the only writer of a flowcontrol series: at its setup it makes the
 * two `phase="executing"` members of apiserver_flowcontrol_read_vs_write_current_requests
 * (readOnly, mutating), denominated by their limits, and sets each to its slots in use
 * whenever a request takes or frees one. Nothing else applies: every other family
 * (priority levels, flow schemas, queues, seats, R/S clocks, rejections, dispatches) is
 * labelled by priority level or flow schema and only APF's dispatcher writes it, and the
 * `waiting` phase exists only for APF's queues — a max-in-flight server never queues, it
 * answers 429. (kube still registers those families, so they are empty there too; the one
 * unlabelled gauge, apiserver_flowcontrol_seat_fair_frac, stays at a meaningless 0 until APF's
 * config controller runs, and is left out here rather than suggest APF is running.)
 */
import { TimingRatioHistogram, type GaugeSeries, type TimingRatioSeries } from './series.js';

/** kube's readWriteConcurrencyGaugeVec buckets. */
const readVsWriteBuckets = [0, 0.001, 0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1];

export function readVsWriteFamily(now?: () => number): TimingRatioHistogram {
  return new TimingRatioHistogram(
    'apiserver_flowcontrol_read_vs_write_current_requests',
    'Observations, at the end of every nanosecond, of the number of requests (as a fraction of the relevant limit) waiting or in regular stage of execution',
    ['phase', 'request_kind'], readVsWriteBuckets, now,
  );
}

/** What the max-in-flight filter records for one request kind (kube's `request_kind` label). */
export class RequestKindSeries {
  private executingSeries?: TimingRatioSeries;
  constructor(
    readonly kind: 'readOnly' | 'mutating',
    /** apiserver_current_inflight_requests{request_kind}: the most in flight in the last second. */
    readonly inflight: GaugeSeries,
    private readonly readVsWrite: TimingRatioHistogram,
  ) {}

  /**
   * The `executing` member of read_vs_write_current_requests, made once (kube's
   * initMaxInFlight): denominated by the limit, or 1 when this kind has none.
   */
  executing(limit: number): TimingRatioSeries {
    if (!this.executingSeries) this.executingSeries = this.readVsWrite.child(limit > 0 ? limit : 1, 'executing', this.kind);
    return this.executingSeries;
  }
}

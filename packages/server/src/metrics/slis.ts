/**
 * kube's component SLI metrics (k8s.io/component-base/metrics/prometheus/slis), served on
 * /metrics/slis: the result of each named health check the last time /healthz, /livez or
 * /readyz ran it, and a count of results. kube-prometheus scrapes this path beside /metrics;
 * a 404 there would count as the API server being down (`up == 0`).
 */
import { Counter, Gauge, type CounterSeries, type GaugeSeries } from './series.js';
import type { Registry } from 'prom-client';

export type HealthcheckType = 'healthz' | 'livez' | 'readyz';

export class SliMetrics {
  readonly healthcheck = new Gauge('kubernetes_healthcheck', 'This metric records the result of a single healthcheck.', ['name', 'type']);
  readonly healthchecksTotal = new Counter('kubernetes_healthchecks_total', 'This metric records the results of all healthcheck.', ['name', 'type', 'status']);
  /** Check names are the server's own fixed set, so these maps stay small. */
  private readonly gauges = new Map<string, GaugeSeries>();
  private readonly counts = new Map<string, CounterSeries>();

  register(registry: Registry): void {
    this.healthcheck.register(registry);
    this.healthchecksTotal.register(registry);
  }

  /** kube's ObserveHealthcheck: the gauge 1 on success, 0 on error; the counter by status. */
  observe(name: string, type: HealthcheckType, ok: boolean): void {
    const key = `${type}/${name}`;
    let g = this.gauges.get(key);
    if (!g) this.gauges.set(key, (g = this.healthcheck.child(name, type)));
    g.set(ok ? 1 : 0);
    const status = ok ? 'success' : 'error';
    const countKey = `${key}/${status}`;
    let c = this.counts.get(countKey);
    if (!c) this.counts.set(countKey, (c = this.healthchecksTotal.child(name, type, status)));
    c.inc();
  }
}

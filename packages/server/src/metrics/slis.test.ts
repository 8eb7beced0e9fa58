/**
 * /metrics/slis and kubernetes_build_info as kube serves them: the health check gauge follows
 * the last result (1, then 0), the counter counts results by status, and the build info is
 * what /version reports.
 */
import { Registry } from 'prom-client';
import { SliMetrics } from './slis.js';
import { samples, value } from '../testing/scrape.js';
import { startTestServer } from '../testing/client.js';
import { EmbeddedStorage } from '@windlass/storage';

test('a health check result sets the gauge and counts by status, as ObserveHealthcheck', async () => {
  const m = new SliMetrics();
  const registry = new Registry();
  m.register(registry);
  m.observe('etcd', 'readyz', true);
  m.observe('etcd', 'readyz', true);
  m.observe('etcd', 'readyz', false);
  m.observe('ping', 'livez', true);
  const text = await registry.metrics();
  expect(value(text, 'kubernetes_healthcheck', { name: 'etcd', type: 'readyz' })).toBe(0);
  expect(value(text, 'kubernetes_healthcheck', { name: 'ping', type: 'livez' })).toBe(1);
  expect(value(text, 'kubernetes_healthchecks_total', { name: 'etcd', type: 'readyz', status: 'success' })).toBe(2);
  expect(value(text, 'kubernetes_healthchecks_total', { name: 'etcd', type: 'readyz', status: 'error' })).toBe(1);
  expect(samples(text, 'kubernetes_healthchecks_total')).toHaveLength(3);
  expect(text).toContain('# TYPE kubernetes_healthcheck gauge');
  expect(text).toContain('# TYPE kubernetes_healthchecks_total counter');
});

test('/metrics/slis answers 200 in the text format; /metrics carries kubernetes_build_info as /version', async () => {
  const t = await startTestServer({ storage: new EmbeddedStorage({ path: ':memory:' }) });
  try {
    const before = await t.call('GET', '/metrics/slis');
    const counted = (text: string) => value(text, 'kubernetes_healthchecks_total', { name: 'etcd', type: 'readyz', status: 'success' }) ?? 0;
    // Each run of /readyz records every check it ran, as kube's healthz handler does.
    expect((await t.call('GET', '/readyz')).status).toBe(200);
    expect((await t.call('GET', '/readyz?exclude=etcd')).status).toBe(200);
    const slis = await t.call('GET', '/metrics/slis');
    expect(slis.status).toBe(200);
    expect(slis.text).toContain('# TYPE kubernetes_healthcheck gauge');
    expect(counted(slis.text) - counted(before.text)).toBe(1);
    expect(value(slis.text, 'kubernetes_healthcheck', { name: 'etcd', type: 'readyz' })).toBe(1);
    // kube instruments the root health paths: GET, the path as subresource, empty component and scope.
    const requests = (await t.call('GET', '/metrics')).text;
    expect(value(requests, 'apiserver_request_total', { verb: 'GET', dry_run: '', group: '', version: '', resource: '', subresource: '/readyz', scope: '', component: '', code: '200' })).toBe(2);
    expect(value(requests, 'apiserver_request_duration_seconds_count', { verb: 'GET', dry_run: '', group: '', version: '', resource: '', subresource: '/readyz', scope: '', component: '' })).toBe(2);
    const metrics = await t.call('GET', '/metrics');
    const version = JSON.parse((await t.call('GET', '/version')).text) as Record<string, string>;
    const info = samples(metrics.text, 'kubernetes_build_info');
    expect(info).toEqual([{ value: 1, labels: {
      build_date: version.buildDate, compiler: version.compiler, git_commit: version.gitCommit, git_tree_state: version.gitTreeState,
      git_version: version.gitVersion, go_version: version.goVersion, major: version.major, minor: version.minor, platform: version.platform,
    } }]);
  } finally {
    await t.close();
  }
});

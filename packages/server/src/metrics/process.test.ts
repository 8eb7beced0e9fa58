/**
 * process_cpu_seconds_total and process_start_time_seconds count from the process's start, as
 * client_golang's process collector does, not from the first scrape; a `--workers` primary
 * sums the CPU and keeps the latest start.
 */
import { Registry } from 'prom-client';
import { EmbeddedStorage } from '@windlass/storage';
import { startTestServer } from '../testing/client.js';
import { value } from '../testing/scrape.js';
import { aggregateMetrics, localMetricsJSON, type MetricsJSON } from './endpoint.js';

const seconds = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1e6;

/** Spends about `ms` of CPU on this thread. */
function burn(ms: number): void {
  const until = performance.now() + ms;
  let x = 0;
  while (performance.now() < until) x += Math.sqrt(x + 1);
  expect(x).toBeGreaterThan(0);
}

test('the first scrape reports all the CPU the process used before it, and the process\'s own start', async () => {
  burn(300);
  const before = process.cpuUsage();
  expect(seconds(before)).toBeGreaterThan(0.3);
  const t = await startTestServer({ storage: new EmbeddedStorage({ path: ':memory:' }) });
  try {
    const text = (await t.call('GET', '/metrics')).text;
    const after = process.cpuUsage();
    const cpu = value(text, 'process_cpu_seconds_total', {})!;
    expect(cpu).toBeGreaterThanOrEqual(seconds(before));
    expect(cpu).toBeLessThanOrEqual(seconds(after));
    const user = value(text, 'process_cpu_user_seconds_total', {})!;
    const system = value(text, 'process_cpu_system_seconds_total', {})!;
    expect(user).toBeGreaterThanOrEqual(before.user / 1e6);
    expect(user + system).toBeCloseTo(cpu, 6);
    expect(text).toContain('# TYPE process_cpu_seconds_total counter');
    expect(text.match(/^process_cpu_seconds_total /gm)).toHaveLength(1);

    // A counter: a later scrape has at least what this process has spent since.
    burn(100);
    const later = value((await t.call('GET', '/metrics')).text, 'process_cpu_seconds_total', {})!;
    expect(later).toBeGreaterThanOrEqual(cpu + 0.09);

    // The kernel's start of this process: before the runtime's own clock started, by little.
    const start = value(text, 'process_start_time_seconds', {})!;
    const nodeStart = Date.now() / 1000 - process.uptime();
    expect(start).toBeLessThanOrEqual(nodeStart + 0.02);
    expect(start).toBeGreaterThan(nodeStart - 2);
    expect(text.match(/^process_start_time_seconds /gm)).toHaveLength(1);
  } finally {
    await t.close();
  }
});

test('a --workers primary sums the workers\' CPU and keeps the latest start', async () => {
  const one = await localMetricsJSON(new Registry());
  const find = (m: MetricsJSON, name: string) => m.find((f) => f.name === name)!;
  const cpu = find(one, 'process_cpu_seconds_total').values[0].value;
  const start = find(one, 'process_start_time_seconds').values[0].value;
  // A second worker: started 30s later, having used 2.5s of CPU.
  const other = structuredClone(one) as MetricsJSON;
  find(other, 'process_cpu_seconds_total').values[0].value = 2.5;
  find(other, 'process_start_time_seconds').values[0].value = start + 30;
  const text = await aggregateMetrics([one, other]);
  expect(value(text, 'process_cpu_seconds_total', {})).toBeCloseTo(cpu + 2.5, 6);
  expect(value(text, 'process_start_time_seconds', {})).toBe(start + 30);
});

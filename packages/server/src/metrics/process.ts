/**
 * process_cpu_seconds_total and process_start_time_seconds as client_golang's process
 * collector reports them in kube-apiserver: the CPU the process has used since it started and
 * the moment it started. prom-client's own versions count CPU only from when its collector was
 * registered (it adds process.cpuUsage() deltas to a counter starting at 0), which here is the
 * first scrape, and round the start time to the second; these read the kernel's totals on
 * every scrape instead.
 *
 * Under `--workers` the primary sums the CPU counters over the workers (the server's CPU) and
 * takes the latest start: the moment the summed counters last went back, which is what
 * Prometheus' reset handling and `changes(process_start_time_seconds[…])` need.
 */
import { readFileSync } from 'node:fs';
import type { Registry } from 'prom-client';
import { Counter, Gauge } from './series.js';

/** Names of prom-client's default metrics these replace. */
export const replacedDefaults = ['process_cpu_user_seconds_total', 'process_cpu_system_seconds_total', 'process_cpu_seconds_total', 'process_start_time_seconds'];

/** USER_HZ, the unit of /proc's times: 100 on every Linux architecture Node runs on. */
const userHz = 100;

/**
 * Seconds since the epoch when this process started: /proc/self/stat's starttime (clock ticks
 * after boot) placed against /proc/uptime, so the result carries the ticks' precision rather
 * than btime's whole seconds. Node's own uptime where /proc is not there.
 */
export function processStartTime(nowMs = Date.now()): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name, which is in parentheses and may contain spaces; starttime is field 22.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const startTicks = Number(fields[19]);
    const uptime = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
    if (Number.isFinite(startTicks) && Number.isFinite(uptime)) return nowMs / 1000 - (uptime - startTicks / userHz);
  } catch {
    // Not Linux: fall through.
  }
  return nowMs / 1000 - process.uptime();
}

/** Registers the CPU counters and the start time gauge, each set from the process's totals at scrape time. */
export function registerProcessCollectors(registry: Registry): void {
  const user = new Counter('process_cpu_user_seconds_total', 'Total user CPU time spent in seconds.', []);
  const system = new Counter('process_cpu_system_seconds_total', 'Total system CPU time spent in seconds.', []);
  const total = new Counter('process_cpu_seconds_total', 'Total user and system CPU time spent in seconds.', []);
  const userSeries = user.child();
  const systemSeries = system.child();
  const totalSeries = total.child();
  // One reading serves the three families of a scrape: the user counter is read first.
  user.collect = () => {
    const used = process.cpuUsage();
    userSeries.value = used.user / 1e6;
    systemSeries.value = used.system / 1e6;
    totalSeries.value = (used.user + used.system) / 1e6;
  };
  const started = new Gauge('process_start_time_seconds', 'Start time of the process since unix epoch in seconds.', []).aggregate('max');
  // Read once: the start does not move, and reading /proc at every scrape would only add jitter.
  started.child().set(processStartTime());
  for (const f of [user, system, total, started]) f.register(registry);
}

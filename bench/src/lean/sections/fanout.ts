/**
 * Watch fan-out rows: one server on a fresh store; for each watcher count, a watchgen.js child
 * opens the watches and writes BENCH_FANOUT_WRITES PUTs at BENCH_FANOUT_RATE/s. One row per
 * count: delivery latency, completeness, server CPU per delivery (and per write in extra).
 */
import { config, want } from '../config.js';
import { log, withServer, type RunCtx } from '../harness.js';
import { runChild } from '../ipc.js';
import { CM_PATH, configMapTemplate, objectName } from '../objects.js';
import type { FanoutResult, FanoutSpec } from '../watchgen.js';
import { seedOne } from './requests.js';

export async function runFanoutSection(ctx: RunCtx, backend: string): Promise<void> {
  if (!want('fanout')) return;
  await withServer({ root: config.serverRoot, label: 'windlass', backend, profile: 'fanout' }, async ({ server, meters }) => {
    const objects: string[] = [];
    for (let i = 0; i < config.fanoutObjects; i++) {
      objects.push(objectName('fan-', i));
      await seedOne(server.target, objects[i]);
    }
    for (const watchers of config.fanoutWatchers) {
      log(`windlass ${backend}: fan-out to ${watchers} watchers, ${config.fanoutWrites} writes at ${config.fanoutRate}/s`);
      const spec: FanoutSpec = {
        target: server.target, path: CM_PATH, watchers, writes: config.fanoutWrites, rate: config.fanoutRate, objects,
        template: configMapTemplate(config.objectBytes, { seq: '000000' }), drainTimeoutMs: 60_000,
      };
      const [w] = await runChild<FanoutResult>('watchgen.js', spec, meters);
      const r = w.result;
      const per = (k: string): number | undefined => (w.cpuMs[k] === undefined ? undefined : w.cpuMs[k] / Math.max(1, r.deliveries));
      ctx.rows.push({
        section: 'fanout', backend, server: 'windlass', op: `watch fan-out to ${watchers}`, clients: watchers, client: 'node',
        ops: r.deliveries, seconds: w.wallMs / 1000, opsPerSec: r.deliveries / (w.wallMs / 1000), p50: r.delivery.p50, p99: r.delivery.p99,
        cpuPerOp: per('server')!, etcdCpuPerOp: per('etcd'), clientCpuPerOp: per('client'),
        errors: r.watchers - r.complete, firstError: r.problems[0],
        extra: {
          watchers, writes: r.writes, targetRate: config.fanoutRate, achievedRate: r.achievedRate, complete: r.complete, problems: r.problems,
          deliveryMax: r.delivery.max, writeP50: r.write.p50, writeP99: r.write.p99, serverCpuPerWrite: w.cpuMs.server / r.writes,
          lastDeliveredAfterLastAckMs: r.lastDeliveredAfterLastAckMs, openMs: r.openMs, expectedDeliveries: r.writes * r.watchers,
        },
      });
    }
  }, ctx.profiles);
}

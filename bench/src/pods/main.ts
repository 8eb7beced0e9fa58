/**
 * Issue 6's Pod rows: creates and GETs of a realistic ~4 KB Pod next to a ConfigMap of the
 * same size, on the embedded backend and on etcd, each kind on a fresh server and store, with
 * the server's CPU per request from /proc (the load generator runs in its own process); the
 * etcd3 client's own create cost on the same body size as the raw storage figure; and the
 * in-process cost of decoding, defaulting, validating and filling one Pod (micro.js, in its
 * own process). Prints a markdown table.
 *
 *   node bench/dist/pods/main.js      (BENCH_QUICK=1 for a smoke run; BENCH_BACKENDS, BENCH_DURATION as the lean bench)
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineLine } from '../common.js';
import { config } from '../lean/config.js';
import { getClients, getWindow, load, log, rowFrom, withServer, type Row } from '../lean/harness.js';
import { agentFor, expectStatus, send } from '../lean/http.js';
import { runChild } from '../lean/ipc.js';
import { CM_PATH, configMapTemplate, fill, NAMESPACE, objectName } from '../lean/objects.js';
import { freshEtcd } from '../lean/targets.js';
import type { EtcdFloorResult, EtcdFloorSpec } from '../lean/etcdfloor.js';
import { POD_PATH, podTemplate, podTemplateBytes } from './podbody.js';

const here = dirname(fileURLToPath(import.meta.url));
const rows: Row[] = [];
const clients = config.getClients;
const kinds = [
  { kind: 'ConfigMap', path: CM_PATH, template: () => configMapTemplate(podTemplateBytes()) },
  { kind: 'Pod', path: POD_PATH, template: podTemplate },
];

for (const backend of config.backends) {
  for (const k of kinds) {
    log(`${backend}: ${k.kind} create and GET, ${clients} clients`);
    await withServer({ root: config.serverRoot, label: 'windlass', backend, profile: `pods-${k.kind}` }, async ({ server, meters }) => {
      const agent = agentFor(server.target, 1);
      try {
        // The Pod's ServiceAccount must exist (ServiceAccount admission), as in a real namespace.
        for (const sa of ['default', 'checkout']) {
          const r = await send(agent, server.target, 'POST', `/api/v1/namespaces/${NAMESPACE}/serviceaccounts`, JSON.stringify({ metadata: { name: sa } }));
          expectStatus(`POST serviceaccount ${sa}`, r, 201, 409);
        }
        const w = await load({ target: server.target, mode: 'create', clients, path: k.path, template: k.template(), namePrefix: 'c-', expect: 201, windowName: `create ${k.kind}` }, meters);
        rows.push(rowFrom({ section: 'pods', backend, server: 'windlass', op: `create ${k.kind}`, clients, client: 'node' }, w, w.result));
        const one = objectName('g-', 1);
        expectStatus(`POST ${one}`, await send(agent, server.target, 'POST', k.path, fill(k.template(), one)), 201);
        for (const client of getClients()) {
          const g = await getWindow(client, server.target, `${k.path}/${one}`, clients, meters);
          rows.push(rowFrom({ section: 'pods', backend, server: 'windlass', op: `get ${k.kind}`, clients, client }, g, g.result));
        }
      } finally {
        agent.destroy();
      }
    });
  }
  if (backend === 'etcd') {
    log('etcd3 client alone: creates of the same size');
    const etcd = await freshEtcd();
    try {
      const spec: EtcdFloorSpec = { endpoints: etcd.endpoints, clients, durationMs: config.durationMs, warmupMs: config.warmupMs, objectBytes: podTemplateBytes(), modes: ['create', 'range'] };
      for (const w of await runChild<EtcdFloorResult>('etcdfloor.js', spec, { etcd: () => etcd.pids() })) {
        const r = { ...w.result, requests: w.result.ops, statuses: {}, conflicts: 0 };
        rows.push(rowFrom({ section: 'pods', backend: 'etcd', server: 'etcd3', op: w.name === 'create' ? 'txn create (raw storage)' : 'range by key (raw storage)', clients, client: 'etcd3' }, w, r, 'client'));
      }
    } finally {
      await etcd.stop();
    }
  }
}

log('decode + defaults + validation + fill of one Pod, in its own process');
const micro = JSON.parse(execFileSync(process.execPath, [join(here, 'micro.js')], { encoding: 'utf8', env: { ...process.env, BENCH_MICRO_ITER: config.quick ? '2000' : '20000' } }));

const f = (n: number | undefined, d = 2) => (n === undefined || Number.isNaN(n) ? '' : n.toFixed(d));
const out: string[] = [];
out.push(machineLine());
out.push(`Bodies as sent: Pod ${podTemplateBytes()} B, ConfigMap ${podTemplateBytes()} B; ${clients} clients; ${config.durationMs / 1000} s windows after ${config.warmupMs / 1000} s warm-up.`);
out.push('');
out.push('| backend | op | client | req/s | p50 ms | p99 ms | server CPU ms/op | etcd CPU ms/op | errors |');
out.push('|---|---|---|---:|---:|---:|---:|---:|---:|');
for (const r of rows) out.push(`| ${r.backend} | ${r.op} | ${r.client} | ${f(r.opsPerSec, 0)} | ${f(r.p50)} | ${f(r.p99)} | ${f(r.cpuPerOp, 3)} | ${f(r.etcdCpuPerOp, 3)} | ${r.errors} |`);
out.push('');
out.push(`One Pod of ${micro.bytes} B through the server's pre-storage steps (${micro.iterations} iterations after warm-up), µs:`);
out.push('');
out.push('| step | p50 µs | p99 µs |');
out.push('|---|---:|---:|');
for (const [step, v] of Object.entries(micro.us as Record<string, { p50: number; p99: number }>)) out.push(`| ${step} | ${v.p50} | ${v.p99} |`);
process.stdout.write(out.join('\n') + '\n');

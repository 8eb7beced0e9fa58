/** Markdown: the rows, the fan-out / list / memory details, and the ratios issue 15's targets name. */
import { config } from './config.js';
import { getClients, type Row } from './harness.js';

const f = (x: number | undefined, d = 0): string =>
  x === undefined || !Number.isFinite(x) ? '–' : x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
const ms = (x: number | undefined): string => (x === undefined || !Number.isFinite(x) ? '–' : x < 10 ? f(x, 3) : f(x, 1));
const mb = (b: unknown): string => f(Number(b) / 2 ** 20, 1);
/** Which pass a row is from, when there were several. */
const pass = (r: Row): string => (config.repeat > 1 && r.pass ? ` (pass ${r.pass})` : '');

function rowsTable(rows: Row[]): string[] {
  const out = [
    '| section | backend | server | op | clients | client | ops/s | p50 ms | p99 ms | server CPU ms/op | etcd CPU ms/op | load-gen CPU ms/op | errors |',
    '|---|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows.filter((x) => x.section !== 'memory' && x.section !== 'fanout' && x.section !== 'list')) {
    const server = r.workers && r.workers > 1 ? `${r.server} (--workers ${r.workers})` : r.server;
    const cpu = r.section === 'etcd3' ? `${ms(r.cpuPerOp)} (client)` : ms(r.cpuPerOp);
    const conflicts = r.extra?.conflicts ? ` (+${f(Number(r.extra.conflicts))} 409s)` : '';
    out.push(
      `| ${r.section} | ${r.backend || '–'} | ${server}${pass(r)} | ${r.op} | ${r.clients} | ${r.client} | ${f(r.opsPerSec)}${conflicts} | ${ms(r.p50)} | ${ms(r.p99)} | ${cpu} | ` +
        `${ms(r.etcdCpuPerOp)} | ${r.section === 'etcd3' ? '(same)' : ms(r.clientCpuPerOp)} | ${r.errors ? `${r.errors}: ${(r.firstError ?? '').slice(0, 80)}` : 0} |`,
    );
  }
  return out;
}

function listTable(rows: Row[]): string[] {
  const ls = rows.filter((r) => r.section === 'list');
  if (!ls.length) return [];
  return [
    '', '| backend | list | p50 ms | mean ms | p99 ms | server CPU ms per list | etcd CPU ms per list | bytes per list | requests per list |', '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...ls.map((r) => `| ${r.backend}${pass(r)} | ${r.op} | ${ms(r.p50)} | ${ms(Number(r.extra?.meanMs))} | ${ms(r.p99)} | ${ms(r.cpuPerOp)} | ${ms(r.etcdCpuPerOp)} | ${f(Number(r.extra?.bytesPerList))} | ${f(Number(r.extra?.requestsPerList))} |`),
  ];
}

function fanoutTable(rows: Row[]): string[] {
  const fs = rows.filter((r) => r.section === 'fanout');
  if (!fs.length) return [];
  return [
    '', '| backend | watchers | writes/s target / achieved | write p50 / p99 ms | delivery p50 / p99 / max ms | complete watchers | deliveries | server CPU ms per delivery / per write | etcd CPU ms per write | opening watches ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...fs.map((r) => {
      const e = r.extra ?? {};
      const writes = Number(e.writes);
      return `| ${r.backend}${pass(r)} | ${f(r.clients)} | ${f(Number(e.targetRate))} / ${f(Number(e.achievedRate), 1)} | ${ms(Number(e.writeP50))} / ${ms(Number(e.writeP99))} | ` +
        `${ms(r.p50)} / ${ms(r.p99)} / ${ms(Number(e.deliveryMax))} | ${f(Number(e.complete))} / ${f(r.clients)} | ${f(r.ops)} of ${f(Number(e.expectedDeliveries))} | ` +
        `${ms(r.cpuPerOp)} / ${ms(Number(e.serverCpuPerWrite))} | ${r.etcdCpuPerOp === undefined ? '–' : ms((r.etcdCpuPerOp * r.ops) / writes)} | ${f(Number(e.openMs))} |`;
    }),
  ];
}

function memoryTable(rows: Row[]): string[] {
  const m = rows.filter((r) => r.section === 'memory');
  if (!m.length) return [];
  return [
    '', '| backend | objects | RSS before MB | RSS after MB (3 s after the creates) | bytes per object (3 s after) | marginal bytes per object (since previous count) | V8 heap used / external MB after | object JSON bytes | per object ÷ JSON (3 s after) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...m.map((r) => {
      const e = r.extra ?? {};
      const rt = (e.runtime ?? {}) as Record<string, number>;
      const json = Number(e.jsonBytes);
      return `| ${r.backend}${pass(r)} | ${f(r.ops)} | ${mb(e.rssBefore)} | ${mb(e.rssAfter)} (${mb(e.rssSoonAfter)}) | ${f(Number(e.bytesPerObject))} (${f(Number(e.bytesPerObjectSoon))}) | ${f(Number(e.marginalBytesPerObject))} | ` +
        `${mb(rt.heapUsed)} / ${mb(rt.external)} | ${f(json)} | ${f(Number(e.bytesPerObject) / json, 2)} (${f(Number(e.bytesPerObjectSoon) / json, 2)}) |`;
    }),
  ];
}

type Find = Partial<Pick<Row, 'section' | 'backend' | 'server' | 'op' | 'clients' | 'client' | 'workers'>>;

function find(rows: Row[], q: Find): Row | undefined {
  return rows.find((r) => (Object.keys(q) as (keyof Find)[]).every((k) => (k === 'workers' ? (r.workers ?? 1) === q.workers : r[k] === q[k])));
}

interface Ratio {
  target: string;
  scope: string;
  value: number;
  detail: string;
  /** The limit and its direction; undefined: shown for information. */
  ok?: boolean;
  limit: string;
}

function ratios(rows: Row[]): Ratio[] {
  const out: Ratio[] = [];
  const add = (target: string, scope: string, value: number, detail: string, limit: string, ok?: boolean): void => {
    if (Number.isFinite(value)) out.push({ target, scope, value, detail, limit, ok });
  };
  const c16 = config.getClients;
  const clients = [...new Set(rows.filter((r) => r.section === 'bare' && r.op === 'get').map((r) => r.client))];
  for (const backend of config.backends) {
    for (const client of clients) {
      const bare = find(rows, { section: 'bare', op: 'get', client });
      const get = find(rows, { section: 'get', backend, server: 'windlass', op: 'get', client, workers: 1 });
      if (!bare || !get) continue;
      const sc = `${backend}, ${client}`;
      add('server CPU per GET ÷ bare CPU per GET', sc, get.cpuPerOp / bare.cpuPerOp, `${ms(get.cpuPerOp)} / ${ms(bare.cpuPerOp)} ms`, '≤ 3', get.cpuPerOp / bare.cpuPerOp <= 3);
      add('GET throughput ÷ bare', sc, get.opsPerSec / bare.opsPerSec, `${f(get.opsPerSec)} / ${f(bare.opsPerSec)} /s`, '≥ 0.3', get.opsPerSec / bare.opsPerSec >= 0.3);
      // A ratio to the limit rather than the p99 itself: the limit moves with the bare p99, so
      // only the ratio compares between passes.
      const limit = 2 * bare.p99 + 1;
      add('GET p99 ÷ (2 × bare p99 + 1 ms)', sc, get.p99 / limit, `p99 ${ms(get.p99)} ms, bare ${ms(bare.p99)} ms, limit ${ms(limit)} ms`, '≤ 1', get.p99 <= limit);
    }
    const create16 = find(rows, { section: 'create', backend, server: 'windlass', clients: c16, workers: 1 });
    const post = find(rows, { section: 'bare', op: 'post' });
    const txn = find(rows, { section: 'etcd3', op: 'txn create', clients: c16 });
    if (create16 && post && backend === 'etcd' && txn) {
      const floor = post.cpuPerOp + txn.cpuPerOp;
      add('CPU per create ÷ (bare POST CPU + etcd3 CPU per txn)', `${backend}, ${c16} clients`, create16.cpuPerOp / floor, `${ms(create16.cpuPerOp)} / (${ms(post.cpuPerOp)} + ${ms(txn.cpuPerOp)}) ms`, '≤ 2', create16.cpuPerOp / floor <= 2);
      add('creates/s ÷ etcd3 client create txn/s', `${backend}, ${c16} clients`, create16.opsPerSec / txn.opsPerSec, `${f(create16.opsPerSec)} / ${f(txn.opsPerSec)}`, '≥ 0.5', create16.opsPerSec / txn.opsPerSec >= 0.5);
    } else if (create16 && post) {
      add('CPU per create ÷ bare POST CPU (info)', `${backend}, ${c16} clients`, create16.cpuPerOp / post.cpuPerOp, `${ms(create16.cpuPerOp)} / ${ms(post.cpuPerOp)} ms`, '–');
    }
    const create64 = find(rows, { section: 'create', backend, server: 'windlass', clients: 64, workers: 1 });
    if (create16 && create64) add('creates/s at 64 ÷ at 16', backend, create64.opsPerSec / create16.opsPerSec, `${f(create64.opsPerSec)} / ${f(create16.opsPerSec)}`, '≥ 1', create64.opsPerSec >= create16.opsPerSec);
    const cons = rows.find((r) => r.section === 'list' && r.backend === backend && r.extra?.mode === 'consistent');
    const rv0 = rows.find((r) => r.section === 'list' && r.backend === backend && r.extra?.mode === 'rv0');
    if (cons && rv0) add('consistent LIST ÷ rv=0 LIST (p50)', backend, cons.p50 / rv0.p50, `${ms(cons.p50)} / ${ms(rv0.p50)} ms`, '≤ 1.5', cons.p50 / rv0.p50 <= 1.5);
    const fan = rows.filter((r) => r.section === 'fanout' && r.backend === backend).sort((a, b) => a.clients - b.clients);
    if (fan.length >= 2) {
      const [lo, hi] = [fan[0], fan[fan.length - 1]];
      const complete = fan.every((r) => r.errors === 0 && r.ops === Number(r.extra?.expectedDeliveries));
      add(`fan-out p99 at ${hi.clients} ÷ at ${lo.clients} watchers`, backend, hi.p99 / lo.p99, `${ms(hi.p99)} / ${ms(lo.p99)} ms; every event to every watcher: ${complete ? 'yes' : 'NO'}`, '≤ 4, complete', hi.p99 / lo.p99 <= 4 && complete);
    }
    for (const label of ['contend', 'create', 'get'] as const) {
      const q: Find = label === 'contend' ? { section: 'contend', backend } : label === 'create' ? { section: 'create', backend, clients: c16, workers: 1 } : { section: 'get', backend, op: 'get', workers: 1, client: getClients()[0] };
      const now = find(rows, { ...q, server: 'windlass' });
      const base = find(rows, { ...q, server: 'baseline' });
      if (!now || !base) continue;
      const need = label === 'contend' ? 3 : backend === 'embedded' ? 2.5 : undefined;
      add(`${label === 'contend' ? 'contention updates/s' : `${label} throughput`} ÷ baseline`, backend, now.opsPerSec / base.opsPerSec, `${f(now.opsPerSec)} / ${f(base.opsPerSec)} /s; CPU ${ms(now.cpuPerOp)} vs ${ms(base.cpuPerOp)} ms/op`, need ? `≥ ${need}` : '– (info)', need ? now.opsPerSec / base.opsPerSec >= need : undefined);
    }
    for (const m of rows.filter((r) => r.section === 'memory' && r.backend === backend)) {
      const v = Number(m.extra?.bytesPerObject) / Number(m.extra?.jsonBytes);
      add('server memory per cached object ÷ JSON size', `${backend}, ${f(m.ops)} objects`, v, `${f(Number(m.extra?.bytesPerObject))} / ${f(Number(m.extra?.jsonBytes))} bytes, RSS after ${config.memorySettleMs / 1000} s idle`, '≤ 2.5', v <= 2.5);
    }
    for (const w of rows.filter((r) => r.backend === backend && (r.workers ?? 1) > 1)) {
      const one = find(rows, { section: w.section, backend, server: 'windlass', op: w.op, clients: w.clients, client: w.client, workers: 1 });
      if (one) add(`${w.op} CPU per request, --workers ${w.workers} ÷ 1`, backend, w.cpuPerOp / one.cpuPerOp, `${ms(w.cpuPerOp)} / ${ms(one.cpuPerOp)} ms; ${f(w.opsPerSec)} vs ${f(one.opsPerSec)} /s`, '≤ 1', w.cpuPerOp <= one.cpuPerOp);
    }
  }
  return out;
}

/**
 * With several passes, each target's ratio is computed within each pass (never across passes:
 * a ratio compares rows measured in the same pass) and the pass with the median ratio decides.
 * With an even count, of the two middle passes the one that misses, if either does.
 */
export function passRatios(rows: Row[]): (Ratio & { perPass?: Ratio[] })[] {
  const passes = [...new Set(rows.map((r) => r.pass ?? 1))].sort((a, b) => a - b);
  if (passes.length <= 1) return ratios(rows);
  const byTarget = new Map<string, Ratio[]>();
  for (const p of passes) {
    for (const r of ratios(rows.filter((x) => (x.pass ?? 1) === p))) {
      const key = `${r.target}\n${r.scope}`;
      const list = byTarget.get(key) ?? [];
      list.push(r);
      byTarget.set(key, list);
    }
  }
  return [...byTarget.values()].map((perPass) => {
    const sorted = [...perPass].sort((a, b) => a.value - b.value);
    const n = sorted.length;
    const middle = n % 2 ? [sorted[(n - 1) / 2]] : [sorted[n / 2 - 1], sorted[n / 2]];
    const median = middle.find((r) => r.ok === false) ?? middle[0];
    return { ...median, perPass };
  });
}

export function report(rows: Row[], notes: string[]): string {
  const rs = passRatios(rows);
  const verdict = (r: Ratio & { perPass?: Ratio[] }): string => {
    const v = r.ok === undefined ? '–' : r.ok ? 'yes' : '**no**';
    return r.perPass && r.ok !== undefined ? `${v} (${r.perPass.filter((p) => p.ok).length} of ${r.perPass.length} passes)` : v;
  };
  const value = (r: Ratio & { perPass?: Ratio[] }): string => (r.perPass ? `${f(r.value, 2)} (passes: ${r.perPass.map((p) => f(p.value, 2)).join(', ')})` : f(r.value, 2));
  return [
    '#### Ratios named by the issue\'s targets', '',
    '| target | scope | ratio / value | from | target | met |', '|---|---|---:|---|---|---|',
    ...rs.map((r) => `| ${r.target} | ${r.scope} | ${value(r)} | ${r.detail} | ${r.limit} | ${verdict(r)} |`),
    '', '#### Rows', '', ...rowsTable(rows), ...listTable(rows), ...fanoutTable(rows), ...memoryTable(rows),
    ...(notes.length ? ['', ...notes.map((n) => `- ${n}`)] : []),
  ].join('\n');
}

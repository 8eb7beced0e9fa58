/**
 * One fault run: scripts/ha-topology.mjs's topology (3 etcd members, 3 replicas, the
 * /readyz-checked balancer), writers and watchers through the balancer, and replicas and
 * etcd members killed with SIGKILL and started again one at a time (etcd keeps quorum); a
 * replica may instead be stopped with SIGTERM (graceful shutdown), and what clients see
 * until it has exited is counted apart ("[graceful] …").
 * Afterwards the store's history is read from etcd itself and:
 * - every watcher's stream is that history for its filter from its start (watchcheck.ts);
 * - every key's events in the history are exactly its writer's acknowledged writes, in
 *   order, each with the object the server returned (none lost, none applied twice, none
 *   that no writer made), and what the balancer lists at the end is the history's end state;
 * - clients saw only retryable errors (errors.ts lists them).
 * Used by bench/src/faults (the 10-run) and test/src/faults.test.ts (one short run).
 */
import { readFileSync } from 'node:fs';
import { alive, ready, sleep, startEtcdMember, stopAll, startReplicaProcess, startTopology, waitEtcdHealthy, type Topology } from '../../../scripts/ha-topology.mjs';
import { KubeHttp, sortStates, sortedStates, type HttpResult } from '../kubehttp.js';
import { History, type Filter } from '../watchcheck.js';
import { ErrorLog } from './errors.js';
import { etcdHistory, etcdLeader, etcdSnapshot } from './etcdhistory.js';
import { ResumingWatcher } from './watcher.js';
import { checkAcknowledgedWrites } from './writecheck.js';
import { Writer, collectionPath, prng, type Op } from './writer.js';

export type FaultKind = 'replica' | 'replica-sigterm' | 'etcd-leader' | 'etcd-follower';

export interface FaultRunOptions {
  /** Working directory (etcd data, logs, credentials); the caller removes it. */
  dir: string;
  watchers: number;
  writers: number;
  /** Writes per second over all writers. */
  writeRate: number;
  faults: FaultKind[];
  /** Seed of the writers' choices and of which replica is killed first. */
  seed: number;
  /** Seconds of writing before the first fault and after each recovery. */
  settleSeconds?: number;
  log?: (msg: string) => void;
}

export interface FaultRecord {
  fault: string;
  target: string;
  /** Seconds since the writers started. */
  at: number;
  /** Replica: from starting the new process to its /readyz answering ok. */
  restartToReadyMs?: number;
  /** Replica: from the kill to the balancer having it in rotation again (down 1 s on purpose). */
  killToRotationMs?: number;
  /** etcd member: per replica, from the kill to the first write sent after it being acknowledged. */
  firstWriteAfterKillMs?: Record<string, number>;
  /** etcd member: from the kill to the live members naming a leader among them (election). */
  leaderAfterKillMs?: number;
  /** etcd member: from starting it again to /health ok. */
  memberRestartToHealthyMs?: number;
}

export interface FaultRunReport {
  ok: boolean;
  problems: string[];
  faults: FaultRecord[];
  historyEvents: number;
  /** Events delivered to watchers, each compared with the history. */
  eventsChecked: number;
  watchers: number;
  watchRequests: number;
  relists: number;
  writesAcknowledged: number;
  writesByKind: Record<string, number>;
  /** Writes that needed more than one attempt. */
  writesRetried: number;
  clientErrors: Record<string, number>;
  durationSeconds: number;
}

const NAMESPACES = ['fault-a', 'fault-b', 'fault-c'];
const PROBE_NS = 'fault-probe';
const KEYS_PER_WRITER = 12;

/** The watchers' filters, in turn: everything, one namespace, a label, a namespace and a label, a field. */
function filterFor(i: number): Filter {
  const ns = NAMESPACES[i % NAMESPACES.length];
  switch (i % 5) {
    case 0: return {};
    case 1: return { namespace: ns };
    case 2: return { labelSelector: 'color=red' };
    case 3: return { namespace: ns, labelSelector: 'color in (blue,green)' };
    default: return { fieldSelector: `metadata.namespace!=${PROBE_NS}` };
  }
}

async function until(probe: () => boolean | Promise<boolean>, timeoutMs: number, intervalMs = 100): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() > deadline) return false;
    await sleep(intervalMs);
  }
}

/** A request that only needs to succeed eventually (setup, reading the end state). */
async function settled(client: KubeHttp, method: string, path: string, body?: unknown): Promise<HttpResult> {
  let last = '';
  for (let i = 0; i < 100; i++) {
    try {
      const r = await client.request(method, path, body);
      if (r.status < 500 && r.status !== 429) return r;
      last = `${r.status} ${r.text.slice(0, 200)}`;
    } catch (err) {
      last = String(err);
    }
    await sleep(200);
  }
  throw new Error(`${method} ${path}: ${last}`);
}

export async function runFaults(o: FaultRunOptions): Promise<FaultRunReport> {
  const log = o.log ?? (() => undefined);
  const settle = (o.settleSeconds ?? 3) * 1000;
  const problems: string[] = [];
  const errors = new ErrorLog();
  const faults: FaultRecord[] = [];
  let topo: Topology | undefined;
  const clients: KubeHttp[] = [];
  const watchers: ResumingWatcher[] = [];
  const writers: Writer[] = [];
  const began = Date.now();
  try {
    topo = await startTopology({ dir: o.dir, port: 0, replicas: 3, etcdMembers: 3 });
    const t = topo;
    const token = readFileSync(t.creds.adminToken, 'utf8').trim();
    const newClient = (url: string) => {
      const c = new KubeHttp(url, t.ca, token, { requestTimeoutMs: 30000 });
      clients.push(c);
      return c;
    };
    const lb = newClient(t.lbUrl);
    for (const ns of [...NAMESPACES, PROBE_NS]) {
      const r = await settled(lb, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
      if (r.status !== 201) throw new Error(`creating namespace ${ns}: ${r.status} ${r.text}`);
    }
    log(`topology up in ${((Date.now() - began) / 1000).toFixed(1)} s: ${t.lbUrl}`);

    // The history starts at etcd's revision now; every watcher starts there.
    const prefix = '/registry/configmaps/';
    const start = await etcdSnapshot(t.etcd[0].client, prefix);
    for (let i = 0; i < o.watchers; i++) {
      const w = new ResumingWatcher(`watcher-${i}`, filterFor(i), lb, errors);
      watchers.push(w);
      w.start({ kind: 'rv', rv: start.revision });
    }
    const rnd = prng(o.seed);
    for (let i = 0; i < o.writers; i++) {
      const id = `w${i}`;
      const keys = Array.from({ length: KEYS_PER_WRITER }, (_, k) => `${NAMESPACES[k % NAMESPACES.length]}/${id}-${k}`);
      const w = new Writer(id, lb, errors, prng(o.seed * 1000 + i), keys);
      writers.push(w);
      w.start(o.writeRate / o.writers);
    }
    const writeStart = Date.now();
    const since = () => Number(((Date.now() - writeStart) / 1000).toFixed(1));
    await sleep(settle);

    let replicaTurn = Math.floor(rnd() * t.backends.length);
    for (const [n, kind] of o.faults.entries()) {
      if (writers.some((w) => w.failed)) break;
      if (kind === 'replica' || kind === 'replica-sigterm') {
        const b = t.backends[replicaTurn++ % t.backends.length];
        const graceful = kind === 'replica-sigterm';
        const rec: FaultRecord = { fault: graceful ? 'SIGTERM replica' : 'kill -9 replica', target: b.name, at: since() };
        faults.push(rec);
        const killedAt = Date.now();
        errors.phase = graceful ? 'graceful' : undefined;
        b.proc.kill(graceful ? 'SIGTERM' : 'SIGKILL');
        await b.proc.exited;
        errors.phase = undefined;
        await sleep(1000);
        const restartedAt = Date.now();
        await startReplicaProcess(t.dir, b);
        if (!(await until(() => ready(b, t.ca), 30000))) throw new Error(`${b.name} not ready within 30 s of its restart`);
        rec.restartToReadyMs = Date.now() - restartedAt;
        if (!(await until(() => b.healthy, 10000, 20))) throw new Error(`${b.name} not back in the balancer's rotation`);
        rec.killToRotationMs = Date.now() - killedAt;
        log(`fault ${n + 1}: killed ${b.name}; restart to ready ${rec.restartToReadyMs} ms, kill to rotation ${rec.killToRotationMs} ms`);
      } else {
        const leaderUrl = await etcdLeader(t.etcd.filter((m) => alive(m.proc)).map((m) => m.client));
        const candidates = t.etcd.filter((m) => (kind === 'etcd-leader' ? m.client === leaderUrl : m.client !== leaderUrl));
        const m = candidates[Math.floor(rnd() * candidates.length)];
        if (!m) throw new Error(`no etcd member to kill for ${kind} (leader ${leaderUrl})`);
        const rec: FaultRecord = { fault: `kill -9 etcd ${kind === 'etcd-leader' ? 'leader' : 'follower'}`, target: m.name, at: since(), firstWriteAfterKillMs: {} };
        faults.push(rec);
        m.proc.kill('SIGKILL');
        await m.proc.exited;
        const killedAt = Date.now();
        const others = t.etcd.filter((x) => x !== m).map((x) => x.client);
        const election = until(async () => others.includes((await etcdLeader(others)) ?? ''), 30000, 50).then(() => Date.now() - killedAt);
        // One write straight to each replica, sent right after the kill and retried until
        // acknowledged: how long each replica's writes stall while its etcd client moves on.
        const probes = await Promise.all(t.backends.map(async (b) => {
          const p = new Writer(`probe-${n}-${b.name}`, newClient(b.url), errors, rnd);
          writers.push(p);
          const op = await p.create(`${PROBE_NS}/probe-${n}-${b.name}`);
          return [b.name, op] as const;
        }));
        for (const [name, op] of probes) if (op.ackedAt) rec.firstWriteAfterKillMs![name] = op.ackedAt - killedAt;
        rec.leaderAfterKillMs = await election;
        await sleep(1000);
        const restartedAt = Date.now();
        startEtcdMember(t.dir, m);
        await waitEtcdHealthy(t.dir, m);
        rec.memberRestartToHealthyMs = Date.now() - restartedAt;
        log(`fault ${n + 1}: killed ${m.name} (${kind}); leader after ${rec.leaderAfterKillMs} ms; first write after the kill per replica ${JSON.stringify(rec.firstWriteAfterKillMs)} ms; member back in ${rec.memberRestartToHealthyMs} ms`);
      }
      await sleep(settle);
    }

    await Promise.all(writers.map((w) => w.stop()));
    // A last write, so the history has a known end every watcher must reach.
    const fenceWriter = new Writer('fence', lb, errors, rnd);
    writers.push(fenceWriter);
    const fence = await fenceWriter.create(`${NAMESPACES[0]}/fence`);
    const ops: Op[] = writers.flatMap((w) => w.ops);
    for (const op of ops) if (op.failure) problems.push(`write failed: ${op.failure}`);
    if (!fence.result) throw new Error(`the fence write failed: ${fence.failure}`);

    const liveMember = t.etcd.find((m) => alive(m.proc))!;
    const events = await etcdHistory(liveMember.client, prefix, start.revision, fence.result.resourceVersion);
    const history = new History(start.items, start.revision, events);
    problems.push(...history.problems.map((p) => `etcd history: ${p}`));

    // Writes: per key, the history's events are exactly the acknowledged writes.
    const acked = ops.filter((op) => op.ackedAt !== undefined);
    problems.push(...checkAcknowledgedWrites(acked, events, [...NAMESPACES, PROBE_NS]));
    const listed = await settled(lb, 'GET', collectionPath());
    const endState = sortStates(history.finalState());
    const listedState = sortedStates(listed.body?.items ?? []);
    if (JSON.stringify(listedState) !== JSON.stringify(endState)) problems.push(`the balancer lists ${listedState.length} configmaps, etcd's history ends with ${endState.length}, or their content differs`);

    // Watchers: each must reach the end of the history with exactly its events.
    const check = () => watchers.flatMap((w) => history.checkWatcher(w.filter, w.segments, true).map((p) => `${w.id} ${JSON.stringify(w.filter)}: ${p}`));
    await until(() => check().length === 0, 60000, 500);
    await sleep(1000); // room for late duplicates
    for (const w of watchers) w.stop();
    problems.push(...check().slice(0, 20));
    problems.push(...errors.nonRetryable.slice(0, 20).map((e) => `non-retryable error seen by a client: ${e}`));

    const byKind: Record<string, number> = {};
    for (const op of acked) byKind[op.kind] = (byKind[op.kind] ?? 0) + 1;
    return {
      ok: problems.length === 0,
      problems,
      faults,
      historyEvents: events.length,
      eventsChecked: watchers.reduce((n, w) => n + w.eventCount, 0),
      watchers: watchers.length,
      watchRequests: watchers.reduce((n, w) => n + w.segments.length, 0),
      relists: watchers.reduce((n, w) => n + w.relists, 0),
      writesAcknowledged: acked.length,
      writesByKind: byKind,
      writesRetried: acked.filter((op) => op.attempts > 1).length,
      clientErrors: errors.byKind(),
      durationSeconds: Math.round((Date.now() - began) / 1000),
    };
  } catch (err) {
    problems.push(`run aborted: ${(err as Error).stack ?? String(err)}`);
    return {
      ok: false, problems, faults, historyEvents: 0, eventsChecked: 0, watchers: watchers.length, watchRequests: 0, relists: 0,
      writesAcknowledged: writers.flatMap((w) => w.acknowledged).length, writesByKind: {}, writesRetried: 0,
      clientErrors: errors.byKind(), durationSeconds: Math.round((Date.now() - began) / 1000),
    };
  } finally {
    for (const w of watchers) w.stop();
    // Writers still in a request (after an abort) get their 30 s client timeout at most.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(writers.map((w) => w.stop())), new Promise((r) => (timer = setTimeout(r, 35000)))]);
    clearTimeout(timer);
    for (const c of clients) c.destroy();
    // A topology that failed half-way has processes too: stopAll ends every one started here.
    await (topo ? topo.stop() : stopAll());
  }
}

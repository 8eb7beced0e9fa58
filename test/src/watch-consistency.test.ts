/**
 * Watch consistency across two replicas on one etcd. Concurrent writers on both replicas
 * create, update, patch and delete labelled configmaps in two namespaces while ~30 watchers
 * (all namespaces, one namespace, label and field selectors; from the beginning, mid-stream
 * from resourceVersions the other replica returned, after a list on the other replica, with
 * the initial state; slow readers, throttled readers, watchers that hop between replicas and
 * watchers the server times out) follow them over plain HTTPS.
 *
 * The history is the stream of a reference watcher on each replica; it is first proven to be
 * the store's history: both replicas agree, every acknowledged create/update/patch appears
 * exactly once with the object the write returned, every acknowledged delete has its
 * DELETED, writes acknowledged before another was sent come before it, and replaying it
 * gives what both replicas list at the end. Then every watcher's stream must equal that
 * history filtered by its namespace and selectors from its start: no gap, no duplicate, no
 * reordering, ADDED/DELETED where an object enters/leaves the selection.
 */
import { startEtcd, type EtcdServer } from '@windlass/storage/testing';
import { eventually, removeDir, startReplicas, type RunningServer } from './harness.js';
import { KubeHttp, objectState, type HttpResult, sortStates, sortedStates, type ObjectState, type WatchEnd, type WatchStream } from './kubehttp.js';
import { History, describeEvent, describeStart, keyOf, sameObject, type Ev, type Filter, type Segment, type SegmentStart } from './watchcheck.js';

const NAMESPACES = ['wc-a', 'wc-b'];
const NAMES = Array.from({ length: 8 }, (_, i) => `cm-${i}`);
const WRITERS = 4; // two on each replica
const OPS_PER_WRITER = 100;
/** Updates of ~0.9 MB objects: more than a paused reader's socket buffers and the server's per-watcher buffer (16 MiB today). */
const BIG_NS = 'wc-big';
const BIG_WRITES = 40;
const BIG_BYTES = 900 * 1024;
/** All namespaces but the one with the large objects. */
const notBig = `metadata.namespace!=${BIG_NS}`;
const token = 'watch-consistency-token-0123456789';

let etcd: EtcdServer;
let a: RunningServer;
let b: RunningServer;
let replicas: KubeHttp[] = [];
let tokenDir = '';

beforeAll(async () => {
  etcd = await startEtcd();
  const started = await startReplicas(etcd.endpoints, 2, token);
  [a, b] = started.replicas;
  tokenDir = started.tokenDir;
  replicas = [KubeHttp.forDataDir(a.url, a.dataDir, token), KubeHttp.forDataDir(b.url, a.dataDir, token)];
}, 90000);

/** Every watcher of the test, stopped before the servers even when an assertion failed. */
const allWatchers: Array<{ stop(): void }> = [];

afterAll(async () => {
  allWatchers.forEach((w) => w.stop());
  replicas.forEach((r) => r.destroy());
  await Promise.all([a?.stop(), b?.stop()]);
  await etcd?.stop();
  if (a) removeDir(a.dataDir);
  if (b) removeDir(b.dataDir);
  if (tokenDir) removeDir(tokenDir);
});

/** Deterministic pseudo-random numbers (mulberry32), so a failing run's choices can be replayed. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A logical clock over the test process: orders sends and acknowledgements. */
let clock = 0;

interface WriteRecord {
  writer: number;
  replica: number;
  op: 'create' | 'update' | 'patch' | 'delete';
  key: string;
  sent: number;
  acked?: number;
  status?: number;
  obj?: ObjectState;
  error?: string;
}

const collectionPath = (ns?: string) => (ns ? `/api/v1/namespaces/${ns}/configmaps` : '/api/v1/configmaps');

type Mode = 'plain' | 'slow' | 'throttled' | 'hopper' | 'timeout';

interface WatcherSpec {
  id: string;
  replica: number;
  filter: Filter;
  mode?: Mode;
  timeoutSeconds?: number;
  hopEvery?: number;
}

/**
 * A watcher that keeps its stream going the way a careful client does: after the server
 * ends or drops the stream it resumes from the last resourceVersion it received; after
 * 410 Gone it lists and watches from the list's version. Each request is one segment.
 */
class Watcher {
  readonly segments: Segment[] = [];
  readonly failures: string[] = [];
  private stream?: WatchStream;
  private lastRv?: string;
  private stopping = false;
  private next?: 'hop' | 'relist' | 'resume';
  private sinceThrottle = 0;
  released = false;
  serverEnds = 0;
  expirations = 0;

  constructor(readonly spec: WatcherSpec) {}

  get replica(): number {
    return this.spec.replica;
  }

  get eventCount(): number {
    return this.segments.reduce((n, s) => n + s.events.length, 0);
  }

  start(start: SegmentStart): void {
    this.open(start);
  }

  private path(start: SegmentStart): string {
    const q = new URLSearchParams();
    if (start.kind !== 'initial' || start.rv === '0') q.set('resourceVersion', start.rv);
    if (this.spec.filter.labelSelector) q.set('labelSelector', this.spec.filter.labelSelector);
    if (this.spec.filter.fieldSelector) q.set('fieldSelector', this.spec.filter.fieldSelector);
    if (this.spec.timeoutSeconds) q.set('timeoutSeconds', String(this.spec.timeoutSeconds));
    const qs = q.toString();
    return `${collectionPath(this.spec.filter.namespace)}${qs ? `?${qs}` : ''}`;
  }

  private open(start: SegmentStart): void {
    if (this.stopping) return;
    const seg: Segment = { start, events: [] };
    this.segments.push(seg);
    this.next = undefined;
    this.stream = replicas[this.spec.replica].watch(this.path(start), (ev) => this.onEvent(seg, ev), (why) => this.onEnd(seg, why));
    if (this.spec.mode === 'slow' && !this.released) this.stream.pause();
  }

  private onEvent(seg: Segment, ev: { type: string; object: any }): void {
    if (ev.type === 'BOOKMARK') return; // not asked for; not a position in the history
    if (ev.type === 'ERROR') {
      if (ev.object?.code === 410) {
        this.expirations++;
        this.next = 'relist';
      } else {
        this.failures.push(`${this.spec.id}: ERROR event ${JSON.stringify(ev.object)}`);
        this.next = 'resume';
      }
      seg.end = `ERROR ${ev.object?.code}`;
      this.stream?.close();
      return;
    }
    if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED' && ev.type !== 'DELETED') {
      this.failures.push(`${this.spec.id}: unknown event type ${ev.type}`);
      return;
    }
    seg.events.push({ type: ev.type, obj: objectState(ev.object) });
    this.lastRv = ev.object?.metadata?.resourceVersion;
    if (this.spec.mode === 'hopper' && seg.events.length >= (this.spec.hopEvery ?? 10)) {
      this.next = 'hop';
      seg.end = 'hopped';
      this.stream?.close();
    } else if (this.spec.mode === 'throttled' && ++this.sinceThrottle >= 8) {
      this.sinceThrottle = 0;
      const s = this.stream;
      s?.pause();
      setTimeout(() => s?.resume(), 150);
    }
  }

  private resumeStart(seg: Segment): SegmentStart {
    // A watch on the initial state that ended is started over (a fresh get-state watch);
    // otherwise continue after the last event received, or from the same start.
    if (seg.start.kind === 'initial') return seg.start;
    return this.lastRv !== undefined ? { kind: 'rv', rv: this.lastRv } : seg.start;
  }

  private onEnd(seg: Segment, why: WatchEnd): void {
    seg.end ??= why.kind === 'status' ? `HTTP ${why.status}` : why.kind === 'error' ? `error: ${why.error.message}` : why.kind;
    if (this.stopping) return;
    if (why.kind === 'closed') {
      if (this.next === 'hop') {
        this.spec.replica = 1 - this.spec.replica;
        this.open(this.resumeStart(seg));
      } else if (this.next === 'relist') void this.relist();
      else if (this.next === 'resume') setTimeout(() => this.open(this.resumeStart(seg)), 100);
      return;
    }
    if (why.kind === 'status') {
      if (why.status === 410) {
        this.expirations++;
        void this.relist();
        return;
      }
      if (![429, 500, 503, 504].includes(why.status)) this.failures.push(`${this.spec.id}: watch answered ${why.status} ${JSON.stringify(why.body)}`);
      setTimeout(() => this.open(seg.start.kind === 'initial' ? seg.start : this.resumeStart(seg)), 200);
      return;
    }
    // The server ended the stream (timeoutSeconds, a slow reader closed) or dropped it.
    this.serverEnds++;
    setTimeout(() => this.open(this.resumeStart(seg)), 50);
  }

  private async relist(): Promise<void> {
    for (;;) {
      if (this.stopping) return;
      try {
        const r = await replicas[this.spec.replica].request('GET', collectionPath());
        if (r.status === 200) {
          this.lastRv = undefined;
          this.open({ kind: 'list', rv: r.body.metadata.resourceVersion, items: r.body.items.map(objectState) });
          return;
        }
      } catch {
        // retry
      }
      await sleep(200);
    }
  }

  release(): void {
    this.released = true;
    this.stream?.resume();
  }

  stop(): void {
    this.stopping = true;
    this.stream?.close();
  }
}

test('every watcher sees exactly the store\'s history for its filter, across replicas, slow readers and resumptions', async () => {
  const [onA] = replicas;
  for (const ns of [...NAMESPACES, BIG_NS]) expect((await onA.request('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
  // Some objects exist before the history starts.
  for (const ns of NAMESPACES) {
    for (const name of NAMES.slice(0, 2)) {
      const r = await onA.request('POST', collectionPath(ns), { metadata: { name, labels: { color: 'red', tier: 'a' } }, data: { v: 'initial' } });
      expect(r.status).toBe(201);
    }
  }
  const start = await onA.request('GET', collectionPath());
  expect(start.status).toBe(200);
  const rv0: string = start.body.metadata.resourceVersion;
  const initial: ObjectState[] = start.body.items.map(objectState);

  const watchers: Watcher[] = [];
  const add = (spec: WatcherSpec, from: SegmentStart) => {
    const w = new Watcher(spec);
    watchers.push(w);
    allWatchers.push(w);
    w.start(from);
    return w;
  };
  // The two reference watchers: everything, from the beginning, one per replica.
  const refA = add({ id: 'ref-A', replica: 0, filter: {} }, { kind: 'rv', rv: rv0 });
  const refB = add({ id: 'ref-B', replica: 1, filter: {} }, { kind: 'rv', rv: rv0 });
  const fromStart: Array<Omit<WatcherSpec, 'id'>> = [
    { replica: 0, filter: { namespace: 'wc-a' } },
    { replica: 1, filter: { namespace: 'wc-b' } },
    { replica: 0, filter: { labelSelector: 'color=red' } },
    { replica: 1, filter: { namespace: 'wc-a', labelSelector: 'color in (red,blue)' } },
    { replica: 0, filter: { namespace: 'wc-b', labelSelector: 'color!=red' } },
    { replica: 1, filter: { labelSelector: '!color' } },
    { replica: 0, filter: { labelSelector: 'color,tier=a' } },
    { replica: 1, filter: { namespace: 'wc-a', labelSelector: 'tier notin (a)' } },
    { replica: 0, filter: { fieldSelector: 'metadata.name=cm-1' } },
    { replica: 1, filter: { namespace: 'wc-b', fieldSelector: 'metadata.name!=cm-2', labelSelector: 'tier=b' } },
    { replica: 0, filter: {}, mode: 'slow' },
    { replica: 1, filter: {}, mode: 'slow' },
    { replica: 1, filter: { namespace: 'wc-b', labelSelector: 'color=blue' }, mode: 'slow' },
    { replica: 1, filter: { labelSelector: 'color in (green)' }, mode: 'slow' },
    { replica: 0, filter: { fieldSelector: notBig }, mode: 'throttled' },
    { replica: 1, filter: { namespace: 'wc-a' }, mode: 'throttled' },
    { replica: 0, filter: { fieldSelector: notBig }, mode: 'hopper', hopEvery: 15 },
    { replica: 1, filter: { namespace: 'wc-a', labelSelector: 'color=green' }, mode: 'hopper', hopEvery: 3 },
    { replica: 0, filter: { fieldSelector: notBig }, mode: 'timeout', timeoutSeconds: 2 },
    { replica: 1, filter: { namespace: 'wc-b', labelSelector: 'tier=b' }, mode: 'timeout', timeoutSeconds: 1 },
  ];
  fromStart.forEach((spec, i) => add({ id: `start-${i}`, ...spec }, { kind: 'rv', rv: rv0 }));

  // Writers: two on each replica, over the same keys, so they also conflict.
  const log: WriteRecord[] = [];
  const lastRvBy: Array<string | undefined> = [undefined, undefined];
  let acked = 0;
  const randomLabels = (rnd: () => number): Record<string, string> => {
    const labels: Record<string, string> = {};
    const c = rnd();
    if (c < 0.3) labels.color = 'red';
    else if (c < 0.55) labels.color = 'blue';
    else if (c < 0.8) labels.color = 'green';
    if (rnd() < 0.7) labels.tier = rnd() < 0.5 ? 'a' : 'b';
    return labels;
  };
  const perform = async (rec: WriteRecord, send: () => Promise<HttpResult>) => {
    log.push(rec);
    try {
      const res = await send();
      rec.acked = ++clock;
      rec.status = res.status;
      if ((res.status === 200 || res.status === 201) && rec.op !== 'delete') {
        rec.obj = objectState(res.body);
        lastRvBy[rec.replica] = rec.obj.resourceVersion;
      }
      if (res.status === 200 || res.status === 201) acked++;
      else if (![404, 409].includes(res.status)) rec.error = `HTTP ${res.status}: ${res.text.slice(0, 300)}`;
    } catch (err) {
      rec.error = String(err);
    }
  };
  const writer = async (w: number) => {
    const replica = w % 2;
    const client = replicas[replica];
    const rnd = prng(1000 + w);
    for (let i = 0; i < OPS_PER_WRITER; i++) {
      const ns = NAMESPACES[Math.floor(rnd() * NAMESPACES.length)];
      const name = NAMES[Math.floor(rnd() * NAMES.length)];
      const key = `${ns}/${name}`;
      const data = { writer: String(w), seq: String(i), pad: 'x'.repeat(Math.floor(rnd() * 1500)) };
      const r = rnd();
      let op: WriteRecord['op'];
      let send: () => Promise<HttpResult>;
      if (r < 0.3) {
        op = 'create';
        send = () => client.request('POST', collectionPath(ns), { metadata: { name, labels: randomLabels(rnd) }, data });
      } else if (r < 0.55) {
        op = 'update';
        const cur = await client.request('GET', `${collectionPath(ns)}/${name}`);
        if (cur.status !== 200) continue;
        const labels = rnd() < 0.5 ? cur.body.metadata.labels ?? {} : randomLabels(rnd);
        send = () => client.request('PUT', `${collectionPath(ns)}/${name}`, { ...cur.body, metadata: { ...cur.body.metadata, labels }, data });
      } else if (r < 0.8) {
        op = 'patch';
        const c = rnd();
        const color = c < 0.33 ? 'red' : c < 0.66 ? 'blue' : null;
        send = () => client.request('PATCH', `${collectionPath(ns)}/${name}`, { metadata: { labels: { color } }, data }, 'application/merge-patch+json');
      } else {
        op = 'delete';
        send = () => client.request('DELETE', `${collectionPath(ns)}/${name}`);
      }
      await perform({ writer: w, replica, op, key, sent: ++clock }, send);
    }
  };
  /**
   * Large objects in their own namespace, written mid-run: tens of MB for the unfiltered
   * watchers, so a paused reader falls far enough behind for a server to close it. The
   * other watchers exclude the namespace (by namespace or field selector) or by label.
   */
  const bigWriter = async () => {
    while (acked < WRITERS * OPS_PER_WRITER * 0.15 && !smallWritersDone) await sleep(20);
    const client = replicas[1];
    for (let i = 0; i < BIG_WRITES; i++) {
      const name = `big-${i % 3}`;
      const data = { seq: String(i), blob: String.fromCharCode(97 + (i % 26)).repeat(BIG_BYTES) };
      const rec: WriteRecord = { writer: WRITERS, replica: 1, op: i < 3 ? 'create' : 'update', key: `${BIG_NS}/${name}`, sent: 0 };
      rec.sent = ++clock;
      await perform(rec, () => i < 3
        ? client.request('POST', collectionPath(BIG_NS), { metadata: { name, labels: { color: 'big' } }, data })
        : client.request('PATCH', `${collectionPath(BIG_NS)}/${name}`, { data }, 'application/merge-patch+json'));
    }
  };

  // Mid-stream watchers, started while the writers run, from versions the *other* replica gave.
  const midStream = async () => {
    const total = WRITERS * OPS_PER_WRITER;
    for (const [round, share] of [0.2, 0.45, 0.7].entries()) {
      while (acked < total * share * 0.6 && !writersDone) await sleep(20);
      for (const replica of [0, 1]) {
        const other = 1 - replica;
        const rv = lastRvBy[other];
        if (rv) {
          add({ id: `mid-${round}-write-${replica}`, replica, filter: replica === 0 ? { fieldSelector: notBig } : { namespace: 'wc-a', labelSelector: 'color=red' } }, { kind: 'rv', rv });
        }
        const list = await replicas[other].request('GET', collectionPath());
        if (list.status === 200) {
          add({ id: `mid-${round}-list-${replica}`, replica, filter: replica === 0 ? { labelSelector: 'tier=b' } : { namespace: 'wc-b' }, mode: round === 1 ? 'slow' : 'plain' },
            { kind: 'list', rv: list.body.metadata.resourceVersion, items: list.body.items.map(objectState) });
        }
      }
      add({ id: `mid-${round}-initial`, replica: round % 2, filter: round === 0 ? { fieldSelector: notBig } : { namespace: 'wc-b' } }, { kind: 'initial', rv: '' });
      add({ id: `mid-${round}-any`, replica: 1 - (round % 2), filter: { labelSelector: 'color in (blue,green)' } }, { kind: 'initial', rv: '0' });
    }
  };

  let writersDone = false;
  let smallWritersDone = false;
  const mid = midStream();
  const small = Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w))).then(() => {
    smallWritersDone = true;
  });
  await Promise.all([small, bigWriter()]);
  writersDone = true;
  await mid;
  for (const w of watchers) w.release();

  const errors = log.filter((r) => r.error);
  expect(errors.map((r) => `${r.op} ${r.key} on ${r.replica}: ${r.error}`)).toEqual([]);
  const ackedWrites = log.filter((r) => r.obj);
  const ackedDeletes = log.filter((r) => r.op === 'delete' && r.status === 200);
  expect(ackedWrites.length + ackedDeletes.length).toBeGreaterThanOrEqual(150);

  // The reference streams are complete once every acknowledged write is in both and they
  // replay to what the replicas list.
  const events = (w: Watcher): Ev[] => w.segments.flatMap((s) => s.events);
  const deletesPerKey = new Map<string, number>();
  for (const d of ackedDeletes) deletesPerKey.set(d.key, (deletesPerKey.get(d.key) ?? 0) + 1);
  const complete = (w: Watcher) => {
    const evs = events(w);
    const rvs = new Set(evs.filter((e) => e.type !== 'DELETED').map((e) => e.obj.resourceVersion));
    if (!ackedWrites.every((r) => rvs.has(r.obj!.resourceVersion))) return false;
    const seenDeletes = new Map<string, number>();
    for (const e of evs) if (e.type === 'DELETED') seenDeletes.set(keyOf(e.obj), (seenDeletes.get(keyOf(e.obj)) ?? 0) + 1);
    return [...deletesPerKey].every(([k, n]) => (seenDeletes.get(k) ?? 0) >= n);
  };
  await eventually(() => complete(refA) && complete(refB), 30000, 100);

  const finalA = await onA.request('GET', collectionPath());
  const finalB = await replicas[1].request('GET', collectionPath());
  const history = new History(initial, rv0, events(refA));
  const describeHistory = () => history.events.map((e, i) => `${i}: ${describeEvent(e)}`).join('\n');

  // 1. The reference history is a valid history of the store. (A reference that had to list
  // again after 410 has no unbroken history; on a correct server that needs a history window
  // shorter than this test.)
  expect(refA.segments.concat(refB.segments).map((s) => describeStart(s.start)).filter((d) => !d.startsWith('from resourceVersion'))).toEqual([]);
  expect(history.problems).toEqual([]);
  expect(refA.failures.concat(refB.failures)).toEqual([]);
  // Both replicas' streams from the same version are the same.
  const refBEvents = events(refB);
  expect(refBEvents.map(describeEvent)).toEqual(history.events.map(describeEvent));
  expect(refBEvents.every((e, i) => e.type === history.events[i].type && sameObject(e.obj, history.events[i].obj))).toBe(true);
  // Every acknowledged create/update/patch is exactly one event carrying what the write returned.
  const position = new Map(history.events.map((e, i) => [e.obj.resourceVersion, i]));
  const writeProblems: string[] = [];
  for (const r of ackedWrites) {
    const i = position.get(r.obj!.resourceVersion);
    const e = i === undefined ? undefined : history.events[i];
    const expectedType = r.op === 'create' ? 'ADDED' : 'MODIFIED';
    if (!e || e.type !== expectedType || !sameObject(e.obj, r.obj!)) {
      writeProblems.push(`${r.op} ${r.key} acknowledged at ${r.obj!.resourceVersion}: history has ${describeEvent(e)}`);
    }
  }
  // Nothing else: every ADDED/MODIFIED is an acknowledged write; deletes match in number.
  const writeRvs = new Set(ackedWrites.map((r) => r.obj!.resourceVersion));
  history.events.forEach((e, i) => {
    if (e.type !== 'DELETED' && !writeRvs.has(e.obj.resourceVersion)) writeProblems.push(`event ${i} ${describeEvent(e)} matches no acknowledged write`);
  });
  const deletedInHistory = new Map<string, number>();
  for (const e of history.events) if (e.type === 'DELETED') deletedInHistory.set(keyOf(e.obj), (deletedInHistory.get(keyOf(e.obj)) ?? 0) + 1);
  for (const k of new Set([...deletesPerKey.keys(), ...deletedInHistory.keys()])) {
    if ((deletesPerKey.get(k) ?? 0) !== (deletedInHistory.get(k) ?? 0)) writeProblems.push(`${k}: ${deletesPerKey.get(k) ?? 0} acknowledged deletes, ${deletedInHistory.get(k) ?? 0} DELETED events`);
  }
  // Real-time order: a write acknowledged before another was sent comes first in the history.
  const ordered = ackedWrites.slice().sort((x, y) => x.acked! - y.acked!);
  for (const w2 of ackedWrites) {
    for (const w1 of ordered) {
      if (w1.acked! >= w2.sent) break;
      if (position.get(w1.obj!.resourceVersion)! > position.get(w2.obj!.resourceVersion)!) {
        writeProblems.push(`${w1.op} ${w1.key}@${w1.obj!.resourceVersion} was acknowledged before ${w2.op} ${w2.key}@${w2.obj!.resourceVersion} was sent, but comes after it`);
      }
    }
  }
  // A delete's event lies after the key's writes acknowledged before it was sent and before
  // those sent after it was acknowledged.
  for (const d of ackedDeletes) {
    const lo = Math.max(-1, ...ackedWrites.filter((w) => w.key === d.key && w.acked! < d.sent).map((w) => position.get(w.obj!.resourceVersion)!));
    const hi = Math.min(history.length, ...ackedWrites.filter((w) => w.key === d.key && w.sent > d.acked!).map((w) => position.get(w.obj!.resourceVersion)!));
    if (!history.events.some((e, i) => i > lo && i < hi && e.type === 'DELETED' && keyOf(e.obj) === d.key)) {
      writeProblems.push(`delete of ${d.key} (sent ${d.sent}, acknowledged ${d.acked}) has no DELETED between events ${lo} and ${hi}`);
    }
  }
  expect(writeProblems).toEqual([]);
  // Replaying the history gives what both replicas list now.
  expect(finalA.status).toBe(200);
  expect(sortedStates(finalA.body.items)).toEqual(sortStates(history.finalState()));
  expect(sortedStates(finalB.body.items)).toEqual(sortedStates(finalA.body.items));

  // The history exercises what the watchers are checked for.
  const redTransitions = history.transitions({ labelSelector: 'color=red' });
  expect(redTransitions.some((t) => t.ev.type === 'DELETED' && history.events[t.pos].type === 'MODIFIED')).toBe(true);
  expect(redTransitions.some((t) => t.ev.type === 'ADDED' && history.events[t.pos].type === 'MODIFIED')).toBe(true);

  // 2. Every watcher's stream is the history for its filter from its start.
  const checkAll = () => watchers.flatMap((w) => history.checkWatcher(w.spec.filter, w.segments, true).map((p) => `${w.spec.id} ${JSON.stringify(w.spec.filter)}: ${p}`));
  await eventually(() => checkAll().length === 0, 30000, 250);
  await sleep(1000); // room for late duplicates to arrive
  for (const w of watchers) w.stop();
  const problems = checkAll();
  if (problems.length) console.error(`history:\n${describeHistory()}`);
  expect(problems).toEqual([]);
  expect(watchers.flatMap((w) => w.failures)).toEqual([]);

  // The resumption paths really ran: hoppers changed replica, timed-out watches resumed.
  const byId = (id: string) => watchers.filter((w) => w.spec.id.startsWith(id));
  expect(watchers.filter((w) => w.spec.mode === 'hopper').every((w) => w.segments.length > 2)).toBe(true);
  expect(watchers.filter((w) => w.spec.mode === 'timeout').every((w) => w.serverEnds > 0)).toBe(true);
  expect(byId('mid-').length).toBeGreaterThanOrEqual(12);
  const closedSlow = watchers.filter((w) => w.spec.mode === 'slow' && w.serverEnds > 0).length;
  console.log(`watch-consistency: ${history.length} events, ${watchers.length} watchers, ${watchers.reduce((n, w) => n + w.eventCount, 0)} events delivered, `
    + `${watchers.reduce((n, w) => n + w.segments.length, 0)} watch requests, ${closedSlow} slow readers closed by the server, `
    + `${watchers.reduce((n, w) => n + w.expirations, 0)} expirations; starts: ${watchers.map((w) => describeStart(w.segments[0].start)).filter((s, i, all) => all.indexOf(s) === i).join('; ')}`);
}, 180000);

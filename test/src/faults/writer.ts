/**
 * Writers for the fault test: creates, updates and deletes of ConfigMaps, each writer over
 * keys only it writes, so every 409 or 404 it gets can be explained (or not) by its own
 * retries. A write is retried until it is acknowledged: on a retryable failure it is sent
 * again, and a 409/404 answering such a retry is resolved by reading the object back (the
 * earlier attempt was applied when the object carries this write's sequence number).
 * Every acknowledged write is kept with the object the server returned for it.
 */
import type { HttpResult, KubeHttp, ObjectState } from '../kubehttp.js';
import { objectState } from '../kubehttp.js';
import { classifyError, classifyStatus, retryDelayMs, type ErrorLog } from './errors.js';

export type OpKind = 'create' | 'update' | 'delete';

export interface Op {
  writer: string;
  seq: number;
  kind: OpKind;
  key: string;
  sentAt: number;
  /** When it was acknowledged (ms since the epoch). */
  ackedAt?: number;
  /** The object the server returned (create, update); a delete has none. */
  result?: ObjectState;
  attempts: number;
  /** Set when it could not be acknowledged: the run fails. */
  failure?: string;
}

export const collectionPath = (ns?: string) => (ns ? `/api/v1/namespaces/${ns}/configmaps` : '/api/v1/configmaps');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const COLORS = ['red', 'blue', 'green'];

/** Deterministic pseudo-random numbers (mulberry32), so a failing run's choices can be replayed. */
export function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Writer {
  readonly ops: Op[] = [];
  readonly failures: string[] = [];
  /** What this writer's keys hold, as far as its acknowledged writes tell. */
  private state = new Map<string, ObjectState>();
  private seq = 0;
  private stopped = false;
  /** An op could not be acknowledged: the writer stops, its keys' state is unknown from there. */
  failed = false;
  private running?: Promise<void>;

  constructor(
    readonly id: string,
    private client: KubeHttp,
    private errors: ErrorLog,
    private rnd: () => number,
    private keys: string[] = [],
    /** Keep every op (the fault test checks them); the soak only counts. */
    private keepOps = true,
  ) {}

  /** Ops acknowledged so far. */
  ackedCount = 0;

  /** Random writes over the writer's keys at `opsPerSecond` until `stop()`. */
  start(opsPerSecond: number): void {
    const interval = 1000 / opsPerSecond;
    this.running = (async () => {
      let next = Date.now();
      while (!this.stopped) {
        const key = this.keys[Math.floor(this.rnd() * this.keys.length)];
        const cur = this.state.get(key);
        if (!cur) await this.create(key);
        else if (this.rnd() < 0.75) await this.update(key, cur);
        else await this.delete(key, cur);
        if (this.failed) return;
        next += interval;
        const wait = next - Date.now();
        if (wait > 0) await sleep(wait);
        else next = Date.now();
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  get acknowledged(): Op[] {
    return this.ops.filter((o) => o.ackedAt !== undefined);
  }

  private body(key: string, seq: number, base?: ObjectState): any {
    const [namespace, name] = key.split('/');
    const labels: Record<string, string> = { writer: this.id };
    if (this.rnd() < 0.75) labels.color = COLORS[Math.floor(this.rnd() * COLORS.length)];
    const metadata: any = { name, namespace, labels };
    if (base) Object.assign(metadata, { uid: base.uid, resourceVersion: base.resourceVersion });
    return { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { writer: this.id, seq: String(seq), pad: 'x'.repeat(Math.floor(this.rnd() * 400)) } };
  }

  /** Creates `key` (namespace/name); resolves to the acknowledged op. */
  async create(key: string): Promise<Op> {
    const seq = ++this.seq;
    const [ns] = key.split('/');
    const body = this.body(key, seq);
    return this.perform({ writer: this.id, seq, kind: 'create', key, sentAt: Date.now(), attempts: 0 }, () => this.client.request('POST', collectionPath(ns), body), 201, 'AlreadyExists');
  }

  private update(key: string, cur: ObjectState): Promise<Op> {
    const seq = ++this.seq;
    const [ns, name] = key.split('/');
    const body = this.body(key, seq, cur);
    return this.perform({ writer: this.id, seq, kind: 'update', key, sentAt: Date.now(), attempts: 0 }, () => this.client.request('PUT', `${collectionPath(ns)}/${name}`, body), 200, 'Conflict');
  }

  private delete(key: string, cur: ObjectState): Promise<Op> {
    const seq = ++this.seq;
    const [ns, name] = key.split('/');
    const body = { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: cur.uid, resourceVersion: cur.resourceVersion } };
    return this.perform({ writer: this.id, seq, kind: 'delete', key, sentAt: Date.now(), attempts: 0 }, () => this.client.request('DELETE', `${collectionPath(ns)}/${name}`, body), 200, 'NotFound');
  }

  private async perform(op: Op, send: () => Promise<HttpResult>, okStatus: number, retryAnswer: string): Promise<Op> {
    if (this.keepOps) this.ops.push(op);
    const ctx = () => `${this.id} ${op.kind} ${op.key} #${op.seq} attempt ${op.attempts}`;
    for (;;) {
      op.attempts++;
      let r: HttpResult;
      try {
        r = await send();
      } catch (err) {
        const c = classifyError(err);
        this.errors.see(c, ctx());
        if (!c.retryable) return this.fail(op, `${ctx()}: ${c.kind}`);
        await sleep(100 + this.rnd() * 200);
        continue;
      }
      if (r.status === okStatus) return this.ack(op, op.kind === 'delete' ? undefined : objectState(r.body));
      const reason = r.body?.reason;
      if (reason === retryAnswer && (r.status === 409 || r.status === 404)) {
        // Applied by an earlier attempt? Then the object (or its absence) shows this write.
        const applied = await this.appliedEarlier(op);
        if (applied !== false && op.attempts > 1) {
          this.errors.note(`${r.status} ${reason} answering the client's own retry (earlier attempt applied)`);
          return this.ack(op, applied);
        }
        const c = { kind: `${r.status} ${reason} ${op.attempts > 1 ? 'after a retry, but the earlier attempt was not applied' : 'on a first attempt'}${applied !== false ? ' (the write was applied)' : ''}`, retryable: false };
        this.errors.see(c, ctx());
        if (applied !== false) return this.ack(op, applied, `${ctx()}: ${c.kind}`);
        return this.fail(op, `${ctx()}: ${c.kind}: ${r.text.slice(0, 300)}`);
      }
      const c = classifyStatus(r.status, r.body);
      this.errors.see(c, ctx());
      if (!c.retryable) return this.fail(op, `${ctx()}: ${r.status} ${r.text.slice(0, 300)}`);
      await sleep(retryDelayMs(r.body));
    }
  }

  /** The object as this op left it if it was applied (undefined for an applied delete), false if not. */
  private async appliedEarlier(op: Op): Promise<ObjectState | undefined | false> {
    const [ns, name] = op.key.split('/');
    for (;;) {
      let r: HttpResult;
      try {
        r = await this.client.request('GET', `${collectionPath(ns)}/${name}`);
      } catch (err) {
        this.errors.see(classifyError(err), `${this.id} reading back ${op.key}`);
        await sleep(200);
        continue;
      }
      if (r.status === 404) return op.kind === 'delete' ? undefined : false;
      if (r.status === 200) {
        if (op.kind === 'delete') return false;
        return r.body?.data?.writer === this.id && r.body?.data?.seq === String(op.seq) ? objectState(r.body) : false;
      }
      const c = classifyStatus(r.status, r.body);
      this.errors.see(c, `${this.id} reading back ${op.key}`);
      await sleep(retryDelayMs(r.body));
    }
  }

  private ack(op: Op, result: ObjectState | undefined, failure?: string): Op {
    op.ackedAt = Date.now();
    op.result = result;
    this.ackedCount++;
    if (failure) this.fail(op, failure);
    if (op.kind === 'delete') this.state.delete(op.key);
    else this.state.set(op.key, result!);
    return op;
  }

  private fail(op: Op, why: string): Op {
    op.failure = why;
    this.failed = true;
    this.failures.push(why);
    return op;
  }
}

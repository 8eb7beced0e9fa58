import { ExponentialBackoff, handleWhen, retry } from 'cockatiel';
import { checkKey, checkModRevision, checkValue, checkWatchRevision } from './errors.js';
import { etcdCall } from './etcd/errors.js';
import { EtcdGrpcClient, GrpcCallError, isRetryableGrpcError, UNAVAILABLE, type EtcdTLS } from './etcd/grpc.js';
import { bytes, toKeyValue } from './etcd/kv.js';
import { ProtoWriter } from './etcd/wire.js';
import {
  decodeHeaderOnly,
  decodeRangeResponse,
  decodeStatusVersion,
  decodeTxnResponse,
  encodeCompaction,
  encodeRange,
  encodeTxn,
  type RangeRequest,
  type RangeResponse,
  type RawKeyValue,
  type TxnRequest,
  type TxnResponse,
} from './etcd/kvmessages.js';
import { supportsProgressRequests } from './etcd/version.js';
import { openEtcdWatch } from './etcd/watch.js';
import { readRange, watchRange, withStartKey } from './keys.js';
import {
  StorageError,
  type KeyValue,
  type RangeOptions,
  type RangeResult,
  type Storage,
  type WatchHandle,
  type WatchListener,
  type WatchOptions,
} from './types.js';

export interface EtcdStorageOptions {
  /** Client URLs, e.g. ['http://127.0.0.1:2379']. */
  endpoints: string[];
  /** How long connect() may take before failing with Unavailable. Default 5000 ms. */
  connectTimeoutMs?: number;
  /**
   * With progressNotify, ask for progress this often (ms) when the server's answers can
   * be trusted (see supportsProgressRequests); otherwise the server's own
   * --experimental-watch-progress-notify-interval applies. Default 5000; 0 disables.
   */
  progressIntervalMs?: number;
  /** CA, client certificate and key for https:// endpoints (kube's --etcd-cafile/--etcd-certfile/--etcd-keyfile). */
  tls?: EtcdTLS;
  /**
   * How long a call that no member could take waits for one, trying again with backoff: gRPC's
   * WaitForReady, which kube's etcd client turns on, bounded there by the request's deadline.
   * Default 60000 (kube-apiserver's --request-timeout).
   */
  unavailableWaitMs?: number;
}

/** A key nobody writes: reads of it only serve to learn revisions. */
const PROBE_KEY = bytes('compact_rev_key');

/**
 * A call is never re-sent by the client itself. A call that never left (no member could be
 * reached) waits for one, as kube's etcd client does (gRPC WaitForReady): while etcd restarts,
 * a write is delayed rather than failed. Reads, which are safe to repeat, are also retried
 * when they were sent and lost. A transaction is not: one whose connection broke may have been
 * applied, and a copy would then fail its compare against the first one's result (a delete
 * answered 404, an update a false 409; seen in the fault runs after killing etcd members). Such
 * a write is reported as unavailable, as kube-apiserver reports it.
 */
const neverSent = (err: Error) => err instanceof GrpcCallError && err.unsent && err.code === UNAVAILABLE;
const readRetry = retry(handleWhen((err) => isRetryableGrpcError(err) && !neverSent(err)), { maxAttempts: 3, backoff: new ExponentialBackoff({ initialDelay: 20, maxDelay: 500 }) });
const untilSentRetry = retry(handleWhen(neverSent), { maxAttempts: Infinity, backoff: new ExponentialBackoff({ initialDelay: 25, maxDelay: 1000 }) });

/** The etcd backend. Create it with EtcdStorage.connect(), which also learns the server version. */
export class EtcdStorage implements Storage {
  readonly name = 'etcd';
  /** The version of the member that answered the status request at connect(). */
  serverVersion = '';
  /** True when progress notifications prove a watch is up to date (etcd >= 3.4.31 / 3.5.13). */
  supportsProgressRequests = false;

  private readonly kv: EtcdGrpcClient;
  private readonly watches = new Set<WatchHandle>();
  private readonly progressIntervalMs: number;
  private readonly unavailableWaitMs: number;
  /** A lower bound for the compacted revision, so compactedRevision() searches less. */
  private knownCompacted = 0;
  private closed = false;

  constructor(opts: EtcdStorageOptions) {
    if (!opts.endpoints?.length) throw new StorageError('InvalidArgument', 'etcd needs at least one endpoint');
    this.kv = new EtcdGrpcClient(opts.endpoints, opts.tls);
    this.progressIntervalMs = opts.progressIntervalMs ?? 5000;
    this.unavailableWaitMs = opts.unavailableWaitMs ?? 60_000;
  }

  /**
   * Makes a call, and when no member could take it, makes it again once one can, for up to
   * `waitMs`. The first try needs no timer: only a call that found etcd down pays for one.
   */
  private untilSent<T>(call: () => Promise<T>, waitMs = this.unavailableWaitMs): Promise<T> {
    return call().catch((err: unknown) => {
      if (!(err instanceof Error) || !neverSent(err) || this.closed) throw err;
      return untilSentRetry.execute(() => {
        if (this.closed) throw new StorageError('Unavailable', 'etcd storage is closed');
        return call();
      }, AbortSignal.timeout(waitMs));
    });
  }

  /** Connect, failing within connectTimeoutMs with Unavailable when etcd does not answer. */
  static async connect(opts: EtcdStorageOptions): Promise<EtcdStorage> {
    const storage = new EtcdStorage(opts);
    try {
      await storage.detectVersion(opts.connectTimeoutMs ?? 5000);
      return storage;
    } catch (err) {
      await storage.close();
      const reason = err instanceof Error ? err.message : String(err);
      throw new StorageError('Unavailable', `cannot reach etcd at ${opts.endpoints.join(',')}: ${reason}`);
    }
  }

  private async detectVersion(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      // Retried like reads, so a member that cannot be reached is passed over.
      const status = this.untilSent(() => readRetry.execute(() => this.kv.unary('/etcdserverpb.Maintenance/Status', new ProtoWriter(), decodeStatusVersion)), timeoutMs);
      const version = await Promise.race([status, timeout]);
      this.serverVersion = version;
      this.supportsProgressRequests = supportsProgressRequests(version);
    } finally {
      clearTimeout(timer);
    }
  }

  async range(key: string, opts: RangeOptions & { prefix?: boolean } = {}): Promise<RangeResult> {
    this.checkOpen();
    const r = withStartKey(readRange(checkKey(key), opts.prefix), opts.startKey);
    const revision = opts.revision && opts.revision > 0 ? opts.revision : 0;
    const res = await etcdCall(
      () =>
        this.untilSent(() => readRetry.execute(() => this.rangeCall({
          key: bytes(r.start),
          rangeEnd: r.end === undefined ? undefined : bytes(r.end),
          revision,
          limit: opts.limit && opts.limit > 0 ? opts.limit : 0,
          countOnly: !!opts.countOnly,
        }))),
      revision,
    );
    return {
      items: res.kvs.map(toKeyValue),
      revision: revision || res.revision,
      count: res.count,
      more: res.more,
    };
  }

  async get(key: string, revision?: number): Promise<KeyValue | null> {
    const res = await this.range(key, { revision });
    return res.items[0] ?? null;
  }

  async create(key: string, value: Buffer): Promise<KeyValue> {
    const k = bytes(checkKey(key));
    checkValue(value);
    const res = await this.txn({
      compare: [{ key: k, target: 'create', revision: 0 }],
      success: [{ put: { key: k, value } }],
      failure: [{ range: { key: k } }],
    });
    if (!res.succeeded) {
      const current = firstKv(res);
      throw new StorageError('KeyExists', `key ${key} already exists`, { key, current: current && toKeyValue(current) });
    }
    const revision = res.revision;
    return { key, value, createRevision: revision, modRevision: revision };
  }

  async update(key: string, value: Buffer, expectedModRevision: number): Promise<KeyValue> {
    const k = bytes(checkKey(key));
    checkValue(value);
    const res = await this.txn({
      compare: [{ key: k, target: 'mod', revision: checkModRevision(expectedModRevision) }],
      success: [{ put: { key: k, value, prevKv: true } }],
      failure: [{ range: { key: k } }],
    });
    if (!res.succeeded) throw mismatch(key, expectedModRevision, firstKv(res));
    const prev = firstKv(res);
    if (!prev) throw new Error(`etcd answered the update of ${key} without its previous value`);
    return { key, value, createRevision: prev.createRevision, modRevision: res.revision };
  }

  async delete(key: string, expectedModRevision: number): Promise<{ deleted: KeyValue; revision: number }> {
    const k = bytes(checkKey(key));
    const res = await this.txn({
      compare: [{ key: k, target: 'mod', revision: checkModRevision(expectedModRevision) }],
      success: [{ deleteRange: { key: k, prevKv: true } }],
      failure: [{ range: { key: k } }],
    });
    if (!res.succeeded) throw mismatch(key, expectedModRevision, firstKv(res));
    const deleted = firstKv(res);
    if (!deleted) throw new Error(`etcd answered the delete of ${key} without its previous value`);
    return { deleted: toKeyValue(deleted), revision: res.revision };
  }

  async watch(prefix: string, fromRevision: number, listener: WatchListener, opts: WatchOptions = {}): Promise<WatchHandle> {
    this.checkOpen();
    const range = watchRange(checkKey(prefix));
    // Periodic progress requests only where the answers are exact (see supportsProgressRequests).
    const progressIntervalMs = this.supportsProgressRequests ? this.progressIntervalMs : 0;
    let handle: WatchHandle | undefined;
    const created = await openEtcdWatch(this.kv, range, checkWatchRevision(fromRevision), listener, { ...opts, progressIntervalMs }, () => {
      if (handle) this.watches.delete(handle);
    });
    handle = created;
    this.watches.add(handle);
    return handle;
  }

  /** A linearizable read of any key: its header carries the store revision. */
  async currentRevision(opts: { waitMs?: number } = {}): Promise<number> {
    this.checkOpen();
    const res = await etcdCall(() => this.untilSent(() => readRetry.execute(() => this.rangeCall({ key: PROBE_KEY, countOnly: true })), opts.waitMs));
    return res.revision;
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    await etcdCall(() => this.kv.unary('/etcdserverpb.KV/Compact', encodeCompaction(revision, true), decodeHeaderOnly), revision);
    this.knownCompacted = Math.max(this.knownCompacted, revision);
  }

  /**
   * etcd has no RPC for this, but a read at R fails exactly when R is below the compacted
   * revision: binary-search the oldest readable revision. Cheap count-only reads, no
   * writes, and right even when someone else (another replica, etcd's auto-compaction)
   * compacted. 0 when nothing below the first revision was ever dropped.
   */
  async compactedRevision(): Promise<number> {
    let hi = await this.currentRevision();
    let lo = Math.max(this.knownCompacted, 1);
    if (await this.readableAt(lo)) {
      hi = lo;
    } else {
      // Invariant: lo is not readable, hi is (the current revision always is).
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (await this.readableAt(mid)) hi = mid;
        else lo = mid;
      }
    }
    this.knownCompacted = hi;
    return hi <= 1 ? 0 : hi;
  }

  private async readableAt(revision: number): Promise<boolean> {
    try {
      await etcdCall(() => this.untilSent(() => readRetry.execute(() => this.rangeCall({ key: PROBE_KEY, revision, countOnly: true }))), revision);
      return true;
    } catch (err) {
      if (err instanceof StorageError && err.code === 'Compacted') return false;
      throw err;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const w of [...this.watches]) w.close();
    this.kv.close();
  }

  private rangeCall(req: RangeRequest): Promise<RangeResponse> {
    return this.kv.unary('/etcdserverpb.KV/Range', encodeRange(req), decodeRangeResponse);
  }

  private async txn(req: TxnRequest): Promise<TxnResponse> {
    this.checkOpen();
    return etcdCall(() => this.untilSent(() => this.kv.unary('/etcdserverpb.KV/Txn', encodeTxn(req), decodeTxnResponse)));
  }

  private checkOpen(): void {
    if (this.closed) throw new StorageError('Unavailable', 'etcd storage is closed');
  }
}

/** The key as the transaction's one operation returned it (range, put's prev_kv, delete's prev_kvs). */
function firstKv(res: TxnResponse): RawKeyValue | undefined {
  return res.responses[0]?.kvs[0];
}

function mismatch(key: string, expected: number, current: RawKeyValue | undefined): StorageError {
  if (!current) return new StorageError('NotFound', `key ${key} not found`, { key });
  const kv = toKeyValue(current);
  return new StorageError('Conflict', `key ${key} was modified at revision ${kv.modRevision}, expected ${expected}`, { key, current: kv });
}

/**
 * The state of one resource type in one replica: the current objects in key order, a ring of
 * recent events for watch resume, and copy-on-write snapshots of the key space per event
 * revision for Exact and continuation lists (DESIGN.md, "Watch cache and snapshots").
 */
import { BTree } from './btree.js';
import type { CachedObject } from './cachedobject.js';

export type CacheEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export class CacheEvent {
  private prevAtRev?: CachedObject;
  constructor(
    readonly type: CacheEventType,
    readonly revision: number,
    readonly key: string,
    /** The new object; for DELETED the last state, reported at the deletion's revision. */
    readonly object: CachedObject,
    /** The object before this event (its own revision), absent for ADDED. */
    readonly prevObject: CachedObject | undefined,
    readonly time: number,
  ) {}

  /** The previous object at this event's revision: what a watcher whose selector it leaves gets as DELETED. Shared by all such watchers. */
  prevAtRevision(): CachedObject | undefined {
    if (!this.prevObject) return undefined;
    this.prevAtRev ??= this.prevObject.atRevision(this.revision);
    return this.prevAtRev;
  }
}

export type Tree = BTree<string, CachedObject>;

interface Snapshot {
  revision: number;
  tree: Tree;
  time: number;
}

export interface WatchCacheOptions {
  /** How long events are kept for watch resume (kube: 5 minutes by default). */
  historyWindowMs: number;
  /** How long snapshots are kept for Exact and continuation lists (kube: 75 s). */
  snapshotWindowMs: number;
  /** Upper bounds that keep memory finite under heavy write rates. */
  maxEvents: number;
  maxSnapshots: number;
}

export class WatchCache {
  tree: Tree = new BTree<string, CachedObject>();
  /** Every change up to this revision is applied (events and progress notifications). */
  resourceVersion = 0;
  /** Events after this revision are all in the ring: a watch from it or later can be served. */
  oldestRevision = 0;
  /** The revision of the last event applied (the current tree is the state at any revision from here to resourceVersion). */
  lastEventRevision = 0;
  private ring: CacheEvent[] = [];
  private ringStart = 0;
  private snapshots: Snapshot[] = [];
  private snapshotStart = 0;
  private compactedRevision = 0;

  constructor(private opts: WatchCacheOptions) {}

  reset(items: CachedObject[], revision: number): void {
    const tree = new BTree<string, CachedObject>();
    for (const item of items) tree.set(item.key, item);
    this.tree = tree;
    this.resourceVersion = revision;
    this.oldestRevision = revision;
    this.lastEventRevision = revision;
    this.ring = [];
    this.ringStart = 0;
    this.snapshots = [{ revision, tree: tree.clone(), time: Date.now() }];
    this.snapshotStart = 0;
  }

  apply(ev: CacheEvent): void {
    if (ev.type === 'DELETED') this.tree.delete(ev.key);
    else this.tree.set(ev.key, ev.object);
    this.resourceVersion = Math.max(this.resourceVersion, ev.revision);
    this.lastEventRevision = ev.revision;
    this.ring.push(ev);
    this.snapshots.push({ revision: ev.revision, tree: this.tree.clone(), time: ev.time });
    this.prune(ev.time);
  }

  progress(revision: number): void {
    if (revision > this.resourceVersion) this.resourceVersion = revision;
  }

  /** Events after `revision`, or null when the ring no longer reaches back that far. */
  eventsSince(revision: number): CacheEvent[] | null {
    if (revision < this.oldestRevision) return null;
    const live = this.liveRing();
    let lo = 0, hi = live.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (live[mid].revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return live.slice(lo);
  }

  /** The key space exactly as of `revision`, if a snapshot still holds it. */
  snapshotAt(revision: number): Tree | undefined {
    if (revision <= this.compactedRevision || revision > this.resourceVersion) return undefined;
    if (revision >= this.lastEventRevision) return this.tree.clone();
    const snaps = this.snapshots;
    let lo = this.snapshotStart, hi = snaps.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (snaps[mid].revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    // Every event leaves a snapshot, so the last one at or before the revision is the state
    // at it; before the oldest kept snapshot the state is unknown.
    const i = lo - 1;
    return i < this.snapshotStart ? undefined : snaps[i].tree;
  }

  /** Drops history and snapshots at or below a compacted revision. */
  compacted(revision: number): void {
    this.compactedRevision = Math.max(this.compactedRevision, revision);
    while (this.ringStart < this.ring.length && this.ring[this.ringStart].revision <= revision) this.ringStart++;
    this.oldestRevision = Math.max(this.oldestRevision, Math.min(revision, this.resourceVersion));
    while (this.snapshotStart < this.snapshots.length && this.snapshots[this.snapshotStart].revision <= revision) this.snapshotStart++;
    this.compactArrays();
  }

  private liveRing(): CacheEvent[] {
    return this.ringStart === 0 ? this.ring : this.ring.slice(this.ringStart);
  }

  private prune(now: number): void {
    const ringLive = this.ring.length - this.ringStart;
    while (this.ringStart < this.ring.length && (now - this.ring[this.ringStart].time > this.opts.historyWindowMs || this.ring.length - this.ringStart > this.opts.maxEvents)) {
      this.oldestRevision = this.ring[this.ringStart].revision;
      this.ringStart++;
    }
    // Keep the newest snapshot even when old: it is the state since the last event.
    while (this.snapshots.length - this.snapshotStart > 1 && (now - this.snapshots[this.snapshotStart].time > this.opts.snapshotWindowMs || this.snapshots.length - this.snapshotStart > this.opts.maxSnapshots)) {
      this.snapshotStart++;
    }
    if (ringLive > 1024) this.compactArrays();
  }

  private compactArrays(): void {
    if (this.ringStart > 1024 && this.ringStart > this.ring.length / 2) {
      this.ring = this.ring.slice(this.ringStart);
      this.ringStart = 0;
    }
    if (this.snapshotStart > 1024 && this.snapshotStart > this.snapshots.length / 2) {
      this.snapshots = this.snapshots.slice(this.snapshotStart);
      this.snapshotStart = 0;
    }
  }
}

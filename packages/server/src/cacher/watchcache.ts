/**
 * The state of one resource type in one replica: the current objects in key order, a ring of
 * recent events for watch resume, and copy-on-write snapshots of the key space for Exact and
 * continuation lists (DESIGN.md, "Watch cache and snapshots"). A snapshot is taken when a
 * list needs one (a paged list, whose continuations come back at its revision), not per
 * event: a clone makes the next write copy the B-tree path it touches (~2 KB for 1.5 KB
 * objects), which per event would double the cache's memory for the snapshot window.
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
    if (!this.prevAtRev) {
      this.prevAtRev = this.prevObject.atRevision(this.revision);
      if (this.sharing) this.prevAtRev.holdEventLines();
    }
    return this.prevAtRev;
  }

  private sharing = false;

  /** While the event is fanned out, watchers share its encoded lines; afterwards nothing extra is kept. */
  holdEventLines(): void {
    this.sharing = true;
    this.object.holdEventLines();
    this.prevAtRev?.holdEventLines();
  }

  dropEventLines(): void {
    this.sharing = false;
    this.object.dropEventLines();
    this.prevAtRev?.dropEventLines();
  }
}

export type Tree = BTree<string, CachedObject>;

interface Snapshot {
  /** The last event's revision when it was taken: the state holds from here… */
  revision: number;
  /** …up to (not including) the next event's revision; Infinity until that event comes. */
  until: number;
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
    this.snapshots = [{ revision, until: Infinity, tree: tree.clone(), time: Date.now() }];
    this.snapshotStart = 0;
  }

  apply(ev: CacheEvent): void {
    const open = this.snapshots[this.snapshots.length - 1];
    if (open && open.until === Infinity && this.snapshots.length > this.snapshotStart) open.until = ev.revision;
    if (ev.type === 'DELETED') this.tree.delete(ev.key);
    else this.tree.set(ev.key, ev.object);
    this.resourceVersion = Math.max(this.resourceVersion, ev.revision);
    this.lastEventRevision = ev.revision;
    this.ring.push(ev);
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

  /**
   * The current key space as a snapshot no later event changes, recorded so that lists
   * continuing at this revision find it (one snapshot serves every list until the next event).
   */
  snapshot(now = Date.now()): Tree {
    const last = this.snapshots[this.snapshots.length - 1];
    if (last && last.until === Infinity && this.snapshots.length > this.snapshotStart) return last.tree;
    const tree = this.tree.clone();
    this.snapshots.push({ revision: this.lastEventRevision, until: Infinity, tree, time: now });
    this.prune(now);
    return tree;
  }

  /** The key space exactly as of `revision`, if the current state or a snapshot holds it. */
  snapshotAt(revision: number): Tree | undefined {
    if (revision <= this.compactedRevision || revision > this.resourceVersion) return undefined;
    if (revision >= this.lastEventRevision) return this.snapshot();
    const snaps = this.snapshots;
    let lo = this.snapshotStart, hi = snaps.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (snaps[mid].revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    const i = lo - 1;
    return i >= this.snapshotStart && revision < snaps[i].until ? snaps[i].tree : undefined;
  }

  /** Drops history and snapshots at or below a compacted revision. */
  compacted(revision: number): void {
    this.compactedRevision = Math.max(this.compactedRevision, revision);
    while (this.ringStart < this.ring.length && this.ring[this.ringStart].revision <= revision) this.dropOldestEvent();
    this.oldestRevision = Math.max(this.oldestRevision, Math.min(revision, this.resourceVersion));
    while (this.snapshotStart < this.snapshots.length && this.snapshots[this.snapshotStart].revision <= revision) this.dropOldestSnapshot();
    this.compactArrays();
  }

  private liveRing(): CacheEvent[] {
    return this.ringStart === 0 ? this.ring : this.ring.slice(this.ringStart);
  }

  private prune(now: number): void {
    while (this.ringStart < this.ring.length && (now - this.ring[this.ringStart].time > this.opts.historyWindowMs || this.ring.length - this.ringStart > this.opts.maxEvents)) {
      this.oldestRevision = this.ring[this.ringStart].revision;
      this.dropOldestEvent();
    }
    // Keep the newest snapshot even when old: it is the state since the last event.
    while (this.snapshots.length - this.snapshotStart > 1 && (now - this.snapshots[this.snapshotStart].time > this.opts.snapshotWindowMs || this.snapshots.length - this.snapshotStart > this.opts.maxSnapshots)) {
      this.dropOldestSnapshot();
    }
    // However few entries are live, the dead prefix must go, or the arrays (and every old
    // snapshot's tree) would be kept for good.
    this.compactArrays();
  }

  /** Dead entries let go of their objects and trees at once, before the array is sliced. */
  private dropOldestEvent(): void {
    (this.ring as (CacheEvent | undefined)[])[this.ringStart++] = undefined;
  }

  private dropOldestSnapshot(): void {
    (this.snapshots as (Snapshot | undefined)[])[this.snapshotStart++] = undefined;
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

import { inRange, type KeyRange } from '../keys.js';
import { compactedError } from '../errors.js';
import { type StorageWatchEvent, type WatchListener } from '../types.js';
import { rowToEvent } from './events.js';
import type { LogRow, NewRow } from './log.js';

/** What the hub needs from the store: history for replays and the revisions that bound it. */
export interface HubSource {
  history(from: number, to: number, limit: number): LogRow[];
  currentRevision(): number;
  compactedRevision(): number;
}

const REPLAY_PAGE = 1000;

interface Watcher {
  range: KeyRange;
  listener: WatchListener;
  prevKv: boolean;
  progressNotify: boolean;
  /** Live events below this revision are not for this watcher (fromRevision in the future). */
  minRevision: number;
  /** History still to read from the log, inclusive; done when replayNext > replayEnd. */
  replayNext: number;
  replayEnd: number;
  /** Live events committed since registration, delivered after the replay. */
  queue: StorageWatchEvent[];
  progressWanted: boolean;
  scheduled: boolean;
  closed: boolean;
}

export interface HubWatch {
  requestProgress(): void;
  close(): void;
}

/**
 * In-process watch delivery. Writers call publish() right after their transaction
 * commits, in revision order, which only queues; listeners run later from setImmediate so
 * no listener code ever runs inside a write. A watcher registered at revision C replays
 * (fromRevision..C] from the log, then drains the events queued since: no gap, no repeat.
 */
export class WatchHub {
  private readonly watchers = new Set<Watcher>();
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(private readonly source: HubSource, progressIntervalMs: number) {
    if (progressIntervalMs > 0) {
      this.timer = setInterval(() => this.periodicProgress(), progressIntervalMs);
      this.timer.unref();
    }
  }

  /** Must be called synchronously with reading `current`, so no write slips in between. */
  add(range: KeyRange, fromRevision: number, listener: WatchListener, prevKv: boolean, progressNotify: boolean): HubWatch {
    const current = this.source.currentRevision();
    const start = fromRevision > 0 ? fromRevision : current + 1;
    const w: Watcher = {
      range, listener, prevKv, progressNotify,
      minRevision: start,
      replayNext: start,
      replayEnd: current,
      queue: [],
      progressWanted: false,
      scheduled: false,
      closed: false,
    };
    this.watchers.add(w);
    // Even a watch needing no replay is flushed once, so a compacted fromRevision is
    // reported through the listener after watch() resolved, as with etcd.
    this.schedule(w);
    return {
      requestProgress: () => {
        if (w.closed) return;
        w.progressWanted = true;
        this.schedule(w);
      },
      close: () => this.remove(w),
    };
  }

  publish(id: number, row: NewRow): void {
    let plain: StorageWatchEvent | undefined;
    let withPrev: StorageWatchEvent | undefined;
    for (const w of this.watchers) {
      if (id < w.minRevision || !inRange(row.name, w.range)) continue;
      const ev = w.prevKv ? (withPrev ??= rowToEvent(id, row, true)) : (plain ??= rowToEvent(id, row, false));
      w.queue.push(ev);
      this.schedule(w);
    }
  }

  closeAll(): void {
    if (this.timer) clearInterval(this.timer);
    for (const w of [...this.watchers]) this.remove(w);
  }

  private periodicProgress(): void {
    for (const w of this.watchers) {
      if (!w.progressNotify) continue;
      w.progressWanted = true;
      this.schedule(w);
    }
  }

  private remove(w: Watcher): void {
    w.closed = true;
    w.queue = [];
    this.watchers.delete(w);
  }

  private schedule(w: Watcher): void {
    if (w.scheduled || w.closed) return;
    w.scheduled = true;
    setImmediate(() => this.flush(w));
  }

  private flush(w: Watcher): void {
    w.scheduled = false;
    if (w.closed) return;
    if (w.replayNext <= w.replayEnd) {
      this.replayPage(w);
      this.schedule(w);
      return;
    }
    if (w.queue.length > 0) {
      const events = w.queue;
      w.queue = [];
      this.call(w, () => w.listener.events(events));
    }
    if (w.progressWanted && !w.closed) {
      w.progressWanted = false;
      // Every write up to the current revision was queued at commit and the queue is
      // now empty, so this revision is exact.
      const revision = this.source.currentRevision();
      if (w.listener.progress) this.call(w, () => w.listener.progress!(revision));
    }
  }

  private replayPage(w: Watcher): void {
    const compacted = this.source.compactedRevision();
    if (w.replayNext < compacted) {
      this.fail(w, compactedError(w.replayNext, compacted));
      return;
    }
    const rows = this.source.history(w.replayNext, w.replayEnd, REPLAY_PAGE);
    w.replayNext = rows.length < REPLAY_PAGE ? w.replayEnd + 1 : rows[rows.length - 1].id + 1;
    const events: StorageWatchEvent[] = [];
    for (const row of rows) {
      if (inRange(row.name, w.range)) events.push(rowToEvent(row.id, row, w.prevKv));
    }
    if (events.length > 0) this.call(w, () => w.listener.events(events));
  }

  /** A listener that throws ends its own watch, not the hub. */
  private call(w: Watcher, fn: () => void): boolean {
    try {
      fn();
      return true;
    } catch (err) {
      this.fail(w, err instanceof Error ? err : new Error(String(err)));
      return false;
    }
  }

  private fail(w: Watcher, err: Error): void {
    if (w.closed) return;
    this.remove(w);
    try {
      w.listener.error(err);
    } catch {
      // The watch is already over; there is nobody left to tell.
    }
  }
}

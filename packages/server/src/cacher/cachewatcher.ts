/**
 * One client's watch on the cache: filters events by key and selectors, turns a MODIFIED
 * that leaves (enters) the selection into DELETED (ADDED), and writes the shared bytes.
 * A watcher whose client reads too slowly is closed, so it never holds the others back.
 */
import type { CachedObject, ObjectAttrs } from './cachedobject.js';
import type { CacheEvent, CacheEventType } from './watchcache.js';

export interface WatchFilter {
  /** Keys the watch covers: a collection prefix, or one object's key. */
  prefix: string;
  exactKey: boolean;
  matches(attrs: ObjectAttrs): boolean;
}

export interface WatchOutput {
  /** The bytes of one event for this client (shared across watchers for plain JSON). */
  encode(type: CacheEventType, obj: CachedObject): Buffer;
  bookmark(revision: number): Buffer;
  write(bytes: Buffer): void;
  /** Bytes written but not yet taken by the client. */
  buffered(): number;
  /** Ends the client's stream (it re-watches from its last resourceVersion). */
  close(): void;
}

export class CacheWatcher {
  closed = false;
  nextBookmarkAt: number;

  constructor(
    private filter: WatchFilter,
    private out: WatchOutput,
    /** Events at or below this revision were delivered already (or are part of the initial state). */
    public lastRevision: number,
    readonly bookmarks: boolean,
    private bookmarkIntervalMs: number,
    private maxBufferedBytes: number,
  ) {
    this.nextBookmarkAt = Date.now() + bookmarkIntervalMs;
  }

  covers(key: string): boolean {
    return this.filter.exactKey ? key === this.filter.prefix : key.startsWith(this.filter.prefix);
  }

  /** The initial state: ADDED for every matching object. */
  sendInitial(objects: Iterable<CachedObject>): void {
    for (const obj of objects) {
      if (this.closed) return;
      if (this.covers(obj.key) && this.filter.matches(obj.attrs)) this.send(this.out.encode('ADDED', obj));
    }
  }

  process(ev: CacheEvent): void {
    if (this.closed || ev.revision <= this.lastRevision) return;
    this.lastRevision = ev.revision;
    if (!this.covers(ev.key)) return;
    const cur = ev.type === 'DELETED' ? undefined : ev.object;
    const curMatches = cur !== undefined && this.filter.matches(cur.attrs);
    const prevMatches = ev.prevObject !== undefined && this.filter.matches(ev.prevObject.attrs);
    if (curMatches) this.send(this.out.encode(prevMatches ? 'MODIFIED' : 'ADDED', cur!));
    else if (prevMatches) this.send(this.out.encode('DELETED', ev.type === 'DELETED' ? ev.object : ev.prevAtRevision()!));
  }

  sendBookmark(revision: number, now: number): void {
    this.nextBookmarkAt = now + this.bookmarkIntervalMs;
    if (this.closed || revision < this.lastRevision) return;
    this.lastRevision = revision;
    this.send(this.out.bookmark(revision));
  }

  sendRaw(bytes: Buffer): void {
    this.send(bytes);
  }

  private send(bytes: Buffer): void {
    if (this.closed) return;
    this.out.write(bytes);
    if (this.out.buffered() > this.maxBufferedBytes) this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.out.close();
  }
}

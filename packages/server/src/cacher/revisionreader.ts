/**
 * Coalesced reads of the store's current revision, for consistent ("Most Recent") reads
 * served from the watch cache. A caller must get a revision read that *started after* it
 * asked (a read already in flight may miss writes acknowledged since it left), so callers
 * arriving during a read share the next one, which starts as soon as the current one ends.
 * However many requests are in flight, the store sees at most one such read at a time.
 * A read starts on the next turn of the event loop rather than at once, so the requests
 * that arrive together (clients answered by one read send their next ones together) share it.
 */
import type { Storage } from '@windlass/storage';

interface Deferred {
  promise: Promise<number>;
  resolve: (rev: number) => void;
  reject: (err: unknown) => void;
}

function deferred(): Deferred {
  let resolve!: (rev: number) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<number>((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
}

export class RevisionReader {
  /** A read is scheduled or on its way to the store. */
  private inFlight = false;
  private next?: Deferred;
  /** How many reads reached the store (tests and benchmarks check the coalescing). */
  reads = 0;

  constructor(private readonly storage: Pick<Storage, 'currentRevision'>) {}

  read(): Promise<number> {
    if (!this.inFlight) {
      const d = deferred();
      this.inFlight = true;
      this.gathering = d;
      setImmediate(() => this.start(d));
      return d.promise;
    }
    // Not yet sent: this caller arrived before the read starts, so it may share it.
    if (this.gathering) return this.gathering.promise;
    this.next ??= deferred();
    return this.next.promise;
  }

  /** The scheduled read that has not left yet. */
  private gathering?: Deferred;

  private start(d: Deferred): void {
    this.inFlight = true;
    this.gathering = undefined;
    this.reads++;
    const done = () => {
      this.inFlight = false;
      const queued = this.next;
      this.next = undefined;
      if (queued) this.start(queued);
    };
    this.storage.currentRevision().then(
      (rev) => { done(); d.resolve(rev); },
      (err) => { done(); d.reject(err); },
    );
  }
}

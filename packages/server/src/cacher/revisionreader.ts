/**
 * Coalesced reads of the store's current revision, for consistent ("Most Recent") reads
 * served from the watch cache. A caller must get a revision read that *started after* it
 * asked (a read already in flight may miss writes acknowledged since it left). A read is
 * sent on the next turn of the event loop, so the requests that arrive together (clients
 * answered by one read send their next ones together) share it; callers arriving once it
 * left get the next one. At most `maxInFlight` reads are out at a time — two by default,
 * so a caller waits a bit over one round trip, not up to two, and the store sees a
 * bounded number of such reads however many requests are in flight. A store that knows its
 * revision without a read (the embedded one) is simply asked.
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
  /** Reads sent and not yet answered. */
  private inFlight = 0;
  /** The read scheduled for the next turn and not sent yet: callers may still join it. */
  private gathering?: Deferred;
  /** Callers that arrived with every slot taken: they get the read sent when one frees. */
  private waiting?: Deferred;
  /** How many reads reached the store (tests and benchmarks check the coalescing). */
  reads = 0;

  constructor(private readonly storage: Pick<Storage, 'currentRevision' | 'currentRevisionNow'>, private readonly maxInFlight = 2) {}

  read(): Promise<number> {
    // A store in this process knows its revision: nothing to share, and no turn of the event
    // loop to wait for (which cost consistent GETs on the embedded backend their p99).
    if (this.storage.currentRevisionNow) {
      try {
        return Promise.resolve(this.storage.currentRevisionNow());
      } catch (err) {
        return Promise.reject(err);
      }
    }
    if (this.gathering) return this.gathering.promise;
    if (this.inFlight < this.maxInFlight) return this.gather(deferred());
    this.waiting ??= deferred();
    return this.waiting.promise;
  }

  private gather(d: Deferred): Promise<number> {
    this.gathering = d;
    setImmediate(() => this.send(d));
    return d.promise;
  }

  private send(d: Deferred): void {
    this.gathering = undefined;
    this.inFlight++;
    this.reads++;
    const done = () => {
      this.inFlight--;
      const waiting = this.waiting;
      if (waiting && !this.gathering) {
        this.waiting = undefined;
        this.gather(waiting);
      }
    };
    this.storage.currentRevision().then(
      (rev) => { done(); d.resolve(rev); },
      (err) => { done(); d.reject(err); },
    );
  }
}

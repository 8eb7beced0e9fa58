/**
 * Updates this replica has sent to its store and not seen answered yet, by key, with the
 * revision each one's compare-and-swap expects.
 *
 * Writers contending on one object each read the same revision and send an update
 * conditional on it; once one of them is written, every other one must fail its compare.
 * An update conditional on a revision that an update in flight also expects waits for that
 * one's answer instead of decoding, validating and sending its own: when it was written, the
 * conflict is certain and costs neither the work nor a store round trip (on etcd a txn each).
 */
import type { Storage } from '@windlass/storage';

interface InFlight {
  expected: number;
  /** Settles true once the update is written, false when it failed; never rejects. */
  written: Promise<boolean>;
}

export class InFlightWrites {
  private readonly byKey = new Map<string, InFlight>();

  /** Registers `write`, an update of `key` conditional on `expected`; returns it unchanged. */
  track<T>(key: string, expected: number, write: Promise<T>): Promise<T> {
    const entry: InFlight = { expected, written: write.then(() => true, () => false) };
    this.byKey.set(key, entry);
    void entry.written.then(() => {
      if (this.byKey.get(key) === entry) this.byKey.delete(key);
    });
    return write;
  }

  /**
   * When an update of `key` conditional on `expected` is in flight: a promise of whether it was
   * written (the key then moved past `expected`). Otherwise false, without a promise to await.
   */
  superseded(key: string, expected: number): Promise<boolean> | false {
    const entry = this.byKey.get(key);
    return entry !== undefined && entry.expected === expected ? entry.written : false;
  }
}

/** One tracker per store, shared by every resource version served from it. */
const trackers = new WeakMap<Storage, InFlightWrites>();

export function inFlightWritesOf(storage: Storage): InFlightWrites {
  let t = trackers.get(storage);
  if (!t) trackers.set(storage, (t = new InFlightWrites()));
  return t;
}

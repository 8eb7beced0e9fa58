import type { StorageWatchEvent, WatchListener } from '../types.js';

/**
 * A WatchListener that records what it is told and lets a test wait for a condition
 * on the record. The timeout only bounds a failing test; nothing asserts on time.
 */
export class WatchRecorder implements WatchListener {
  readonly received: StorageWatchEvent[] = [];
  /** Each events() call, to check batches are in order too. */
  readonly batches: StorageWatchEvent[][] = [];
  readonly progressed: number[] = [];
  /** For each progress call: its revision and how many events had been received before it. */
  readonly progressLog: { revision: number; eventsBefore: number }[] = [];
  readonly errors: Error[] = [];
  private waiters: { check: () => boolean; resolve: () => void }[] = [];

  events(events: StorageWatchEvent[]): void {
    this.batches.push(events);
    this.received.push(...events);
    this.wake();
  }

  progress(revision: number): void {
    this.progressed.push(revision);
    this.progressLog.push({ revision, eventsBefore: this.received.length });
    this.wake();
  }

  error(err: Error): void {
    this.errors.push(err);
    this.wake();
  }

  /** Resolve once `check` holds; reject after `timeoutMs` with what was received so far. */
  until(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = {
        check,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        const seen = this.received.map((e) => `${e.type} ${e.key}@${e.revision}`).join(', ');
        reject(new Error(`timed out waiting for ${what}; events: [${seen}], progress: [${this.progressed.join(', ')}], errors: [${this.errors.map((e) => e.message).join('; ')}]`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  untilEvent(predicate: (e: StorageWatchEvent) => boolean, what = 'an event'): Promise<void> {
    return this.until(what, () => this.received.some(predicate));
  }

  untilKeyAt(key: string, revision: number): Promise<void> {
    return this.untilEvent((e) => e.key === key && e.revision === revision, `${key}@${revision}`);
  }

  untilProgress(atLeast: number): Promise<void> {
    return this.until(`progress >= ${atLeast}`, () => this.progressed.some((r) => r >= atLeast));
  }

  untilError(): Promise<Error> {
    return this.until('an error', () => this.errors.length > 0).then(() => this.errors[0]);
  }

  /**
   * Progress notifications that broke their promise: reported `revision` while one of
   * the `expected` revisions at or below it had not been delivered yet.
   */
  earlyProgress(expected: number[]): { revision: number; missing: number[] }[] {
    const early: { revision: number; missing: number[] }[] = [];
    for (const { revision, eventsBefore } of this.progressLog) {
      const delivered = new Set(this.received.slice(0, eventsBefore).map((e) => e.revision));
      const missing = expected.filter((r) => r <= revision && !delivered.has(r));
      if (missing.length > 0) early.push({ revision, missing });
    }
    return early;
  }

  private wake(): void {
    const ready = this.waiters.filter((w) => w.check());
    this.waiters = this.waiters.filter((w) => !ready.includes(w));
    for (const w of ready) w.resolve();
  }
}

/**
 * kube's WithTimeoutForNonLongRunningRequests (--request-timeout, default 60s): a request that
 * has not answered in time gets 504 with kube's Timeout Status; its handler may still finish,
 * and its late answer is dropped. No timer per request: requests are kept in start order and
 * one sweep a fraction of the timeout apart answers the overdue ones from the front.
 */
import type { ServerResponse } from 'node:http';
import { failure } from '@windlass/machinery';
import { writeError } from '../respond.js';

export const defaultRequestTimeoutMs = 60_000;

interface Deadline<T> {
  start: number;
  tag: T;
}

export class RequestDeadlines<T> {
  private readonly pending = new Map<ServerResponse, Deadline<T>>();
  private timer?: NodeJS.Timeout;

  /** onTimeout gets the tag given to start(), after the 504 was written. timeoutMs 0: none. */
  constructor(readonly timeoutMs: number, private readonly onTimeout: (tag: T) => void) {}

  start(res: ServerResponse, start: number, tag: T): void {
    if (this.timeoutMs <= 0) return;
    this.pending.set(res, { start, tag });
    if (!this.timer) {
      this.timer = setInterval(() => this.sweep(), Math.min(1000, Math.max(20, this.timeoutMs / 8)));
      this.timer.unref();
    }
  }

  /** The request answered; false if it had timed out (and was answered 504 already). */
  end(res: ServerResponse): boolean {
    if (this.timeoutMs <= 0) return true;
    return this.pending.delete(res);
  }

  private sweep(): void {
    const now = performance.now();
    // A Map iterates in insertion order: the oldest requests come first.
    for (const [res, d] of this.pending) {
      if (now - d.start < this.timeoutMs) break;
      this.pending.delete(res);
      if (!res.headersSent) {
        res.shouldKeepAlive = false;
        writeError(res, failure(504, 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded', {}));
      }
      this.onTimeout(d.tag);
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

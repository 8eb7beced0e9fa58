/**
 * kube's WithTimeoutForNonLongRunningRequests (--request-timeout, default 60s): a request that
 * has not answered in time gets 504 with kube's Timeout Status; its handler may still finish,
 * and its late answer is dropped. No timer per request: requests are kept in start order and
 * one sweep a fraction of the timeout apart answers the overdue ones from the front.
 */
import type { ServerResponse } from 'node:http';
import { failure, newBadRequest, parseGoDuration } from '@windlass/machinery';
import { writeError } from '../respond.js';

export const defaultRequestTimeoutMs = 60_000;

const timeoutError = () => failure(504, 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded', {});

/**
 * The `timeout` query parameter in ms (0 when absent); kube's parseTimeout: a malformed one is
 * a 400 BadRequest.
 */
export function requestTimeoutParam(query: URLSearchParams): number {
  const value = query.get('timeout');
  if (!value) return 0;
  try {
    return parseGoDuration(value);
  } catch (err) {
    throw newBadRequest(`invalid timeout specified in the request URL - ${(err as Error).message}`);
  }
}

interface Deadline<T> {
  start: number;
  tag: T;
  /** A request's own shorter timeout (`?timeout=`) has a timer of its own. */
  timer?: NodeJS.Timeout;
}

export class RequestDeadlines<T> {
  private readonly pending = new Map<ServerResponse, Deadline<T>>();
  private readonly own = new Map<ServerResponse, Deadline<T>>();
  private timer?: NodeJS.Timeout;

  /** onTimeout gets the tag given to start(), after the 504 was written. timeoutMs 0: none. */
  constructor(readonly timeoutMs: number, private readonly onTimeout: (tag: T) => void) {}

  /** `ownTimeoutMs`: the request's `timeout` parameter, which applies when shorter than the server's. */
  start(res: ServerResponse, start: number, tag: T, ownTimeoutMs = 0): void {
    const shorter = ownTimeoutMs > 0 && (this.timeoutMs <= 0 || ownTimeoutMs < this.timeoutMs);
    if (shorter) {
      const d: Deadline<T> = { start, tag };
      d.timer = setTimeout(() => {
        if (this.own.delete(res)) this.expire(res, d);
      }, Math.max(0, start + ownTimeoutMs - performance.now()));
      this.own.set(res, d);
      return;
    }
    if (this.timeoutMs <= 0) return;
    this.pending.set(res, { start, tag });
    if (!this.timer) {
      this.timer = setInterval(() => this.sweep(), Math.min(1000, Math.max(20, this.timeoutMs / 8)));
      this.timer.unref();
    }
  }

  /** The request answered; false if it had timed out (and was answered 504 already). */
  end(res: ServerResponse): boolean {
    const own = this.own.get(res);
    if (own) {
      clearTimeout(own.timer);
      return this.own.delete(res);
    }
    if (this.timeoutMs <= 0) return !this.expired.has(res);
    return this.pending.delete(res);
  }

  /** Responses answered 504 by their own timer, when the server has no timeout of its own to track them. */
  private readonly expired = new WeakSet<ServerResponse>();

  private expire(res: ServerResponse, d: Deadline<T>): void {
    this.expired.add(res);
    if (!res.headersSent) {
      res.shouldKeepAlive = false;
      writeError(res, timeoutError());
    }
    this.onTimeout(d.tag);
  }

  private sweep(): void {
    const now = performance.now();
    // A Map iterates in insertion order: the oldest requests come first.
    for (const [res, d] of this.pending) {
      if (now - d.start < this.timeoutMs) break;
      this.pending.delete(res);
      this.expire(res, d);
    }
  }

  stop(): void {
    for (const d of this.own.values()) clearTimeout(d.timer);
    this.own.clear();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

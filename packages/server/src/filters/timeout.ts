/**
 * kube's WithTimeoutForNonLongRunningRequests (--request-timeout, default 60s): a request that
 * has not answered in time gets 504 with kube's Timeout Status; its handler may still finish,
 * and its late answer is dropped. No timer per request: requests are kept in start order and
 * one sweep a fraction of the timeout apart answers the overdue ones from the front (a request
 * with a shorter `timeout` parameter of its own has a timer).
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
  /** The response while it is owed; undefined once answered or timed out. */
  res: ServerResponse | undefined;
  /** A request's own shorter timeout (`?timeout=`) has a timer of its own. */
  timer?: NodeJS.Timeout;
  prev?: Deadline<T>;
  next?: Deadline<T>;
}

/**
 * The requests in flight, as a list linked through their deadlines. Not a Map keyed by
 * response: a long-lived Map that gains and loses an entry per request had V8 keep each
 * request's objects through young-generation collections until the next full one (measured on
 * consistent GETs: 1.3–1.6 MB promoted per scavenge and 2.3–5 ms pauses, against 40 KB and
 * 0.8–1 ms without it). An unlinked deadline keeps no link to its neighbours for the same
 * reason: an old one must not hold younger requests.
 */
class DeadlineList<T> {
  head?: Deadline<T>;
  private tail?: Deadline<T>;

  push(d: Deadline<T>): void {
    d.prev = this.tail;
    if (this.tail) this.tail.next = d;
    else this.head = d;
    this.tail = d;
  }

  unlink(d: Deadline<T>): void {
    if (d.prev) d.prev.next = d.next;
    else if (this.head === d) this.head = d.next;
    else return;
    if (d.next) d.next.prev = d.prev;
    else this.tail = d.prev;
    d.prev = d.next = undefined;
  }
}

const deadlineOf = Symbol('windlass.deadline');
type WithDeadline<T> = ServerResponse & { [deadlineOf]?: Deadline<T> };

export class RequestDeadlines<T> {
  /** Requests under the server's timeout, in start order: the oldest first. */
  private readonly pending = new DeadlineList<T>();
  /** Requests under their own shorter timeout, each with its timer. */
  private readonly own = new DeadlineList<T>();
  private timer?: NodeJS.Timeout;

  /** onTimeout gets the tag given to start(), after the 504 was written. timeoutMs 0: none. */
  constructor(readonly timeoutMs: number, private readonly onTimeout: (tag: T) => void) {}

  /** `ownTimeoutMs`: the request's `timeout` parameter, which applies when shorter than the server's. */
  start(res: ServerResponse, start: number, tag: T, ownTimeoutMs = 0): void {
    const shorter = ownTimeoutMs > 0 && (this.timeoutMs <= 0 || ownTimeoutMs < this.timeoutMs);
    if (!shorter && this.timeoutMs <= 0) return;
    const d: Deadline<T> = { start, tag, res };
    (res as WithDeadline<T>)[deadlineOf] = d;
    if (shorter) {
      d.timer = setTimeout(() => {
        this.own.unlink(d);
        this.expire(d);
      }, Math.max(0, start + ownTimeoutMs - performance.now()));
      this.own.push(d);
      return;
    }
    this.pending.push(d);
    if (!this.timer) {
      this.timer = setInterval(() => this.sweep(), Math.min(1000, Math.max(20, this.timeoutMs / 8)));
      this.timer.unref();
    }
  }

  /** The request answered; false if it had timed out (and was answered 504 already). */
  end(res: ServerResponse): boolean {
    const d = (res as WithDeadline<T>)[deadlineOf];
    if (!d) return true;
    if (!d.res) return false;
    d.res = undefined;
    if (d.timer) {
      clearTimeout(d.timer);
      this.own.unlink(d);
    } else this.pending.unlink(d);
    return true;
  }

  private expire(d: Deadline<T>): void {
    const res = d.res;
    if (!res) return;
    d.res = undefined;
    if (!res.headersSent) {
      res.shouldKeepAlive = false;
      writeError(res, timeoutError());
    }
    this.onTimeout(d.tag);
  }

  private sweep(): void {
    const now = performance.now();
    for (let d = this.pending.head; d && now - d.start >= this.timeoutMs; d = this.pending.head) {
      this.pending.unlink(d);
      this.expire(d);
    }
  }

  stop(): void {
    for (let d = this.own.head; d; d = this.own.head) {
      clearTimeout(d.timer);
      this.own.unlink(d);
    }
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

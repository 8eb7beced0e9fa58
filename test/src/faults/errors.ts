/**
 * What a client of a replicated Windlass may see while replicas and etcd members die, and
 * which of it counts as retryable. The list is deliberately short: an answer outside it is
 * a failure of the fault test.
 *
 * Retryable:
 * - connection-level failures: the replica a connection was proxied to died (reset, hang-up,
 *   TLS cut before the handshake ended), or the balancer had no replica in rotation and
 *   closed the connection. A client cannot know whether a write sent on such a connection
 *   was applied; it retries, and the retry's 409/404 tells it (below).
 * - 429 TooManyRequests: max-in-flight limits; client-go waits Retry-After and retries.
 * - 500 ServerTimeout, 504 Timeout: kube's answers when storage does not answer in time
 *   (apierrors.NewServerTimeout, the request timeout); client-go's SuggestsClientDelay /
 *   IsTimeout retry them.
 * - 503 ServiceUnavailable: a replica shutting down or not ready.
 * - 500 carrying etcd's own errors of a proposal lost in a leader change ("etcdserver: request
 *   timed out[, possibly due to previous leader failure]", "etcdserver: leader changed",
 *   "etcdserver: no leader"):
 *   not a retryable reason, but what kube-apiserver answers too when the etcd leader dies
 *   (a 500 with etcd's message: kubernetes/kubernetes#112152, open). A write answered so may
 *   or may not have been committed; the writer retries and resolves it as after a reset.
 * - 500 carrying a lost etcd call ("etcd unavailable: … UNAVAILABLE: read ECONNRESET", the
 *   connection to a dying member cut while the call was out): kube-apiserver answers the same
 *   500 (its etcd client re-sends a write only when it never left, isSafeRetryMutableRPC), and
 *   so does Windlass since it stopped re-sending such writes (a re-sent write that had been
 *   applied came back as a false 404/409). Ambiguous, so resolved as after a reset.
 * - 410 Gone on a watch (status or ERROR event): the resourceVersion left the watch cache's
 *   window; client-go's reflector lists again and watches from the list.
 * - 409 AlreadyExists / Conflict and 404 NotFound, only when they answer a client's retry of
 *   its own create / update / delete whose earlier attempt was applied (checked by reading
 *   the object back): the write happened once.
 *
 * Anything else (500 InternalError, a 409 or 404 on a first attempt, a request without an
 * answer for 30 s, an unparseable stream) is not retryable.
 */

export interface Classified {
  kind: string;
  retryable: boolean;
}

const connectionPatterns: Array<[RegExp, string]> = [
  [/ECONNRESET|read ECONNRESET/, 'connection reset'],
  [/ECONNREFUSED/, 'connection refused'],
  [/EPIPE/, 'broken pipe'],
  [/socket hang up/, 'socket hang up'],
  [/disconnected before secure TLS connection/, 'TLS handshake cut'],
  [/other side closed|connection closed|premature close|aborted/i, 'connection closed'],
];

/** A request or watch that failed without an HTTP answer. */
export function classifyError(err: unknown): Classified {
  const msg = String((err as Error)?.message ?? err);
  for (const [re, kind] of connectionPatterns) if (re.test(msg)) return { kind, retryable: true };
  if (/client timeout/.test(msg)) return { kind: 'no answer within the client timeout', retryable: false };
  return { kind: `error: ${msg.slice(0, 120)}`, retryable: false };
}

const etcdCallLost = /etcdserver: (request timed out(, possibly due to previous leader failure)?|leader changed|no leader)|etcd unavailable: .*UNAVAILABLE/;

const retryableStatus: Record<number, string[]> = {
  429: ['TooManyRequests'],
  500: ['ServerTimeout'],
  503: ['ServiceUnavailable'],
  504: ['Timeout'],
};

/** An HTTP answer (or a watch ERROR event's Status) that is neither success nor 409/404 handled by the writer. */
export function classifyStatus(status: number, body: any): Classified {
  const reason = typeof body === 'object' && body ? String(body.reason ?? '') : '';
  const kind = `${status} ${reason || '(no reason)'}`;
  const lost = status === 500 ? etcdCallLost.exec(String(body?.message ?? '')) : null;
  if (lost) return { kind: `${kind}: ${lost[0]}`, retryable: true };
  return { kind, retryable: (retryableStatus[status] ?? []).includes(reason) };
}

/** Retry-After a status asks for (details.retryAfterSeconds), capped: the fault test wants progress. */
export function retryDelayMs(body: any): number {
  const s = Number(body?.details?.retryAfterSeconds);
  return Number.isFinite(s) && s > 0 ? Math.min(s * 1000, 1000) : 200;
}

/** Counts what clients saw, by kind; keeps each non-retryable occurrence's description. */
export class ErrorLog {
  readonly counts = new Map<string, number>();
  readonly nonRetryable: string[] = [];
  /** Set while a fault is under way whose errors are told apart (a graceful shutdown). */
  phase?: string;

  see(c: Classified, context: string): void {
    const kind = `${this.phase ? `[${this.phase}] ` : ''}${c.retryable ? '' : 'NOT RETRYABLE: '}${c.kind}`;
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    if (!c.retryable) this.nonRetryable.push(`${context}: ${c.kind}`);
  }

  /** A retryable condition that is not an error answer (a 409 after one's own retry, a relist). */
  note(kind: string): void {
    if (this.phase) kind = `[${this.phase}] ${kind}`;
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
  }

  byKind(): Record<string, number> {
    return Object.fromEntries([...this.counts].sort(([a], [b]) => (a < b ? -1 : 1)));
  }
}

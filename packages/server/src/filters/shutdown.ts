/**
 * The connection side of graceful shutdown, once the shutdown delay is over and the listener
 * is closed (kube's NotAcceptingNewRequest):
 * - every connection closes once its current answer is done, as Go's Server.Shutdown does
 *   (a keep-alive connection is not reused, so a client's next request goes through the load
 *   balancer to another replica instead of reaching a replica about to close it);
 * - a request that still arrives on an open connection is refused with kube's answer, which
 *   clients retry elsewhere, instead of being cut when the process closes its connections.
 */
import type { Socket } from 'node:net';
import type { ServerResponse } from 'node:http';
import { newServiceUnavailable } from '@windlass/machinery';
import { writeError } from '../respond.js';

/** kube's pathPrefixesExemptFromRetryAfter: probes and scraping are served until the end. */
const exemptPrefixes = ['/readyz', '/livez', '/healthz', '/metrics'];

export function servedWhileDraining(path: string): boolean {
  return exemptPrefixes.some((p) => path.startsWith(p));
}

/**
 * A request that arrived after shutdown began draining, answered on a connection that then
 * closes. Not long-running: kube's WithWaitGroup (after its wait began) answers 503 "apiserver
 * is shutting down" with Retry-After 1; client-go retries any request so answered. Long-running
 * (a watch): kube's WithRetryAfter answers 429 with Retry-After 5 and Connection: close; a
 * reflector re-watches after a 429 from where it was, where a watch ended at once would be a
 * "very short watch" it answers by listing again. kube sends that 429 only with
 * --shutdown-send-retry-after; without it Go's server reads no further request from a
 * connection once draining began, so no watch arrives there at all. Node's server still reads
 * one already sent, and the 429 is the answer that leads a client elsewhere without a relist.
 */
export function writeShuttingDown(res: ServerResponse, longRunning: boolean): void {
  res.shouldKeepAlive = false;
  if (longRunning) {
    res.writeHead(429, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Retry-After': '5' });
    res.end('The apiserver is shutting down, please try again later.\n');
    return;
  }
  res.setHeader('Retry-After', '1');
  writeError(res, newServiceUnavailable('apiserver is shutting down'));
}

/**
 * Has every connection close once its current answer is done: one whose answer has not started
 * says so in it (Connection: close); one whose answer is already streaming (a watch, which
 * shutdown ends next) is closed when that answer ends. Idle ones are the caller's to close.
 */
export function closeAfterAnswers(sockets: Iterable<Socket>): void {
  for (const socket of sockets) {
    // Node's own reference from a connection to the answer in progress on it (what its
    // closeIdleConnections reads too).
    const res = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (!res) continue;
    if (!res.headersSent) res.shouldKeepAlive = false;
    else if (res.writableFinished) socket.end();
    else res.once('finish', () => socket.end());
  }
}

/**
 * A small HTTPS client for end-to-end tests that need control a generated client does not
 * give: plain requests over a keep-alive agent, and watches whose reading the caller can
 * pause and resume (to be a slow reader) and whose end is reported exactly once.
 */
import { createHash } from 'node:crypto';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';

export interface HttpResult {
  status: number;
  body: any;
  text: string;
}

export interface WatchEventLine {
  type: string;
  object: any;
}

/** Why a watch stream ended: the server ended it, the connection failed, or the caller closed it. */
export type WatchEnd =
  | { kind: 'end' }
  | { kind: 'error'; error: Error }
  | { kind: 'status'; status: number; body: any }
  | { kind: 'closed' };

export interface WatchStream {
  /** Stop reading (the socket's buffers fill; the server sees a slow reader). */
  pause(): void;
  resume(): void;
  /** Close from the client side; `onEnd` is then called with `closed`. */
  close(): void;
  readonly ended: boolean;
}

export interface KubeHttpOptions {
  /**
   * Send every request, watches included, over one keep-alive connection: behind a port
   * that several worker processes share, all of them then reach the same worker.
   * `sockets` shows whether that held (the server may close an idle connection).
   */
  oneConnection?: boolean;
  /** Give up on a request (not a watch) with no answer after this long. */
  requestTimeoutMs?: number;
}

export class KubeHttp {
  private agent: https.Agent;
  /** With `oneConnection`: every connection a request of this client went over. */
  readonly sockets = new Set<Socket>();

  constructor(readonly url: string, private ca: Buffer | string, private token: string, private opts: KubeHttpOptions = {}) {
    this.agent = new https.Agent({ keepAlive: true, maxSockets: opts.oneConnection ? 1 : 8, ca, servername: 'localhost' });
  }

  /** A client for a server whose data dir holds the CA (`<dataDir>/pki/ca.crt`). */
  static forDataDir(url: string, caDataDir: string, token: string, opts: KubeHttpOptions = {}): KubeHttp {
    return new KubeHttp(url, readFileSync(join(caDataDir, 'pki', 'ca.crt')), token, opts);
  }

  destroy(): void {
    this.agent.destroy();
  }

  private track(req: import('node:http').ClientRequest): void {
    if (this.opts.oneConnection) req.on('socket', (socket) => this.sockets.add(socket));
  }

  request(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<HttpResult> {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = https.request(`${this.url}${path}`, {
        method, agent: this.agent,
        headers: {
          authorization: `Bearer ${this.token}`, accept: 'application/json',
          ...(payload !== undefined ? { 'content-type': contentType, 'content-length': Buffer.byteLength(payload) } : {}),
        },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: any;
          try { parsed = JSON.parse(text); } catch { parsed = undefined; }
          resolve({ status: res.statusCode ?? 0, body: parsed, text });
        });
      });
      this.track(req);
      const limit = this.opts.requestTimeoutMs;
      if (limit) req.setTimeout(limit, () => req.destroy(new Error(`client timeout: no answer within ${limit} ms`)));
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  /**
   * GET `path` with watch=1 on its own connection (no agent: a watch holds its socket),
   * or, with `oneConnection`, on the client's connection, which it then holds.
   * `onEvent` gets each complete JSON line, in order; `onEnd` is called once.
   */
  watch(path: string, onEvent: (ev: WatchEventLine) => void, onEnd: (why: WatchEnd) => void): WatchStream {
    let ended = false;
    let closedByUs = false;
    let res: import('node:http').IncomingMessage | undefined;
    let paused = false;
    const finish = (why: WatchEnd) => {
      if (ended) return;
      ended = true;
      onEnd(closedByUs ? { kind: 'closed' } : why);
    };
    const sep = path.includes('?') ? '&' : '?';
    const req = https.get(`${this.url}${path}${sep}watch=1`, {
      ca: this.ca, servername: 'localhost', agent: this.opts.oneConnection ? this.agent : false,
      headers: { authorization: `Bearer ${this.token}`, accept: 'application/json' },
    }, (r) => {
      res = r;
      if (paused) r.pause();
      if (r.statusCode !== 200) {
        const chunks: Buffer[] = [];
        r.on('data', (d: Buffer) => chunks.push(d));
        r.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: any;
          try { body = JSON.parse(text); } catch { body = text; }
          finish({ kind: 'status', status: r.statusCode ?? 0, body });
        });
        r.on('error', (error) => finish({ kind: 'error', error }));
        return;
      }
      const lines = lineReader((line) => {
        let ev: WatchEventLine;
        try {
          ev = JSON.parse(line);
        } catch (error) {
          finish({ kind: 'error', error: new Error(`unparseable watch line: ${line.slice(0, 200)}`) });
          req.destroy();
          return false;
        }
        onEvent(ev);
        return !ended;
      });
      r.setEncoding('utf8');
      r.on('data', (d: string) => {
        if (!ended) lines.push(d);
      });
      // A stream that stops mid-line was cut, not ended.
      r.on('end', () => finish(lines.pending().trim() ? { kind: 'error', error: new Error('stream ended mid-event') } : { kind: 'end' }));
      r.on('error', (error) => finish({ kind: 'error', error }));
      r.on('close', () => finish({ kind: 'error', error: new Error('connection closed') }));
    });
    this.track(req);
    req.on('error', (error) => finish({ kind: 'error', error }));
    return {
      pause() {
        paused = true;
        res?.pause();
      },
      resume() {
        paused = false;
        res?.resume();
      },
      close() {
        if (ended) return;
        closedByUs = true;
        req.destroy();
        finish({ kind: 'closed' });
      },
      get ended() {
        return ended;
      },
    };
  }
}

/** ConfigMap fields the comparisons look at: identity, version and content. */
/**
 * Splits a watch stream's text into its non-empty lines, across chunks; `onLine` returning
 * false stops reading the current chunk.
 */
export function lineReader(onLine: (line: string) => boolean | void): { push(chunk: string): void; pending(): string } {
  let buf = '';
  return {
    push(chunk) {
      buf += chunk;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line && onLine(line) === false) return;
      }
    },
    pending: () => buf,
  };
}

export interface ObjectState {
  namespace: string;
  name: string;
  uid: string;
  resourceVersion: string;
  labels: Record<string, string>;
  data: Record<string, string>;
}

/** Large values are kept as a digest (equal values, equal digests), so comparisons stay cheap. */
function compact(data: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) {
    out[k] = typeof v === 'string' && v.length > 512 ? `sha256:${createHash('sha256').update(v).digest('hex')}:${v.length}` : v;
  }
  return out;
}

export function objectState(o: any): ObjectState {
  return {
    namespace: o.metadata?.namespace ?? '',
    name: o.metadata?.name ?? '',
    uid: o.metadata?.uid ?? '',
    resourceVersion: o.metadata?.resourceVersion ?? '',
    labels: { ...(o.metadata?.labels ?? {}) },
    data: compact(o.data ?? {}),
  };
}

/** Objects sorted by namespace/name, for order-independent comparison. */
export function sortedStates(objs: readonly any[]): ObjectState[] {
  return sortStates(objs.map(objectState));
}

export function sortStates(states: ObjectState[]): ObjectState[] {
  const key = (o: ObjectState) => `${o.namespace}/${o.name}`;
  return states.slice().sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

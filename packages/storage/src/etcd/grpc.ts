/**
 * gRPC calls to etcd over Node's own HTTP/2 client: the KV calls every request makes (Range,
 * Txn), compaction, the status call, and watch streams.
 *
 * Why not etcd3/grpc-js for these: on a create, grpc-js's call stack (interceptors, filters,
 * metadata, per-call AsyncResource.bind with its two util.deprecate wrappers), proto-loader's
 * conversion of every message into a JS object and every int64 through Long into a string
 * were ~25 % of the server's CPU (bench/RESULTS.md, "etcd KV over Node's HTTP/2").
 *
 * Members: calls go to one member until it cannot be reached; then it is skipped for a second
 * and the next one takes the calls. A member that answers Unavailable (no leader, request timed
 * out) stays up, but the next call goes to another member. Whether a failed call may be sent
 * again is the caller's decision; `unsent` tells it that the request never reached a member.
 */
import { AsyncResource } from 'node:async_hooks';
import http2 from 'node:http2';
import { ProtoReader, type ProtoWriter } from './wire.js';

/**
 * AsyncResource.prototype.bind without its `asyncResource` accessors. Node 20's
 * ClientHttp2Session.request() binds each request's connect callback with it, and the
 * deprecated (DEP0172) getter and setter it defines on every bound function are two
 * util.deprecate wrappers, each a setPrototypeOf on a new function: 4-5 % of the server's CPU
 * per create on etcd (`deprecate`, `bind`, `get prototype` in the profile). The callback is
 * Node's own and never reads the property; the bound function runs in the same async scope.
 * Measured A/B on etcd, 16 clients, twice each: CPU per create 0.469 and 0.424 ms against 0.498
 * and 0.461; per consistent GET 0.059 and 0.054 ms against 0.072 and 0.067 (bench/RESULTS.md).
 */
export function bindInScope(this: AsyncResource, fn: (...args: unknown[]) => unknown, thisArg?: unknown) {
  const resource = this;
  if (thisArg !== undefined) return resource.runInAsyncScope.bind(resource, fn, thisArg);
  return function (this: unknown, ...args: unknown[]) {
    return resource.runInAsyncScope(fn, this, ...args);
  };
}

const nodeBind = AsyncResource.prototype.bind;
const leanBind = bindInScope as typeof nodeBind;

/** session.request() with the lean bind in place for its synchronous run only. */
function request(session: http2.ClientHttp2Session, headers: http2.OutgoingHttpHeaders, options: http2.ClientSessionRequestOptions): http2.ClientHttp2Stream {
  AsyncResource.prototype.bind = leanBind;
  try {
    return session.request(headers, options);
  } finally {
    AsyncResource.prototype.bind = nodeBind;
  }
}

/** gRPC status codes (grpc/doc/statuscodes.md). */
const codeNames = ['OK', 'CANCELLED', 'UNKNOWN', 'INVALID_ARGUMENT', 'DEADLINE_EXCEEDED', 'NOT_FOUND', 'ALREADY_EXISTS', 'PERMISSION_DENIED', 'RESOURCE_EXHAUSTED', 'FAILED_PRECONDITION', 'ABORTED', 'OUT_OF_RANGE', 'UNIMPLEMENTED', 'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS', 'UNAUTHENTICATED'];
export const UNAVAILABLE = 14;

export class GrpcCallError extends Error {
  override name = 'GrpcCallError';
  constructor(
    readonly code: number,
    readonly details: string,
    /** The request never reached a member, so sending it again cannot apply it twice. */
    readonly unsent: boolean,
  ) {
    super(`${code} ${codeNames[code] ?? 'UNKNOWN'}: ${details}`);
  }
}

/** Not an answer from etcd but the lack of one: the call may succeed elsewhere or later. */
export function isRetryableGrpcError(err: unknown): err is GrpcCallError {
  return err instanceof GrpcCallError && (err.code === UNAVAILABLE || err.code === 1);
}

interface Connection {
  session: http2.ClientHttp2Session;
  connected: boolean;
  /** Calls open on it: keepalive pings are sent only then, as gRPC clients do by default. */
  active: number;
}

interface Call {
  member: Member;
  conn: Connection;
  stream: http2.ClientHttp2Stream;
  status?: number;
  details: string;
  failure?: Error;
}

export interface GrpcStream {
  write(body: ProtoWriter): void;
  /** Ends the call from this side; its onClose is not called. */
  cancel(): void;
}

interface Member {
  url: string;
  conn?: Connection;
  downUntil: number;
}

const SKIP_MS = 1000;
// kube-apiserver's etcd client: a ping every 30 s, and a connection whose ping is unanswered
// for 10 s is dropped. A member gone without closing its connection (a partition, a frozen
// host) would otherwise hold every call on it, the registry watch included, indefinitely.
const KEEPALIVE_MS = 30_000;
const KEEPALIVE_TIMEOUT_MS = 10_000;
// Ranges of every object of a type can be tens of MB: large windows save flow-control round trips.
const WINDOW = 1 << 26;

/** kube's --etcd-cafile, --etcd-certfile and --etcd-keyfile, read: for https:// members. */
export interface EtcdTLS {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

export class EtcdGrpcClient {
  private readonly members: Member[];
  private current: number;
  private closed = false;

  constructor(
    endpoints: string[],
    private readonly tls: EtcdTLS = {},
    private readonly keepalive = { intervalMs: KEEPALIVE_MS, timeoutMs: KEEPALIVE_TIMEOUT_MS },
  ) {
    this.members = endpoints.map((url) => ({ url, downUntil: 0 }));
    // Replicas given the same list spread over the members.
    this.current = Math.floor(Math.random() * this.members.length);
  }

  /** Calls `path` with `body`; the answer's message is handed to `decode`. */
  unary<T>(path: string, body: ProtoWriter, decode: (r: ProtoReader) => T): Promise<T> {
    const frame = body.frame();
    return new Promise<T>((resolve, reject) => {
      let call: Call;
      try {
        call = this.open(path);
      } catch (err) {
        return reject(err);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      call.stream.on('data', (c: Buffer) => {
        chunks.push(c);
        size += c.length;
      });
      call.stream.on('close', () => {
        const err = this.outcome(call);
        if (err) return reject(err);
        try {
          const buf = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
          if (buf.length < 5 || buf[0] !== 0) throw new Error('etcd answered with a compressed or truncated message');
          const len = buf.readUInt32BE(1);
          if (buf.length < 5 + len) throw new Error('etcd answered with a truncated message');
          resolve(decode(new ProtoReader(buf, 5, 5 + len)));
        } catch (e) {
          reject(new GrpcCallError(13, (e as Error).message, false));
        }
      });
      call.stream.end(frame);
    });
  }

  /**
   * A bidirectional streaming call: each message etcd sends is handed to `onMessage` as it
   * completes; `onClose` hears how the call ended (undefined: etcd ended it without error),
   * unless the caller ended it with `cancel()`.
   */
  stream(path: string, onMessage: (r: ProtoReader) => void, onClose: (err: GrpcCallError | undefined) => void): GrpcStream {
    const call = this.open(path);
    let cancelled = false;
    // Received bytes not yet handed on; a message spanning several DATA frames is joined once,
    // when its last byte is here.
    let parts: Buffer[] = [];
    let have = 0;
    /** The current message's length with its 5-byte prefix, once the prefix is here. */
    let need = 0;
    call.stream.on('data', (c: Buffer) => {
      parts.push(c);
      have += c.length;
      for (;;) {
        if (need === 0) {
          if (have < 5) return;
          if (parts[0].length < 5) parts = [Buffer.concat(parts, have)];
          if (parts[0][0] !== 0) {
            call.failure = new Error('etcd sent a compressed message');
            call.stream.close(http2.constants.NGHTTP2_CANCEL);
            return;
          }
          need = 5 + parts[0].readUInt32BE(1);
        }
        if (have < need) return;
        const buf = parts.length === 1 ? parts[0] : Buffer.concat(parts, have);
        onMessage(new ProtoReader(buf, 5, need));
        if (cancelled) return;
        const rest = buf.subarray(need);
        parts = rest.length > 0 ? [rest] : [];
        have = rest.length;
        need = 0;
      }
    });
    call.stream.on('close', () => {
      if (!cancelled) onClose(this.outcome(call));
    });
    return {
      write: (body) => {
        if (!cancelled && !call.stream.closed) call.stream.write(body.frame());
      },
      cancel: () => {
        if (cancelled) return;
        cancelled = true;
        call.stream.close(http2.constants.NGHTTP2_CANCEL);
      },
    };
  }

  /** Starts a call on the current member; throws an unsent GrpcCallError when none can take it. */
  private open(path: string): Call {
    if (this.closed) throw new GrpcCallError(1, 'etcd client closed', true);
    const member = this.pick();
    if (!member) throw new GrpcCallError(UNAVAILABLE, 'no etcd member can be reached', true);
    let conn: Connection;
    let stream: http2.ClientHttp2Stream;
    try {
      conn = this.connectionOf(member);
      stream = request(conn.session, { ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' }, { endStream: false });
    } catch (err) {
      this.lost(member);
      throw new GrpcCallError(UNAVAILABLE, (err as Error).message, true);
    }
    const call: Call = { member, conn, stream, details: '' };
    conn.active++;
    stream.once('close', () => conn.active--);
    const readStatus = (h: http2.IncomingHttpHeaders) => {
      if (h['grpc-status'] === undefined) return;
      call.status = Number(h['grpc-status']);
      call.details = decodeMessage(h['grpc-message']);
    };
    stream.on('response', (headers) => {
      const httpStatus = Number(headers[':status']);
      if (httpStatus !== 200 && headers['grpc-status'] === undefined) {
        call.status = 2;
        call.details = `HTTP status ${httpStatus}`;
      } else readStatus(headers);
    });
    stream.on('trailers', readStatus);
    stream.on('error', (err) => {
      call.failure ??= err;
    });
    return call;
  }

  /** How a closed call ended: undefined for OK, else the error (and what it says about the member). */
  private outcome(call: Call): GrpcCallError | undefined {
    if (call.status === undefined) {
      // No answer: the connection went away (then the member is skipped), or the stream was reset.
      const { session, connected } = call.conn;
      if (!connected || session.closed || session.destroyed) this.lost(call.member);
      const refused = call.stream.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM;
      return new GrpcCallError(UNAVAILABLE, call.failure?.message ?? 'Connection dropped', !connected || refused);
    }
    if (call.status === 0) return call.failure ? new GrpcCallError(13, call.failure.message, false) : undefined;
    if (call.status === UNAVAILABLE) this.advance(call.member);
    return new GrpcCallError(call.status, call.details, false);
  }

  close(): void {
    this.closed = true;
    for (const m of this.members) {
      m.conn?.session.destroy();
      m.conn = undefined;
    }
  }

  private pick(): Member | undefined {
    const now = Date.now();
    const n = this.members.length;
    for (let i = 0; i < n; i++) {
      const at = (this.current + i) % n;
      if (this.members[at].downUntil <= now) {
        this.current = at;
        return this.members[at];
      }
    }
    return undefined;
  }

  private advance(member: Member): void {
    if (this.members[this.current] === member) this.current = (this.current + 1) % this.members.length;
  }

  /** The member could not be reached or its connection broke: skip it for a while. */
  private lost(member: Member): void {
    if (this.members.length > 1) member.downUntil = Date.now() + SKIP_MS;
    this.advance(member);
    if (member.conn) {
      const { session } = member.conn;
      member.conn = undefined;
      session.destroy();
    }
  }

  private connectionOf(member: Member): Connection {
    const existing = member.conn;
    if (existing && !existing.session.closed && !existing.session.destroyed) return existing;
    const session = http2.connect(member.url, { settings: { initialWindowSize: WINDOW }, maxSessionMemory: 1 << 20, ...this.tls });
    const conn: Connection = { session, connected: false, active: 0 };
    member.conn = conn;
    session.on('connect', () => {
      conn.connected = true;
      session.setLocalWindowSize(WINDOW);
    });
    const keepalive = setInterval(() => {
      if (!conn.connected || conn.active === 0 || session.closed || session.destroyed) return;
      const deadline = setTimeout(() => session.destroy(new Error(`etcd did not answer a keepalive ping within ${this.keepalive.timeoutMs} ms`)), this.keepalive.timeoutMs);
      deadline.unref();
      if (!session.ping(() => clearTimeout(deadline))) clearTimeout(deadline);
    }, this.keepalive.intervalMs);
    keepalive.unref();
    session.on('close', () => clearInterval(keepalive));
    // Failures reach the calls through their streams; an unhandled 'error' would end the process.
    session.on('error', () => {});
    const drop = () => {
      if (member.conn === conn) member.conn = undefined;
    };
    session.on('goaway', drop);
    session.on('close', drop);
    return conn;
  }
}

function decodeMessage(v: string | string[] | undefined): string {
  const s = Array.isArray(v) ? v.join(',') : (v ?? '');
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * The proxying half of the connect subresources, as kube-apiserver does it:
 * - a pod's log is the LocationStreamer: one GET to the kubelet's /containerLogs, its body
 *   streamed back as text/plain (204 when there is no location), the kubelet's error answers
 *   turned into Status errors by GenericHttpResponseChecker, redirects refused;
 * - exec, attach and portforward, and any upgrade request to a proxy subresource, go through
 *   apimachinery's UpgradeAwareHandler: the request written to a connection dialed to the
 *   backend, the backend's answer read, and on 101 the client's socket (taken from Node's
 *   'upgrade' event) piped to the backend both ways; a backend refusal (>= 400) is relayed as is;
 * - other proxy requests go through its reverse proxy, with kube's rewriting transport
 *   (X-Forwarded-Uri, Location headers under the proxy path, CORS headers dropped) and errors
 *   (`error trying to reach service: …`, 503).
 * Network errors read as Go's (`dial tcp 127.0.0.1:10250: connect: connection refused`), as
 * kube's messages embed them.
 */
import http, { ServerResponse, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import net, { type Socket } from 'node:net';
import tls from 'node:tls';
import { posix } from 'node:path';
import type { Duplex } from 'node:stream';
import { failure, goQuote, newBadRequest, newInternalError, newServiceUnavailable, newUntypedError, type StatusError } from '@windlass/machinery';
import { writeError } from '../respond.js';
import type { Location } from './connectlocation.js';

/** TLS to kubelets: kube's --kubelet-certificate-authority, --kubelet-client-certificate and --kubelet-client-key. */
export interface KubeletTLS {
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
}

/** How a backend is dialed: kubelets with the kubelet client's TLS, pods and services with kube's proxy transport. */
export interface BackendTLS {
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
  /** Without a CA kube skips verification (transportConfig: no CA means Insecure); the proxy transport always does. */
  verify: boolean;
}

export function kubeletBackend(t: KubeletTLS | undefined, insecure = false): BackendTLS {
  return { ca: t?.ca, cert: t?.cert, key: t?.key, verify: !insecure && t?.ca !== undefined };
}

/** kube's CreateProxyTransport: pods and services over https are not verified (they are addressed by IP). */
export const proxyBackend: BackendTLS = { verify: false };

/** net.Dialer's timeout in kube's transports (SetTransportDefaults). */
const dialTimeoutMs = 30_000;

// ---- the client side of upgrade requests ----

interface Upgraded {
  socket: Duplex;
  head: Buffer;
  hijacked: boolean;
}

const upgrades = new WeakMap<IncomingMessage, Upgraded>();

/**
 * Node hands requests carrying `Connection: Upgrade` to the server's 'upgrade' event with the
 * raw socket. They are served as any request, with a response written on that socket, so a
 * refusal is an ordinary Status; a connect handler that upgrades takes the socket over.
 */
export function upgradeListener(handle: (req: IncomingMessage, res: ServerResponse) => void, open: Set<Duplex>) {
  return (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    const u: Upgraded = { socket, head, hijacked: false };
    upgrades.set(req, u);
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
    res.on('finish', () => {
      if (u.hijacked) return;
      res.detachSocket(socket as Socket);
      socket.end();
    });
    handle(req, res);
  };
}

/** httpstream.IsUpgradeRequest, as far as Node saw it. */
export function isUpgradeRequest(req: IncomingMessage): boolean {
  return upgrades.has(req);
}

/** Takes the client's socket from its response (kube's Hijack): nothing more is written through `res`. */
function hijack(req: IncomingMessage, res: ServerResponse): Upgraded {
  const u = upgrades.get(req)!;
  u.hijacked = true;
  res.statusCode = 101;
  res.detachSocket(u.socket as Socket);
  return u;
}

// ---- Go's error texts ----

function splitHost(host: string): { hostname: string; port: number } {
  const m = /^\[(.*)\]:(\d+)$/.exec(host) ?? /^([^:]*):(\d+)$/.exec(host);
  if (m) return { hostname: m[1], port: Number(m[2]) };
  return { hostname: host.replace(/^\[(.*)\]$/, '$1'), port: 0 };
}

/** net.Dial's and crypto/tls's errors as Go prints them, from Node's. */
export function goNetError(err: NodeJS.ErrnoException & { reason?: string }, address: string): string {
  const { hostname } = splitHost(address);
  switch (err.code) {
    case 'ECONNREFUSED': return `dial tcp ${address}: connect: connection refused`;
    case 'EHOSTUNREACH': return `dial tcp ${address}: connect: no route to host`;
    case 'ENETUNREACH': return `dial tcp ${address}: connect: network is unreachable`;
    case 'ETIMEDOUT': return `dial tcp ${address}: i/o timeout`;
    case 'ENOTFOUND': case 'EAI_AGAIN': case 'EAI_FAIL': return `dial tcp: lookup ${hostname}: no such host`;
    case 'ECONNRESET': return `read tcp ${address}: read: connection reset by peer`;
    case 'DEPTH_ZERO_SELF_SIGNED_CERT': case 'SELF_SIGNED_CERT_IN_CHAIN': case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE': case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY': case 'UNABLE_TO_GET_ISSUER_CERT':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'CERT_HAS_EXPIRED': case 'CERT_NOT_YET_VALID':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID': {
      const names = (err as { cert?: { subjectaltname?: string } }).cert?.subjectaltname?.split(', ').map((n) => n.replace(/^(DNS|IP Address):/, '')) ?? [];
      return names.length > 0
        ? `tls: failed to verify certificate: x509: certificate is valid for ${names.join(', ')}, not ${hostname}`
        : `tls: failed to verify certificate: x509: certificate is not valid for any names, but wanted to match ${hostname}`;
    }
    default: return err.message;
  }
}

/** Go's http.Client error: `Get "<url>": <cause>`. */
const urlError = (method: string, url: string, cause: string) => `${method[0]}${method.slice(1).toLowerCase()} ${goQuote(url)}: ${cause}`;

const locationURL = (l: Location) => `${l.scheme || 'http'}://${l.host}${l.path}${l.query ? `?${l.query}` : ''}`;

function tlsOptions(b: BackendTLS, hostname: string): tls.ConnectionOptions {
  const o: tls.ConnectionOptions = { rejectUnauthorized: b.verify, ALPNProtocols: ['http/1.1'] };
  if (net.isIP(hostname) === 0) o.servername = hostname;
  if (b.ca !== undefined) o.ca = b.ca;
  if (b.cert !== undefined) o.cert = b.cert;
  if (b.key !== undefined) o.key = b.key;
  return o;
}

/** proxy.DialURL: a TCP (http) or TLS (https) connection to the location's host, or Go's error text. */
function dialURL(l: Location, b: BackendTLS): Promise<Duplex> {
  const { hostname, port } = splitHost(l.host);
  const secure = l.scheme === 'https';
  const address = `${hostname.includes(':') ? `[${hostname}]` : hostname}:${port || (secure ? 443 : 80)}`;
  return new Promise((resolve, reject) => {
    const sock = secure
      ? tls.connect({ host: hostname, port: port || 443, ...tlsOptions(b, hostname) })
      : net.connect({ host: hostname, port: port || 80 });
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`dial tcp ${address}: i/o timeout`));
    }, dialTimeoutMs);
    sock.once(secure ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      sock.removeAllListeners('error');
      resolve(sock);
    });
    sock.once('error', (err) => {
      clearTimeout(timer);
      sock.destroy();
      reject(new Error(goNetError(err, address)));
    });
  });
}

// ---- headers ----

/** What kube's filters removed before the handler: the credentials (authentication) and the impersonation headers. */
function consumedHeader(name: string): boolean {
  const n = name.toLowerCase();
  return n === 'authorization' || n.startsWith('impersonate-');
}

const hopHeaders = new Set(['connection', 'proxy-connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** The client's address as X-Forwarded-For gets it (Go: RemoteAddr's host). */
function clientIP(req: IncomingMessage): string {
  const a = req.socket.remoteAddress ?? '';
  return a.startsWith('::ffff:') ? a.slice(7) : a;
}

function forwardedFor(req: IncomingMessage): string {
  const prior = req.headers['x-forwarded-for'];
  const ip = clientIP(req);
  return prior ? `${Array.isArray(prior) ? prior.join(', ') : prior}, ${ip}` : ip;
}

// ---- logs ----

/** GenericHttpResponseChecker: a kubelet answer outside 200-206 as kube's Status error. */
function checkResponse(code: number, body: string, name: string): StatusError | undefined {
  if (code >= 200 && code <= 206) return undefined;
  if (code === 500) return newInternalError(new Error(body));
  if (code === 400) return newBadRequest(body);
  const generic: Record<number, [string, string]> = {
    409: ['Conflict', 'the server reported a conflict'],
    404: ['NotFound', 'the server could not find the requested resource'],
    401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
    403: ['Forbidden', body],
    406: ['NotAcceptable', body.length === 0 || body === 'unknown' ? 'the server was unable to respond with a content type that the client supports' : body],
    415: ['UnsupportedMediaType', body],
    405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
    422: ['Invalid', 'the server rejected our request due to an error in our request'],
    503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
    504: ['Timeout', 'the server was unable to return a response in the time allotted, but may still be processing the request'],
    429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
  };
  let [reason, message] = generic[code] ?? ['', `the server responded with the status code ${code} but did not return more information`];
  if (!generic[code] && code >= 500) {
    reason = 'InternalError';
    message = `an error on the server (${goQuote(body)}) has prevented the request from succeeding`;
  }
  // NewGenericServerResponse with an empty verb: "( pods/log <name>)".
  const status = failure(code, reason as never, `${message} ( pods/log ${name})`, { name, kind: 'pods/log' });
  if (!reason) delete (status.status as { reason?: string }).reason;
  return status;
}

function request(l: Location, b: BackendTLS, opts: http.RequestOptions): http.ClientRequest {
  const { hostname, port } = splitHost(l.host);
  const secure = l.scheme === 'https';
  const base = { host: hostname, port: port || (secure ? 443 : 80), agent: false as const, ...opts };
  return secure ? https.request({ ...base, ...tlsOptions(b, hostname) }) : http.request(base);
}

/**
 * StreamObject over a LocationStreamer: 204 without a location; the kubelet's body as
 * text/plain; its refusals and network errors as kube reports them. Resolves once the answer
 * has started (a followed log keeps streaming after).
 */
export function streamLog(req: IncomingMessage, res: ServerResponse, l: Location | undefined, b: BackendTLS, name: string): Promise<void> {
  if (!l) {
    res.writeHead(204, { 'Cache-Control': 'no-cache, private' });
    res.end();
    return Promise.resolve();
  }
  const url = locationURL(l);
  return new Promise((resolve) => {
    const out = request(l, b, { method: 'GET', path: `${l.path}${l.query ? `?${l.query}` : ''}` });
    const fail = (err: unknown) => {
      writeError(res, err);
      resolve();
    };
    out.on('error', (err) => fail(newUntypedError(urlError('GET', url, goNetError(err, l.host)))));
    out.on('response', (back) => {
      const code = back.statusCode ?? 0;
      const redirect = back.headers.location;
      // PreventRedirects: the client refuses to follow, and reports the target.
      if ([301, 302, 303, 307, 308].includes(code) && redirect) {
        back.resume();
        return fail(newUntypedError(urlError('GET', new URL(redirect, url).toString(), 'redirects forbidden')));
      }
      if (code < 200 || code > 206) {
        let body = '';
        back.setEncoding('utf8');
        back.on('data', (d: string) => {
          if (body.length < 50_000) body += d;
        });
        back.on('end', () => fail(checkResponse(code, body.slice(0, 50_000), name)));
        return;
      }
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache, private' });
      res.flushHeaders();
      back.pipe(res);
      res.on('close', () => back.destroy());
      resolve();
    });
    // A client that goes away ends the kubelet request (kube passes the request's context down).
    // (The request's own 'close' comes as soon as its empty body is read.)
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    out.end();
  });
}

// ---- the upgrade-aware proxy ----

export interface ProxyOptions {
  /** exec, attach, portforward: a plain request is refused. */
  upgradeRequired: boolean;
  /** kube's wrapTransport (the proxy subresources): X-Forwarded-Uri and URL rewriting. */
  rewrite: boolean;
  /** The request's path (raw), for the root redirect and the rewriting transport's prefix. */
  requestPath: string;
  /** The request's raw query, sent on to the backend. */
  rawQuery: string;
}

/** UpgradeAwareHandler.ServeHTTP: resolves once the backend answered (or the request was refused). */
export async function proxyRequest(req: IncomingMessage, res: ServerResponse, l: Location, b: BackendTLS, o: ProxyOptions): Promise<void> {
  if (isUpgradeRequest(req)) return proxyUpgrade(req, res, l, b);
  if (o.upgradeRequired) throw newBadRequest('Upgrade request required');
  return reverseProxy(req, res, l, b, o);
}

/** tryUpgrade: dial, write the request, read the answer; on 101 hand the two sockets to each other. */
async function proxyUpgrade(req: IncomingMessage, res: ServerResponse, l: Location, b: BackendTLS): Promise<void> {
  let backend: Duplex;
  try {
    backend = await dialURL(l, b);
  } catch (err) {
    throw newUntypedError(`error dialing backend: ${(err as Error).message}`);
  }
  const lines = [`${req.method} ${l.path}${l.query ? `?${l.query}` : ''} HTTP/1.1`, `Host: ${req.headers.host ?? l.host}`];
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    if (consumedHeader(name) || /^host$/i.test(name) || /^x-forwarded-for$/i.test(name)) continue;
    lines.push(`${name}: ${raw[i + 1]}`);
  }
  lines.push(`X-Forwarded-For: ${forwardedFor(req)}`);
  backend.write(`${lines.join('\r\n')}\r\n\r\n`);

  let head: Buffer;
  try {
    head = await readResponseHead(backend);
  } catch (err) {
    backend.destroy();
    throw newUntypedError((err as Error).message);
  }
  const text = head.toString('latin1');
  const statusLine = text.slice(0, text.indexOf('\r\n'));
  const m = /^HTTP\/\d\.\d (\d{3})/.exec(statusLine);
  if (!m) {
    backend.destroy();
    throw newUntypedError(`malformed HTTP response ${goQuote(statusLine)}`);
  }
  const code = Number(m[1]);
  if (code !== 101 && code < 400) {
    backend.destroy();
    throw newUntypedError(`invalid upgrade response: status code ${code}`);
  }
  const client = hijack(req, res);
  const sock = client.socket;
  if (code !== 101) {
    // The backend's refusal goes to the client as it came, then both close (10 s at most).
    res.statusCode = code;
    sock.write(head);
    backend.pipe(sock);
    const deadline = setTimeout(() => { backend.destroy(); sock.destroy(); }, 10_000);
    deadline.unref();
    backend.on('close', () => { clearTimeout(deadline); sock.end(); });
    sock.on('close', () => backend.destroy());
    return;
  }
  sock.write(head);
  if (client.head.length > 0) backend.write(client.head);
  // Once either side is done the other is closed, as kube's copy goroutines end the proxy.
  backend.pipe(sock);
  sock.pipe(backend);
  const closeBoth = () => {
    sock.destroy();
    backend.destroy();
  };
  backend.on('error', closeBoth);
  sock.on('error', closeBoth);
  backend.on('close', () => sock.end());
  sock.on('close', () => backend.destroy());
}

/** The backend's status line and headers, and whatever arrived with them (http.ReadResponse's view). */
function readResponseHead(sock: Duplex): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf('\r\n\r\n');
      if (end >= 0) {
        cleanup();
        sock.pause();
        // Bytes after the headers are the upgraded protocol's: they go to the client with the head.
        resolve(buf);
      } else if (buf.length > 1 << 20) {
        cleanup();
        reject(new Error('net/http: response header too large'));
      }
    };
    const onEnd = () => {
      cleanup();
      reject(new Error(buf.length === 0 ? 'EOF' : 'unexpected EOF'));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(new Error(goNetError(err as NodeJS.ErrnoException, '')));
    };
    const cleanup = () => {
      sock.off('data', onData);
      sock.off('end', onEnd);
      sock.off('error', onError);
    };
    sock.on('data', onData);
    sock.on('end', onEnd);
    sock.on('error', onError);
  });
}

/** Go's path.Join(a, b), then the trailing slash of b kept (as kube appends it back). */
function joinKeepingSlash(a: string, b: string): string {
  let joined = posix.join(a, b);
  if (joined.length > 1 && joined.endsWith('/')) joined = joined.slice(0, -1);
  return b.endsWith('/') && !joined.endsWith('/') ? `${joined}/` : joined;
}

/**
 * The rewriting transport's rewriteURL for a Location header: a path on the backend (or on
 * this server's host) is moved under the proxy prefix; relative paths and other hosts are kept.
 */
function rewriteLocation(target: string, backendHost: string, requestHost: string, prefix: string): string {
  const m = /^(?:([a-zA-Z][a-zA-Z0-9+.-]*):)?(?:\/\/([^/?#]*))?([^?#]*)(.*)$/s.exec(target);
  if (!m) return target;
  let scheme = m[1] ?? '';
  let host = m[2] ?? '';
  const path = m[3];
  const rest = m[4];
  if ((host !== '' && host !== backendHost && host !== requestHost) || !path.startsWith('/')) return target;
  // The transport's scheme and host are empty for requests served here: the result is a path.
  if (host !== requestHost) {
    scheme = '';
    host = '';
  }
  const build = (p: string) => `${scheme ? `${scheme}:` : ''}${host ? `//${host}` : ''}${p}${rest}`;
  if (path.startsWith(prefix)) return build(path);
  return build(joinKeepingSlash(prefix, path));
}

/** The reverse proxy of UpgradeAwareHandler (a non-upgrade request to a proxy subresource). */
function reverseProxy(req: IncomingMessage, res: ServerResponse, l: Location, b: BackendTLS, o: ProxyOptions): Promise<void> {
  let path = l.path;
  if (!path.endsWith('/') && o.requestPath.endsWith('/')) path += '/';
  // proxyRedirectsforRootPath (kube issue 4958): the proxy root is served with a trailing slash.
  if (path === '' && (req.method === 'GET' || req.method === 'HEAD')) {
    res.writeHead(301, { Location: `${o.requestPath}/${o.rawQuery ? `?${o.rawQuery}` : ''}`, 'Cache-Control': 'no-cache, private', 'Content-Length': 0 });
    res.end();
    return Promise.resolve();
  }
  const headers: OutgoingHttpHeaders = {};
  const connectionTokens = String(req.headers.connection ?? '').toLowerCase().split(',').map((t) => t.trim());
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || consumedHeader(name) || hopHeaders.has(name) || connectionTokens.includes(name)) continue;
    headers[name] = value;
  }
  headers['x-forwarded-for'] = forwardedFor(req);
  let prefix = '';
  if (o.rewrite) {
    let suffix = l.path;
    if (o.requestPath.endsWith('/') && !suffix.endsWith('/')) suffix += '/';
    prefix = o.requestPath.endsWith(suffix) ? o.requestPath.slice(0, o.requestPath.length - suffix.length) : o.requestPath;
    headers['x-forwarded-uri'] = joinKeepingSlash(prefix, path);
  }
  const target: Location = { ...l, path: path || '/', query: o.rawQuery };
  return new Promise((resolve) => {
    const out = request(target, b, { method: req.method, path: `${target.path}${target.query ? `?${target.query}` : ''}`, headers, setHost: false });
    out.on('error', (err) => {
      // The rewriting transport's refusal; without it (no wrapping) the error itself (500).
      const cause = goNetError(err, l.host);
      writeError(res, o.rewrite ? newServiceUnavailable(`error trying to reach service: ${cause}`) : newUntypedError(cause));
      resolve();
    });
    out.on('response', (back) => {
      const raw = back.rawHeaders;
      const connTokens = String(back.headers.connection ?? '').toLowerCase().split(',').map((t) => t.trim());
      const outHeaders: Record<string, string[]> = {};
      for (let i = 0; i < raw.length; i += 2) {
        const name = raw[i];
        const lower = name.toLowerCase();
        if (hopHeaders.has(lower) || connTokens.includes(lower)) continue;
        // corsRemovingTransport.
        if (o.rewrite && lower.startsWith('access-control-allow-') && ['credentials', 'headers', 'methods', 'origin'].includes(lower.slice(21))) continue;
        let value = raw[i + 1];
        if (o.rewrite && lower === 'location') value = rewriteLocation(value, l.host, String(req.headers.host ?? ''), prefix);
        (outHeaders[name] ??= []).push(value);
      }
      res.writeHead(back.statusCode ?? 502, outHeaders);
      res.flushHeaders();
      back.pipe(res);
      res.on('close', () => back.destroy());
      resolve();
    });
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    req.pipe(out);
  });
}

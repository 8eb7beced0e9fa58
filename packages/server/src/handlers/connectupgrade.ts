/**
 * Upgrade requests (exec, attach, portforward, websockets through a proxy), as kube's
 * UpgradeAwareHandler.tryUpgrade serves them: Node hands such requests to the server's
 * 'upgrade' event with the raw socket; they are served like any request, a refusal being an
 * ordinary Status written on that socket. To upgrade, the request is written to a connection
 * dialed to the backend and its answer read: on 101 the client's socket is taken over and the
 * two are piped both ways; a refusal (>= 400) is relayed as the backend wrote it.
 */
import { ServerResponse, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { goQuote, newUntypedError } from '@windlass/machinery';
import type { Location } from './connectlocation.js';
import { consumedHeader, dialURL, forwardedFor, goNetError, type BackendTLS } from './connectnet.js';


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

/** tryUpgrade: dial, write the request, read the answer; on 101 hand the two sockets to each other. */
export async function proxyUpgrade(req: IncomingMessage, res: ServerResponse, l: Location, b: BackendTLS, identity?: OutgoingHttpHeaders): Promise<void> {
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
    // The aggregator's request-header identity replaces whatever identity headers came in.
    if (identity && /^x-remote-/i.test(name)) continue;
    lines.push(`${name}: ${raw[i + 1]}`);
  }
  lines.push(`X-Forwarded-For: ${forwardedFor(req)}`);
  for (const [name, value] of Object.entries(identity ?? {})) {
    for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) lines.push(`${name}: ${v}`);
  }
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


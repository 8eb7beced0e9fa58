/**
 * A kubelet for tests of the connect subresources: HTTPS with a serving certificate from a test
 * CA made with openssl, asking for client certificates (the API server's --kubelet-client-*),
 * recording every request. It serves what kube-apiserver asks a kubelet for:
 * - /containerLogs/<ns>/<pod>/<container>: the lines given (with follow=true, more lines after a
 *   pause, then the end); a container named `missing` is the kubelet's 404;
 * - /exec/… and /attach/… over a websocket with the v5.channel.k8s.io protocol: `echo` prints its
 *   arguments on stdout, `exit N` ends with kube's NonZeroExitCode Status, attach prints a line;
 * - /portForward/…: refused (no streams here), so a client sees the kubelet's answer relayed;
 * - anything else: 200 with the method, path and query, for nodes/proxy.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Duplex } from 'node:stream';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';

export interface KubeletCertificates {
  /** The CA that signed both certificates (the API server's --kubelet-certificate-authority). */
  ca: string;
  servingCert: string;
  servingKey: string;
  /** The API server's client certificate (--kubelet-client-certificate, --kubelet-client-key). */
  clientCert: string;
  clientKey: string;
}

export function kubeletCertificates(): KubeletCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'kubelet-ca-'));
  try {
    const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    run('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=kubelet-test-ca');
    const leaf = (name: string, subject: string, ext: string) => {
      run('req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject);
      writeFileSync(join(dir, `${name}.cnf`), ext);
      run('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', '2', '-extfile', `${name}.cnf`);
    };
    leaf('serving', '/CN=fake-kubelet', 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
    leaf('client', '/O=kubeadm:cluster-admins/CN=kube-apiserver-kubelet-client', 'extendedKeyUsage=clientAuth\n');
    const read = (f: string) => readFileSync(join(dir, f), 'utf8');
    return { ca: read('ca.crt'), servingCert: read('serving.crt'), servingKey: read('serving.key'), clientCert: read('client.crt'), clientKey: read('client.key') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface KubeletRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  /** The CN of the client certificate the caller presented, if any. */
  clientCN?: string;
}

export interface FakeKubelet {
  port: number;
  requests: KubeletRequest[];
  close(): Promise<void>;
}

/** A server-to-client websocket frame (unmasked), binary or close. */
function frame(opcode: number, payload: Buffer): Buffer {
  const len = payload.length;
  const head = len < 126 ? Buffer.from([0x80 | opcode, len]) : len < 65536 ? Buffer.from([0x80 | opcode, 126, len >> 8, len & 0xff]) : (() => {
    const b = Buffer.alloc(10);
    b[0] = 0x80 | opcode;
    b[1] = 127;
    b.writeBigUInt64BE(BigInt(len), 2);
    return b;
  })();
  return Buffer.concat([head, payload]);
}

/** A v5.channel.k8s.io message: the channel byte, then the data. */
const channel = (ch: number, data: string) => frame(2, Buffer.concat([Buffer.from([ch]), Buffer.from(data)]));

function statusFor(command: string[]): { stdout: string; status: Record<string, unknown> } {
  if (command[0] === 'echo') return { stdout: `${command.slice(1).join(' ')}\n`, status: { metadata: {}, status: 'Success' } };
  const code = command[0] === 'exit' ? Number(command[1] ?? '1') : 127;
  const message = `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${code}`;
  return { stdout: '', status: { metadata: {}, status: 'Failure', message, reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: String(code) }] } } };
}

export async function startFakeKubelet(certs: KubeletCertificates, logLines: string[] = ['first line', 'second line']): Promise<FakeKubelet> {
  const requests: KubeletRequest[] = [];
  const sockets = new Set<Duplex>();
  const record = (req: IncomingMessage) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate?.();
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, clientCN: peer && peer.subject ? String(peer.subject.CN) : undefined });
  };
  const server = https.createServer({ cert: certs.servingCert, key: certs.servingKey, ca: certs.ca, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    record(req);
    const url = new URL(req.url ?? '/', 'https://kubelet');
    const parts = url.pathname.split('/').filter(Boolean);
    if (parts[0] === 'containerLogs') {
      if (parts[3] === 'missing') {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end(`container "missing" in pod "${parts[2]}" is not available`);
        return;
      }
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.write(logLines.map((l) => `${l}\n`).join(''));
      if (url.searchParams.get('follow') !== 'true') return void res.end();
      // A followed log goes on: two more lines a moment later, then the container "exits".
      const timer = setTimeout(() => res.end('followed line 1\nfollowed line 2\n'), 300);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    if (parts[0] === 'portForward' || parts[0] === 'exec' || parts[0] === 'attach') {
      res.writeHead(400, { 'Content-Type': 'text/plain' }).end(`${parts[0]} needs a connection upgrade here`);
      return;
    }
    const body: Buffer[] = [];
    req.on('data', (d: Buffer) => body.push(d));
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ kubelet: true, method: req.method, path: url.pathname, query: url.search, body: Buffer.concat(body).toString() }));
    });
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    record(req);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'https://kubelet');
    const parts = url.pathname.split('/').filter(Boolean);
    const protocols = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
    const isWebsocket = String(req.headers.upgrade ?? '').toLowerCase() === 'websocket';
    if ((parts[0] !== 'exec' && parts[0] !== 'attach') || !isWebsocket || !protocols.includes('v5.channel.k8s.io')) {
      // No ": " in it: clients try to read an error body as a YAML Status.
      const body = `no ${parts[0]} streams but websocket v5.channel.k8s.io ones are served by this kubelet`;
      socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      return;
    }
    const accept = createHash('sha1').update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: v5.channel.k8s.io\r\n\r\n`);
    // Whatever the client sends (stdin, resizes, its close signal) is read and dropped.
    socket.on('data', () => undefined);
    const { stdout, status } = parts[0] === 'attach'
      ? { stdout: `attached to ${parts[3]}\n`, status: { metadata: {}, status: 'Success' } }
      : statusFor(url.searchParams.getAll('command'));
    if (stdout && url.searchParams.get('output') === '1') socket.write(channel(1, stdout));
    socket.write(channel(3, JSON.stringify(status)));
    const close = Buffer.alloc(2);
    close.writeUInt16BE(1000);
    socket.end(frame(8, close));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    async close() {
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * This host's first non-loopback IPv4 address: Endpoints and EndpointSlices refuse loopback
 * addresses, and pods/proxy wants a global unicast pod IP, so backends listen there.
 */
export function hostAddress(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  throw new Error('this host has no non-loopback IPv4 address for a proxy backend');
}

/** An HTTP backend for proxies (a Service's endpoint, a pod): echoes what it got; /redirect answers a Location. */
export async function startEchoBackend(host = hostAddress()): Promise<{ port: number; close(): Promise<void> }> {
  const http = await import('node:http');
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/redirect')) {
      res.writeHead(302, { Location: '/landing/' }).end();
      return;
    }
    const body: Buffer[] = [];
    req.on('data', (d: Buffer) => body.push(d));
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Access-Control-Allow-Origin': '*', 'X-Backend': 'echo' }).end(JSON.stringify({
        method: req.method, url: req.url, host: req.headers.host, forwardedUri: req.headers['x-forwarded-uri'], forwardedFor: req.headers['x-forwarded-for'],
        authorization: req.headers.authorization ?? null, body: Buffer.concat(body).toString(),
      }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}


/**
 * How the connect subresources reach their backends, as kube's transports do: kubelets over
 * TLS with the kubelet client's credentials (verified only with a CA, as kube's transportConfig
 * sets Insecure without one), pods and services with kube's proxy transport (never verified);
 * apimachinery's DialURL for upgrades; the headers kube's filters consumed dropped; network
 * errors in Go's words (`dial tcp 127.0.0.1:10250: connect: connection refused`), as kube's
 * messages embed them.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import type { Duplex } from 'node:stream';
import { goQuote } from '@windlass/machinery';
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
  /** The name the certificate is verified against (and sent as SNI), when it is not the host dialed. */
  servername?: string;
}

export function kubeletBackend(t: KubeletTLS | undefined, insecure = false): BackendTLS {
  return { ca: t?.ca, cert: t?.cert, key: t?.key, verify: !insecure && t?.ca !== undefined };
}

/** kube's CreateProxyTransport: pods and services over https are not verified (they are addressed by IP). */
export const proxyBackend: BackendTLS = { verify: false };

/** net.Dialer's timeout in kube's transports (SetTransportDefaults). */
const dialTimeoutMs = 30_000;


export function splitHost(host: string): { hostname: string; port: number } {
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
      // The name checked: the TLS server name when one was set apart from the host dialed.
      const wanted = (err as { host?: string }).host || hostname;
      return names.length > 0
        ? `tls: failed to verify certificate: x509: certificate is valid for ${names.join(', ')}, not ${wanted}`
        : `tls: failed to verify certificate: x509: certificate is not valid for any names, but wanted to match ${wanted}`;
    }
    default: return err.message;
  }
}

/** Go's http.Client error: `Get "<url>": <cause>`. */
export const urlError = (method: string, url: string, cause: string) => `${method[0]}${method.slice(1).toLowerCase()} ${goQuote(url)}: ${cause}`;

export const locationURL = (l: Location) => `${l.scheme || 'http'}://${l.host}${l.path}${l.query ? `?${l.query}` : ''}`;

export function tlsOptions(b: BackendTLS, hostname: string): tls.ConnectionOptions {
  const o: tls.ConnectionOptions = { rejectUnauthorized: b.verify, ALPNProtocols: ['http/1.1'] };
  if (b.servername !== undefined) o.servername = b.servername;
  else if (net.isIP(hostname) === 0) o.servername = hostname;
  if (b.ca !== undefined) o.ca = b.ca;
  if (b.cert !== undefined) o.cert = b.cert;
  if (b.key !== undefined) o.key = b.key;
  return o;
}

/** proxy.DialURL: a TCP (http) or TLS (https) connection to the location's host, or Go's error text. */
export function dialURL(l: Location, b: BackendTLS): Promise<Duplex> {
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


/** What kube's filters removed before the handler: the credentials (authentication) and the impersonation headers. */
export function consumedHeader(name: string): boolean {
  const n = name.toLowerCase();
  return n === 'authorization' || n.startsWith('impersonate-');
}

export const hopHeaders = new Set(['connection', 'proxy-connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

const connectionTokens = (m: IncomingMessage) => String(m.headers.connection ?? '').toLowerCase().split(',').map((t) => t.trim());

/** The request's headers a reverse proxy sends on: not hop-by-hop, not those the filters consumed. */
export function forwardedHeaders(req: IncomingMessage): http.OutgoingHttpHeaders {
  const headers: http.OutgoingHttpHeaders = {};
  const tokens = connectionTokens(req);
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || consumedHeader(name) || hopHeaders.has(name) || tokens.includes(name)) continue;
    headers[name] = value;
  }
  return headers;
}

/** A backend's answer headers as [name, value] pairs in its order, hop-by-hop ones dropped (Go's ReverseProxy). */
export function answerHeaders(back: IncomingMessage): [string, string][] {
  const raw = back.rawHeaders;
  const tokens = connectionTokens(back);
  const out: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const lower = raw[i].toLowerCase();
    if (!hopHeaders.has(lower) && !tokens.includes(lower)) out.push([raw[i], raw[i + 1]]);
  }
  return out;
}

/** The client's address as X-Forwarded-For gets it (Go: RemoteAddr's host). */
function clientIP(req: IncomingMessage): string {
  const a = req.socket.remoteAddress ?? '';
  return a.startsWith('::ffff:') ? a.slice(7) : a;
}

export function forwardedFor(req: IncomingMessage): string {
  const prior = req.headers['x-forwarded-for'];
  const ip = clientIP(req);
  return prior ? `${Array.isArray(prior) ? prior.join(', ') : prior}, ${ip}` : ip;
}

export function request(l: Location, b: BackendTLS, opts: http.RequestOptions): http.ClientRequest {
  const { hostname, port } = splitHost(l.host);
  const secure = l.scheme === 'https';
  const base = { host: hostname, port: port || (secure ? 443 : 80), agent: false as const, ...opts };
  return secure ? https.request({ ...base, ...tlsOptions(b, hostname) }) : http.request(base);
}


/**
 * Request-header authentication (k8s.io/apiserver authentication/request/headerrequest behind
 * x509request's Verifier): a request whose TLS client certificate chains to
 * --requestheader-client-ca-file, for client authentication, with a CommonName among
 * --requestheader-allowed-names (any, when none are listed), is the user its headers name: the
 * first non-empty username header, the uid header, every value of the group headers, and each
 * extra-prefixed header as an extra (its key lower-cased and %-unescaped). Those headers are
 * removed once read. A certificate from elsewhere, or a name not allowed, is an error that another
 * authenticator may still override; a proxy's certificate without a username header is no answer.
 */
import { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import { withAuthenticatedGroup, type UserInfo } from './user.js';

/** Plain data (a `--workers` primary hands it to its workers). */
export interface RequestHeaderConfig {
  /** PEM bundle of --requestheader-client-ca-file. */
  clientCA: string;
  /** --requestheader-allowed-names; empty: any certificate from the CA. */
  allowedNames: string[];
  usernameHeaders: string[];
  uidHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
}

export type RequestHeaderAnswer = { user: UserInfo } | { error: string } | undefined;

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** The certificates of a PEM bundle. */
export function parseCertificates(bundle: string): X509Certificate[] {
  return (bundle.match(PEM_BLOCK) ?? []).map((pem) => new X509Certificate(pem));
}

/**
 * Whether the connection's verified client certificate chains to one of `cas`. The TLS layer
 * verified the chain against all the listener's CAs; this finds which ones.
 */
export function chainsTo(socket: object, cas: X509Certificate[]): boolean {
  const tls = socket as Partial<TLSSocket>;
  if (typeof tls.getPeerCertificate !== 'function' || !tls.authorized) return false;
  let cert: DetailedPeerCertificate | undefined = tls.getPeerCertificate(true);
  for (let depth = 0; cert?.raw && depth < 10; depth++) {
    const x = new X509Certificate(cert.raw);
    if (cas.some((ca) => ca.fingerprint256 === x.fingerprint256 || (x.checkIssued(ca) && x.verify(ca.publicKey)))) return true;
    if (cert.issuerCertificate === cert) break;
    cert = cert.issuerCertificate;
  }
  return false;
}

function commonName(socket: object): string {
  const subject = (socket as TLSSocket).getPeerCertificate().subject as unknown as Record<string, string | string[] | undefined>;
  const cn = subject?.CN;
  return (Array.isArray(cn) ? cn[0] : cn) ?? '';
}

const unescapeKey = (key: string) => {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
};

export class RequestHeaderAuthenticator {
  private readonly cas: X509Certificate[];
  /** Each connection's verdict on its certificate (it cannot change): true, why not, or null without one. */
  private readonly verified = new WeakMap<object, true | string | null>();

  /** The identity headers, lower case, for clearing them. */
  private readonly named: Set<string>;
  private readonly prefixes: string[];

  constructor(private readonly c: RequestHeaderConfig) {
    this.cas = parseCertificates(c.clientCA);
    this.named = new Set([...c.usernameHeaders, ...c.uidHeaders, ...c.groupHeaders].map((n) => n.toLowerCase()));
    this.prefixes = c.extraHeaderPrefixes.map((p) => p.toLowerCase());
  }

  private verify(socket: object): true | string | null {
    let v = this.verified.get(socket);
    if (v === undefined) {
      const tls = socket as Partial<TLSSocket>;
      // Looked at once per connection: most present no certificate, and asking costs a native call.
      if (typeof tls.getPeerCertificate !== 'function' || !tls.getPeerCertificate(false)?.raw) v = null;
      else if (!chainsTo(socket, this.cas)) v = 'x509: certificate signed by unknown authority';
      else {
        const cn = commonName(socket);
        v = this.c.allowedNames.length === 0 || this.c.allowedNames.includes(cn) ? true : `x509: subject with cn=${cn} is not in the allowed list`;
      }
      this.verified.set(socket, v);
    }
    return v;
  }

  authenticate(req: IncomingMessage): RequestHeaderAnswer {
    const v = this.verify(req.socket);
    if (v === null) return undefined;
    if (v !== true) return { error: v };
    const h = req.headers;
    const first = (names: string[]) => {
      for (const n of names) {
        const value = h[n.toLowerCase()];
        const s = Array.isArray(value) ? value[0] : value;
        if (s) return s;
      }
      return '';
    };
    const name = first(this.c.usernameHeaders);
    if (name === '') return undefined;
    const uid = first(this.c.uidHeaders);
    const groups: string[] = [];
    for (const n of this.c.groupHeaders) for (const value of req.headersDistinct[n.toLowerCase()] ?? []) if (value) groups.push(value);
    const extra: Record<string, string[]> = {};
    for (const p of this.prefixes) {
      for (const [header, values] of Object.entries(req.headersDistinct)) {
        if (!header.startsWith(p) || !values) continue;
        (extra[unescapeKey(header.slice(p.length))] ??= []).push(...values);
      }
    }
    // ClearAuthenticationHeaders: nothing after authentication sees them (Node's names are lower case).
    for (const header of Object.keys(h)) {
      if (this.named.has(header) || this.prefixes.some((p) => header.startsWith(p))) delete h[header];
    }
    const user: UserInfo = { name, uid, groups };
    if (Object.keys(extra).length > 0) user.extra = extra;
    return { user: withAuthenticatedGroup(user) };
  }
}

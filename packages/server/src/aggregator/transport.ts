/**
 * How the aggregator reaches an APIService's backend (kube-aggregator's BuildTransportConfig):
 * HTTPS to the resolved address, the certificate verified against spec.caBundle (the system
 * roots without one) under the name `<service>.<namespace>.svc`, or not at all with
 * insecureSkipTLSVerify; the front-proxy client certificate (--proxy-client-cert-file) presented;
 * the user in kube's request-header form (transport.SetAuthProxyHeaders).
 */
import https from 'node:https';
import type { OutgoingHttpHeaders } from 'node:http';
import type { ResolvedAddress } from '../admission/webhook/client.js';
import type { UserInfo } from '../registry/types.js';
import type { APIServiceInfo } from './apiservice.js';

/** kube's --proxy-client-cert-file and --proxy-client-key-file, as PEM. */
export interface ProxyClientCredentials {
  cert: string;
  key: string;
}


const agents = new Map<string, https.Agent>();

function agentFor(s: APIServiceInfo, creds: ProxyClientCredentials | undefined): https.Agent {
  const servername = `${s.service!.name}.${s.service!.namespace}.svc`;
  const key = [servername, s.caPem ?? '', s.insecureSkipTLSVerify, creds?.cert ?? ''].join('\n');
  let agent = agents.get(key);
  if (!agent) {
    // One client per configuration, as kube caches a transport per APIService; kept-alive idle sockets do not hold the process.
    agent = new https.Agent({
      keepAlive: true, servername, ca: s.caPem ? [s.caPem] : undefined, rejectUnauthorized: !s.insecureSkipTLSVerify,
      cert: creds?.cert, key: creds?.key, maxSockets: 64,
    });
    agents.set(key, agent);
    if (agents.size > 256) {
      const oldest = agents.keys().next().value!;
      agents.get(oldest)?.destroy();
      agents.delete(oldest);
    }
  }
  return agent;
}

/** A request to an APIService's backend at `to`; the caller writes (or ends) it. */
export function backendRequest(s: APIServiceInfo, creds: ProxyClientCredentials | undefined, to: ResolvedAddress, method: string, path: string, headers: OutgoingHttpHeaders): import('node:http').ClientRequest {
  return https.request({ host: to.host, port: to.port, method, path, headers, agent: agentFor(s, creds), setHost: headers.host === undefined });
}

/** `https://host:port` as Go's url.URL prints it (IPv6 in brackets). */
export function hostPort(to: ResolvedAddress): string {
  return `${to.host.includes(':') ? `[${to.host}]` : to.host}:${to.port}`;
}

/** RFC 7230 token characters, '%' excepted (kube's legalHeaderByte and shouldEscape). */
const legalHeaderByte = /[!#$&'*+\-.^_`|~0-9A-Za-z]/;

/** kube's headerKeyEscape: an extra's key percent-encoded where a header name may not carry it. */
export function headerKeyEscape(key: string): string {
  let out = '';
  for (const byte of Buffer.from(key, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += byte < 0x80 && legalHeaderByte.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const identityHeader = (name: string) => name === 'x-remote-user' || name === 'x-remote-uid' || name === 'x-remote-group' || name.startsWith('x-remote-extra-');

/** transport.SetAuthProxyHeaders: whatever identity headers came in are replaced by the user's. */
export function setAuthProxyHeaders(headers: OutgoingHttpHeaders, user: UserInfo): void {
  for (const name of Object.keys(headers)) if (identityHeader(name.toLowerCase())) delete headers[name];
  headers['X-Remote-User'] = user.name;
  if (user.uid) headers['X-Remote-Uid'] = user.uid;
  if (user.groups?.length) headers['X-Remote-Group'] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra ?? {})) {
    if (values.length) headers[`X-Remote-Extra-${headerKeyEscape(key)}`] = [...values];
  }
}

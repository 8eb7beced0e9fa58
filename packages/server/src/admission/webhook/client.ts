/**
 * Calling a webhook (kube's pkg/util/webhook ClientManager and rest client): a JSON POST to
 * clientConfig.url, or to `https://<name>.<namespace>.svc:<port><path>` for a service reference,
 * verified against clientConfig.caBundle (the system roots without one) under the name the URL
 * carries, `<name>.<namespace>.svc` for services. kube-apiserver dials a service through its
 * resolver; Windlass has no cluster network, so the service resolves to a ready address of its
 * EndpointSlices (or v1 Endpoints), then to its ClusterIP (serviceresolver.ts). The request
 * carries kube's `?timeout=<n>s` and is abandoned after it. Failures are reported with the text
 * Go's HTTP client gives them (`Post "<url>": dial tcp …: connect: connection refused`), which
 * kube's messages embed.
 */
import http from 'node:http';
import https from 'node:https';
import type { ClientConfig } from './types.js';

export interface ResolvedAddress {
  host: string;
  port: number;
}

export interface ServiceResolver {
  /** An address serving a service's port; throws an Error with kube's message when there is none. */
  resolve(namespace: string, name: string, port: number): Promise<ResolvedAddress>;
}

/** A failure to talk to the webhook (kube's ErrCallingWebhook reason), not a refusal by it. */
export class CallError extends Error {}

const agents = new Map<string, https.Agent>();

function agentFor(ca: string | undefined, servername: string | undefined): https.Agent {
  const key = `${servername ?? ''}\n${ca ?? ''}`;
  let agent = agents.get(key);
  if (!agent) {
    // kube caches one client per configuration; idle kept-alive sockets do not hold the process.
    agent = new https.Agent({ keepAlive: true, ca: ca ? [ca] : undefined, servername, maxSockets: 64 });
    agents.set(key, agent);
    if (agents.size > 256) agents.delete(agents.keys().next().value!);
  }
  return agent;
}

function decodeCABundle(b64: string | undefined): string | undefined {
  if (!b64) return undefined;
  const pem = Buffer.from(b64, 'base64').toString('utf8');
  return pem.trim() === '' ? undefined : pem;
}

interface Target {
  /** The URL as kube's client reports it (with its timeout parameter). */
  display: string;
  url: URL;
  /** Where to connect, when it is not the URL's host (a resolved service). */
  connect?: ResolvedAddress;
  servername?: string;
}

async function targetFor(cc: ClientConfig, timeoutSeconds: number, resolver: ServiceResolver, withTimeout: boolean): Promise<Target> {
  const query = withTimeout ? `?timeout=${timeoutSeconds}s` : '';
  if (cc.service) {
    const port = cc.service.port ?? 443;
    const servername = `${cc.service.name}.${cc.service.namespace}.svc`;
    const display = `https://${servername}:${port}${cc.service.path ?? ''}${query}`;
    const url = new URL(display);
    try {
      return { display, url, servername, connect: await resolver.resolve(cc.service.namespace, cc.service.name, port) };
    } catch (err) {
      throw new CallError(`Post "${display}": ${(err as Error).message}`);
    }
  }
  if (!cc.url) throw new CallError('webhook configuration must have either service or URL');
  let url: URL;
  try {
    url = new URL(cc.url);
  } catch (err) {
    throw new CallError(`Unparsable URL: ${(err as Error).message}`);
  }
  const base = cc.url.replace(/[?#].*$/, '');
  return { display: `${base}${query}`, url: new URL(`${base}${query}`) };
}

/** Go's net/http error text for a Node socket or TLS error. */
function goErrorText(err: NodeJS.ErrnoException & { cert?: { subjectaltname?: string }; host?: string }, t: Target, address: string): string {
  switch (err.code) {
    case 'ECONNREFUSED': return `dial tcp ${address}: connect: connection refused`;
    case 'ECONNRESET': return 'EOF';
    case 'EHOSTUNREACH': return `dial tcp ${address}: connect: no route to host`;
    case 'ENETUNREACH': return `dial tcp ${address}: connect: network is unreachable`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN': return `dial tcp: lookup ${t.url.hostname}: no such host`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'UNABLE_TO_GET_ISSUER_CERT': return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'CERT_HAS_EXPIRED': return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID': {
      const names = (err.cert?.subjectaltname ?? '').split(', ').map((n) => n.replace(/^(DNS|IP Address):/, '')).filter(Boolean);
      const host = t.servername ?? t.url.hostname.replace(/^\[|\]$/g, '');
      return `tls: failed to verify certificate: x509: certificate is valid for ${names.join(', ')}, not ${host}`;
    }
    default: return err.message;
  }
}

/** kube's rest client error for a non-2xx answer: the Status it carries, else one for the code. */
function responseError(status: number, body: Buffer): string {
  try {
    const s = JSON.parse(body.toString('utf8')) as { kind?: string; message?: string };
    if (s && s.kind === 'Status' && typeof s.message === 'string') return s.message;
  } catch {
    // not a Status
  }
  const text = body.toString('utf8').trim();
  switch (status) {
    case 400: return 'the server rejected our request for an unknown reason';
    case 401: return 'the server has asked for the client to provide credentials';
    case 403: return text ? text : 'forbidden';
    case 404: return 'the server could not find the requested resource';
    case 409: return 'the server reported a conflict';
    case 429: return 'the server has received too many requests and has asked us to try again later';
    case 503: return 'the server is currently unable to handle the request';
    case 504: return 'the server was unable to return a response in the time allotted, but may still be processing the request';
    default:
      if (status >= 500) return text ? `an error on the server (${JSON.stringify(text)}) has prevented the request from succeeding` : 'an error on the server has prevented the request from succeeding';
      return `the server responded with the status code ${status} but did not return more information`;
  }
}

/**
 * POSTs `body` as JSON and answers the decoded JSON answer. Throws CallError (Go's text:
 * `Post "<url>": …`) for anything short of a 2xx JSON answer. Admission webhooks tell the server
 * their timeout (`?timeout=10s`, kube's r.Timeout); conversion webhooks are called without it.
 */
export async function postJSON(cc: ClientConfig, body: unknown, timeoutSeconds: number, resolver: ServiceResolver, timeoutParameter = true): Promise<unknown> {
  const t = await targetFor(cc, timeoutSeconds, resolver, timeoutParameter);
  const payload = Buffer.from(JSON.stringify(body));
  const secure = t.url.protocol === 'https:';
  const host = t.connect?.host ?? t.url.hostname.replace(/^\[|\]$/g, '');
  const port = t.connect?.port ?? (t.url.port ? Number(t.url.port) : secure ? 443 : 80);
  const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const ca = decodeCABundle(cc.caBundle);
  const servername = t.servername ?? (/^[\d.]+$|:/.test(host) ? undefined : t.url.hostname);
  return new Promise((resolve, reject) => {
    let settled = false;
    // Transport failures are Go's url.Error (`Post "<url>": …`); an answer's is the rest client's StatusError text.
    const fail = (message: string, transport = true) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new CallError(transport ? `Post "${t.display}": ${message}` : message));
    };
    const options: https.RequestOptions = {
      method: 'POST', host, port, path: `${t.url.pathname}${t.url.search}`,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, */*', 'Content-Length': payload.length, Host: t.url.host, 'User-Agent': 'kube-apiserver-admission' },
    };
    const req = secure
      ? https.request({ ...options, agent: agentFor(ca, servername), servername })
      : http.request(options);
    const timer = setTimeout(() => {
      fail('context deadline exceeded');
      req.destroy();
    }, timeoutSeconds * 1000);
    req.on('error', (err) => fail(goErrorText(err as NodeJS.ErrnoException, t, address)));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (err) => fail(err.message));
      res.on('end', () => {
        if (settled) return;
        const data = Buffer.concat(chunks);
        const code = res.statusCode ?? 0;
        if (code < 200 || code > 299) return fail(responseError(code, data), false);
        let decoded: unknown;
        try {
          decoded = JSON.parse(data.toString('utf8'));
        } catch (err) {
          return fail(`couldn't get version/kind; json parse error: ${(err as Error).message}`, false);
        }
        settled = true;
        clearTimeout(timer);
        resolve(decoded);
      });
    });
    req.end(payload);
  });
}

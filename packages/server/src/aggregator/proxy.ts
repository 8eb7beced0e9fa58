/**
 * kube-aggregator's proxyHandler: a request for a group version an APIService sends to a
 * Service goes to that service, after this server's authentication and authorization, as
 * whoever made it (request-header identity, the caller's credentials dropped). An APIService
 * that is not Available, or whose service does not resolve, is answered `service unavailable`
 * (503, plain text, as Go's http.Error writes it); a backend that cannot be reached, with the
 * network error (503 too, the aggregator's responder). Answers stream back as they come (watches);
 * upgrade requests are upgraded end to end (handlers/connectupgrade.ts) with the same identity.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { ResolvedAddress, ServiceResolver } from '../admission/webhook/client.js';
import { answerHeaders, forwardedFor, forwardedHeaders, goNetError, type BackendTLS } from '../handlers/connectnet.js';
import { isUpgradeRequest, proxyUpgrade } from '../handlers/connectupgrade.js';
import type { UserInfo } from '../registry/types.js';
import type { APIServiceInfo } from './apiservice.js';
import { backendRequest, hostPort, setAuthProxyHeaders, type ProxyClientCredentials } from './transport.js';

/** Go's http.Error: text/plain, nosniff, the message and a newline. */
export function plainError(res: ServerResponse, code: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = Buffer.from(`${message}\n`);
  res.writeHead(code, {
    'Cache-Control': 'no-cache, private', 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Content-Length': body.length,
  });
  res.end(body);
}

/** Go's url.QueryEscape: only unreserved characters stay, a space is '+'. */
function goQueryEscape(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).replace(/%20/g, '+');
}

/** url.Values.Encode of the request's query: keys sorted, each value escaped as Go does. */
export function reencodeQuery(rawQuery: string): string {
  const params = new URLSearchParams(rawQuery);
  const keys = [...new Set(params.keys())].sort();
  return keys.flatMap((k) => params.getAll(k).map((v) => `${goQueryEscape(k)}=${goQueryEscape(v)}`)).join('&');
}

export interface ProxyTarget {
  apiService: APIServiceInfo;
  resolver: ServiceResolver;
  credentials?: ProxyClientCredentials;
}

/** Serves `req` (an authorized request under the APIService's group version) from its backend. */
export async function proxyToAPIService(req: IncomingMessage, res: ServerResponse, user: UserInfo, t: ProxyTarget): Promise<void> {
  const s = t.apiService;
  if (!s.available || !s.service) return plainError(res, 503, 'service unavailable');
  let to: ResolvedAddress;
  try {
    to = await t.resolver.resolve(s.service.namespace, s.service.name, s.service.port);
  } catch {
    return plainError(res, 503, 'service unavailable');
  }
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const query = q < 0 ? '' : reencodeQuery(url.slice(q + 1));
  const rawPath = q < 0 ? url : url.slice(0, q);
  if (isUpgradeRequest(req)) {
    const identity: OutgoingHttpHeaders = {};
    setAuthProxyHeaders(identity, user);
    const tls: BackendTLS = { ca: s.caPem, cert: t.credentials?.cert, key: t.credentials?.key, verify: !s.insecureSkipTLSVerify, servername: `${s.service.name}.${s.service.namespace}.svc` };
    try {
      await proxyUpgrade(req, res, { scheme: 'https', host: hostPort(to), path: rawPath, query }, tls, identity);
    } catch (err) {
      // The aggregator's responder: any failure to upgrade is a 503 with the error's text.
      plainError(res, 503, (err as Error).message);
    }
    return;
  }
  const path = `${rawPath}${query ? `?${query}` : ''}`;
  const headers = forwardedHeaders(req);
  headers['x-forwarded-for'] = forwardedFor(req);
  setAuthProxyHeaders(headers, user);
  await new Promise<void>((resolve) => {
    const out = backendRequest(s, t.credentials, to, req.method ?? 'GET', path, headers);
    out.on('error', (err) => {
      plainError(res, 503, goNetError(err, hostPort(to)));
      resolve();
    });
    out.on('response', (back) => {
      // Answered already (the request timeout's 504): the late answer is dropped.
      if (res.headersSent || res.writableEnded) {
        back.destroy();
        resolve();
        return;
      }
      const outHeaders: Record<string, string[]> = {};
      for (const [name, value] of answerHeaders(back)) (outHeaders[name] ??= []).push(value);
      res.writeHead(back.statusCode ?? 502, outHeaders);
      // A watch streams: every chunk goes on as it comes (Go's ReverseProxy flushes streamed answers).
      res.flushHeaders();
      back.pipe(res);
      // A backend that goes away mid-answer ends the client's answer too (pipe forwards no error).
      back.on('error', () => res.destroy());
      res.on('close', () => back.destroy());
      resolve();
    });
    // A client that goes away ends the backend request.
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    // A body express has read already (discovery paths go through it) is sent as read.
    if (req.readableEnded) {
      const body = (req as IncomingMessage & { body?: unknown }).body;
      out.end(Buffer.isBuffer(body) && body.length > 0 ? body : undefined);
    } else {
      req.pipe(out);
    }
  });
}

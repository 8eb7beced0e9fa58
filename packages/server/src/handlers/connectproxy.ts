/**
 * The proxying half of the connect subresources, as kube-apiserver does it:
 * - a pod's log is the LocationStreamer: one GET to the kubelet's /containerLogs, its body
 *   streamed back as text/plain (204 when there is no location), the kubelet's error answers
 *   turned into Status errors by GenericHttpResponseChecker, redirects refused;
 * - the other subresources go through apimachinery's UpgradeAwareHandler: upgrades as
 *   connectupgrade.ts serves them; other requests (the proxy subresources) through its
 *   reverse proxy, with kube's rewriting transport (X-Forwarded-Uri, Location headers under
 *   the proxy path, CORS headers dropped) and errors (`error trying to reach service: …`, 503).
 */
import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import { posix } from 'node:path';
import { failure, goQuote, newBadRequest, newInternalError, newServiceUnavailable, newUntypedError, type StatusError } from '@windlass/machinery';
import { writeError } from '../respond.js';
import type { Location } from './connectlocation.js';
import { answerHeaders, forwardedFor, forwardedHeaders, goNetError, locationURL, request, urlError, type BackendTLS } from './connectnet.js';
import { isUpgradeRequest, proxyUpgrade } from './connectupgrade.js';


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
      streamBack(back, res);
      resolve();
    });
    // The response's close, not the request's: that comes as soon as its empty body is read.
    endWithClient(res, out);
    out.end();
  });
}


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
  const headers = forwardedHeaders(req);
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
      const outHeaders: Record<string, string[]> = {};
      for (const [name, raw] of answerHeaders(back)) {
        const lower = name.toLowerCase();
        // corsRemovingTransport.
        if (o.rewrite && lower.startsWith('access-control-allow-') && ['credentials', 'headers', 'methods', 'origin'].includes(lower.slice(21))) continue;
        let value = raw;
        if (o.rewrite && lower === 'location') value = rewriteLocation(value, l.host, String(req.headers.host ?? ''), prefix);
        (outHeaders[name] ??= []).push(value);
      }
      res.writeHead(back.statusCode ?? 502, outHeaders);
      streamBack(back, res);
      resolve();
    });
    endWithClient(res, out);
    req.pipe(out);
  });
}

/** The backend's answer, its headers written, streamed to the client until either side goes. */
function streamBack(back: IncomingMessage, res: ServerResponse): void {
  res.flushHeaders();
  back.pipe(res);
  res.on('close', () => back.destroy());
}

/** A client that goes away ends the backend request (kube passes the request's context down). */
function endWithClient(res: ServerResponse, out: ClientRequest): void {
  res.on('close', () => {
    if (!res.writableFinished) out.destroy();
  });
}

/**
 * Go's http.ServeContent (Go 1.25, what kube-apiserver 1.35 is built with) for the documents
 * kube serves through it: /openapi/v2 (kube-openapi's handler), /openapi/v3 and its group
 * versions (handler3, kube-aggregator's specProxier). Clients cache these documents, so the
 * conditional requests matter: Last-Modified, If-None-Match / If-Modified-Since → 304,
 * If-Match / If-Unmodified-Since → 412, byte ranges (206, 416), HEAD without a body.
 * Also goautoneg's Accept parsing and NYTimes/gziphandler's gzip, which kube-openapi wraps
 * /openapi/v2 in.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { gzip } from 'node:zlib';

/** One clause of an Accept header as munnerz/goautoneg parses it. */
export interface AcceptClause {
  type: string;
  subType: string;
  q: number;
}

/**
 * goautoneg.ParseAccept: clauses ordered by q, then specific types before wildcards. Go's
 * sort.Sort is an insertion sort at these sizes, so equal clauses keep their order; the
 * comparison is ported as is (it is not a strict order, and the insertion sort's result is
 * what kube answers by).
 */
export function parseAccept(header: string): AcceptClause[] {
  const out: AcceptClause[] = [];
  for (const raw of header.split(',')) {
    const part = raw.trim();
    const [range, ...params] = part.split(';');
    const sp = range.split('/');
    const type = sp[0].trim();
    let subType: string;
    if (sp.length === 1 && type === '*') subType = '*';
    else if (sp.length === 2) subType = sp[1].trim();
    else continue;
    let q = 1;
    for (const p of params) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      // strconv.ParseFloat's failure leaves 0.
      if (p.slice(0, eq).trim() === 'q') q = Number.parseFloat(p.slice(eq + 1)) || 0;
    }
    out.push({ type, subType, q });
  }
  const less = (a: AcceptClause, b: AcceptClause) =>
    a.q > b.q || (a.type !== '*' && b.type === '*') || (a.subType !== '*' && b.subType === '*');
  for (let i = 1; i < out.length; i++) {
    for (let j = i; j > 0 && less(out[j], out[j - 1]); j--) [out[j], out[j - 1]] = [out[j - 1], out[j]];
  }
  return out;
}

/** gziphandler's acceptsGzip: a `gzip` coding with q > 0 (each `;` part resets q to 1, as its parser does). */
export function gziphandlerAcceptsGzip(header: string | undefined): boolean {
  let q = 0;
  for (const coding of (header ?? '').split(',')) {
    let name = '';
    let value = 1;
    coding.split(';').forEach((part, i) => {
      const p = part.trim();
      value = 1;
      if (i === 0) name = p.toLowerCase();
      else if (p.startsWith('q=')) value = Math.min(1, Math.max(0, Number.parseFloat(p.slice(2)) || 0));
    });
    if (name === 'gzip') q = value;
  }
  return q > 0;
}

/** gziphandler's DefaultMinSize: smaller bodies go out as they are. */
const gzipMinSize = 1400;

/** textproto.TrimString: only ASCII space and tab (and CR/LF) are trimmed. */
const trim = (s: string) => s.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');

/** Go's scanETag: a `"…"` or `W/"…"` token at the start of s, and what follows it. */
function scanETag(input: string): [string, string] {
  const s = trim(input);
  const start = s.startsWith('W/') ? 2 : 0;
  if (s.length - start < 2 || s[start] !== '"') return ['', ''];
  for (let i = start + 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) return [s.slice(0, i + 1), s.slice(i + 1)];
    if (!(c === 0x21 || (c >= 0x23 && c <= 0x7e) || c >= 0x80)) return ['', ''];
  }
  return ['', ''];
}

const strongMatch = (a: string, b: string) => a === b && a !== '' && a[0] === '"';
const weakMatch = (a: string, b: string) => a.replace(/^W\//, '') === b.replace(/^W\//, '');

type Cond = 'none' | 'true' | 'false';

/** Each listed tag of an If-Match / If-None-Match header, `*` included; stops at the first malformed one as Go does. */
function listedTags(header: string, onTag: (tag: string) => boolean): boolean {
  let buf = header;
  for (;;) {
    buf = trim(buf);
    if (buf === '') return false;
    if (buf[0] === ',') {
      buf = buf.slice(1);
      continue;
    }
    if (buf[0] === '*') return onTag('*');
    const [tag, remain] = scanETag(buf);
    if (tag === '') return false;
    if (onTag(tag)) return true;
    buf = remain;
  }
}

/** http.ParseTime: the three HTTP date forms; anything else is no date (the condition is ignored). */
function parseHTTPDate(v: string): number | undefined {
  if (!/^\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$|^\w+, \d\d-\w{3}-\d\d \d\d:\d\d:\d\d GMT$|^\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}$/.test(v)) return undefined;
  const t = Date.parse(/GMT$/.test(v) ? v : `${v} GMT`);
  return Number.isNaN(t) ? undefined : t;
}

const seconds = (ms: number) => Math.floor(ms / 1000);

function header(req: IncomingMessage, name: string): string {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : (v ?? '');
}

/** checkPreconditions (RFC 7232 section 6): what to answer before the content, if anything, and the Range to honour. */
function checkPreconditions(req: IncomingMessage, res: ServerResponse, modtime: number): { done?: 304 | 412; range: string } {
  const etag = String(res.getHeader('Etag') ?? '');
  const getOrHead = req.method === 'GET' || req.method === 'HEAD';
  let ch: Cond = 'none';
  const im = header(req, 'if-match');
  if (im !== '') ch = listedTags(im, (t) => t === '*' || strongMatch(t, etag)) ? 'true' : 'false';
  if (ch === 'none') {
    const t = header(req, 'if-unmodified-since') === '' ? undefined : parseHTTPDate(header(req, 'if-unmodified-since'));
    if (t !== undefined) ch = seconds(modtime) * 1000 <= t ? 'true' : 'false';
  }
  if (ch === 'false') return { done: 412, range: '' };
  const inm = header(req, 'if-none-match');
  if (inm !== '') {
    if (listedTags(inm, (t) => t === '*' || weakMatch(t, etag))) return { done: getOrHead ? 304 : 412, range: '' };
  } else if (getOrHead) {
    const ims = header(req, 'if-modified-since');
    const t = ims === '' ? undefined : parseHTTPDate(ims);
    if (t !== undefined && seconds(modtime) * 1000 <= t) return { done: 304, range: '' };
  }
  let range = header(req, 'range');
  const ir = header(req, 'if-range');
  if (range !== '' && getOrHead && ir !== '') {
    const [tag] = scanETag(ir);
    let ok: boolean;
    if (tag !== '') ok = strongMatch(tag, etag);
    else {
      const t = parseHTTPDate(ir);
      ok = t !== undefined && seconds(t) === seconds(modtime);
    }
    if (!ok) range = '';
  }
  return { range };
}

interface ByteRange {
  start: number;
  length: number;
}

class RangeError416 extends Error {}

/** Go's parseRange; `noOverlap` when every range starts past the end. */
function parseRange(s: string, size: number): ByteRange[] {
  if (s === '') return [];
  const invalid = () => new RangeError416('invalid range');
  if (!s.startsWith('bytes=')) throw invalid();
  const int = (v: string) => (/^[+-]?\d+$/.test(v) ? Number(v) : NaN);
  const ranges: ByteRange[] = [];
  let noOverlap = false;
  for (const raw of s.slice('bytes='.length).split(',')) {
    const ra = trim(raw);
    if (ra === '') continue;
    const dash = ra.indexOf('-');
    if (dash < 0) throw invalid();
    const start = trim(ra.slice(0, dash));
    const end = trim(ra.slice(dash + 1));
    if (start === '') {
      if (end === '' || end[0] === '-') throw invalid();
      let i = int(end);
      if (Number.isNaN(i) || i < 0) throw invalid();
      if (i > size) i = size;
      ranges.push({ start: size - i, length: i });
      continue;
    }
    const i = int(start);
    if (Number.isNaN(i) || i < 0) throw invalid();
    if (i >= size) {
      noOverlap = true;
      continue;
    }
    if (end === '') {
      ranges.push({ start: i, length: size - i });
      continue;
    }
    let j = int(end);
    if (Number.isNaN(j) || i > j) throw invalid();
    if (j >= size) j = size - 1;
    ranges.push({ start: i, length: j - i + 1 });
  }
  if (noOverlap && ranges.length === 0) throw new RangeError416('invalid range: failed to overlap');
  return ranges;
}

const contentRange = (r: ByteRange, size: number) => `bytes ${r.start}-${r.start + r.length - 1}/${size}`;

/** Go's http.Error as serveError calls it: the caching headers dropped (Go 1.23+), a plain-text line. */
function serveError(res: ServerResponse, code: number, text: string): void {
  for (const h of ['Cache-Control', 'Content-Encoding', 'Etag', 'Last-Modified', 'Content-Length']) res.removeHeader(h);
  const body = Buffer.from(`${text}\n`);
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Length', body.length);
  res.writeHead(code);
  res.end(body);
}

/** An answer without a body, with Go's `Content-Length: 0` (304s have none). */
export function writeEmpty(res: ServerResponse, code: number): void {
  if (code !== 304) res.setHeader('Content-Length', 0);
  res.writeHead(code);
  res.end();
}

/** Whole documents are compressed once: they only change with the served kinds. */
const gzipped = new WeakMap<Buffer, Promise<Buffer>>();

function compressed(bytes: Buffer, whole: boolean): Promise<Buffer> {
  const run = () => new Promise<Buffer>((resolve, reject) => gzip(bytes, (err, out) => (err ? reject(err) : resolve(out))));
  if (!whole) return run();
  let p = gzipped.get(bytes);
  if (!p) gzipped.set(bytes, (p = run()));
  return p;
}

export interface ServeOptions {
  /** The request went through gziphandler and accepts gzip. */
  gzip?: boolean;
}

/**
 * http.ServeContent over `body`, with the headers the handler set on `res` already (Etag,
 * Content-Type, Vary, Cache-Control). Without a Content-Type the body is sniffed: kube's
 * documents are JSON, which Go's sniffer calls `text/plain; charset=utf-8`.
 */
export function serveContent(req: IncomingMessage, res: ServerResponse, modtime: Date, body: Buffer, opts: ServeOptions = {}): void {
  res.setHeader('Last-Modified', modtime.toUTCString());
  const pre = checkPreconditions(req, res, modtime.getTime());
  if (pre.done === 304) {
    for (const h of ['Content-Type', 'Content-Length', 'Content-Encoding']) res.removeHeader(h);
    if (res.getHeader('Etag') !== undefined) res.removeHeader('Last-Modified');
    return writeEmpty(res, 304);
  }
  if (pre.done === 412) return writeEmpty(res, 412);
  if (!res.hasHeader('Content-Type')) res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  const size = body.length;
  let ranges: ByteRange[];
  try {
    ranges = parseRange(pre.range, size);
  } catch (err) {
    const message = (err as Error).message;
    if (message.endsWith('failed to overlap')) {
      if (size > 0) {
        res.setHeader('Content-Range', `bytes */${size}`);
        return serveError(res, 416, message);
      }
      ranges = [];
    } else return serveError(res, 416, message);
  }
  if (ranges.reduce((n, r) => n + r.length, 0) > size) ranges = [];
  let code = 200;
  let send = body;
  if (ranges.length === 1) {
    const [r] = ranges;
    send = body.subarray(r.start, r.start + r.length);
    code = 206;
    res.setHeader('Content-Range', contentRange(r, size));
  } else if (ranges.length > 1) {
    // mime/multipart's writer: a random 30-byte boundary, each part's headers in sorted order.
    const boundary = randomBytes(30).toString('hex');
    const type = String(res.getHeader('Content-Type'));
    const parts: Buffer[] = [];
    ranges.forEach((r, i) => {
      parts.push(Buffer.from(`${i === 0 ? '' : '\r\n'}--${boundary}\r\nContent-Range: ${contentRange(r, size)}\r\nContent-Type: ${type}\r\n\r\n`));
      parts.push(body.subarray(r.start, r.start + r.length));
    });
    parts.push(Buffer.from(`\r\n--${boundary}--\r\n`));
    send = Buffer.concat(parts);
    code = 206;
    res.setHeader('Content-Type', `multipart/byteranges; boundary=${boundary}`);
  }
  res.setHeader('Accept-Ranges', 'bytes');
  // gziphandler compresses what the handler writes once it holds 1400 bytes: never a HEAD's (nothing is written).
  if (opts.gzip && req.method !== 'HEAD' && send.length >= gzipMinSize) {
    compressed(send, send === body).then((zipped) => {
      res.setHeader('Content-Encoding', 'gzip');
      res.writeHead(code);
      // No Content-Length: gziphandler drops it, so Go streams the body chunked.
      res.write(zipped);
      res.end();
    }, (err: Error) => res.destroy(err));
    return;
  }
  res.setHeader('Content-Length', send.length);
  res.writeHead(code);
  res.end(req.method === 'HEAD' ? undefined : send);
}

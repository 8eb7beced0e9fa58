/**
 * kube's url library (k8s.io/apiserver pkg/cel/library/urls.go): `url()` and `isURL()` accept
 * what Go's url.ParseRequestURI accepts (an absolute URL or an absolute path), and the getters
 * answer as Go's url.URL does. The parsing is a port of Go's net/url, errors included.
 */
import { celFunc, celMethod, CelScalar, listType, mapType } from '@bufbuild/cel';
import { opaqueType } from './opaque.js';

const { STRING, BOOL } = CelScalar;

export interface GoURL {
  scheme: string;
  opaque: string;
  user?: string;
  host: string;
  path: string;
  rawPath: string;
  rawQuery: string;
  fragment: string;
  forceQuery: boolean;
}

type Mode = 'path' | 'host' | 'query' | 'fragment' | 'userinfo';

const quote = (s: string) => JSON.stringify(s);
const isHex = (c: string | undefined) => c !== undefined && /^[0-9a-fA-F]$/.test(c);
const isAlnum = (c: string) => /^[A-Za-z0-9]$/.test(c);

/** url.shouldEscape for the modes parsing uses. */
function shouldEscape(c: string, mode: Mode): boolean {
  if (isAlnum(c)) return false;
  if (mode === 'host') return !"!$&'()*+,;=:[]<>\"-_.~".includes(c);
  if ('-_.~'.includes(c)) return false;
  if ('$&+,/:;=?@'.includes(c)) {
    if (mode === 'path') return c === '?';
    if (mode === 'userinfo') return c === '@' || c === '/' || c === '?' || c === ':';
    if (mode === 'query') return true;
    return false;
  }
  if (mode === 'fragment' && "!()*".includes(c)) return false;
  return true;
}

/** url.unescape: percent-decoding with Go's errors (host names allow %XX only for non-ASCII and %25). */
function unescape(s: string, mode: Mode | 'queryComponent'): string {
  for (let i = 0; i < s.length; ) {
    const c = s[i];
    if (c === '%') {
      if (!isHex(s[i + 1]) || !isHex(s[i + 2])) throw new Error(`invalid URL escape ${quote(s.slice(i, i + 3))}`);
      if (mode === 'host' && parseInt(s[i + 1], 16) < 8 && s.slice(i, i + 3) !== '%25') throw new Error(`invalid URL escape ${quote(s.slice(i, i + 3))}`);
      i += 3;
    } else {
      if (mode === 'host' && c.charCodeAt(0) < 0x80 && shouldEscape(c, 'host')) throw new Error(`invalid character ${quote(c)} in host name`);
      i++;
    }
  }
  const bytes: number[] = [];
  const enc = new TextEncoder();
  for (let i = 0; i < s.length; ) {
    if (s[i] === '%') {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 3;
    } else if (s[i] === '+' && mode === 'queryComponent') {
      bytes.push(0x20);
      i++;
    } else {
      const cp = s.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      bytes.push(...enc.encode(ch));
      i += ch.length;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** url.escape for paths: UTF-8 bytes percent-encoded in upper-case hex. */
function escape(s: string, mode: Mode): string {
  let out = '';
  for (const ch of s) {
    if (ch.length === 1 && ch.charCodeAt(0) < 0x80 && !shouldEscape(ch, mode)) out += ch;
    else for (const b of new TextEncoder().encode(ch)) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function validEncoded(s: string): boolean {
  for (const c of s) {
    if ("!$&'()*+,;=:@[]%".includes(c)) continue;
    if (c.length > 1 || c.charCodeAt(0) >= 0x80 || shouldEscape(c, 'path')) return false;
  }
  return true;
}

function validOptionalPort(port: string): boolean {
  return port === '' || /^:[0-9]*$/.test(port);
}

function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new Error('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) throw new Error("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) throw new Error(`invalid port ${quote(colonPort)} after host`);
    const zone = host.slice(0, i).indexOf('%25');
    if (zone >= 0) return unescape(host.slice(0, zone), 'host') + unescape(host.slice(zone, i), 'path') + unescape(host.slice(i), 'host');
  } else {
    const i = host.lastIndexOf(':');
    if (i !== -1) {
      const colonPort = host.slice(i);
      if (!validOptionalPort(colonPort)) throw new Error(`invalid port ${quote(colonPort)} after host`);
    }
  }
  return unescape(host, 'host');
}

function parseAuthority(authority: string): { user?: string; host: string } {
  const i = authority.lastIndexOf('@');
  const host = parseHost(i < 0 ? authority : authority.slice(i + 1));
  if (i < 0) return { host };
  const userinfo = authority.slice(0, i);
  if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) throw new Error('net/url: invalid userinfo');
  return { user: userinfo, host };
}

/** url.parse(rawURL, viaRequest). */
function parse(raw: string, viaRequest: boolean): GoURL {
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new Error('net/url: invalid control character in URL');
  if (raw === '' && viaRequest) throw new Error('empty url');
  const u: GoURL = { scheme: '', opaque: '', host: '', path: '', rawPath: '', rawQuery: '', fragment: '', forceQuery: false };
  if (raw === '*') {
    u.path = '*';
    return u;
  }
  let rest: string;
  [u.scheme, rest] = getScheme(raw);
  u.scheme = u.scheme.toLowerCase();
  if (rest.endsWith('?') && rest.split('?').length === 2) {
    u.forceQuery = true;
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      u.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (u.scheme !== '') {
      u.opaque = rest;
      return u;
    }
    if (viaRequest) throw new Error('invalid URI for request');
    if (rest.split('/')[0].includes(':')) throw new Error('first path segment in URL cannot contain colon');
  }
  if ((u.scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    const a = parseAuthority(authority);
    u.user = a.user;
    u.host = a.host;
  }
  u.path = unescape(rest, 'path');
  u.rawPath = escape(u.path, 'path') === rest ? '' : rest;
  return u;
}

/** url.ParseRequestURI, with url.Error's text. */
export function parseRequestURI(raw: string): GoURL {
  try {
    return parse(raw, true);
  } catch (err) {
    throw new Error(`parse ${quote(raw)}: ${(err as Error).message}`);
  }
}

/** url.Parse: the fragment cut off first. */
function parseURL(raw: string): GoURL {
  const hash = raw.indexOf('#');
  const base = hash < 0 ? raw : raw.slice(0, hash);
  let u: GoURL;
  try {
    u = parse(base, false);
  } catch (err) {
    throw new Error(`parse ${quote(base)}: ${(err as Error).message}`);
  }
  if (hash >= 0) {
    try {
      u.fragment = unescape(raw.slice(hash + 1), 'fragment');
    } catch (err) {
      throw new Error(`parse ${quote(raw)}: ${(err as Error).message}`);
    }
  }
  return u;
}

function escapedPath(u: GoURL): string {
  if (u.rawPath !== '' && validEncoded(u.rawPath)) {
    try {
      if (unescape(u.rawPath, 'path') === u.path) return u.rawPath;
    } catch {
      // not a valid encoding of the path: escape the path instead
    }
  }
  if (u.path === '*') return '*';
  return escape(u.path, 'path');
}

function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon !== -1 && validOptionalPort(host.slice(colon))) {
    port = host.slice(colon + 1);
    host = host.slice(0, colon);
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, port];
}

/** url.ParseQuery, errors dropped as URL.Query() drops them. */
function query(raw: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of raw.split('&')) {
    if (part === '' || part.includes(';')) continue;
    const eq = part.indexOf('=');
    try {
      const k = unescape(eq < 0 ? part : part.slice(0, eq), 'queryComponent');
      const v = unescape(eq < 0 ? '' : part.slice(eq + 1), 'queryComponent');
      out.set(k, [...(out.get(k) ?? []), v]);
    } catch {
      // a bad escape drops the pair, as url.ParseQuery's caller here ignores its error
    }
  }
  return out;
}

/** URL.String(), close enough to compare URLs as kube's Equal does. */
function urlString(u: GoURL): string {
  let s = u.scheme ? `${u.scheme}:` : '';
  if (u.opaque) s += u.opaque;
  else {
    if (u.scheme || u.host || u.user !== undefined) {
      if (u.host || u.path || u.user !== undefined) s += '//';
      if (u.user !== undefined) s += `${u.user}@`;
      s += u.host;
    }
    s += escapedPath(u);
  }
  if (u.forceQuery || u.rawQuery) s += `?${u.rawQuery}`;
  if (u.fragment) s += `#${escape(u.fragment, 'fragment')}`;
  return s;
}

/** A URL keeps its input as its key; equal URLs are those whose String() is equal. */
export const URLType = opaqueType<GoURL>('kubernetes.URL', urlString, parseURL);
const URL = URLType.type;
const get = URLType.get;

function toURL(s: string): GoURL {
  try {
    parseRequestURI(s);
    return parseURL(s);
  } catch (err) {
    throw new Error(`URL parse error during conversion from string: ${(err as Error).message}`);
  }
}

export const urlFunctions = [
  celFunc('url', [STRING], URL, (s) => URLType.of(toURL(s))),
  celFunc('isURL', [STRING], BOOL, (s) => {
    try {
      parseRequestURI(s);
      return true;
    } catch {
      return false;
    }
  }),
  celMethod('getScheme', URL, [], STRING, function () { return get(this).scheme; }),
  celMethod('getHost', URL, [], STRING, function () { return get(this).host; }),
  celMethod('getHostname', URL, [], STRING, function () { return splitHostPort(get(this).host)[0]; }),
  celMethod('getPort', URL, [], STRING, function () { return splitHostPort(get(this).host)[1]; }),
  celMethod('getEscapedPath', URL, [], STRING, function () { return escapedPath(get(this)); }),
  celMethod('getQuery', URL, [], mapType(STRING, listType(STRING)), function () { return query(get(this).rawQuery); }),
];

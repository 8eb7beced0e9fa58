/**
 * Go's net/netip as kube's ip and cidr libraries use it: ParseAddr and ParsePrefix with their
 * error texts, Addr.String (RFC 5952 for IPv6), and the address class predicates.
 */

export interface Addr {
  /** 4 or 16 bytes. */
  bytes: Uint8Array;
  zone: string;
}

export interface Prefix {
  addr: Addr;
  bits: number;
}

/** strconv.Quote for the ASCII texts these errors quote. */
const quote = (s: string) => JSON.stringify(s);

class ParseAddrError extends Error {
  constructor(input: string, msg: string, at?: string) {
    super(`ParseAddr(${quote(input)}): ${msg}${at ? ` (at ${quote(at)})` : ''}`);
  }
}

function parseIPv4Fields(input: string, off: number, end: number, out: Uint8Array, at: number): void {
  const s = input.slice(off, end);
  let val = 0;
  let pos = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) {
      if (digits === 1 && val === 0) throw new ParseAddrError(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + (c - 0x30);
      digits++;
      if (val > 255) throw new ParseAddrError(input, 'IPv4 field has value >255');
    } else if (s[i] === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') throw new ParseAddrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (pos === 3) throw new ParseAddrError(input, 'IPv4 address too long');
      out[at + pos++] = val;
      val = 0;
      digits = 0;
    } else {
      throw new ParseAddrError(input, 'unexpected character', s.slice(i));
    }
  }
  if (pos < 3) throw new ParseAddrError(input, 'IPv4 address too short');
  out[at + 3] = val;
}

function hexValue(c: string): number {
  if (c >= '0' && c <= '9') return c.charCodeAt(0) - 0x30;
  if (c >= 'a' && c <= 'f') return c.charCodeAt(0) - 0x61 + 10;
  if (c >= 'A' && c <= 'F') return c.charCodeAt(0) - 0x41 + 10;
  return -1;
}

function parseIPv6(input: string): Addr {
  let s = input;
  let zone = '';
  const pct = s.indexOf('%');
  if (pct !== -1) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === '') throw new ParseAddrError(input, 'zone must be a non-empty string');
  }
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  if (s.length >= 2 && s[0] === ':' && s[1] === ':') {
    ellipsis = 0;
    s = s.slice(2);
    if (s.length === 0) return { bytes: ip, zone };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const h = hexValue(s[off]);
      if (h < 0) break;
      acc = acc * 16 + h;
      if (off > 3) throw new ParseAddrError(input, 'each group must have 4 or less digits', s);
      if (acc > 0xffff) throw new ParseAddrError(input, 'IPv6 field has value >=2^16', s);
    }
    if (off === 0) throw new ParseAddrError(input, 'each colon-separated field must have at least one digit', s);
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12) throw new ParseAddrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16) throw new ParseAddrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      const end = input.length - (zone.length > 0 ? zone.length + 1 : 0);
      parseIPv4Fields(input, end - s.length, end, ip, i);
      s = '';
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s.length === 0) break;
    if (s[0] !== ':') throw new ParseAddrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) throw new ParseAddrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) throw new ParseAddrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break;
    }
  }
  if (s.length !== 0) throw new ParseAddrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) throw new ParseAddrError(input, 'address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j];
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) {
    throw new ParseAddrError(input, 'the :: must expand to at least one field of zeros', s);
  }
  return { bytes: ip, zone };
}

/** netip.ParseAddr; throws Go's error text. */
export function parseAddr(s: string): Addr {
  for (const c of s) {
    if (c === '.') {
      const bytes = new Uint8Array(4);
      parseIPv4Fields(s, 0, s.length, bytes, 0);
      return { bytes, zone: '' };
    }
    if (c === ':') return parseIPv6(s);
    if (c === '%') throw new ParseAddrError(s, 'missing IPv6 address');
  }
  throw new ParseAddrError(s, 'unable to parse IP');
}

/** netip.ParsePrefix; throws Go's error text. */
export function parsePrefix(s: string): Prefix {
  const fail = (msg: string) => new Error(`netip.ParsePrefix(${quote(s)}): ${msg}`);
  const slash = s.lastIndexOf('/');
  if (slash < 0) throw fail("no '/'");
  let addr: Addr;
  try {
    addr = parseAddr(s.slice(0, slash));
  } catch (err) {
    throw fail((err as Error).message);
  }
  if (addr.bytes.length === 16 && addr.zone !== '') throw fail('IPv6 zones cannot be present in a prefix');
  const bitsStr = s.slice(slash + 1);
  if ((bitsStr.length > 1 && (bitsStr[0] < '1' || bitsStr[0] > '9')) || !/^[+-]?[0-9]+$/.test(bitsStr)) throw fail(`bad bits after slash: ${quote(bitsStr)}`);
  const bits = Number(bitsStr);
  if (bits < 0 || bits > addr.bytes.length * 8) throw fail('prefix length out of range');
  return { addr, bits };
}

export const is4 = (a: Addr) => a.bytes.length === 4;
export const is6 = (a: Addr) => a.bytes.length === 16;
export function is4In6(a: Addr): boolean {
  return is6(a) && a.bytes.subarray(0, 10).every((b) => b === 0) && a.bytes[10] === 0xff && a.bytes[11] === 0xff;
}

/** Addr.String: dotted quad, or RFC 5952 IPv6 (longest run of two or more zero groups as `::`). */
export function addrString(a: Addr): string {
  if (is4(a)) return [...a.bytes].join('.');
  const groups = Array.from({ length: 8 }, (_, i) => (a.bytes[2 * i] << 8) | a.bytes[2 * i + 1]);
  let zeroStart = -1;
  let zeroLen = 1;
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i >= 2 && j - i > zeroLen) {
      zeroStart = i;
      zeroLen = j - i;
    }
  }
  let out = '';
  if (is4In6(a)) out = `::ffff:${[...a.bytes.subarray(12)].join('.')}`;
  else {
    for (let i = 0; i < 8; i++) {
      if (i === zeroStart) {
        out += '::';
        i += zeroLen - 1;
        continue;
      }
      if (i > 0 && !out.endsWith(':')) out += ':';
      out += groups[i].toString(16);
    }
  }
  return a.zone ? `${out}%${a.zone}` : out;
}

export const prefixString = (p: Prefix) => `${addrString(p.addr)}/${p.bits}`;

/** The prefix with the host bits cleared (Prefix.Masked). */
export function masked(p: Prefix): Prefix {
  const bytes = new Uint8Array(p.addr.bytes);
  for (let i = 0; i < bytes.length; i++) {
    const keep = Math.max(0, Math.min(8, p.bits - i * 8));
    bytes[i] &= (0xff << (8 - keep)) & 0xff;
  }
  return { addr: { bytes, zone: '' }, bits: p.bits };
}

function samePrefixBits(a: Uint8Array, b: Uint8Array, bits: number): boolean {
  for (let i = 0; i < a.length && bits > 0; i++, bits -= 8) {
    const mask = (0xff << (8 - Math.min(8, bits))) & 0xff;
    if ((a[i] & mask) !== (b[i] & mask)) return false;
  }
  return true;
}

/** Prefix.Contains: same family, no zone, same leading bits. */
export function prefixContains(p: Prefix, a: Addr): boolean {
  return a.zone === '' && a.bytes.length === p.addr.bytes.length && samePrefixBits(p.addr.bytes, a.bytes, p.bits);
}

/** Prefix.Overlaps. */
export function prefixOverlaps(p: Prefix, o: Prefix): boolean {
  if (p.addr.bytes.length !== o.addr.bytes.length) return false;
  return samePrefixBits(p.addr.bytes, o.addr.bytes, Math.min(p.bits, o.bits));
}

const inV4 = (a: Addr, first: number, second?: number) => is4(a) && a.bytes[0] === first && (second === undefined || a.bytes[1] === second);
const allZero = (a: Addr) => a.bytes.every((b) => b === 0);

export const isUnspecified = (a: Addr) => allZero(a) && a.zone === '';
export const isLoopback = (a: Addr) => (is4(a) ? a.bytes[0] === 127 : a.bytes.subarray(0, 15).every((b) => b === 0) && a.bytes[15] === 1);
export const isMulticast = (a: Addr) => (is4(a) ? (a.bytes[0] & 0xf0) === 0xe0 : a.bytes[0] === 0xff);
export const isLinkLocalMulticast = (a: Addr) => (is4(a) ? inV4(a, 224, 0) && a.bytes[2] === 0 : a.bytes[0] === 0xff && (a.bytes[1] & 0xcf) === 0x02);
export const isLinkLocalUnicast = (a: Addr) => (is4(a) ? inV4(a, 169, 254) : a.bytes[0] === 0xfe && (a.bytes[1] & 0xc0) === 0x80);

/** Addr.IsGlobalUnicast: private and ULA addresses count, as in package net. */
export function isGlobalUnicast(a: Addr): boolean {
  if (is4(a) && (allZero(a) || a.bytes.every((b) => b === 255))) return false;
  return !allZero(a) && !isLoopback(a) && !isMulticast(a) && !isLinkLocalUnicast(a);
}

/**
 * IP and CIDR values as kube's validation reads them (k8s.io/apimachinery pkg/util/validation
 * ip.go over k8s.io/utils/net): the "sloppy" parser that tolerates leading zeros in IPv4
 * octets, the strict checks of new fields (IsValidIP, IsValidCIDR) and of legacy fields under
 * StrictIPCIDRValidation, and Go's canonical String() forms that messages quote.
 */
import { fieldErr, type FieldError } from '@windlass/machinery';

/** 4 bytes for IPv4, 16 for IPv6; `mapped` when an IPv6 literal carried an IPv4 address (::ffff:a.b.c.d). */
export interface ParsedIP {
  bytes: number[];
  leadingZeros: boolean;
  mapped: boolean;
}

function parseIPv4(s: string): { bytes: number[]; leadingZeros: boolean } | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  let leadingZeros = false;
  const bytes: number[] = [];
  for (const p of parts) {
    if (!/^[0-9]{1,3}$/.test(p)) return undefined;
    if (p.length > 1 && p[0] === '0') leadingZeros = true;
    const n = Number(p);
    if (n > 255) return undefined;
    bytes.push(n);
  }
  return { bytes, leadingZeros };
}

function parseIPv6(s: string): ParsedIP | undefined {
  if (s.includes('%')) return undefined;
  let tail: number[] = [];
  let leadingZeros = false;
  let body = s;
  // An embedded IPv4 address takes the last 32 bits.
  const lastColon = s.lastIndexOf(':');
  if (lastColon >= 0 && s.slice(lastColon + 1).includes('.')) {
    const v4 = parseIPv4(s.slice(lastColon + 1));
    if (!v4) return undefined;
    leadingZeros = v4.leadingZeros;
    tail = v4.bytes;
    body = s.slice(0, lastColon + 1) + '0:0';
  }
  const halves = body.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const head = groups(halves[0]);
  const rest = halves.length === 2 ? groups(halves[1]) : [];
  const all = [...head, ...rest];
  if (all.some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  const missing = 8 - all.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const words = [...head, ...Array(halves.length === 2 ? missing : 0).fill('0'), ...rest].map((g) => parseInt(g, 16));
  const bytes: number[] = [];
  for (const w of words) bytes.push(w >> 8, w & 0xff);
  if (tail.length) bytes.splice(12, 4, ...tail);
  const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  return { bytes, leadingZeros, mapped };
}

/** netutils.ParseIPSloppy: undefined for what is not an IP at all. */
export function parseIP(s: string): ParsedIP | undefined {
  if (s.includes(':')) return parseIPv6(s);
  const v4 = parseIPv4(s);
  return v4 ? { ...v4, mapped: false } : undefined;
}

/** Go's net.IP.String(): dotted IPv4 (also for IPv4-mapped IPv6), RFC 5952 IPv6. */
export function formatIP(ip: ParsedIP): string {
  const b = ip.bytes;
  if (b.length === 4) return b.join('.');
  if (ip.mapped) return b.slice(12).join('.');
  const words: number[] = [];
  for (let i = 0; i < 16; i += 2) words.push((b[i] << 8) | b[i + 1]);
  let bestStart = -1, bestLen = 0;
  for (let i = 0; i < 8;) {
    if (words[i] !== 0) { i++; continue; }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) { bestStart = i; bestLen = j - i; }
    i = j;
  }
  const hex = (ws: number[]) => ws.map((w) => w.toString(16)).join(':');
  if (bestStart < 0) return hex(words);
  return `${hex(words.slice(0, bestStart))}::${hex(words.slice(bestStart + bestLen))}`;
}

export function ipFamily(ip: ParsedIP): 4 | 6 {
  return ip.bytes.length === 4 || ip.mapped ? 4 : 6;
}

/**
 * The StrictIPCIDRValidation gate: alpha and off by default in kube 1.35 (beta only from 1.36),
 * so legacy fields take what the sloppy parser accepts, and the strategies warn about
 * non-canonical values instead (GetWarningsForIP/GetWarningsForCIDR).
 */
export const strictIPCIDRValidation = false;

/**
 * IsValidIPForLegacyField: valid when it parses; under StrictIPCIDRValidation also without
 * leading zeros or an IPv4-mapped form, unless the old object already held the value.
 */
export function isValidIPForLegacyField(path: string, value: string, validOld: string[] = []): FieldError[] {
  if (strictIPCIDRValidation && validOld.includes(value)) return [];
  const { ip, errs } = strictIPErrors(path, value);
  return strictIPCIDRValidation || !ip ? errs : [];
}

function strictIPErrors(path: string, value: string): { ip?: ParsedIP; errs: FieldError[] } {
  const ip = parseIP(value);
  if (!ip) return { errs: [fieldErr.invalid(path, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')] };
  const errs: FieldError[] = [];
  if (ip.leadingZeros) errs.push(fieldErr.invalid(path, value, 'must not have leading 0s'));
  if (ip.mapped) errs.push(fieldErr.invalid(path, value, 'must not be an IPv4-mapped IPv6 address'));
  return { ip, errs };
}

/** IsValidIP: strict, and in canonical form. */
export function isValidIP(path: string, value: string): FieldError[] {
  const { ip, errs } = strictIPErrors(path, value);
  if (errs.length || !ip) return errs;
  const canonical = formatIP(ip);
  return value === canonical ? [] : [fieldErr.invalid(path, value, `must be in canonical form (${JSON.stringify(canonical)})`)];
}

export interface ParsedCIDR {
  ip: ParsedIP;
  /** The prefix length as written (for IPv4-mapped values, of the 128-bit form). */
  bits: number;
  leadingZeros: boolean;
}

/** netutils.ParseCIDRSloppy. */
export function parseCIDR(s: string): ParsedCIDR | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIP(s.slice(0, slash));
  const len = s.slice(slash + 1);
  if (!ip || !/^[0-9]{1,3}$/.test(len)) return undefined;
  const bits = Number(len);
  if (bits > ip.bytes.length * 8) return undefined;
  return { ip, bits, leadingZeros: ip.leadingZeros || (len.length > 1 && len[0] === '0') };
}

function masked(bytes: number[], bits: number): number[] {
  return bytes.map((b, i) => {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    return keep === 0 ? 0 : b & (0xff << (8 - keep)) & 0xff;
  });
}

/** The network's canonical String() (ipnet.String()): the masked address and prefix length. */
export function formatCIDR(c: ParsedCIDR): string {
  const net = masked(c.ip.bytes, c.bits);
  // Go prints the IPv4 form only while the mask keeps the ::ffff: prefix; a shorter one leaves an IPv6 network.
  if (c.ip.mapped && c.bits >= 96) return `${net.slice(12).join('.')}/${c.bits - 96}`;
  return `${formatIP({ bytes: net, leadingZeros: false, mapped: false })}/${c.bits}`;
}

function strictCIDRErrors(path: string, value: string): { cidr?: ParsedCIDR; errs: FieldError[] } {
  const cidr = parseCIDR(value);
  if (!cidr) return { errs: [fieldErr.invalid(path, value, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)')] };
  const errs: FieldError[] = [];
  if (cidr.leadingZeros) errs.push(fieldErr.invalid(path, value, 'must not have leading 0s in IP or prefix length'));
  else if (cidr.ip.mapped) errs.push(fieldErr.invalid(path, value, 'must not have an IPv4-mapped IPv6 address'));
  else if (masked(cidr.ip.bytes, cidr.bits).some((b, i) => b !== cidr.ip.bytes[i])) errs.push(fieldErr.invalid(path, value, 'must not have bits set beyond the prefix length'));
  return { cidr, errs };
}

/** IsValidCIDRForLegacyField: as isValidIPForLegacyField, strict about leading zeros, mapped addresses and host bits only under the gate. */
export function isValidCIDRForLegacyField(path: string, value: string, validOld: string[] = []): FieldError[] {
  if (strictIPCIDRValidation && validOld.includes(value)) return [];
  const { cidr, errs } = strictCIDRErrors(path, value);
  return strictIPCIDRValidation || !cidr ? errs : [];
}

/** IsValidCIDR: strict, and in canonical form. */
export function isValidCIDR(path: string, value: string): FieldError[] {
  const { cidr, errs } = strictCIDRErrors(path, value);
  if (errs.length || !cidr) return errs;
  const canonical = formatCIDR(cidr);
  return value === canonical ? [] : [fieldErr.invalid(path, value, `must be in canonical form (${JSON.stringify(canonical)})`)];
}

/** Whether `inner`'s address lies in `outer` (net.IPNet.Contains), both already parsed. */
export function cidrContains(outer: ParsedCIDR, inner: ParsedCIDR): boolean {
  const o = v4or6(outer), i = v4or6(inner);
  if (o.bytes.length !== i.bytes.length) return false;
  const a = masked(o.bytes, o.bits), b = masked(i.bytes, o.bits);
  return a.every((x, k) => x === b[k]);
}

/** A mapped address compares as IPv4, as Go's To4() makes it. */
function v4or6(c: ParsedCIDR): { bytes: number[]; bits: number } {
  return c.ip.mapped ? { bytes: c.ip.bytes.slice(12), bits: Math.max(0, c.bits - 96) } : { bytes: c.ip.bytes, bits: c.bits };
}

export function cidrMaskSize(c: ParsedCIDR): number {
  return v4or6(c).bits;
}

/** netutils.IPFamilyOfCIDRString: 0 for an unparsable value. */
export function cidrFamily(s: string): 0 | 4 | 6 {
  const c = parseCIDR(s);
  return c ? ipFamily(c.ip) : 0;
}

/** IsValidPortNum. */
export function portNumErrors(port: number): string[] {
  return port >= 1 && port <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];
}

/** IsValidPortName (an IANA service name). */
export function portNameErrors(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

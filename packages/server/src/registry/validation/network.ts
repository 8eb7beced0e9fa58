/**
 * IP addresses, CIDRs and ports as kube's validation reads them (k8s.io/utils/net's sloppy
 * parsers, k8s.io/apimachinery pkg/util/validation ip.go and validation.go, and the port and
 * endpoint-IP checks of pkg/apis/core/validation), with kube's messages.
 */
import { fieldErr, type FieldError } from '@windlass/machinery';

export interface ParsedIP {
  family: 4 | 6;
  /** 4 bytes for IPv4, 16 for IPv6 (an IPv4-mapped IPv6 address stays 16 bytes). */
  bytes: Uint8Array;
}

/** Go's dtoi over a whole field: digits only, leading zeros allowed (netutils.ParseIPSloppy). */
function decimal(s: string, max: number): number | undefined {
  if (!/^[0-9]+$/.test(s)) return undefined;
  const n = Number(s);
  return n <= max ? n : undefined;
}

function parseIPv4(s: string): Uint8Array | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const n = decimal(parts[i], 255);
    if (n === undefined) return undefined;
    out[i] = n;
  }
  return out;
}

function parseIPv6(s: string): Uint8Array | undefined {
  if (s.includes('%')) return undefined;
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string): number[] | undefined => {
    if (part === '') return [];
    const out: number[] = [];
    const fields = part.split(':');
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i];
      if (i === fields.length - 1 && f.includes('.')) {
        const v4 = parseIPv4(f);
        if (!v4) return undefined;
        out.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(f)) return undefined;
      out.push(parseInt(f, 16));
    }
    return out;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !tail) return undefined;
  const total = head.length + tail.length;
  if (halves.length === 1 ? total !== 8 : total > 7) return undefined;
  const all = [...head, ...new Array(8 - total).fill(0), ...tail];
  const out = new Uint8Array(16);
  all.forEach((g, i) => {
    out[2 * i] = g >> 8;
    out[2 * i + 1] = g & 0xff;
  });
  return out;
}

/** netutils.ParseIPSloppy: IPv4 (leading zeros allowed) or IPv6; undefined when neither. */
export function parseIP(s: string): ParsedIP | undefined {
  if (typeof s !== 'string' || s === '') return undefined;
  if (s.includes(':')) {
    const b = parseIPv6(s);
    return b && { family: 6, bytes: b };
  }
  const b = parseIPv4(s);
  return b && { family: 4, bytes: b };
}

/** The IPv4 address inside an IPv4-mapped IPv6 one (::ffff:a.b.c.d), as Go's To4 finds it. */
function mapped4(bytes: Uint8Array): Uint8Array | undefined {
  if (bytes.length === 4) return bytes;
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return undefined;
  return bytes[10] === 0xff && bytes[11] === 0xff ? bytes.subarray(12) : undefined;
}

/** Go's net.IP String(): dotted IPv4 (also for IPv4-mapped addresses), RFC 5952 IPv6. */
export function formatIP(ip: ParsedIP): string {
  const v4 = mapped4(ip.bytes);
  if (v4) return Array.from(v4).join('.');
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((ip.bytes[i] << 8) | ip.bytes[i + 1]);
  let bestStart = -1, bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) { bestStart = i; bestLen = j - i; }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

export function isIPv4String(s: string): boolean {
  const ip = parseIP(s);
  return ip !== undefined && mapped4(ip.bytes) !== undefined;
}

export function isIPv6String(s: string): boolean {
  const ip = parseIP(s);
  return ip !== undefined && mapped4(ip.bytes) === undefined;
}

export interface ParsedCIDR {
  /** The network address (host bits cleared). */
  ip: ParsedIP;
  prefix: number;
}

/** netutils.ParseCIDRSloppy: `address/prefix`, the address's host bits cleared. */
export function parseCIDR(s: string): ParsedCIDR | undefined {
  if (typeof s !== 'string') return undefined;
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIP(s.slice(0, slash));
  if (!ip) return undefined;
  const bits = ip.bytes.length * 8;
  const prefix = decimal(s.slice(slash + 1), bits);
  if (prefix === undefined) return undefined;
  const bytes = new Uint8Array(ip.bytes);
  for (let i = 0; i < bytes.length; i++) {
    const keep = Math.max(0, Math.min(8, prefix - i * 8));
    bytes[i] &= keep === 0 ? 0 : (0xff << (8 - keep)) & 0xff;
  }
  return { ip: { family: ip.family, bytes }, prefix };
}

export const invalidIPMessage = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';
export const invalidCIDRMessage = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';

/** IsValidIPForLegacyField: any address the sloppy parser accepts. */
export function validateIP(value: string, path: string): FieldError[] {
  return parseIP(value) ? [] : [fieldErr.invalid(path, value, invalidIPMessage)];
}

/** IsValidCIDRForLegacyField: any prefix the sloppy parser accepts. */
export function validateCIDR(value: string, path: string): FieldError[] {
  return parseCIDR(value) ? [] : [fieldErr.invalid(path, value, invalidCIDRMessage)];
}

/**
 * ValidateEndpointIP (ValidateNonSpecialIP before 1.33): addresses that cannot be a
 * service's backend — unspecified, loopback, link-local, link-local multicast.
 */
export function validateEndpointIP(value: string, path: string): FieldError[] {
  const ip = parseIP(value);
  if (!ip) return [fieldErr.invalid(path, value, 'must be a valid IP address')];
  const errs: FieldError[] = [];
  const v4 = mapped4(ip.bytes);
  const b = v4 ?? ip.bytes;
  const unspecified = b.every((x) => x === 0);
  const loopback = v4 ? v4[0] === 127 : b.slice(0, 15).every((x) => x === 0) && b[15] === 1;
  const linkLocal = v4 ? v4[0] === 169 && v4[1] === 254 : b[0] === 0xfe && (b[1] & 0xc0) === 0x80;
  const linkLocalMulticast = v4 ? v4[0] === 224 && v4[1] === 0 && v4[2] === 0 : b[0] === 0xff && (b[1] & 0x0f) === 0x02;
  if (unspecified) errs.push(fieldErr.invalid(path, value, `may not be unspecified (${value})`));
  if (loopback) errs.push(fieldErr.invalid(path, value, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
  if (linkLocal) errs.push(fieldErr.invalid(path, value, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
  if (linkLocalMulticast) errs.push(fieldErr.invalid(path, value, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
  return errs;
}

/** IsValidPortNum. */
export function isValidPortNum(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];
}

/** IsValidPortName: an IANA_SVC_NAME (RFC 6335), lower case only. */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(port, 'utf8') > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** ValidatePortNumOrName: an intstr port (targetPort, probe ports). */
export function validatePortNumOrName(port: unknown, path: string): FieldError[] {
  if (typeof port === 'string') return isValidPortName(port).map((msg) => fieldErr.invalid(path, port, msg));
  const n = typeof port === 'number' ? port : 0;
  return isValidPortNum(n).map((msg) => fieldErr.invalid(path, n, msg));
}

/** The port protocols of core/v1 (supportedPortProtocols). */
export const portProtocols = ['SCTP', 'TCP', 'UDP'];

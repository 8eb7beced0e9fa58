/**
 * kube's ip and cidr libraries (k8s.io/apiserver pkg/cel/library/ip.go and cidr.go, 1.35):
 * `net.IP` and `net.CIDR` values, parsed by Go's netip rules; zones and IPv4-mapped IPv6
 * addresses are refused as kube refuses them.
 */
import { celFunc, celMethod, CelScalar } from '@bufbuild/cel';
import * as netip from './netip.js';
import { opaqueType } from './opaque.js';

const { INT, BOOL, STRING } = CelScalar;
const quote = (s: string) => JSON.stringify(s);

function parseIP(raw: string): netip.Addr {
  let addr: netip.Addr;
  try {
    addr = netip.parseAddr(raw);
  } catch (err) {
    throw new Error(`IP Address ${quote(raw)} parse error during conversion from string: ${(err as Error).message}`);
  }
  if (addr.zone !== '') throw new Error(`IP address ${quote(raw)} with zone value is not allowed`);
  if (netip.is4In6(addr)) throw new Error(`IPv4-mapped IPv6 address ${quote(raw)} is not allowed`);
  return addr;
}

function parseCIDR(raw: string): netip.Prefix {
  let p: netip.Prefix;
  try {
    p = netip.parsePrefix(raw);
  } catch (err) {
    // kube wraps the error twice: in parseCIDR and again in the cidr() binding.
    throw new Error(`network address parse error during conversion from string: ${(err as Error).message}`);
  }
  if (netip.is4In6(p.addr)) throw new Error(`IPv4-mapped IPv6 address ${quote(raw)} is not allowed`);
  return p;
}

const cidrFromString = (raw: string): netip.Prefix => {
  try {
    return parseCIDR(raw);
  } catch (err) {
    throw new Error(`network address parse error during conversion from string: ${(err as Error).message}`);
  }
};

const succeeds = (f: () => unknown) => {
  try {
    f();
    return true;
  } catch {
    return false;
  }
};

/** IPs compare by address (netip.Addr ==), so the canonical text is the key. */
export const IPType = opaqueType<netip.Addr>('net.IP', netip.addrString, (k) => netip.parseAddr(k));
export const CIDRType = opaqueType<netip.Prefix>('net.CIDR', netip.prefixString, (k) => netip.parsePrefix(k));

const IP = IPType.type;
const CIDR = CIDRType.type;
const ip = IPType.get;
const cidr = CIDRType.get;

const containsCIDR = (p: netip.Prefix, o: netip.Prefix) => netip.prefixOverlaps(p, o) && p.bits <= o.bits;

export const ipFunctions = [
  celFunc('ip', [STRING], IP, (s) => IPType.of(parseIP(s))),
  celFunc('isIP', [STRING], BOOL, (s) => succeeds(() => parseIP(s))),
  celFunc('ip.isCanonical', [STRING], BOOL, (s) => netip.addrString(parseIP(s)) === s),
  celFunc('string', [IP], STRING, (v) => netip.addrString(ip(v))),
  celMethod('family', IP, [], INT, function () { return netip.is4(ip(this)) ? 4n : 6n; }),
  celMethod('isUnspecified', IP, [], BOOL, function () { return netip.isUnspecified(ip(this)); }),
  celMethod('isLoopback', IP, [], BOOL, function () { return netip.isLoopback(ip(this)); }),
  celMethod('isLinkLocalMulticast', IP, [], BOOL, function () { return netip.isLinkLocalMulticast(ip(this)); }),
  celMethod('isLinkLocalUnicast', IP, [], BOOL, function () { return netip.isLinkLocalUnicast(ip(this)); }),
  celMethod('isGlobalUnicast', IP, [], BOOL, function () { return netip.isGlobalUnicast(ip(this)); }),
];

export const cidrFunctions = [
  celFunc('cidr', [STRING], CIDR, (s) => CIDRType.of(cidrFromString(s))),
  celFunc('isCIDR', [STRING], BOOL, (s) => succeeds(() => parseCIDR(s))),
  celFunc('string', [CIDR], STRING, (v) => netip.prefixString(cidr(v))),
  celMethod('containsIP', CIDR, [IP], BOOL, function (a) { return netip.prefixContains(cidr(this), ip(a)); }),
  celMethod('containsIP', CIDR, [STRING], BOOL, function (s) { return netip.prefixContains(cidr(this), parseIP(s)); }),
  celMethod('containsCIDR', CIDR, [CIDR], BOOL, function (o) { return containsCIDR(cidr(this), cidr(o)); }),
  celMethod('containsCIDR', CIDR, [STRING], BOOL, function (s) { return containsCIDR(cidr(this), cidrFromString(s)); }),
  celMethod('ip', CIDR, [], IP, function () { return IPType.of(cidr(this).addr); }),
  celMethod('prefixLength', CIDR, [], INT, function () { return BigInt(cidr(this).bits); }),
  celMethod('masked', CIDR, [], CIDR, function () { return CIDRType.of(netip.masked(cidr(this))); }),
];

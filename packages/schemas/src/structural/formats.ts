/**
 * The string formats kube checks in custom resources (pkg/apiserver/validation/formats.go,
 * checked by kube-openapi's strfmt registry). Formats outside that list are not checked, as
 * kube strips them from the schema before validating.
 */
import { isIP } from 'node:net';

const uuidRe = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const hostnameRe = /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const emailRe = /^[^\s@<>()",;:\\[\]]+@[^\s@<>()",;:\\[\]]+$/;
const dateRe = /^\d{4}-\d{2}-\d{2}$/;
const dateTimeRe = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$/;
const macRe = /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{2}[:-]){7}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{4}\.){2}[0-9a-fA-F]{4}$/;
const durationRe = /^((\d+(\.\d+)?)\s*(ns|us|µs|ms|s|m|h|d|w)\s*)+$|^\d+\s*(ns|us|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?)$/;
const base64Re = /^[A-Za-z0-9+/]*={0,2}$/;
const k8sShortNameRe = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const k8sLongNameRe = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Go's net.ParseIP, or k8s.io/utils/net's ParseIPSloppy (which kube-openapi's ipv4 and cidr use)
 * when `sloppy`: IPv4 parts may then have leading zeros. Neither takes an IPv6 zone (`%eth0`),
 * which Node's isIP accepts.
 */
function parsesAsIP(s: string, sloppy: boolean): boolean {
  if (s.includes('%')) return false;
  if (sloppy) {
    const colon = s.lastIndexOf(':');
    s = s.slice(0, colon + 1) + s.slice(colon + 1).replace(/(^|\.)0+(?=\d)/g, '$1');
  }
  return isIP(s) !== 0;
}

function validDate(s: string): boolean {
  const [y, m, d] = s.slice(0, 10).split('-').map(Number);
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

const checks: Record<string, (v: string) => boolean> = {
  uuid: (v) => uuidRe.test(v),
  uuid3: (v) => uuidRe.test(v) && /^[0-9a-f]{8}-?[0-9a-f]{4}-?3/i.test(v),
  uuid4: (v) => uuidRe.test(v) && /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab]/i.test(v),
  uuid5: (v) => uuidRe.test(v) && /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab]/i.test(v),
  hostname: (v) => v.length <= 255 && hostnameRe.test(v),
  email: (v) => emailRe.test(v),
  // kube-openapi: isIPv4 is ParseIPSloppy and a '.', govalidator's IsIPv6 is ParseIP and a ':'.
  ipv4: (v) => parsesAsIP(v, true) && v.includes('.'),
  ipv6: (v) => parsesAsIP(v, false) && v.includes(':'),
  cidr: (v) => {
    const [ip, bits, ...rest] = v.split('/');
    return rest.length === 0 && bits !== undefined && /^\d+$/.test(bits) && parsesAsIP(ip, true)
      && Number(bits) <= (ip.includes(':') ? 128 : 32);
  },
  mac: (v) => macRe.test(v),
  date: (v) => dateRe.test(v) && validDate(v),
  datetime: (v) => dateTimeRe.test(v) && validDate(v),
  duration: (v) => durationRe.test(v),
  byte: (v) => v.length % 4 === 0 && base64Re.test(v),
  bsonobjectid: (v) => /^[0-9a-fA-F]{24}$/.test(v),
  uri: (v) => {
    try {
      return /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(v) && new URL(v) !== undefined;
    } catch {
      return false;
    }
  },
  hexcolor: (v) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(v),
  rgbcolor: (v) => /^rgb\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*\)$/.test(v),
  ssn: (v) => /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(v),
  'k8s-short-name': (v) => v.length <= 63 && k8sShortNameRe.test(v),
  'k8s-long-name': (v) => v.length <= 253 && k8sLongNameRe.test(v),
};

/** Whether `v` is of `format`; true for formats kube does not check. */
export function checkFormat(format: string, v: string): boolean {
  const check = checks[format.startsWith('k8s-') ? format : format.replaceAll('-', '')];
  return check ? check(v) : true;
}

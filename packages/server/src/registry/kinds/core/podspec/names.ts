/**
 * Value formats a pod spec checks (k8s.io/apimachinery pkg/util/validation): DNS names as
 * field errors, port names and numbers, environment variable names, HTTP header names, IP
 * addresses and user/group IDs, with kube's messages.
 */
import { isIPv6 } from 'node:net';
import { fieldErr, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, regexError, type FieldError } from '@windlass/machinery';
import { inclusiveRangeError } from './util.js';

export function isDNS1123LabelErrors(value: string, path: string): FieldError[] {
  return isDNS1123Label(value).map((msg) => fieldErr.invalid(path, value, msg));
}

export function isDNS1123SubdomainErrors(value: string, path: string): FieldError[] {
  return isDNS1123Subdomain(value).map((msg) => fieldErr.invalid(path, value, msg));
}

export function qualifiedNameErrors(value: string, path: string): FieldError[] {
  return isQualifiedName(value).map((msg) => fieldErr.invalid(path, value, msg));
}

export function isValidPortNum(port: number): string[] {
  return port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** ValidatePortNumOrName for an int-or-string port. */
export function validatePortNumOrName(port: unknown, path: string): FieldError[] {
  if (typeof port === 'number') return isValidPortNum(port).map((msg) => fieldErr.invalid(path, port, msg));
  if (typeof port === 'string') return isValidPortName(port).map((msg) => fieldErr.invalid(path, port, msg));
  // An unset int-or-string is the integer 0.
  return isValidPortNum(0).map((msg) => fieldErr.invalid(path, 0, msg));
}

/**
 * IsRelaxedEnvVarName: RelaxedEnvironmentVariableValidation is on by default since 1.32 and
 * locked on in 1.35, so any printable ASCII but '=' is a valid name.
 */
export function isRelaxedEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (value.length === 0) errs.push('environment variable name must be non-empty');
  for (const ch of value) {
    const cp = ch.codePointAt(0)!;
    if (cp > 127 || cp < 0x20 || cp === 0x7f || ch === '=') {
      errs.push("a valid environment variable name must consist only of printable ASCII characters other than '='");
      break;
    }
  }
  return errs;
}

export function isHTTPHeaderName(value: string): string[] {
  return /^[-A-Za-z0-9]+$/.test(value) ? [] : [regexError("a valid HTTP header must consist of alphanumeric characters or '-'", '[-A-Za-z0-9]+', 'X-Header-Name')];
}

/** netutils.ParseIPSloppy: IPv4 octets may carry leading zeros. */
export function isIPSloppy(value: string): boolean {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(value);
  if (v4) return v4.slice(1).every((o) => Number(o) <= 255);
  return isIPv6(value);
}

/** validation.IsValidIP as field errors. */
export function validateIP(value: string, path: string): FieldError[] {
  return isIPSloppy(value) ? [] : [fieldErr.invalid(path, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')];
}

export function isValidUserOrGroupID(id: number): string[] {
  return id >= 0 && id <= 2147483647 ? [] : [inclusiveRangeError(0, 2147483647)];
}

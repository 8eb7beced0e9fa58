/** Small readers over decoded JSON shared by the networking kinds (and the groups that reuse their checks). */
import { isDNS1123Subdomain, type FieldError } from '@windlass/machinery';

export type Json = Record<string, unknown>;

export const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
export const obj = (v: unknown): Json => (isObj(v) ? v : {});
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** content.IsPathSegmentName (kinds, names of referenced objects). */
export function pathSegmentErrors(name: string): string[] {
  const errs: string[] = [];
  if (name === '.' || name === '..') errs.push(`may not be '${name}'`);
  for (const bad of ['/', '%']) if (name.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}

const wildcardFmt = '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const wildcardRe = new RegExp(`^${wildcardFmt}$`);

/** IsWildcardDNS1123Subdomain. */
export function wildcardSubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(value) > 253) errs.push('must be no more than 253 characters');
  if (!wildcardRe.test(value)) {
    errs.push("a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '" + wildcardFmt + "')");
  }
  return errs;
}

export { isDNS1123Subdomain };

/** A field error of a type machinery's helpers do not build (TooMany). */
export function tooMany(field: string, actual: number, max: number): FieldError {
  return { type: 'FieldValueTooMany' as FieldError['type'], field, detail: `Too many: ${actual}: must have at most ${max} ${max === 1 ? 'item' : 'items'}` };
}

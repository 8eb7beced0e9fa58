import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain } from '@windlass/machinery';

/** generateName prefixes may end in '-'; kube masks it before validating (maskTrailingDash). */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? name.slice(0, -2) + 'a' : name;
}

export function nameIsDNSSubdomain(name: string, prefix: boolean): string[] {
  return isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
}

export function nameIsDNSLabel(name: string, prefix: boolean): string[] {
  return isDNS1123Label(prefix ? maskTrailingDash(name) : name);
}

/**
 * kube's path.IsValidPathSegmentName: names that only have to be usable as one URL path
 * segment (RBAC objects, persistent volumes).
 */
export function nameIsPathSegment(name: string, prefix: boolean): string[] {
  const errs: string[] = [];
  if (!prefix && (name === '.' || name === '..')) errs.push(`may not be '${name}'`);
  for (const bad of ['/', '%']) if (name.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}

/** kube's ValidateServiceName: an RFC 1035 label (a service name becomes a DNS name). */
export function nameIsDNS1035Label(name: string, prefix: boolean): string[] {
  return isDNS1035Label(prefix ? maskTrailingDash(name) : name);
}

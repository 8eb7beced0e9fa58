import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';

/** One subjectAltName entry of a serving certificate. */
export interface AltName {
  type: 'dns' | 'ip';
  value: string;
}

// Letters, digits, hyphens and dots, plus '_' and '*' which real-world hostnames and
// wildcard SANs use; anything else (spaces, ports, URLs) is a caller mistake worth reporting.
const DNS_NAME = /^[a-z0-9_*]([a-z0-9_*.-]*[a-z0-9_*])?$/;

/**
 * Classifies a host as an IP or DNS SAN in a canonical spelling, so that `::1`,
 * `[::1]` and `0:0::1` or `LocalHost.` and `localhost` count as the same host.
 */
export function toAltName(host: string): AltName {
  let h = host.trim();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  // A zone index (fe80::1%eth0) names an interface on this machine; it has no place in a certificate.
  const zone = h.indexOf('%');
  if (zone >= 0 && isIP(h.slice(0, zone)) === 6) h = h.slice(0, zone);
  const family = isIP(h);
  if (family === 4) return { type: 'ip', value: h };
  if (family === 6) return { type: 'ip', value: new URL(`http://[${h}]/`).hostname.slice(1, -1) };
  const dns = h.toLowerCase().replace(/\.$/, '');
  if (!DNS_NAME.test(dns)) throw new TypeError(`invalid host for a serving certificate: ${JSON.stringify(host)}`);
  return { type: 'dns', value: dns };
}

/** Canonical, de-duplicated SANs for the given hosts, in the order first given. */
export function toAltNames(hosts: readonly string[]): AltName[] {
  const seen = new Set<string>();
  const out: AltName[] = [];
  for (const host of hosts) {
    const name = toAltName(host);
    const key = `${name.type}:${name.value}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(name);
  }
  return out;
}

/** Whether the certificate names every host, matching SANs only (never the subject CN, as Go clients do). */
export function certificateCovers(cert: X509Certificate, names: readonly AltName[]): boolean {
  return names.every((n) =>
    n.type === 'ip' ? cert.checkIP(n.value) !== undefined : cert.checkHost(n.value, { subject: 'never', wildcards: false }) !== undefined,
  );
}

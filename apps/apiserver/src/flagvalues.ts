/**
 * The values of flags, read with the syntax and messages of pflag and kube-apiserver (a thrown
 * string becomes pflag's "invalid argument" message).
 */
import { isIP } from 'node:net';
import { parseGoDuration } from '@windlass/machinery';
import { AUTHORIZATION_MODES, FEATURE_GATES, PROGRAM, UNSUPPORTED_AUTHORIZATION_MODES, type AuthorizationModeName, type FeatureGateName, type FeatureGates } from './options.js';

export function nonEmpty(value: string): string {
  if (value === '') throw 'must not be empty';
  return value;
}

// Go's strconv.ParseBool, which pflag and kube's feature gates use.
/** pflag's StringSlice: comma-separated values, each trimmed, empty ones dropped. */
export function parseStringList(value: string): string[] {
  return value.split(',').map((a) => a.trim()).filter((a) => a !== '');
}

export function parseBool(value: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  throw `strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`;
}

// pflag's int: a decimal integer, with kube's check that the value is not negative.
/** An IPv4 CIDR whose address is the network's (kube refuses `10.96.0.1/12` too). */
export function parseServiceCIDR(value: string): string {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(value);
  const octets = m ? m.slice(1, 5).map(Number) : [];
  const bits = m ? Number(m[5]) : -1;
  if (!m || octets.some((o) => o > 255) || bits > 32) throw `invalid CIDR address: ${value}`;
  const addr = ((octets[0] << 24) | (octets[1] << 16) | (octets[2] << 8) | octets[3]) >>> 0;
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  if ((addr & mask) >>> 0 !== addr || bits > 30) throw `${value} is not a valid service CIDR: it must be a network address with room for services`;
  return value;
}

/** kube's utilnet.PortRange: `30000-32767`, or a single port. */
export function parsePortRange(value: string): { base: number; size: number } {
  const m = /^(\d+)(?:-(\d+))?$/.exec(value.trim());
  const low = m ? Number(m[1]) : NaN;
  const high = m && m[2] !== undefined ? Number(m[2]) : low;
  if (!m || low > 65535 || high > 65535 || high < low) throw `unable to parse port range: ${value}`;
  return { base: low, size: high - low + 1 };
}

export function parseNonNegativeInt(value: string, flag: string): number {
  const n = /^[-+]?\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) throw `strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`;
  if (n < 0) throw `--${flag} can not be negative value`;
  return n;
}

export function parsePort(value: string): number {
  const n = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 0 && n <= 65535)) throw 'must be an integer between 0 and 65535 (0 picks a free port)';
  return n;
}

// Go's time.ParseDuration, which pflag's duration flags use; returns milliseconds.
export function parseDuration(value: string): number {
  try {
    return parseGoDuration(value);
  } catch (err) {
    throw (err as Error).message;
  }
}

/** As Go's Duration.String() prints the default in usage: 5m0s. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  return `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${s}s`;
}

export function parseEtcdServers(value: string): string[] {
  const servers = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  for (const server of servers) {
    let url: URL | undefined;
    try {
      url = new URL(server);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
      throw `${JSON.stringify(server)} is not an etcd URL (scheme://host:port, scheme http or https)`;
    }
  }
  return servers;
}

export const KNOWN_GATES = (Object.keys(FEATURE_GATES) as FeatureGateName[]).sort();

// kube's MapStringBool + featureGate.SetFromMap: pairs separated by commas, blanks
// ignored, every value a Go bool, every name a known gate.
export function applyFeatureGates(gates: FeatureGates, value: string): void {
  for (const raw of value.split(',')) {
    const pair = raw.trim();
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    if (eq < 0) throw 'malformed pair, expect string=bool';
    const name = pair.slice(0, eq).trim();
    const v = pair.slice(eq + 1).trim();
    let enabled: boolean;
    try {
      enabled = parseBool(v);
    } catch (err) {
      throw `invalid value of ${name}: ${v}, err: ${err as string}`;
    }
    if (!Object.hasOwn(FEATURE_GATES, name)) {
      throw `unrecognized feature gate: ${name} (known gates: ${KNOWN_GATES.join(', ')})`;
    }
    gates[name as FeatureGateName] = enabled;
  }
}

export function featureGatesUsage(): string {
  const lines = KNOWN_GATES.map((n) => `${n}=true|false (${FEATURE_GATES[n].stage} - default=${FEATURE_GATES[n].default})`);
  return `A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:\n${lines.join('\n')}`;
}

/** pflag's string slice: comma-separated values, each kube mode name once. */
export function parseAuthorizationModes(value: string): AuthorizationModeName[] {
  const modes = value.split(',').map((m) => m.trim());
  for (const mode of modes) {
    if (Object.hasOwn(UNSUPPORTED_AUTHORIZATION_MODES, mode)) throw `authorization-mode ${JSON.stringify(mode)} is not supported by ${PROGRAM}: ${UNSUPPORTED_AUTHORIZATION_MODES[mode]}; use RBAC`;
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(mode)) throw `authorization-mode ${JSON.stringify(mode)} is not a valid mode`;
  }
  if (new Set(modes).size !== modes.length) throw `authorization-mode [${modes.map((m) => JSON.stringify(m)).join(' ')}] has mode specified more than once`;
  return modes as AuthorizationModeName[];
}

/** kube's issuer checks: not empty, a URL when it has a colon, each once. */
export function parseIssuer(value: string, known: string[]): string {
  if (value === '') throw "service-account-issuer contained a '' value";
  if (value.includes(':')) {
    try {
      new URL(value);
    } catch (err) {
      throw `service-account-issuer ${JSON.stringify(value)} contained a ':' but was not a valid URL: ${(err as Error).message}`;
    }
  }
  if (known.includes(value)) throw `service-account-issuer ${value} is already specified`;
  return value;
}

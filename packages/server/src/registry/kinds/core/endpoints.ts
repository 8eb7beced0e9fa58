/**
 * core/v1 Endpoints: kube's SetDefaults_Endpoints, ValidateEndpoints, the canonical layout
 * the strategy repacks subsets into (addresses grouped by the ports they serve, sorted by
 * IP) and the endpoints printer.
 */
import { fieldErr, isDNS1123Label, isQualifiedName, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { nameIsDNSSubdomain } from '../../names.js';
import { isValidPortNum, parseIP, portProtocols, validateEndpointIP, validateIP } from '../../validation/network.js';
import { endpointsWarnings } from './warnings.js';

interface EndpointAddress {
  ip?: string;
  hostname?: string;
  nodeName?: string;
  targetRef?: { uid?: string; [key: string]: unknown };
}

interface EndpointPort {
  name?: string;
  port?: number;
  protocol?: string;
  appProtocol?: string;
}

interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

type Endpoints = KubeObject & { subsets?: EndpointSubset[] };

const list = <T>(v: T[] | undefined | null): T[] => (Array.isArray(v) ? v : []);

/** SetDefaults_Endpoints: ports default to TCP. */
function defaultEndpoints(obj: KubeObject): void {
  for (const ss of list((obj as Endpoints).subsets)) for (const p of list(ss?.ports)) if (p && !p.protocol) p.protocol = 'TCP';
}

function validateEndpointAddress(a: EndpointAddress, path: string): FieldError[] {
  const ip = a.ip ?? '';
  const errs = validateIP(ip, `${path}.ip`);
  if (a.hostname) errs.push(...isDNS1123Label(a.hostname).map((m) => fieldErr.invalid(`${path}.hostname`, a.hostname, m)));
  if (a.nodeName != null) errs.push(...nameIsDNSSubdomain(a.nodeName, false).map((m) => fieldErr.invalid(`${path}.nodeName`, a.nodeName, m)));
  errs.push(...validateEndpointIP(ip, `${path}.ip`));
  return errs;
}

function validateEndpointPort(p: EndpointPort, requireName: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = p.name ?? '';
  if (requireName && name === '') errs.push(fieldErr.required(`${path}.name`));
  else if (name !== '') errs.push(...isDNS1123Label(name).map((m) => fieldErr.invalid(`${path}.name`, name, m)));
  for (const msg of isValidPortNum(p.port ?? 0)) errs.push(fieldErr.invalid(`${path}.port`, p.port ?? 0, msg));
  if (!p.protocol) errs.push(fieldErr.required(`${path}.protocol`));
  else if (!portProtocols.includes(p.protocol)) errs.push(fieldErr.notSupported(`${path}.protocol`, p.protocol, portProtocols));
  if (p.appProtocol != null) errs.push(...isQualifiedName(p.appProtocol).map((m) => fieldErr.invalid(`${path}.appProtocol`, p.appProtocol, m)));
  return errs;
}

/** ValidateEndpoints, without the object metadata (validated by the Store). */
export function validateEndpoints(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  list((obj as Endpoints).subsets).forEach((raw, i) => {
    const ss = raw ?? {};
    const path = `subsets[${i}]`;
    if (list(ss.addresses).length === 0 && list(ss.notReadyAddresses).length === 0) {
      errs.push(fieldErr.required(path, 'must specify `addresses` or `notReadyAddresses`'));
    }
    list(ss.addresses).forEach((a, j) => errs.push(...validateEndpointAddress(a ?? {}, `${path}.addresses[${j}]`)));
    list(ss.notReadyAddresses).forEach((a, j) => errs.push(...validateEndpointAddress(a ?? {}, `${path}.notReadyAddresses[${j}]`)));
    const ports = list(ss.ports);
    ports.forEach((p, j) => errs.push(...validateEndpointPort(p ?? {}, ports.length > 1, `${path}.ports[${j}]`)));
  });
  return errs;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** addrsByIPAndUID: addresses ordered by IP (as 16-byte values), then target UID. */
function compareAddresses(a: EndpointAddress, b: EndpointAddress): number {
  const key = (x: EndpointAddress) => {
    const ip = parseIP(x.ip ?? '');
    if (!ip) return new Uint8Array(0);
    if (ip.bytes.length === 16) return ip.bytes;
    const v6 = new Uint8Array(16);
    v6[10] = 0xff;
    v6[11] = 0xff;
    v6.set(ip.bytes, 12);
    return v6;
  };
  const c = compareBytes(key(a), key(b));
  if (c !== 0) return c;
  const ua = a.targetRef?.uid ?? '', ub = b.targetRef?.uid ?? '';
  return ua < ub ? -1 : ua > ub ? 1 : 0;
}

/**
 * RepackSubsets: every (address, port) pair regrouped so that each subset holds the
 * addresses that serve exactly its ports, a ready address winning over a not-ready copy.
 * Ports keep their first-seen order (kube orders them by a hash of their Go value).
 */
export function repackSubsets(subsets: EndpointSubset[]): EndpointSubset[] {
  const addrs = new Map<string, EndpointAddress>();
  const portKeys: string[] = [];
  const portsByKey = new Map<string, EndpointPort | null>();
  const readiness = new Map<string, Map<string, boolean>>();
  const addressKey = (a: EndpointAddress) => `${a.ip ?? ''}\u0000${a.targetRef?.uid ?? ''}`;
  const record = (a: EndpointAddress, port: EndpointPort | null, ready: boolean) => {
    const ak = addressKey(a);
    if (!addrs.has(ak)) addrs.set(ak, a);
    const pk = port ? JSON.stringify([port.name ?? '', port.port ?? 0, port.protocol ?? '', port.appProtocol ?? null]) : '';
    if (!portsByKey.has(pk)) {
      portsByKey.set(pk, port);
      portKeys.push(pk);
      readiness.set(pk, new Map());
    }
    const m = readiness.get(pk)!;
    const was = m.get(ak);
    if (was === undefined || (!was && ready)) m.set(ak, ready);
  };
  for (const ss of subsets) {
    const ports = list(ss?.ports);
    for (const port of ports.length === 0 ? [null] : ports) {
      for (const a of list(ss?.addresses)) record(a ?? {}, port, true);
      for (const a of list(ss?.notReadyAddresses)) record(a ?? {}, port, false);
    }
  }
  const groups = new Map<string, { set: Map<string, boolean>; ports: EndpointPort[] }>();
  for (const pk of portKeys) {
    const set = readiness.get(pk)!;
    const gk = JSON.stringify([...set.entries()].sort());
    const g = groups.get(gk) ?? { set, ports: [] };
    const port = portsByKey.get(pk);
    if (port) g.ports.push(port);
    groups.set(gk, g);
  }
  return [...groups.values()].map(({ set, ports }) => {
    const ready: EndpointAddress[] = [], notReady: EndpointAddress[] = [];
    for (const [ak, isReady] of set) (isReady ? ready : notReady).push(addrs.get(ak)!);
    const ss: EndpointSubset = {};
    if (ready.length > 0) ss.addresses = ready.sort(compareAddresses);
    if (notReady.length > 0) ss.notReadyAddresses = notReady.sort(compareAddresses);
    if (ports.length > 0) ss.ports = ports;
    return ss;
  });
}

/** formatEndpoints: up to three `ip:port` pairs, then `+ N more...`. */
function formatEndpoints(e: Endpoints): string {
  const subsets = list(e.subsets);
  if (subsets.length === 0) return '<none>';
  const out: string[] = [];
  const max = 3;
  let more = false;
  let count = 0;
  const hostPort = (ip: string, port: number) => (ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`);
  for (const ss of subsets) {
    const addrs = list(ss?.addresses);
    const ports = list(ss?.ports);
    if (ports.length === 0) {
      count += addrs.length;
      for (const a of addrs) {
        if (out.length === max) { more = true; break; }
        out.push(a?.ip ?? '');
      }
      continue;
    }
    for (const p of ports) {
      count += addrs.length;
      for (const a of addrs) {
        if (out.length === max) { more = true; break; }
        out.push(hostPort(a?.ip ?? '', p?.port ?? 0));
      }
    }
  }
  const ret = out.join(',');
  return more ? `${ret} + ${count - max} more...` : ret;
}

function canonicalize(obj: KubeObject): void {
  const e = obj as Endpoints;
  if (e.subsets && validateEndpoints(obj).length === 0) e.subsets = repackSubsets(e.subsets);
}

export const endpoints: KindDefinition = {
  group: '', version: 'v1', resource: 'endpoints',
  // k8s.io/api core/v1 lifecycle.go: deprecated in 1.33, replaced by EndpointSlice.
  deprecation: 'v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice',
  strategy: {
    warningsOnCreate: endpointsWarnings,
    warningsOnUpdate: (ep) => endpointsWarnings(ep),
    defaults: defaultEndpoints,
    // kube canonicalizes after validation, so an invalid object keeps the layout its errors name.
    prepareForCreate: canonicalize,
    prepareForUpdate: canonicalize,
    validate: validateEndpoints,
    validateUpdate: (obj) => validateEndpoints(obj),
  },
  table: {
    columns: [column('Endpoints', 'string', 'Endpoints of the endpoints'), ageColumn],
    cells: (obj) => [formatEndpoints(obj as Endpoints), ageOf(obj.metadata.creationTimestamp)],
  },
};

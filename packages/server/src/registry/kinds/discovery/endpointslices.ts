/**
 * discovery.k8s.io/v1 EndpointSlices: kube's defaults (ports named "" over TCP),
 * ValidateEndpointSlice / ValidateEndpointSliceUpdate, the strategy (generation bumped on any
 * change but metadata, deprecatedTopology dropped on v1 writes) and the printer.
 */
import { fieldErr, isDNS1123Label, isQualifiedName, validateLabels, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { nameIsDNSSubdomain } from '../../names.js';
import { isIPv4String, isIPv6String, portProtocols, validateEndpointIP, validateIP } from '../../validation/network.js';
import { endpointSliceWarnings } from './warnings.js';

interface Endpoint {
  addresses?: string[];
  conditions?: Record<string, unknown>;
  hostname?: string | null;
  targetRef?: unknown;
  deprecatedTopology?: Record<string, string> | null;
  nodeName?: string | null;
  zone?: string | null;
  hints?: { forZones?: Array<{ name?: string }>; forNodes?: Array<{ name?: string }> } | null;
}

interface EndpointPort {
  name?: string | null;
  protocol?: string | null;
  port?: number | null;
  appProtocol?: string | null;
}

type EndpointSlice = KubeObject & { addressType?: string; endpoints?: Endpoint[]; ports?: EndpointPort[] };

const list = <T>(v: T[] | undefined | null): T[] => (Array.isArray(v) ? v : []);
const maxTopologyLabels = 16, maxAddresses = 100, maxPorts = 100, maxEndpoints = 1000, maxHints = 8;

/** SetDefaults_EndpointPort. */
function defaultEndpointSlice(obj: KubeObject): void {
  for (const p of list((obj as EndpointSlice).ports)) {
    if (!p || typeof p !== 'object') continue;
    if (p.name == null) p.name = '';
    if (p.protocol == null) p.protocol = 'TCP';
  }
}

const tooMany = (path: string, actual: number, max: number): FieldError => ({ type: 'FieldValueTooMany' as FieldError['type'], field: path, detail: `Too many: ${actual}: must have at most ${max} items` });

function validateAddress(addressType: string, address: string, path: string): FieldError[] {
  switch (addressType) {
    case 'IPv4':
    case 'IPv6': {
      // Since kube 1.33 an address that is no IP at all gets that one error, not three.
      const ipErrs = validateIP(address, path);
      if (ipErrs.length > 0) return ipErrs;
      const wrongFamily = addressType === 'IPv4' ? !isIPv4String(address) : !isIPv6String(address);
      const errs = wrongFamily ? [fieldErr.invalid(path, address, `must be an ${addressType} address`)] : [];
      return [...errs, ...validateEndpointIP(address, path)];
    }
    case 'FQDN':
      return validateFQDN(address, path);
  }
  return [];
}

/** IsFullyQualifiedDomainName. */
function validateFQDN(name: string, path: string): FieldError[] {
  if (name.length === 0) return [fieldErr.required(path)];
  const n = name.endsWith('.') ? name.slice(0, -1) : name;
  const sub = nameIsDNSSubdomain(n, false);
  if (sub.length > 0) return [fieldErr.invalid(path, n, sub.join(','))];
  const labels = n.split('.');
  if (labels.length < 2) return [fieldErr.invalid(path, n, 'should be a domain with at least two segments separated by dots')];
  for (const label of labels) {
    const e = isDNS1123Label(label);
    if (e.length > 0) return [fieldErr.invalid(path, label, e.join(','))];
  }
  return [];
}

function validateEndpoints(eps: Endpoint[], addressType: string): FieldError[] {
  if (eps.length > maxEndpoints) return [tooMany('endpoints', eps.length, maxEndpoints)];
  const errs: FieldError[] = [];
  eps.forEach((raw, i) => {
    const ep = raw ?? {};
    const path = `endpoints[${i}]`;
    const addresses = list(ep.addresses);
    if (addresses.length === 0) errs.push(fieldErr.required(`${path}.addresses`, 'must contain at least 1 address'));
    else if (addresses.length > maxAddresses) errs.push(tooMany(`${path}.addresses`, addresses.length, maxAddresses));
    addresses.forEach((a, j) => errs.push(...validateAddress(addressType, String(a), `${path}.addresses[${j}]`)));
    if (ep.nodeName != null) errs.push(...nameIsDNSSubdomain(ep.nodeName, false).map((m) => fieldErr.invalid(`${path}.nodeName`, ep.nodeName, m)));
    const topology = ep.deprecatedTopology ?? {};
    if (Object.keys(topology).length > maxTopologyLabels) errs.push(tooMany(`${path}.deprecatedTopology`, Object.keys(topology).length, maxTopologyLabels));
    errs.push(...validateLabels(topology, `${path}.deprecatedTopology`));
    if (ep.hostname != null) errs.push(...isDNS1123Label(ep.hostname).map((m) => fieldErr.invalid(`${path}.hostname`, ep.hostname, m)));
    if (ep.hints) {
      const zones = list(ep.hints.forZones);
      if (zones.length > maxHints) errs.push(tooMany(`${path}.hints.forZones`, zones.length, maxHints));
      const nodes = list(ep.hints.forNodes);
      if (nodes.length > maxHints) errs.push(tooMany(`${path}.hints.forNodes`, nodes.length, maxHints));
    }
  });
  return errs;
}

function validatePorts(ports: EndpointPort[]): FieldError[] {
  if (ports.length > maxPorts) return [tooMany('ports', ports.length, maxPorts)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((raw, i) => {
    const p = raw ?? {};
    const path = `ports[${i}]`;
    const name = p.name ?? '';
    if (name.length > 0) errs.push(...isDNS1123Label(name).map((m) => fieldErr.invalid(`${path}.name`, name, m)));
    if (names.has(name)) errs.push({ type: 'FieldValueDuplicate', field: `${path}.name`, detail: `Duplicate value: ${JSON.stringify(name)}` });
    else names.add(name);
    if (p.protocol == null) errs.push(fieldErr.required(`${path}.protocol`));
    else if (!portProtocols.includes(p.protocol)) errs.push(fieldErr.notSupported(`${path}.protocol`, p.protocol, portProtocols));
    if (p.appProtocol != null) errs.push(...isQualifiedName(p.appProtocol).map((m) => fieldErr.invalid(`${path}.appProtocol`, p.appProtocol, m)));
  });
  return errs;
}

function validateAddressType(t: string, supported: string[]): FieldError[] {
  if (t === '') return [fieldErr.required('addressType')];
  return supported.includes(t) ? [] : [fieldErr.notSupported('addressType', t, supported)];
}

const addressTypes = ['FQDN', 'IPv4', 'IPv6'];

/** ValidateEndpointSlice, without the object metadata (validated by the Store). */
function validateSlice(obj: KubeObject, supported: string[]): FieldError[] {
  const s = obj as EndpointSlice;
  const t = s.addressType ?? '';
  return [...validateAddressType(t, supported), ...validateEndpoints(list(s.endpoints), t), ...validatePorts(list(s.ports))];
}

/** ValidateEndpointSliceUpdate: slices stored with the deprecated `IP` type stay valid; addressType never changes. */
function validateSliceUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateSlice(obj, ['FQDN', 'IP', 'IPv4', 'IPv6']);
  const n = (obj as EndpointSlice).addressType ?? '', o = (old as EndpointSlice).addressType ?? '';
  if (n !== o) errs.push(fieldErr.invalid('addressType', n, 'field is immutable'));
  return errs;
}

const hostnameLabel = 'kubernetes.io/hostname';

/**
 * dropTopologyOnV1: a v1 write does not keep deprecatedTopology; a node name kept there by an
 * older writer moves to nodeName when the old slice had it. Unchanged endpoints are left alone.
 */
function dropTopology(s: EndpointSlice, old?: EndpointSlice): void {
  if (old && JSON.stringify(old.endpoints ?? null) === JSON.stringify(s.endpoints ?? null)) return;
  const previous = new Set(list(old?.endpoints).map((e) => e?.deprecatedTopology?.[hostnameLabel]).filter((n): n is string => !!n));
  for (const ep of list(s.endpoints)) {
    if (!ep) continue;
    const nodeName = ep.deprecatedTopology?.[hostnameLabel];
    if (ep.nodeName == null && nodeName && previous.has(nodeName) && nameIsDNSSubdomain(nodeName, false).length === 0) ep.nodeName = nodeName;
    delete ep.deprecatedTopology;
  }
}

/** Everything but metadata, plus the labels: what bumps a slice's generation. */
function generationKey(s: EndpointSlice): string {
  const { metadata, apiVersion: _a, kind: _k, ...rest } = s;
  return JSON.stringify([rest, metadata.labels ?? null]);
}

const listWithMore = (items: string[], more: boolean, count: number, max: number) => {
  const ret = items.join(',');
  if (more) return `${ret} + ${count - max} more...`;
  return ret === '' ? '<unset>' : ret;
};

function formatPorts(ports: EndpointPort[]): string {
  const out: string[] = [];
  let more = false;
  for (const p of ports) {
    if (out.length < 3) out.push(p?.port != null ? String(p.port) : p?.name != null ? p.name : '*');
    else more = true;
  }
  return listWithMore(out, more, ports.length, 3);
}

function formatEndpoints(eps: Endpoint[]): string {
  const out: string[] = [];
  let more = false;
  let count = 0;
  for (const ep of eps) {
    for (const a of list(ep?.addresses)) {
      if (out.length < 3) out.push(a);
      else more = true;
      count++;
    }
  }
  return listWithMore(out, more, count, 3);
}

export const endpointSlices: KindDefinition = {
  group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices',
  generation: true,
  strategy: {
    warningsOnCreate: (eps) => endpointSliceWarnings(eps, true),
    warningsOnUpdate: (eps) => endpointSliceWarnings(eps, false),
    defaults: defaultEndpointSlice,
    prepareForCreate(obj) {
      dropTopology(obj as EndpointSlice);
    },
    prepareForUpdate(obj, old) {
      const s = obj as EndpointSlice, o = old as EndpointSlice;
      dropTopology(s, o);
      const generation = o.metadata.generation ?? 0;
      s.metadata.generation = generationKey(s) !== generationKey(o) ? generation + 1 : generation;
    },
    validate: (obj) => validateSlice(obj, addressTypes),
    validateUpdate: validateSliceUpdate,
  },
  table: {
    columns: [
      column('AddressType', 'string', 'addressType specifies the type of address carried by this EndpointSlice.'),
      column('Ports', 'string', 'ports specifies the list of network ports exposed by each endpoint in this slice.'),
      column('Endpoints', 'string', 'endpoints is a list of unique endpoints in this slice.'),
      ageColumn,
    ],
    cells(obj) {
      const s = obj as EndpointSlice;
      return [s.addressType ?? '', formatPorts(list(s.ports)), formatEndpoints(list(s.endpoints)), ageOf(obj.metadata.creationTimestamp)];
    },
  },
};

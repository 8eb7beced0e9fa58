/**
 * Warning helpers shared by several kinds' WarningsOnCreate/WarningsOnUpdate, ported from
 * Kubernetes 1.35: deprecated node labels (pkg/api/node/util.go), fractional byte quantities and
 * PVC specs (pkg/api/persistentvolumeclaim/util.go), non-canonical IPs and CIDRs
 * (k8s.io/apimachinery pkg/util/validation/ip.go GetWarningsForIP/GetWarningsForCIDR), and the
 * "a DNS label is recommended" name warning of the workload strategies.
 *
 * Paths are written as kube's field.Path prints them: `a.b[key]`, `a[0].b`.
 */
import { isDNS1123Label } from '@windlass/machinery';
import { canonicalQuantity, parseQuantity, scaledValue } from '../validation/quantity.js';
import { formatCIDR, formatIP, parseCIDR, parseIP } from './networking/ip.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Json => (isObject(v) ? v : {});
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.map(obj) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Joins a path prefix (possibly empty, as kube's nil *field.Path) and a child. */
export const child = (prefix: string, name: string): string => (prefix ? `${prefix}.${name}` : name);

/** deprecatedNodeLabels of pkg/api/node. */
const deprecatedNodeLabels: Record<string, string> = {
  'beta.kubernetes.io/arch': 'deprecated since v1.14; use "kubernetes.io/arch" instead',
  'beta.kubernetes.io/os': 'deprecated since v1.14; use "kubernetes.io/os" instead',
  'failure-domain.beta.kubernetes.io/region': 'deprecated since v1.17; use "topology.kubernetes.io/region" instead',
  'failure-domain.beta.kubernetes.io/zone': 'deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
  'beta.kubernetes.io/instance-type': 'deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
  'app.kubernetes.io/created-by': 'deprecated since v1.9',
  'scheduler.alpha.kubernetes.io/preferAvoidPods': 'deprecated since v1.22; use Taints and Tolerations instead',
  'node-role.kubernetes.io/master': 'use "node-role.kubernetes.io/control-plane" instead',
};

/** GetNodeLabelDeprecatedMessage. */
export function nodeLabelDeprecation(key: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(deprecatedNodeLabels, key) ? deprecatedNodeLabels[key] : undefined;
}

/** GetWarningsForNodeSelectorTerm (label values are validated, not warned about, for pods). */
export function nodeSelectorTermWarnings(term: unknown, path: string): string[] {
  const warnings: string[] = [];
  list(obj(term).matchExpressions).forEach((e, i) => {
    const msg = nodeLabelDeprecation(str(e.key));
    if (msg) warnings.push(`${path}.matchExpressions[${i}].key: ${str(e.key)} is ${msg}`);
  });
  return warnings;
}

/** GetWarningsForNodeSelector: a metav1.LabelSelector over node labels (CSIStorageCapacity's nodeTopology). */
export function nodeLabelSelectorWarnings(selector: unknown, path: string): string[] {
  if (!isObject(selector)) return [];
  const warnings: string[] = [];
  list(selector.matchExpressions).forEach((e, i) => {
    const msg = nodeLabelDeprecation(str(e.key));
    if (msg) warnings.push(`${path}.matchExpressions[${i}].key: ${str(e.key)} is ${msg}`);
  });
  for (const label of Object.keys(obj(selector.matchLabels))) {
    const msg = nodeLabelDeprecation(label);
    if (msg) warnings.push(`${path}.matchLabels.${label}: ${msg}`);
  }
  return warnings;
}

/** The fractional-byte check kube applies to memory, ephemeral-storage and storage quantities; the canonical value when it fires. */
export function fractionalBytes(value: unknown): string | undefined {
  const q = typeof value === 'string' ? parseQuantity(value) : typeof value === 'number' ? parseQuantity(String(value)) : undefined;
  if (!q || scaledValue(q, -3) % 1000n === 0n) return undefined;
  return canonicalQuantity(q);
}

export function fractionalBytesWarning(path: string, value: unknown): string[] {
  const canonical = fractionalBytes(value);
  return canonical === undefined ? [] : [`${path}: fractional byte value ${JSON.stringify(canonical)} is invalid, must be an integer`];
}

/** GetWarningsForPersistentVolumeClaimSpec. */
export function pvcSpecWarnings(path: string, spec: unknown): string[] {
  const resources = obj(obj(spec).resources);
  return [
    ...fractionalBytesWarning(`${path}.resources.requests[storage]`, obj(resources.requests).storage),
    ...fractionalBytesWarning(`${path}.resources.limits[storage]`, obj(resources.limits).storage),
  ];
}

/** The workload strategies' warning for names that are not DNS labels (pods' hostnames derive from them). */
export function dnsLabelNameWarning(name: string | undefined, usedIn = 'Pod names and hostnames'): string[] {
  const msgs = isDNS1123Label(name ?? '');
  return msgs.length === 0 ? [] : [`metadata.name: this is used in ${usedIn}, which can result in surprising behavior; a DNS label is recommended: [${msgs.join(' ')}]`];
}

/** GetWarningsForIP, for a value validation already accepted. */
export function ipWarnings(path: string, value: string): string[] {
  const ip = parseIP(value);
  if (!ip) return [];
  if (ip.leadingZeros || ip.mapped) {
    return [`${path}: non-standard IP address ${JSON.stringify(value)} will be considered invalid in a future Kubernetes release: use ${JSON.stringify(formatIP(ip))}`];
  }
  if (ip.bytes.length === 16 && formatIP(ip) !== value) {
    return [`${path}: IPv6 address ${JSON.stringify(value)} should be in RFC 5952 canonical format (${JSON.stringify(formatIP(ip))})`];
  }
  return [];
}

/** GetWarningsForCIDR, for a value validation already accepted. */
export function cidrWarnings(path: string, value: string): string[] {
  const cidr = parseCIDR(value);
  if (!cidr) return [];
  const warnings: string[] = [];
  const network = formatCIDR(cidr);
  const ipText = formatIP(cidr.ip);
  const networkIP = network.slice(0, network.lastIndexOf('/'));
  if (networkIP !== ipText) {
    // Mask.Size()'s bits: an IPv4-mapped value was parsed as IPv6, so its single address is a /128.
    const bits = cidr.ip.bytes.length * 8;
    warnings.push(`${path}: CIDR value ${JSON.stringify(value)} is ambiguous in this context (should be ${JSON.stringify(network)} or ${JSON.stringify(`${ipText}/${bits}`)}?)`);
  }
  if (cidr.leadingZeros || cidr.ip.mapped) {
    warnings.push(`${path}: non-standard CIDR value ${JSON.stringify(value)} will be considered invalid in a future Kubernetes release: use ${JSON.stringify(network)}`);
  }
  if (warnings.length === 0 && cidr.ip.bytes.length === 16) {
    const canonical = `${formatIP(cidr.ip)}/${cidr.bits}`;
    if (canonical !== value) warnings.push(`${path}: IPv6 CIDR value ${JSON.stringify(value)} should be in RFC 5952 canonical format (${JSON.stringify(canonical)})`);
  }
  return warnings;
}

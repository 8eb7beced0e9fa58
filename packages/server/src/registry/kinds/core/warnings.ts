/**
 * WarningsOnCreate/WarningsOnUpdate of core/v1 kinds other than pods and their templates, as
 * Kubernetes 1.35 answers them: Services (pkg/api/service/warnings.go), Nodes
 * (pkg/registry/core/node/strategy.go), PersistentVolumes and claims
 * (pkg/api/persistentvolume(claim)/util.go) and Endpoints (pkg/registry/core/endpoint/strategy.go).
 * Each applies on create and, for the new object, on every update.
 */
import type { KubeObject } from '../../types.js';
import { cidrWarnings, ipWarnings, nodeSelectorTermWarnings, pvcSpecWarnings } from '../warnings.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Json => (isObject(v) ? v : {});
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.map(obj) : []);
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const isSet = (v: unknown) => v !== undefined && v !== null;

const deprecatedTopologyAwareHints = 'service.kubernetes.io/topology-aware-hints';
const topologyMode = 'service.kubernetes.io/topology-mode';

/** GetWarningsForService. */
export function serviceWarnings(svc: KubeObject): string[] {
  const spec = obj(svc.spec);
  const warnings: string[] = [];
  if (deprecatedTopologyAwareHints in (svc.metadata.annotations ?? {})) {
    warnings.push(`annotation ${deprecatedTopologyAwareHints} is deprecated, please use ${topologyMode} instead`);
  }
  const clusterIP = str(spec.clusterIP);
  if (clusterIP !== '' && clusterIP !== 'None') {
    strs(spec.clusterIPs).forEach((ip, i) => warnings.push(...ipWarnings(`spec.clusterIPs[${i}]`, ip)));
  }
  const type = str(spec.type);
  const headless = type === 'ClusterIP' && clusterIP === 'None';
  const externalIPs = strs(spec.externalIPs);
  if (headless) {
    if (str(spec.loadBalancerIP) !== '') warnings.push('spec.loadBalancerIP is ignored for headless services');
    if (externalIPs.length > 0) warnings.push('spec.externalIPs is ignored for headless services');
    if (str(spec.sessionAffinity) !== 'None') warnings.push('spec.SessionAffinity is ignored for headless services');
  }
  externalIPs.forEach((ip, i) => warnings.push(...ipWarnings(`spec.externalIPs[${i}]`, ip)));
  if (externalIPs.length > 0 && !headless && type !== 'ExternalName') warnings.push('spec.externalIPs is deprecated and may no longer be implemented in some clusters');
  if (str(spec.loadBalancerIP) !== '') warnings.push(...ipWarnings('spec.loadBalancerIP', str(spec.loadBalancerIP)));
  strs(spec.loadBalancerSourceRanges).forEach((cidr, i) => warnings.push(...cidrWarnings(`spec.loadBalancerSourceRanges[${i}]`, cidr)));
  if (type === 'ExternalName' && externalIPs.length > 0) warnings.push('spec.externalIPs is ignored when spec.type is "ExternalName"');
  if (type !== 'ExternalName' && str(spec.externalName) !== '') warnings.push('spec.externalName is ignored when spec.type is not "ExternalName"');
  if (spec.trafficDistribution === 'PreferClose') warnings.push('spec.trafficDistribution: "PreferClose" is deprecated; use "PreferSameZone"');
  return warnings;
}

/** nodeStrategy's fieldIsDeprecatedWarnings. */
export function nodeWarnings(node: KubeObject): string[] {
  const spec = obj(node.spec);
  const warnings: string[] = [];
  if (isSet(spec.configSource)) warnings.push('spec.configSource: the feature is removed');
  if (str(spec.externalID) !== '') warnings.push('spec.externalID: this field is deprecated, and is unused by Kubernetes');
  return warnings;
}

const betaStorageClassAnnotation = 'volume.beta.kubernetes.io/storage-class';
const deprecatedStorageClassAnnotationsMsg = 'deprecated since v1.8; use "storageClassName" attribute instead';

/** Volume plugins of a PersistentVolume kube no longer runs, in util.go's order. */
const deprecatedPVSources: Array<[string, string]> = [
  ['cephfs', 'deprecated in v1.28, non-functional in v1.31+'],
  ['photonPersistentDisk', 'deprecated in v1.11, non-functional in v1.16+'],
  ['scaleIO', 'deprecated in v1.16, non-functional in v1.22+'],
  ['storageOS', 'deprecated in v1.22, non-functional in v1.25+'],
  ['glusterfs', 'deprecated in v1.25, non-functional in v1.26+'],
  ['rbd', 'deprecated in v1.28, non-functional in v1.31+'],
];

/** GetWarningsForPersistentVolume. */
export function persistentVolumeWarnings(pv: KubeObject): string[] {
  const spec = obj(pv.spec);
  const warnings: string[] = [];
  if (betaStorageClassAnnotation in (pv.metadata.annotations ?? {})) {
    warnings.push(`metadata.annotations[${betaStorageClassAnnotation}]: ${deprecatedStorageClassAnnotationsMsg}`);
  }
  if (spec.persistentVolumeReclaimPolicy === 'Recycle') {
    warnings.push('spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.');
  }
  const required = obj(spec.nodeAffinity).required;
  if (isObject(required)) {
    list(required.nodeSelectorTerms).forEach((term, i) => warnings.push(...nodeSelectorTermWarnings(term, `spec.nodeAffinity.required.nodeSelectorTerms[${i}]`)));
  }
  for (const [source, message] of deprecatedPVSources) if (isSet(spec[source])) warnings.push(`spec.${source}: ${message}`);
  return warnings;
}

/** GetWarningsForPersistentVolumeClaim. */
export function persistentVolumeClaimWarnings(pvc: KubeObject): string[] {
  const warnings: string[] = [];
  if (betaStorageClassAnnotation in (pvc.metadata.annotations ?? {})) {
    warnings.push(`metadata.annotations[${betaStorageClassAnnotation}]: ${deprecatedStorageClassAnnotationsMsg}`);
  }
  warnings.push(...pvcSpecWarnings('spec', pvc.spec));
  return warnings;
}

/** endpointsWarnings: addresses in a form kube will refuse later, unless the Endpoints controller wrote them. */
export function endpointsWarnings(ep: KubeObject): string[] {
  if (ep.metadata.labels?.['endpoints.kubernetes.io/managed-by'] === 'endpoint-controller') return [];
  const warnings: string[] = [];
  list(ep.subsets).forEach((subset, i) => {
    list(subset.addresses).forEach((a, j) => warnings.push(...ipWarnings(`subsets[${i}].addresses[${j}].ip`, str(a.ip))));
    list(subset.notReadyAddresses).forEach((a, j) => warnings.push(...ipWarnings(`subsets[${i}].notReadyAddresses[${j}].ip`, str(a.ip))));
  });
  return warnings;
}

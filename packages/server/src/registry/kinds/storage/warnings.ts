/**
 * StorageClass and CSIStorageCapacity warnings (Kubernetes 1.35 pkg/api/storage/util.go):
 * deprecated node labels in allowed topologies and node topology, on create and update.
 */
import type { KubeObject } from '../../types.js';
import { nodeLabelDeprecation, nodeLabelSelectorWarnings } from '../warnings.js';

type Json = Record<string, unknown>;
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.map((x) => (typeof x === 'object' && x !== null ? (x as Json) : {})) : []);

/** GetWarningsForStorageClass. */
export function storageClassWarnings(sc: KubeObject): string[] {
  const warnings: string[] = [];
  list(sc.allowedTopologies).forEach((topo, i) => {
    list(topo.matchLabelExpressions).forEach((e, j) => {
      const msg = nodeLabelDeprecation(typeof e.key === 'string' ? e.key : '');
      if (msg) warnings.push(`allowedTopologies[${i}].matchLabelExpressions[${j}].key: ${msg}`);
    });
  });
  return warnings;
}

/** GetWarningsForCSIStorageCapacity. */
export const csiStorageCapacityWarnings = (c: KubeObject): string[] => nodeLabelSelectorWarnings(c.nodeTopology, 'nodeTopology');

/**
 * GetWarningsForRuntimeClass (Kubernetes 1.35 pkg/api/node/util.go): deprecated node labels in
 * scheduling.nodeSelector, on create and update. kube's message names the map, not the key.
 */
import type { KubeObject } from '../../types.js';
import { nodeLabelDeprecation } from '../warnings.js';

export function runtimeClassWarnings(rc: KubeObject): string[] {
  const scheduling = rc.scheduling as Record<string, unknown> | null | undefined;
  const selector = scheduling?.nodeSelector;
  if (typeof selector !== 'object' || selector === null) return [];
  const warnings: string[] = [];
  for (const key of Object.keys(selector)) {
    const msg = nodeLabelDeprecation(key);
    if (msg) warnings.push(`scheduling.nodeSelector: ${msg}`);
  }
  return warnings;
}

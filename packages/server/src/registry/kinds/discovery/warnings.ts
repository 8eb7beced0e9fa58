/**
 * endpointSliceStrategy.WarningsOnCreate/WarningsOnUpdate (Kubernetes 1.35
 * pkg/registry/discovery/endpointslice/strategy.go): FQDN slices are deprecated (create only),
 * and addresses in a form kube will refuse later warn unless kube's own controllers wrote them.
 */
import type { KubeObject } from '../../types.js';
import { ipWarnings } from '../warnings.js';

const managedBy = 'endpointslice.kubernetes.io/managed-by';
const ownControllers = new Set(['endpointslice-controller.k8s.io', 'endpointslicemirroring-controller.k8s.io']);

export function endpointSliceWarnings(eps: KubeObject, create: boolean): string[] {
  const warnings: string[] = [];
  if (create && eps.addressType === 'FQDN') warnings.push('spec.addressType: FQDN endpoints are deprecated');
  if (ownControllers.has(eps.metadata.labels?.[managedBy] ?? '')) return warnings;
  const endpoints = Array.isArray(eps.endpoints) ? eps.endpoints : [];
  endpoints.forEach((ep, i) => {
    const addresses = (typeof ep === 'object' && ep !== null ? (ep as Record<string, unknown>).addresses : undefined);
    (Array.isArray(addresses) ? addresses : []).forEach((addr, j) => {
      if (typeof addr === 'string') warnings.push(...ipWarnings(`endpoints[${i}].addresses[${j}]`, addr));
    });
  });
  return warnings;
}

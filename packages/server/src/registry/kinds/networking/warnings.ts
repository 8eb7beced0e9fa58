/**
 * The networking strategies' warnings, ported from Kubernetes 1.35 pkg/registry/networking:
 * ingressStrategy.WarningsOnCreate (the deprecated class annotation; updates and status writes
 * do not warn) and networkPolicyStrategy's WarningsOnCreate/WarningsOnUpdate (non-canonical
 * ipBlock CIDRs, which a stored object may still hold after strict validation came in).
 */
import type { KubeObject } from '../../types.js';
import { cidrWarnings } from '../warnings.js';
import { arr, isObj, obj, str } from './util.js';

const annotationIngressClass = 'kubernetes.io/ingress.class';

export function ingressWarningsOnCreate(ingress: KubeObject): string[] {
  const spec = (ingress.spec ?? {}) as Record<string, unknown>;
  const annotated = annotationIngressClass in (ingress.metadata.annotations ?? {});
  const className = spec.ingressClassName;
  return annotated && (className === undefined || className === null)
    ? [`annotation ${JSON.stringify(annotationIngressClass)} is deprecated, please use 'spec.ingressClassName' instead`]
    : [];
}

/**
 * networkPolicyWarnings: GetWarningsForCIDR over every ipBlock's cidr and except entries, ingress
 * peers first. kube runs it on every update of the main resource, unchanged specs included.
 */
export function networkPolicyWarnings(np: KubeObject): string[] {
  const spec = obj(np.spec);
  const warnings: string[] = [];
  for (const [kind, peersKey] of [['ingress', 'from'], ['egress', 'to']] as const) {
    arr(spec[kind]).forEach((rule, i) => {
      arr(obj(rule)[peersKey]).forEach((peer, j) => {
        const block = obj(peer).ipBlock;
        if (!isObj(block)) return;
        const path = `spec.${kind}[${i}].${peersKey}[${j}].ipBlock`;
        warnings.push(...cidrWarnings(`${path}.cidr`, str(block.cidr)));
        arr(block.except).forEach((except, k) => warnings.push(...cidrWarnings(`${path}.except[${k}]`, str(except))));
      });
    });
  }
  return warnings;
}

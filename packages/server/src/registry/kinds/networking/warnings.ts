/**
 * ingressStrategy.WarningsOnCreate (Kubernetes 1.35 pkg/registry/networking/ingress/strategy.go):
 * the class annotation is deprecated when spec.ingressClassName does not replace it. Updates
 * and status writes do not warn.
 */
import type { KubeObject } from '../../types.js';

const annotationIngressClass = 'kubernetes.io/ingress.class';

export function ingressWarningsOnCreate(ingress: KubeObject): string[] {
  const spec = (ingress.spec ?? {}) as Record<string, unknown>;
  const annotated = annotationIngressClass in (ingress.metadata.annotations ?? {});
  const className = spec.ingressClassName;
  return annotated && (className === undefined || className === null)
    ? [`annotation ${JSON.stringify(annotationIngressClass)} is deprecated, please use 'spec.ingressClassName' instead`]
    : [];
}

/** apiextensions.k8s.io/v1 CustomResourceDefinition, as far as serving its resources reads it. */
import type { structural } from '@windlass/schemas';
import type { KubeObject } from '../registry/types.js';

/** kube's CustomResourceCleanupFinalizer: a deleted CRD stays until its custom resources are gone. */
export const cleanupFinalizer = 'customresourcecleanup.apiextensions.k8s.io';

export interface CRDNames {
  plural: string;
  singular?: string;
  kind: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

export interface CRDVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: structural.StructuralSchema };
  subresources?: {
    status?: Record<string, never>;
    scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  };
  additionalPrinterColumns?: PrinterColumn[];
  selectableFields?: { jsonPath: string }[];
}

export interface CRDCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface CRD extends KubeObject {
  spec: {
    group: string;
    names: CRDNames;
    scope: 'Namespaced' | 'Cluster';
    versions: CRDVersion[];
    conversion?: { strategy: string; webhook?: { clientConfig?: Record<string, unknown>; conversionReviewVersions?: string[] } };
    preserveUnknownFields?: boolean;
  };
  status?: {
    conditions?: CRDCondition[];
    acceptedNames?: Partial<CRDNames>;
    storedVersions?: string[];
  };
}

export function condition(crd: CRD, type: string): CRDCondition | undefined {
  return crd.status?.conditions?.find((c) => c.type === type);
}

export function isConditionTrue(crd: CRD, type: string): boolean {
  return condition(crd, type)?.status === 'True';
}

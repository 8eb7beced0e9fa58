/**
 * A served kind is a definition, not handler code: the generic Store and the
 * handlers read everything kind-specific from a ResourceDefinition.
 */
import type { FieldError } from '@windlass/machinery';

export type KubeObject = {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
};

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string | null;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: unknown[];
  managedFields?: unknown[];
  [key: string]: unknown;
}

/** Per-kind behaviour, named after the hooks of kube's rest.RESTCreateStrategy / RESTUpdateStrategy. */
export interface Strategy {
  /**
   * Turns the versioned request body into the stored form (kube's decoding and conversion:
   * e.g. Secret.stringData folded into data). Throws a 400 StatusError for undecodable values.
   */
  normalize?(obj: KubeObject): void;
  /** Defaults and server-owned fields on create (e.g. status reset). Mutates obj. */
  prepareForCreate?(obj: KubeObject): void;
  /** Server-owned fields kept from the old object on update. Mutates obj. */
  prepareForUpdate?(obj: KubeObject, old: KubeObject): void;
  /** Kind-specific validation on create (object metadata is validated generically). */
  validate?(obj: KubeObject): FieldError[];
  /** Kind-specific validation on update. */
  validateUpdate?(obj: KubeObject, old: KubeObject): FieldError[];
  /** Validates a metadata.name (or generateName prefix when prefix=true); kube's per-kind name rule. */
  nameValidator(name: string, prefix: boolean): string[];
}

export interface TableColumn {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableConvertor {
  columns: TableColumn[];
  /** Cells after the name cell, which every table starts with. */
  cells(obj: KubeObject): unknown[];
}

/** A subresource as discovery lists it (pods/status, deployments/scale, pods/exec…). */
export interface SubresourceDefinition {
  name: string;
  kind: string;
  /** Only where the subresource's kind is of another group version (autoscaling/v1 Scale). */
  group?: string;
  version?: string;
  verbs: string[];
}

export interface ResourceDefinition {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  /** The plural resource name used in URLs and storage keys. */
  resource: string;
  singularName: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  verbs: string[];
  strategy: Strategy;
  table: TableConvertor;
  /** kube sets metadata.generation on create and bumps it on spec changes for some kinds. */
  generation?: boolean;
  /** DELETE answers the object (namespaces) rather than a Success Status (configmaps, secrets). */
  deleteReturnsObject?: boolean;
  /** The kind itself still has to finalize this object before it may be removed (a namespace with spec.finalizers). */
  pendingFinalization?(obj: KubeObject): boolean;
  /** Marks an object whose deletion was requested (a namespace becomes Terminating). Mutates obj. */
  onDeletionRequested?(obj: KubeObject): void;
  /** PUT of a missing object creates it. */
  allowCreateOnUpdate?: boolean;
  /** Extra field-selector labels beyond metadata.name and metadata.namespace. */
  selectableFields?: Record<string, (obj: KubeObject) => string | undefined>;
  /** storageVersionHash shown in discovery. */
  storageVersionHash?: string;
  /** Subresources discovery lists; which of them the server answers is up to the handlers. */
  subresources?: SubresourceDefinition[];
  /**
   * Where objects live under the registry prefix, kube's layout: `pods`, `services/specs`,
   * `apiextensions.k8s.io/customresourcedefinitions` (default: the resource). Every served
   * version of a resource shares it (and so its watch cache). Unset with `stored: false`.
   */
  keyPrefix?: string;
  /** False for what kube computes per request rather than stores: bindings, componentstatuses, reviews. */
  stored?: boolean;
}

export function groupVersion(def: { group: string; version: string }): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}

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
   * kube's scheme defaulting (the SetObjectDefaults_<Kind> of the kind's version): applied to
   * every decoded body of a create or update and to every patched object, before anything
   * else, nested templates included (a Deployment's pod template gets the pod defaults).
   * Mutates obj. Values Go's encoder always writes (`resources: {}`, a template's
   * `creationTimestamp: null`) come from the generic zero-value fill, not from here.
   */
  defaults?(obj: KubeObject): void;
  /**
   * Turns the versioned request body into the stored form (kube's decoding and conversion:
   * e.g. Secret.stringData folded into data). Throws a 400 StatusError for undecodable values.
   */
  normalize?(obj: KubeObject): void;
  /**
   * The object as kube's conversion from its internal type writes it, when that adds fields the
   * stored form may lack (a DaemonSet's template-generation annotation); a copy. The field
   * manager compares these, as kube's compares versioned objects.
   */
  versioned?(obj: KubeObject): KubeObject;
  /** Defaults and server-owned fields on create (e.g. status reset). Mutates obj. */
  /** `warn` adds a Warning to the response at once, kept even when validation then refuses the write (kube's warning.AddWarning from PrepareForCreate). */
  prepareForCreate?(obj: KubeObject, warn?: (message: string) => void): void;
  /** Server-owned fields kept from the old object on update. Mutates obj. */
  prepareForUpdate?(obj: KubeObject, old: KubeObject): void;
  /** Kind-specific validation on create (object metadata is validated generically). */
  validate?(obj: KubeObject): FieldError[];
  /** Kind-specific validation on update. */
  validateUpdate?(obj: KubeObject, old: KubeObject): FieldError[];
  /**
   * kube's WarningsOnCreate: messages sent back as `Warning: 299` headers once the object is
   * valid (deprecated fields, values kube accepts but will refuse later). Never fails the write.
   */
  warningsOnCreate?(obj: KubeObject): string[];
  /** kube's WarningsOnUpdate, for writes of the main resource. */
  warningsOnUpdate?(obj: KubeObject, old: KubeObject): string[];
  /** Validates a metadata.name (or generateName prefix when prefix=true); kube's per-kind name rule. */
  nameValidator(name: string, prefix: boolean): string[];
}

/**
 * The strategy of a subresource written as the whole object (kube's <kind>StatusStrategy, and
 * the same shape for pods/ephemeralcontainers and certificatesigningrequests/approval).
 */
export interface StatusStrategy {
  /**
   * Fields such a write may not change, copied from the old object. Without it the generic
   * rule for `status` applies: every top-level field but `status` and `metadata` is kept from
   * the old object. Other subresources must set it.
   */
  prepareForUpdate?(obj: KubeObject, old: KubeObject): void;
  /** Validation of a status write (kube's ValidateXStatusUpdate). */
  validateUpdate?(obj: KubeObject, old: KubeObject): FieldError[];
  /** kube's status strategies' WarningsOnUpdate. */
  warningsOnUpdate?(obj: KubeObject, old: KubeObject): string[];
}

/** What the `scale` subresource reads and writes (autoscaling/v1 Scale). */
export interface ScaleDefinition {
  specReplicas(obj: KubeObject): number;
  statusReplicas(obj: KubeObject): number;
  /** The label selector as a string (`app=web,tier in (a,b)`), or '' for none. */
  selector(obj: KubeObject): string;
  setSpecReplicas(obj: KubeObject, replicas: number): void;
  /** Where the served version keeps the replicas, as a field path (kube's ResourcePathMappings); unset: spec.replicas. */
  replicasPath?: string[];
}

export type AdmissionOperation = 'CREATE' | 'UPDATE';

/**
 * A request as admission configured at run time sees it (kube's admission.Attributes for
 * ValidatingAdmissionPolicies and admission webhooks): any resource, custom ones included.
 */
export interface DynamicAdmissionAttributes {
  operation: AdmissionOperation | 'DELETE';
  /** The resource as stored: `obj` and `old` are in this kind's version. */
  def: ResourceDefinition;
  /** The version the client wrote through (kube's requestKind and requestResource), when not `def`. */
  request?: ResourceDefinition;
  namespace: string;
  name: string;
  /** '' for the main resource. */
  subresource: string;
  /** The object to write (absent on DELETE); `mutate` may change it in place. */
  obj?: KubeObject;
  /** The stored object on UPDATE and DELETE. */
  old?: KubeObject;
  dryRun: boolean;
  user: UserInfo;
  /** The request's CreateOptions, UpdateOptions or DeleteOptions, as AdmissionReview carries them. */
  options: Record<string, unknown>;
  warn(message: string): void;
}

/**
 * Admission configured at run time, for every resource: kube's MutatingAdmissionWebhook in the
 * mutating phase (after the kind's own plugins), ValidatingAdmissionPolicy and
 * ValidatingAdmissionWebhook in the validating phase (before ResourceQuota, which kube runs last).
 * Either throws a StatusError to refuse.
 */
export interface DynamicAdmission {
  /** False while nothing is configured: writes then skip building the attributes. */
  active(): boolean;
  mutate(attrs: DynamicAdmissionAttributes): Promise<void>;
  validate(attrs: DynamicAdmissionAttributes): Promise<void>;
}

/** What an admission plugin sees: the object, the old one on update, and the other stores. */
export interface AdmissionAttributes {
  operation: AdmissionOperation;
  /** The main resource, or a subresource's name ('status', 'binding'…). */
  subresource: string;
  obj: KubeObject;
  old?: KubeObject;
  dryRun: boolean;
  /** Who asks (CertificateSigningRequests record it; PodSecurity exemptions read it). */
  user: UserInfo;
  /** Raw storage and other stores, for allocators that must be unique across replicas. */
  ctx: StoreContext;
  /**
   * Another served resource's objects, as kube's admission plugins read their informers:
   * the watch cache, falling back to the store. `get` answers undefined for a missing object.
   */
  lookup(group: string, resource: string): AdmissionLookup | undefined;
  /** Adds a `Warning: 299` header to the response (kube's warning.AddWarning), e.g. PodSecurity's `warn` level. */
  warn(message: string): void;
}

/**
 * The end of a write a beginCreate/beginUpdate hook took part in, called exactly once: with true
 * after the object was stored (or the dry run answered), with false when the write failed, so
 * what the hook took is given back. Unlike kube, whose update finishes before its
 * compare-and-swap, an update attempt finishes only once its write is stored: what it gives up
 * is released only then.
 */
export type FinishWrite = (stored: boolean) => Promise<void>;

export interface ServiceRanges {
  /** IPv4 CIDR, e.g. `10.96.0.0/12`. */
  clusterIPRange: string;
  /** First port and how many: 30000-32767 is { base: 30000, size: 2768 }. */
  nodePortRange: { base: number; size: number };
}

export const defaultServiceRanges: ServiceRanges = { clusterIPRange: '10.96.0.0/12', nodePortRange: { base: 30000, size: 2768 } };

export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** What a kind's hooks may reach beyond their object: the raw storage and the other served resources. */
export interface StoreContext {
  storage: import('@windlass/storage').Storage;
  /** The registry prefix every key lives under (`/registry`). */
  registryPrefix: string;
  /** kube's --service-cluster-ip-range and --service-node-port-range. */
  services: ServiceRanges;
  lookup(group: string, resource: string): AdmissionLookup | undefined;
  /** The server's authorizer (--authorization-mode), for RBAC's escalation checks; absent when the server runs without authentication. */
  authorizer?: import('../rbac/types.js').Authorizer;
  /** Admission policies and webhooks, run on every write that goes through admission. */
  dynamicAdmission?: DynamicAdmission;
}

/** What a review may consult: who asks, the request namespace, the server's authenticator, the stored objects (RBAC). */
export interface ReviewContext {
  user: UserInfo;
  namespace: string;
  /** The server's bearer-token authentication; null for a token it does not know. Absent when the server runs without authentication. */
  authenticate?(token: string): UserInfo | null;
  /** TokenReview's full answer (service account tokens included), when the server's authenticator has one. */
  reviewToken?(token: string, audiences: readonly string[]): Promise<{ user: UserInfo; audiences: string[] } | { error: string }>;
  lookup: StoreContext['lookup'];
  /** The server's authorizer (--authorization-mode); absent without authentication, when the reviews judge by RBAC alone. */
  authorizer?: import('../rbac/types.js').Authorizer;
}

export interface AdmissionLookup {
  /** Creates an object of that resource through its Store (defaults, validation, storage); throws kube's StatusErrors (409 AlreadyExists…). */
  create(namespace: string, obj: KubeObject, opts?: { dryRun?: boolean }): Promise<KubeObject>;
  delete(namespace: string, name: string): Promise<void>;
  /** Replaces an object (PUT): its metadata.resourceVersion is the precondition (409 when stale, 404 when gone). */
  update?(namespace: string, obj: KubeObject): Promise<KubeObject>;
  get(namespace: string, name: string): Promise<KubeObject | undefined>;
  list(namespace: string): Promise<KubeObject[]>;
  /** The watch cache's objects only (no store read on an empty answer); undefined while the cache is not live. */
  listCached?(namespace: string): Promise<KubeObject[] | undefined>;
  /**
   * A status write as a compare-and-swap: tryUpdate maps the current object to the desired one
   * and runs again on the newer object after a conflict (ResourceQuota admission charging usage).
   */
  updateStatus?(namespace: string, name: string, tryUpdate: (current: KubeObject) => KubeObject): Promise<KubeObject>;
}

/**
 * An admission plugin of kube's default chain (ServiceAccount, LimitRanger, Priority,
 * DefaultTolerationSeconds, PodSecurity, DefaultStorageClass…), in kube's two phases:
 * `mutate` runs on the defaulted body before the strategy (prepareForCreate/Update and
 * validation) and may change attrs.obj; `validate` runs after the strategy's validation,
 * just before storage, and may only refuse. Either throws a StatusError to refuse.
 */
export interface AdmissionPlugin {
  name: string;
  /** Validates after the dynamic admission too, as kube orders ResourceQuota last: charge usage only for writes nothing else refuses. */
  last?: boolean;
  mutate?(attrs: AdmissionAttributes): void | Promise<void>;
  validate?(attrs: AdmissionAttributes): void | Promise<void>;
}

export interface TableColumn {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableConvertor {
  /**
   * Kube's tables start with a Name column, which the server adds; kinds whose printer puts
   * it elsewhere (events: last, priority 1) set this and give every column themselves.
   */
  ownNameColumn?: boolean;
  columns: TableColumn[];
  /** Cells after the name cell, which every table starts with. */
  cells(obj: KubeObject): unknown[];
  /** A row's conditions (kube's pod printer marks pods that succeeded or failed as Completed). */
  rowConditions?(obj: KubeObject): TableRowCondition[];
  /** The order kube's list printer puts rows in (FlowSchemas: by matching precedence, then name). */
  sortRows?(items: KubeObject[]): KubeObject[];
}

/** metav1.TableRowCondition; `Completed` is the only type kube's printers set. */
export interface TableRowCondition {
  type: 'Completed';
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
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
  /**
   * The group kube's validation errors name when its internal type is registered elsewhere
   * (`Ingress.extensions "x" is invalid`); default: the group.
   */
  internalGroup?: string;
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
  /**
   * kube's CheckGracefulDelete, for kinds deleted gracefully (pods): the grace period a DELETE
   * asking for `requested` seconds (unset: the kind's default) gives this object.
   */
  checkGracefulDelete?(obj: KubeObject, requested: number | undefined): number;
  /** PUT of a missing object creates it. */
  allowCreateOnUpdate?: boolean;
  /** Extra field-selector labels beyond metadata.name and metadata.namespace. */
  selectableFields?: Record<string, (obj: KubeObject) => string | undefined>;
  /**
   * The fields the objects of a cache shared by several versions carry, when more than this
   * version selects on (a CRD's storage version: every served version's selectableFields).
   */
  cachedSelectableFields?: Record<string, (obj: KubeObject) => string | undefined>;
  /** storageVersionHash shown in discovery. */
  storageVersionHash?: string;
  /**
   * Strategies of the subresources written as the whole object (PUT/PATCH): `status`,
   * `ephemeralcontainers`, `approval`. A `status` subresource listed in `subresources` is
   * served with the generic rule even without an entry here.
   */
  subresourceStrategies?: Record<string, StatusStrategy>;
  /**
   * Fields writers through each path ('' the main resource, or a subresource) never own, where
   * they differ from the rule for kinds with a status (main: status; status: spec and labels):
   * kube's strategies' GetResetFields.
   */
  resetFields?: Record<string, string[][]>;
  /**
   * Storage-version conversion, for resources served in several versions (autoscaling/v1 and
   * v2, core/v1 and events.k8s.io/v1 events): set on every served version that is not the
   * storage version. toStorage maps a body of this version to the storage version's form,
   * fromStorage the stored form to this version's.
   */
  conversion?: {
    storageVersion: string;
    /** The storage version's group when it is another one (events.k8s.io events are stored as core/v1 Events). */
    storageGroup?: string;
    toStorage(obj: KubeObject): KubeObject;
    fromStorage(obj: KubeObject): KubeObject;
    /**
     * Conversion that calls out (a CRD's conversion webhook): objects converted in one call, to the
     * storage version or from it. The Store awaits it wherever a request converts; watch events,
     * encoded synchronously, use the conversions above for objects it has not converted before.
     */
    convert?(objs: KubeObject[], toStorage: boolean): Promise<KubeObject[]>;
  };
  /**
   * A computed, create-only resource (TokenReview, SubjectAccessReview, SelfSubjectRulesReview…):
   * answers the decoded request object with its status filled in (201), never stores it.
   * Throws a StatusError (422 Invalid…) for a request kube refuses.
   */
  review?(obj: KubeObject, ctx: ReviewContext): Promise<KubeObject>;
  /**
   * A kind's own REST.Delete refusal of a single delete (not deletecollection, which kube runs
   * through the generic Store): the system PriorityClasses cannot be deleted.
   */
  refuseDelete?(name: string): Error | undefined;
  /** Runs after an object was removed from storage (releasing a Service's ClusterIP and node ports). */
  afterDelete?(obj: KubeObject, ctx: StoreContext): Promise<void>;
  /**
   * kube's BeginCreate, on creates of the main resource: after mutating admission, before the
   * strategy. What it takes (a Service's ClusterIPs and node ports) is tied to the write by the
   * answered FinishWrite.
   */
  beginCreate?(obj: KubeObject, ctx: StoreContext, dryRun: boolean): Promise<FinishWrite>;
  /** kube's BeginUpdate, on every attempt of an update of the main resource, at the same point. */
  beginUpdate?(obj: KubeObject, old: KubeObject, ctx: StoreContext, dryRun: boolean): Promise<FinishWrite>;
  /** For kinds with a `scale` subresource. */
  scale?: ScaleDefinition;
  /** Admission plugins run on every create and update of this kind, in order. */
  admission?: AdmissionPlugin[];
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
  /**
   * kube's deprecation warning for a deprecated kind (deprecation.WarningMessage from the type's
   * APILifecycleDeprecated/Replacement), sent as a `Warning` header on every request to it:
   * `v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice`.
   */
  deprecation?: string;
  /**
   * Served for a CustomResourceDefinition: kube's crdHandler answers a namespaced path of a
   * cluster-scoped kind with the plain 404 page and an unknown subresource with NotFound, and
   * lists always carry `metadata.continue`.
   */
  customResource?: boolean;
  /**
   * The OpenAPI (v2) schema of a kind the built-in document does not describe (custom resources),
   * referencing ObjectMeta by `$ref`: server-side apply's field manager types objects by it.
   */
  openAPISchema?: Record<string, unknown>;
  /** The PATCH media types accepted, when not all of them (custom resources: no strategic merge patch, 415 as kube answers). */
  patchTypes?: readonly string[];
  /**
   * Typed decoding of a body for kinds no built-in schema describes (custom resources: pruning
   * to the CRD's schema, which appends the paths of dropped fields to `unknown`, then defaulting).
   */
  decoder?: (obj: KubeObject, unknown: string[]) => void;
  /**
   * kube's defaulter of custom resources (structural defaults, by the object's own version),
   * which its storage codec applies to every object it decodes and server-side apply to what it
   * merged: a default added to the schema after an object was written shows on every read,
   * without a write. Returns whether it changed the object.
   */
  schemaDefaults?: (obj: KubeObject) => boolean;
}

export function groupVersion(def: { group: string; version: string }): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}

/**
 * A hand-written kind: only what differs from the generic definition the generated table gives
 * (kinds/generic.ts). Its strategy is merged over the generic one, so a kind that only adds
 * defaults keeps kube's name rule.
 */
export type KindDefinition = Partial<Omit<ResourceDefinition, 'strategy'>> & {
  group: string;
  version: string;
  resource: string;
  strategy?: Partial<Strategy>;
};

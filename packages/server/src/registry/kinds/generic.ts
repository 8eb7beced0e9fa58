/**
 * The definition of a built-in resource that has no hand-written strategy yet: what the
 * generated table (@windlass/schemas, from kube's OpenAPI document) says about it, kube's
 * default name rule for the kind, and kube's default table (Name, Created At).
 */
import type { BuiltinResource } from '@windlass/schemas';
import type { KubeObject, ResourceDefinition, TableColumn } from '../types.js';
import { nameIsDNS1035Label, nameIsDNSLabel, nameIsDNSSubdomain, nameIsPathSegment } from '../names.js';

type NameValidator = (name: string, prefix: boolean) => string[];

/**
 * Kinds whose names kube validates otherwise than as DNS subdomains (the ValidateXName of
 * each kind in pkg/apis/<group>/validation), keyed `<group>/<resource>`.
 */
const nameRules: Record<string, NameValidator> = {
  '/namespaces': nameIsDNSLabel,
  '/services': nameIsDNS1035Label,
  '/persistentvolumes': nameIsPathSegment,
  'rbac.authorization.k8s.io/roles': nameIsPathSegment,
  'rbac.authorization.k8s.io/rolebindings': nameIsPathSegment,
  'rbac.authorization.k8s.io/clusterroles': nameIsPathSegment,
  'rbac.authorization.k8s.io/clusterrolebindings': nameIsPathSegment,
};

/** kube's rest.DefaultTableConvertor column after Name. */
const createdAtColumn: TableColumn = {
  name: 'Created At', type: 'date', format: '', priority: 0,
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
};

const defaultTable = {
  columns: [createdAtColumn],
  cells: (obj: KubeObject) => [obj.metadata.creationTimestamp ?? null],
};

export function genericDefinition(r: BuiltinResource): ResourceDefinition {
  const def: ResourceDefinition = {
    group: r.group, version: r.version, kind: r.kind, listKind: r.listKind, resource: r.resource,
    singularName: r.singularName, namespaced: r.namespaced, verbs: r.verbs,
    strategy: { nameValidator: nameRules[`${r.group}/${r.resource}`] ?? nameIsDNSSubdomain },
    table: defaultTable,
    subresources: r.subresources,
    stored: r.keyPrefix !== undefined,
  };
  if (r.shortNames) def.shortNames = r.shortNames;
  if (r.categories) def.categories = r.categories;
  if (r.keyPrefix !== undefined) def.keyPrefix = r.keyPrefix;
  if (r.storageVersionHash) def.storageVersionHash = r.storageVersionHash;
  return def;
}

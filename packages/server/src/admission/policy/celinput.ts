/**
 * The variables an admission policy's CEL expressions see (kube's admission CEL environment):
 * object, oldObject, request, params, namespaceObject and variables, as CEL values.
 */
import type { DynamicAdmissionAttributes, KubeObject } from '../../registry/types.js';
import type { GroupVersionResource } from './matching.js';

/** kube's CreateAdmissionRequest: the AdmissionRequest the policy's `request` variable holds. */
export function admissionRequest(a: DynamicAdmissionAttributes, matched: GroupVersionResource): Record<string, unknown> {
  // The version the client wrote through, when the object is seen in its stored one.
  const requested = a.request ?? a.def;
  const kind = { group: requested.group, version: requested.version, kind: requested.kind };
  const userInfo: Record<string, unknown> = { username: a.user.name, groups: a.user.groups };
  if (a.user.uid) userInfo.uid = a.user.uid;
  if (a.user.extra) userInfo.extra = a.user.extra;
  return {
    kind: { group: matched.group, version: matched.version, kind: a.def.kind },
    resource: matched,
    subResource: a.subresource,
    requestKind: kind,
    requestResource: { group: requested.group, version: requested.version, resource: requested.resource },
    requestSubResource: a.subresource,
    name: a.name,
    namespace: a.namespace,
    operation: a.operation,
    userInfo,
    dryRun: a.dryRun,
    options: a.options,
  };
}

const namespaceMetadata = ['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations'];

/** kube's CreateNamespaceObject: spec, status and the identifying metadata (no managedFields, owners or finalizers). */
export function namespaceObject(ns: KubeObject | undefined): Record<string, unknown> | null {
  if (!ns) return null;
  const metadata = Object.fromEntries(namespaceMetadata.filter((k) => (ns.metadata as Record<string, unknown>)[k] !== undefined).map((k) => [k, (ns.metadata as Record<string, unknown>)[k]]));
  return { metadata, spec: ns.spec ?? {}, status: ns.status ?? {} };
}

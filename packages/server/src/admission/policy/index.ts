/** ValidatingAdmissionPolicy wired to a server's stores and registry. */
import type { APIRegistry } from '../../registry/index.js';
import type { Store } from '../../registry/store.js';
import type { AdmissionLookup } from '../../registry/types.js';
import type { Authorizer } from '../../rbac/types.js';
import type { AdmissionStage } from '../dynamic.js';
import { FollowedObjects } from './followed.js';
import type { GroupVersionResource } from './matching.js';
import { namespaceLabelsFor, validatingAdmissionPolicyStage, type ParamSource } from './validating.js';

export interface PolicyDeps {
  registry: APIRegistry;
  storeFor(group: string, version: string, resource: string): Store | undefined;
  lookup(group: string, resource: string): AdmissionLookup | undefined;
  /** The server's authorizer, for the policies' `authorizer` library; undefined when it authorizes nothing. */
  authorizer(): Authorizer | undefined;
}

const group = 'admissionregistration.k8s.io';

export function validatingPolicyStage(deps: PolicyDeps): AdmissionStage {
  const namespace = async (name: string) => deps.lookup('', 'namespaces')?.get('', name);
  return validatingAdmissionPolicyStage({
    policies: new FollowedObjects(() => deps.storeFor(group, 'v1', 'validatingadmissionpolicies')),
    bindings: new FollowedObjects(() => deps.storeFor(group, 'v1', 'validatingadmissionpolicybindings')),
    namespace,
    authorizer: deps.authorizer,
    namespaceLabels: (a) => namespaceLabelsFor(a, namespace),
    equivalents: (r: GroupVersionResource) => (deps.registry.versionsOf(r.group) ?? [])
      .filter((version) => deps.registry.lookup(r.group, version, r.resource))
      .map((version) => ({ group: r.group, version, resource: r.resource })),
    params: (apiVersion: string, kind: string): ParamSource | undefined => {
      const def = deps.registry.resourcesIn(apiVersion)?.find((d) => d.kind === kind);
      const objects = def && deps.lookup(def.group, def.resource);
      if (!def || !objects) return undefined;
      return {
        namespaced: def.namespaced,
        get: (ns, name) => objects.get(ns, name),
        list: (ns) => objects.list(ns),
      };
    },
  });
}

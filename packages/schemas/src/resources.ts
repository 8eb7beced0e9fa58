/**
 * The built-in resources kube-apiserver serves, as derived from its OpenAPI document by
 * scripts/resources.mjs (the data is in generated/resources.ts).
 */
export interface BuiltinSubresource {
  /** `status`, `scale`, `proxy`, … */
  name: string;
  kind: string;
  /** Set where the subresource's kind is of another group version (`scale` is autoscaling/v1 Scale). */
  group?: string;
  version?: string;
  verbs: string[];
}

export interface BuiltinResource {
  group: string;
  version: string;
  kind: string;
  /** '' for kinds that have no list (the review kinds). */
  listKind: string;
  resource: string;
  singularName: string;
  namespaced: boolean;
  /** Discovery verbs of the resource itself, sorted. */
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources: BuiltinSubresource[];
  /**
   * The key segment(s) under the registry prefix: `pods`, `services/specs`,
   * `apiextensions.k8s.io/customresourcedefinitions`. Unset for what is not stored
   * (bindings, componentstatuses, the review kinds).
   */
  keyPrefix?: string;
  /** The group version objects are stored in (shared by every served version of the resource). */
  storageVersion?: string;
  storageVersionHash?: string;
  /** kube-apiserver serves it without --runtime-config (GA, feature gate on by default). */
  servedByDefault: boolean;
}

export { builtinResourceTable } from './generated/resources.js';

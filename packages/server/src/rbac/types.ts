/**
 * The vocabulary of kube's authorizers (k8s.io/apiserver/pkg/authorization/authorizer) and of
 * the RBAC API objects they read (k8s.io/api/rbac/v1), as plain data.
 */
import type { UserInfo } from '../registry/types.js';

export type { UserInfo };

/** rbacv1.PolicyRule. */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** rbacv1.Subject: kind User, Group or ServiceAccount. */
export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

/** rbacv1.RoleRef: kind Role or ClusterRole. */
export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

interface RBACMeta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface Role {
  metadata: RBACMeta;
  rules?: PolicyRule[] | null;
}

export interface ClusterRole extends Role {
  aggregationRule?: { clusterRoleSelectors?: Array<{ matchLabels?: Record<string, string> | null; matchExpressions?: Array<{ key: string; operator: string; values?: string[] | null }> | null }> | null } | null;
}

export interface RoleBinding {
  metadata: RBACMeta;
  subjects?: Subject[] | null;
  roleRef: RoleRef;
}

export type ClusterRoleBinding = RoleBinding;

/**
 * authorizer.Attributes: what a request does. A resource request has verb, API group,
 * resource, subresource, name and namespace; a non-resource request has verb and path.
 */
export interface Attributes {
  user: UserInfo;
  verb: string;
  resourceRequest: boolean;
  namespace?: string;
  apiGroup?: string;
  apiVersion?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  path?: string;
}

/** authorizer.Decision. */
export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface AuthorizationResult {
  decision: Decision;
  /** Why, as kube writes it into a SubjectAccessReview's status.reason ('' when none). */
  reason: string;
  /** An evaluation error (status.evaluationError), e.g. a binding to a missing role. */
  error?: string;
}

/** authorizer.ResourceRuleInfo / NonResourceRuleInfo as SelfSubjectRulesReview lists them. */
export interface ResourceRuleInfo {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames: string[];
}

export interface NonResourceRuleInfo {
  verbs: string[];
  nonResourceURLs: string[];
}

export interface RulesResult {
  resourceRules: ResourceRuleInfo[];
  nonResourceRules: NonResourceRuleInfo[];
  /** True when an authorizer could not enumerate all of the user's permissions. */
  incomplete: boolean;
  error?: string;
}

/** authorizer.Authorizer plus authorizer.RuleResolver. */
export interface Authorizer {
  authorize(attrs: Attributes): Promise<AuthorizationResult>;
  rulesFor(user: UserInfo, namespace: string): Promise<RulesResult>;
}

/**
 * Where the RBAC objects come from (kube reads them from informers). Missing objects are
 * undefined; the resolver turns them into kube's NotFound errors.
 */
export interface RBACObjects {
  getRole(namespace: string, name: string): Promise<Role | undefined>;
  listRoleBindings(namespace: string): Promise<RoleBinding[]>;
  getClusterRole(name: string): Promise<ClusterRole | undefined>;
  /** Every ClusterRole: aggregated roles are resolved from the labels of the others. */
  listClusterRoles(): Promise<ClusterRole[]>;
  listClusterRoleBindings(): Promise<ClusterRoleBinding[]>;
}

export const rbacGroup = 'rbac.authorization.k8s.io';
/** user.SystemPrivilegedGroup: kube-apiserver allows its members everything before any authorizer runs. */
export const systemPrivilegedGroup = 'system:masters';
export const allAuthenticated = 'system:authenticated';
export const allUnauthenticated = 'system:unauthenticated';
export const nodesGroup = 'system:nodes';
export const serviceAccountsGroup = 'system:serviceaccounts';

/**
 * RBAC as kube-apiserver evaluates it: rule matching, the rule resolver over stored Roles,
 * ClusterRoles and their bindings (aggregation included), the authorizer chain
 * (system:masters, then RBAC), and the bootstrap policy created at server start.
 *
 *   const authorizer = newAuthorizer(rbacObjectsFrom(lookup));
 *   const { decision, reason } = await authorizer.authorize({ user, verb: 'get', resourceRequest: true, namespace, apiGroup: '', resource: 'pods', name });
 */
export * from './types.js';
export { ruleAllows, rulesAllow, verbMatches, apiGroupMatches, resourceMatches, resourceNameMatches, nonResourceURLMatches } from './rules.js';
export { effectiveRules, isAggregated, sameRule } from './aggregation.js';
export { RuleResolver, appliesTo, appliesToUser, aggregateMessage, type RuleSource, type RuleVisitor } from './resolver.js';
export {
  RBACAuthorizer, PrivilegedGroupAuthorizer, AlwaysAllowAuthorizer, AlwaysDenyAuthorizer, ChainAuthorizer, newAuthorizer,
  authorizationModes, unsupportedAuthorizationModes, type AuthorizationMode,
} from './authorizer.js';
export { rbacObjectsFrom, type Lookup } from './source.js';
export { ensureBootstrapPolicy, bootstrapPolicy, type BootstrapPolicy, type EnsureResult } from './bootstrap/ensure.js';
export { memoryLookup, type MemoryLookup } from './memory.js';

/**
 * SelfSubjectRulesReview (pkg/registry/authorization/selfsubjectrulesreview): the requester's
 * rules in spec.namespace, answered as a new object (kube does not echo the spec), resource
 * and non-resource rules in the order the bindings grant them.
 */
import { newBadRequest } from '@windlass/machinery';
import { newAuthorizer, rbacObjectsFrom } from '../../../rbac/index.js';
import type { KindDefinition, KubeObject } from '../../types.js';
import { encodeAnswer } from './review.js';

export const selfSubjectRulesReviews: KindDefinition = {
  group: 'authorization.k8s.io', version: 'v1', resource: 'selfsubjectrulesreviews',
  async review(obj, ctx) {
    const namespace = ((obj.spec ?? {}) as { namespace?: string }).namespace ?? '';
    if (!namespace) throw newBadRequest('no namespace on request');
    const rules = await (ctx.authorizer ?? newAuthorizer(rbacObjectsFrom(ctx.lookup))).rulesFor(ctx.user, namespace);
    const status: Record<string, unknown> = {
      resourceRules: rules.resourceRules.map((r) => ({ verbs: r.verbs, apiGroups: r.apiGroups, resources: r.resources, resourceNames: r.resourceNames })),
      nonResourceRules: rules.nonResourceRules.map((r) => ({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs })),
      incomplete: rules.incomplete,
    };
    if (rules.error) status.evaluationError = rules.error;
    const answer: KubeObject = { metadata: {}, spec: {}, status };
    return encodeAnswer(answer, { group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectRulesReview' });
  },
};

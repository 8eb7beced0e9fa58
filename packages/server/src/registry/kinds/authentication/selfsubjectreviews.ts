/**
 * SelfSubjectReview (pkg/registry/authentication/selfsubjectreview): who the requester is,
 * as the authenticator saw them, in a new object stamped with the time of the answer.
 */
import type { KindDefinition, KubeObject } from '../../types.js';
import { encodeAnswer } from '../authorization/review.js';

export const selfSubjectReviews: KindDefinition = {
  group: 'authentication.k8s.io', version: 'v1', resource: 'selfsubjectreviews',
  async review(_obj, ctx) {
    const u = ctx.user;
    const extra: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(u.extra ?? {})) extra[k] = [...v];
    const answer: KubeObject = {
      metadata: { creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') },
      status: { userInfo: { username: u.name, uid: u.uid ?? '', groups: [...u.groups], extra } },
    };
    return encodeAnswer(answer, { group: 'authentication.k8s.io', version: 'v1', kind: 'SelfSubjectReview' });
  },
};

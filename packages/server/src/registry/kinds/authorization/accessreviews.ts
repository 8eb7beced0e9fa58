/**
 * SubjectAccessReview, LocalSubjectAccessReview and SelfSubjectAccessReview
 * (pkg/registry/authorization/*subjectaccessreview): the request object is answered with
 * status.allowed (and denied, reason, evaluationError) from the server's authorizer chain (its
 * --authorization-mode), or RBAC alone when the server runs without authentication.
 */
import { newBadRequest, type FieldError } from '@windlass/machinery';
import { newAuthorizer, rbacObjectsFrom, type UserInfo } from '../../../rbac/index.js';
import type { KindDefinition, KubeObject, ReviewContext } from '../../types.js';
import { attributesFrom, evaluationError, userFromSpec } from './attributes.js';
import { encodeAnswer, ensureRequestNamespace, reviewInvalid } from './review.js';
import {
  validateLocalSubjectAccessReview, validateSelfSubjectAccessReview, validateSubjectAccessReview, type AccessReviewSpec,
} from './validation.js';

const group = 'authorization.k8s.io';
const version = 'v1';

async function answer(obj: KubeObject, kind: string, user: UserInfo, ctx: ReviewContext): Promise<KubeObject> {
  const spec = (obj.spec ?? {}) as AccessReviewSpec;
  const result = await (ctx.authorizer ?? newAuthorizer(rbacObjectsFrom(ctx.lookup))).authorize(attributesFrom(user, spec));
  const status: Record<string, unknown> = { allowed: result.decision === 'Allow' };
  if (result.decision === 'Deny') status.denied = true;
  if (result.reason) status.reason = result.reason;
  const evalErr = evaluationError(result.error, spec);
  if (evalErr) status.evaluationError = evalErr;
  obj.status = status;
  return encodeAnswer(obj, { group, version, kind });
}

function refuse(errs: FieldError[]): void {
  if (errs.length > 0) throw reviewInvalid(group, errs);
}

export const subjectAccessReviews: KindDefinition = {
  group, version, resource: 'subjectaccessreviews',
  async review(obj, ctx) {
    ensureRequestNamespace(obj, ctx.namespace, false);
    const spec = (obj.spec ?? {}) as AccessReviewSpec;
    refuse(validateSubjectAccessReview(spec, obj.metadata));
    return answer(obj, 'SubjectAccessReview', userFromSpec(spec), ctx);
  },
};

export const localSubjectAccessReviews: KindDefinition = {
  group, version, resource: 'localsubjectaccessreviews',
  async review(obj, ctx) {
    if (!ctx.namespace) throw newBadRequest('namespace is required on this type: ');
    ensureRequestNamespace(obj, ctx.namespace, true);
    const spec = (obj.spec ?? {}) as AccessReviewSpec;
    refuse(validateLocalSubjectAccessReview(spec, obj.metadata));
    return answer(obj, 'LocalSubjectAccessReview', userFromSpec(spec), ctx);
  },
};

export const selfSubjectAccessReviews: KindDefinition = {
  group, version, resource: 'selfsubjectaccessreviews',
  async review(obj, ctx) {
    ensureRequestNamespace(obj, ctx.namespace, false);
    const spec = (obj.spec ?? {}) as AccessReviewSpec;
    refuse(validateSelfSubjectAccessReview(spec, obj.metadata));
    return answer(obj, 'SelfSubjectAccessReview', ctx.user, ctx);
  },
};

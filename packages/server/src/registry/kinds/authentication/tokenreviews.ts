/**
 * TokenReview (pkg/registry/authentication/tokenreview): the token is authenticated as a
 * request bearing it would be, for the audiences asked (the API audiences when none). Static
 * tokens are audience-agnostic, so, as kube wraps such authenticators, they only vouch for the
 * API server's own audiences; service account tokens answer for the audiences they carry, and a
 * refused one says why (its expiry, its deleted service account).
 */
import { newBadRequest } from '@windlass/machinery';
import type { KindDefinition, KubeObject, UserInfo } from '../../types.js';
import { encodeAnswer, ensureRequestNamespace } from '../authorization/review.js';

/**
 * kube-apiserver's --api-audiences, which default to its --service-account-issuer; Windlass
 * issues no service-account tokens, so this is kubeadm's issuer.
 */
export const apiAudiences: readonly string[] = ['https://kubernetes.default.svc.cluster.local'];

/** TokenReview's UserInfo of an authenticated user. */
function userOf(user: UserInfo): Record<string, unknown> {
  const extra: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(user.extra ?? {})) extra[k] = [...v];
  return { username: user.name, uid: user.uid ?? '', groups: [...user.groups], extra };
}

/** The bearer-token authenticator's answer to a token it does not accept. */
const invalidBearerToken = 'invalid bearer token';

export const tokenReviews: KindDefinition = {
  group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews',
  async review(obj, ctx) {
    ensureRequestNamespace(obj, ctx.namespace, false);
    const spec = (obj.spec ?? {}) as { token?: string; audiences?: string[] | null };
    if (!spec.token) throw newBadRequest('token is required for TokenReview in authentication');
    const gvk = { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenReview' };
    if (ctx.reviewToken) {
      const answer = await ctx.reviewToken(spec.token, spec.audiences ?? []);
      const status: Record<string, unknown> = { user: {} };
      if ('user' in answer) {
        status.authenticated = true;
        status.user = userOf(answer.user);
        if (answer.audiences.length > 0) status.audiences = answer.audiences;
      } else {
        status.error = answer.error;
      }
      obj.status = status;
      return encodeAnswer(obj as KubeObject, gvk);
    }
    if (!ctx.authenticate) return encodeAnswer(obj, gvk);
    const requested = spec.audiences && spec.audiences.length > 0 ? spec.audiences : apiAudiences;
    const audiences = requested.filter((a) => apiAudiences.includes(a));
    const user = audiences.length > 0 || requested.length === 0 ? ctx.authenticate(spec.token) : null;
    const status: Record<string, unknown> = { user: {} };
    if (user) {
      status.authenticated = true;
      status.user = userOf(user);
      if (audiences.length > 0) status.audiences = audiences;
    } else {
      status.error = invalidBearerToken;
    }
    obj.status = status;
    return encodeAnswer(obj as KubeObject, gvk);
  },
};

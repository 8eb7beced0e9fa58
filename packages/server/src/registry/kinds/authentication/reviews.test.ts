/**
 * TokenReview and SelfSubjectReview as kube-apiserver answers them: the bearer authenticator's
 * error for an unknown token, audiences limited to the API server's own, the requester's
 * identity in a fresh object.
 */
import { isStatusError } from '@windlass/machinery';
import { memoryLookup } from '../../../rbac/index.js';
import type { KubeObject, ReviewContext, UserInfo } from '../../types.js';
import { selfSubjectReviews } from './selfsubjectreviews.js';
import { apiAudiences, tokenReviews } from './tokenreviews.js';

const admin: UserInfo = { name: 'admin', uid: 'admin-uid', groups: ['system:masters', 'system:authenticated'], extra: { scopes: ['a'] } };
const ctx: ReviewContext = {
  user: admin, namespace: '', lookup: memoryLookup().lookup,
  authenticate: (token) => (token === 'good' ? admin : null),
};
const review = (spec: object): KubeObject => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata: {}, spec });

describe('TokenReview', () => {
  it('authenticates a known token for the API audiences', async () => {
    expect(await tokenReviews.review!(review({ token: 'good' }), ctx)).toEqual({
      kind: 'TokenReview', apiVersion: 'authentication.k8s.io/v1', metadata: { creationTimestamp: null }, spec: { token: 'good' },
      status: {
        authenticated: true, audiences: [...apiAudiences],
        user: { username: 'admin', uid: 'admin-uid', groups: ['system:masters', 'system:authenticated'], extra: { scopes: ['a'] } },
      },
    });
    const both = await tokenReviews.review!(review({ token: 'good', audiences: ['vault', apiAudiences[0]] }), ctx);
    expect((both.status as { audiences: string[] }).audiences).toEqual([apiAudiences[0]]);
  });

  it('answers the bearer authenticator\'s error for an unknown token or foreign audiences', async () => {
    const unknown = await tokenReviews.review!(review({ token: 'golden-token-that-nobody-issued' }), ctx);
    expect(unknown.status).toEqual({ error: 'invalid bearer token', user: {} });
    const foreign = await tokenReviews.review!(review({ token: 'good', audiences: ['https://kubernetes.default.svc', 'vault'] }), ctx);
    expect(foreign.status).toEqual({ error: 'invalid bearer token', user: {} });
  });

  it('needs a token', async () => {
    const err = await tokenReviews.review!(review({ audiences: ['x'] }), ctx).catch((e: unknown) => e);
    expect(isStatusError(err) && [err.code, err.message]).toEqual([400, 'token is required for TokenReview in authentication']);
  });
});

describe('SelfSubjectReview', () => {
  it('answers who the requester is, stamped now', async () => {
    const before = Date.now() - 1000;
    const out = await selfSubjectReviews.review!({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: {} }, ctx);
    expect(out).toEqual({
      kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1', metadata: { creationTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) },
      status: { userInfo: { username: 'admin', uid: 'admin-uid', groups: ['system:masters', 'system:authenticated'], extra: { scopes: ['a'] } } },
    });
    expect(Date.parse(out.metadata.creationTimestamp as string)).toBeGreaterThanOrEqual(before);
  });
});

/**
 * The authorization review kinds answered as kube-apiserver 1.35 answers them: the request
 * echoed with its status, kube's 422s (with the empty kind kube prints), the request-namespace
 * rule, and SelfSubjectRulesReview's listing.
 */
import { isStatusError, type StatusError } from '@windlass/machinery';
import { ensureBootstrapPolicy, memoryLookup } from '../../../rbac/index.js';
import type { KindDefinition, KubeObject, ObjectMeta, ReviewContext, UserInfo } from '../../types.js';
import { localSubjectAccessReviews, selfSubjectAccessReviews, subjectAccessReviews } from './accessreviews.js';
import { selfSubjectRulesReviews } from './rulesreview.js';

const admin: UserInfo = { name: 'admin', uid: 'admin', groups: ['system:masters', 'system:authenticated'] };

async function context(user: UserInfo = admin, namespace = ''): Promise<ReviewContext & { m: ReturnType<typeof memoryLookup> }> {
  const m = memoryLookup();
  await ensureBootstrapPolicy(m.lookup);
  return { user, namespace, lookup: m.lookup, m };
}

const body = (kind: string, spec: object, metadata: ObjectMeta = {}): KubeObject => ({ apiVersion: 'authorization.k8s.io/v1', kind, metadata, spec });

async function refused(def: KindDefinition, obj: KubeObject, ctx: ReviewContext): Promise<StatusError> {
  try {
    await def.review!(obj, ctx);
  } catch (err) {
    if (isStatusError(err)) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('SubjectAccessReview', () => {
  it('answers the request with status.allowed and RBAC\'s reason', async () => {
    const ctx = await context();
    ctx.m.add('rbac.authorization.k8s.io', 'rolebindings', {
      metadata: { name: 'view', namespace: 'ns1' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'viewer' }],
    });
    const spec = { resourceAttributes: { namespace: 'ns1', resource: 'configmaps', verb: 'get' }, user: 'viewer' };
    expect(await subjectAccessReviews.review!(body('SubjectAccessReview', spec), ctx)).toEqual({
      kind: 'SubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', metadata: { creationTimestamp: null }, spec,
      status: { allowed: true, reason: 'RBAC: allowed by RoleBinding "view/ns1" of ClusterRole "view" to User "viewer"' },
    });
    const denied = await subjectAccessReviews.review!(body('SubjectAccessReview', { ...spec, resourceAttributes: { ...spec.resourceAttributes, verb: 'delete' } }), ctx);
    expect(denied.status).toEqual({ allowed: false });
  });

  it('system:masters is allowed without a reason', async () => {
    const spec = { groups: ['system:masters', 'system:authenticated'], resourceAttributes: { group: 'apps', name: 'web', namespace: 'ns1', resource: 'deployments', verb: 'delete' }, user: 'ops' };
    expect((await subjectAccessReviews.review!(body('SubjectAccessReview', spec), await context())).status).toEqual({ allowed: true });
  });

  it.each([
    [{ resourceAttributes: { resource: 'pods', verb: 'get' } }, 'spec.user', 'Invalid value: "": at least one of user or group must be specified'],
    [{ user: 'u' }, 'spec.resourceAttributes', 'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified'],
    [{ nonResourceAttributes: { path: '/x', verb: 'get' }, resourceAttributes: { resource: 'pods', verb: 'get' }, user: 'u' },
      'spec.nonResourceAttributes', 'Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:"get"}: cannot be specified in combination with resourceAttributes'],
  ])('refuses %j with kube\'s 422', async (spec, field, detail) => {
    const err = await refused(subjectAccessReviews, body('SubjectAccessReview', spec), await context());
    expect(err.status).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 422, reason: 'Invalid',
      message: `.authorization.k8s.io "" is invalid: ${field}: ${detail}`,
      details: { group: 'authorization.k8s.io', causes: [{ reason: 'FieldValueInvalid', message: detail, field }] },
    });
  });

  it('lists every error, and refuses metadata other than empty', async () => {
    const err = await refused(subjectAccessReviews, body('SubjectAccessReview', {}, { name: 'x' }), await context());
    expect(err.status.message).toBe('.authorization.k8s.io "" is invalid: [spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified, ' +
      'spec.user: Invalid value: "": at least one of user or group must be specified, ' +
      'metadata: Invalid value: v1.ObjectMeta{Name:"x", GenerateName:"", Namespace:"", SelfLink:"", UID:"", ResourceVersion:"", Generation:0, ' +
      'CreationTimestamp:time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC), DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:(*int64)(nil), ' +
      'Labels:map[string]string(nil), Annotations:map[string]string(nil), OwnerReferences:[]v1.OwnerReference(nil), Finalizers:[]string(nil), ' +
      'ManagedFields:[]v1.ManagedFieldsEntry(nil)}: must be empty]');
    // A creationTimestamp of null (what Go clients send) is empty metadata.
    const ok = await subjectAccessReviews.review!(body('SubjectAccessReview', { user: 'u', nonResourceAttributes: { path: '/x', verb: 'get' } }, { creationTimestamp: null }), await context());
    expect(ok.status).toEqual({ allowed: false });
  });

  it('validates selector attributes and reports unparsable ones in evaluationError', async () => {
    const ctx = await context();
    const attrs = { resource: 'pods', verb: 'list', namespace: 'ns1' };
    const both = await refused(subjectAccessReviews, body('SubjectAccessReview', {
      user: 'u', resourceAttributes: { ...attrs, labelSelector: { rawSelector: 'a=b', requirements: [{ key: 'a', operator: 'In', values: ['b'] }] }, fieldSelector: {} },
    }), ctx);
    expect(both.status.details?.causes).toEqual([
      { reason: 'FieldValueRequired', field: 'spec.resourceAttributes.fieldSelector.requirements', message: 'Required value: when spec.resourceAttributes.fieldSelector is specified, requirements or rawSelector is required' },
      { reason: 'FieldValueInvalid', field: 'spec.resourceAttributes.labelSelector.rawSelector', message: 'Invalid value: "a=b": may not specified at the same time as requirements' },
    ]);
    const parsed = await subjectAccessReviews.review!(body('SubjectAccessReview', {
      user: 'u', resourceAttributes: { ...attrs, labelSelector: { rawSelector: 'a in (' }, fieldSelector: { requirements: [{ key: 'spec.nodeName', operator: 'Exists' }] } },
    }), ctx);
    expect(parsed.status).toEqual({
      allowed: false,
      evaluationError: 'spec.resourceAttributes.fieldSelector ignored due to parse error; spec.resourceAttributes.labelSelector ignored due to parse error',
    });
  });

  it('drops a namespace sent on the cluster-scoped review', async () => {
    const out = await subjectAccessReviews.review!(body('SubjectAccessReview', { user: 'u', nonResourceAttributes: { path: '/x', verb: 'get' } }, { namespace: 'ns1' }), await context());
    expect(out.metadata).toEqual({ creationTimestamp: null });
  });
});

describe('LocalSubjectAccessReview', () => {
  it('answers in the request namespace', async () => {
    const ctx = await context(admin, 'ns1');
    const spec = { resourceAttributes: { namespace: 'ns1', resource: 'secrets', verb: 'get' }, user: 'nobody' };
    expect(await localSubjectAccessReviews.review!(body('LocalSubjectAccessReview', spec, { namespace: 'ns1' }), ctx)).toEqual({
      kind: 'LocalSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', metadata: { creationTimestamp: null, namespace: 'ns1' }, spec, status: { allowed: false },
    });
  });

  it('refuses another namespace in the attributes, and non-resource attributes', async () => {
    const ctx = await context(admin, 'ns1');
    const err = await refused(localSubjectAccessReviews, body('LocalSubjectAccessReview', { resourceAttributes: { namespace: 'kube-system', resource: 'secrets', verb: 'get' }, user: 'nobody' }), ctx);
    expect(err.status.message).toBe('.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "kube-system": must match metadata.namespace');
    const nonResource = await refused(localSubjectAccessReviews, body('LocalSubjectAccessReview', { nonResourceAttributes: { path: '/api', verb: 'get' }, user: 'nobody' }), ctx);
    expect(nonResource.status.message).toBe('.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/api", Verb:"get"}: disallowed on this kind of request');
  });

  it('refuses an object of another namespace than the request\'s (400)', async () => {
    const err = await refused(localSubjectAccessReviews, body('LocalSubjectAccessReview', { user: 'u', resourceAttributes: { namespace: 'b' } }, { namespace: 'b' }), await context(admin, 'a'));
    expect(err.code).toBe(400);
    expect(err.status.message).toBe('the namespace of the provided object does not match the namespace sent on the request');
  });
});

describe('SelfSubjectAccessReview', () => {
  it('judges the requester', async () => {
    const viewer = { name: 'viewer', groups: ['system:authenticated'] };
    const spec = { resourceAttributes: { group: 'apps', namespace: 'ns1', resource: 'deployments', verb: 'create' } };
    expect((await selfSubjectAccessReviews.review!(body('SelfSubjectAccessReview', spec), await context())).status).toEqual({ allowed: true });
    expect((await selfSubjectAccessReviews.review!(body('SelfSubjectAccessReview', spec), await context(viewer))).status).toEqual({ allowed: false });
    const discovery = await selfSubjectAccessReviews.review!(body('SelfSubjectAccessReview', { nonResourceAttributes: { path: '/apis/apps', verb: 'get' } }), await context(viewer));
    expect(discovery.status).toEqual({ allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"' });
  });

  it('needs exactly one kind of attributes', async () => {
    const err = await refused(selfSubjectAccessReviews, body('SelfSubjectAccessReview', {}), await context());
    expect(err.status.message).toBe('.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified');
  });
});

describe('SelfSubjectRulesReview', () => {
  it('lists the requester\'s rules in a new object without the spec', async () => {
    const out = await selfSubjectRulesReviews.review!(body('SelfSubjectRulesReview', { namespace: 'ns1' }), await context({ name: 'viewer', groups: ['system:authenticated'] }));
    expect(out).toEqual({
      kind: 'SelfSubjectRulesReview', apiVersion: 'authorization.k8s.io/v1', metadata: { creationTimestamp: null }, spec: {},
      status: {
        resourceRules: [
          { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
          { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'] },
        ],
        nonResourceRules: [
          { verbs: ['get'], nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'] },
          { verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] },
        ],
        incomplete: false,
      },
    });
  });

  it('needs a namespace', async () => {
    const err = await refused(selfSubjectRulesReviews, body('SelfSubjectRulesReview', {}), await context());
    expect(err.code).toBe(400);
    expect(err.status.message).toBe('no namespace on request');
  });
});

/**
 * AdmissionReview requests and the checks on their answers (kube's webhook/request package):
 * the first version the webhook lists of admission.k8s.io/v1 and v1beta1, a fresh uid per call,
 * the object and old object in the version the webhook is called with, and the request's own
 * kind and resource. Answers must be the same version's AdmissionReview with the same uid;
 * validating webhooks may not patch.
 */
import { randomUUID } from 'node:crypto';
import type { DynamicAdmissionAttributes, KubeObject, ResourceDefinition } from '../../registry/types.js';
import { gvrOf, requestNamespace, type GroupVersionResource } from './matching.js';

export interface ReviewRequest {
  uid: string;
  apiVersion: string;
  body: Record<string, unknown>;
  /** The `request` field (also what matchConditions see as `request`). */
  request: Record<string, unknown>;
}

export interface ReviewResponse {
  allowed: boolean;
  result?: { code?: number; reason?: string; message?: string; status?: string; details?: unknown };
  warnings: string[];
  patch?: Buffer;
  patchType?: string;
}

const kindOf = (def: ResourceDefinition) => ({ group: def.group, version: def.version, kind: def.kind });

/** kube's CreateAdmissionRequest, for the invocation's version of the objects. */
export function admissionRequest(uid: string, a: DynamicAdmissionAttributes, def: ResourceDefinition, resource: GroupVersionResource, obj: KubeObject | undefined, old: KubeObject | undefined): Record<string, unknown> {
  const requested = a.request ?? a.def;
  const userInfo: Record<string, unknown> = { username: a.user.name };
  if (a.user.uid) userInfo.uid = a.user.uid;
  if (a.user.groups.length > 0) userInfo.groups = a.user.groups;
  if (a.user.extra && Object.keys(a.user.extra).length > 0) userInfo.extra = a.user.extra;
  const request: Record<string, unknown> = {
    uid,
    kind: kindOf(def),
    resource,
    requestKind: kindOf(requested),
    requestResource: gvrOf(requested),
    name: a.name,
    namespace: requestNamespace(a),
    operation: a.operation,
    userInfo,
    object: obj ?? null,
    oldObject: old ?? null,
    dryRun: a.dryRun,
    options: a.options,
  };
  // Go's omitempty: no subResource fields for the main resource, no name or namespace when empty.
  if (a.subresource) {
    request.subResource = a.subresource;
    request.requestSubResource = a.subresource;
  }
  if (!a.name) delete request.name;
  if (!request.namespace) delete request.namespace;
  return request;
}

/** The first AdmissionReview version the webhook accepts, in its own order. */
export function reviewVersion(versions: string[] | undefined): 'v1' | 'v1beta1' | undefined {
  for (const v of versions ?? []) if (v === 'v1' || v === 'v1beta1') return v;
  return undefined;
}

export function newReview(version: 'v1' | 'v1beta1', request: Record<string, unknown>): ReviewRequest {
  const apiVersion = `admission.k8s.io/${version}`;
  return { uid: request.uid as string, apiVersion, request, body: { kind: 'AdmissionReview', apiVersion, request } };
}

export function newUID(): string {
  return randomUUID();
}

const gvkString = (apiVersion: unknown, kind: unknown) => `${typeof apiVersion === 'string' ? apiVersion : ''}, Kind=${typeof kind === 'string' ? kind : ''}`;

/** kube's VerifyAdmissionResponse; throws an Error with its message for an invalid answer. */
export function verifyResponse(review: ReviewRequest, answer: unknown, mutating: boolean): ReviewResponse {
  const r = (answer && typeof answer === 'object' ? answer : {}) as Record<string, unknown>;
  const response = r.response as Record<string, unknown> | undefined | null;
  if (review.apiVersion === 'admission.k8s.io/v1') {
    if (r.apiVersion !== review.apiVersion || r.kind !== 'AdmissionReview') {
      throw new Error(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${gvkString(r.apiVersion, r.kind)}`);
    }
  }
  if (!response || typeof response !== 'object') throw new Error('webhook response was absent');
  if (review.apiVersion === 'admission.k8s.io/v1' && (response.uid ?? '') !== review.uid) throw new Error(`expected response.uid=${JSON.stringify(review.uid)}, got ${JSON.stringify(response.uid ?? '')}`);
  const patch = typeof response.patch === 'string' && response.patch !== '' ? Buffer.from(response.patch, 'base64') : undefined;
  const patchType = response.patchType as string | undefined | null;
  const out: ReviewResponse = {
    allowed: response.allowed === true,
    result: (response.status ?? undefined) as ReviewResponse['result'],
    warnings: Array.isArray(response.warnings) ? response.warnings.filter((w): w is string => typeof w === 'string') : [],
  };
  if (review.apiVersion === 'admission.k8s.io/v1beta1') {
    // v1beta1 had no patchType to check: any patch is a JSONPatch.
    if (mutating && patch && patch.length > 0) Object.assign(out, { patch, patchType: 'JSONPatch' });
    return out;
  }
  if (mutating) {
    if (patch && patchType == null) throw new Error('webhook returned response.patch but not response.patchType');
    if (!patch && patchType != null) throw new Error('webhook returned response.patchType but not response.patch');
    if (patchType != null && patchType === '') throw new Error(`webhook returned invalid response.patchType of ""`);
    if (patch) Object.assign(out, { patch, patchType });
  } else {
    if (patch) throw new Error('validating webhook may not return response.patch');
    if (patchType != null) throw new Error('validating webhook may not return response.patchType');
  }
  return out;
}

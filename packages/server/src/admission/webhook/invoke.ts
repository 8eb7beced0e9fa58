/**
 * What calling one webhook takes, shared by the mutating and validating dispatchers: the object
 * in the version the webhook is called with, its match conditions, the dry-run check, the
 * AdmissionReview round trip, and kube's errors (webhook/errors, util/webhook ErrCallingWebhook).
 */
import { failure, newBadRequest, newForbidden, newInternalError, StatusError, type StatusReason } from '@windlass/machinery';
import type { DynamicAdmissionAttributes, KubeObject, ResourceDefinition } from '../../registry/types.js';
import { CallError, postJSON, type ServiceResolver } from './client.js';
import { evaluateMatchConditions } from '../matchconditions.js';
import { toCelValue } from '../../cel/values.js';
import { authorizerBindings, AuthzContext, evaluateWithAuthorizer, requestResourceOf } from '../../cel/authz.js';
import type { Authorizer } from '../../rbac/types.js';
import type { Invocation } from './matching.js';
import { admissionRequest, newReview, newUID, reviewVersion, verifyResponse, type ReviewResponse } from './review.js';

/** A failure to call a webhook (kube's ErrCallingWebhook): the failurePolicy decides. */
export class ErrCallingWebhook extends Error {
  constructor(readonly webhook: string, readonly reason: string) {
    super(`failed calling webhook "${webhook}": ${reason}`);
  }
}

/** kube's ToStatusErr: a webhook's refusal, with its code (at least 400), reason and message. */
export function toStatusErr(webhook: string, result: ReviewResponse['result']): StatusError {
  const deniedBy = `admission webhook "${webhook}" denied the request`;
  const r = result ?? {};
  const code = typeof r.code === 'number' && r.code >= 400 ? r.code : 400;
  const message = r.message ? `${deniedBy}: ${r.message}` : r.reason ? `${deniedBy}: ${r.reason}` : `${deniedBy} without explanation`;
  const err = failure(code, (r.reason ?? '') as StatusReason, message);
  if (!r.reason) delete err.status.reason;
  if (r.details && typeof r.details === 'object') err.status.details = r.details as StatusError['status']['details'];
  return err;
}

/** kube's NewDryRunUnsupportedErr: a dry run never reaches a webhook that may have side effects. */
export function dryRunUnsupported(webhook: string): StatusError {
  return newBadRequest(`admission webhook "${webhook}" does not support dry run`);
}

/** Converts between the stored form and one served version (the invocation's). */
export interface VersionConverter {
  toVersion(obj: KubeObject, def: ResourceDefinition): Promise<KubeObject>;
  fromVersion(obj: KubeObject, def: ResourceDefinition): Promise<KubeObject>;
}

/** The identity for the stored version; a version served by conversion converts, asynchronously where it calls out. */
export function versionConverter(storage: ResourceDefinition): VersionConverter {
  return {
    async toVersion(obj, def) {
      const c = def.conversion;
      if (def === storage || !c) return obj;
      return c.convert ? (await c.convert([obj], false))[0] : c.fromStorage(obj);
    },
    async fromVersion(obj, def) {
      const c = def.conversion;
      if (def === storage || !c) return obj;
      return c.convert ? (await c.convert([obj], true))[0] : c.toStorage(obj);
    },
  };
}

export interface Versioned {
  obj?: KubeObject;
  old?: KubeObject;
}

/**
 * kube's match conditions, evaluated on the versioned objects: false skips the webhook, an error
 * under failurePolicy Fail refuses the request as Forbidden.
 */
export async function passesMatchConditions(inv: Invocation, a: DynamicAdmissionAttributes, v: Versioned, authorizer: Authorizer | undefined): Promise<boolean> {
  const hook = inv.accessor.webhook;
  if (!hook.matchConditions?.length) return true;
  const request = admissionRequest('', a, inv.def, inv.resource, undefined, undefined);
  delete request.uid;
  const authz = new AuthzContext(a.user, authorizer);
  const bindings = {
    object: toCelValue(v.obj), oldObject: toCelValue(v.old), request: toCelValue(request),
    ...authorizerBindings(authz, requestResourceOf(a)),
  };
  const result = await evaluateWithAuthorizer(authz, () => evaluateMatchConditions(hook.matchConditions!, bindings, hook.failurePolicy ?? 'Fail'));
  if ('error' in result) {
    const def = a.request ?? a.def;
    throw newForbidden({ group: def.group, resource: def.resource }, a.name, result.error);
  }
  return result.matches;
}

/**
 * One AdmissionReview round trip. Throws the dry-run refusal, ErrCallingWebhook for what the
 * failurePolicy governs, or the webhook's refusal; answers the verified response otherwise.
 */
export async function callWebhook(inv: Invocation, a: DynamicAdmissionAttributes, v: Versioned, resolver: ServiceResolver): Promise<ReviewResponse> {
  const hook = inv.accessor.webhook;
  if (a.dryRun) {
    if (hook.sideEffects === undefined) throw new ErrCallingWebhook(hook.name, 'Webhook SideEffects is nil');
    if (hook.sideEffects !== 'None' && hook.sideEffects !== 'NoneOnDryRun') throw dryRunUnsupported(hook.name);
  }
  const version = reviewVersion(hook.admissionReviewVersions);
  if (!version) throw new ErrCallingWebhook(hook.name, 'could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)');
  const review = newReview(version, admissionRequest(newUID(), a, inv.def, inv.resource, v.obj, v.old));
  let answer: unknown;
  try {
    answer = await postJSON(hook.clientConfig, review.body, hook.timeoutSeconds ?? 10, resolver);
  } catch (err) {
    if (err instanceof CallError || err instanceof StatusError) throw new ErrCallingWebhook(hook.name, `failed to call webhook: ${err.message}`);
    throw err;
  }
  let response: ReviewResponse;
  try {
    response = verifyResponse(review, answer, inv.accessor.mutating);
  } catch (err) {
    throw new ErrCallingWebhook(hook.name, `received invalid webhook response: ${(err as Error).message}`);
  }
  for (const w of response.warnings) a.warn(w);
  if (!response.allowed) throw toStatusErr(hook.name, response.result);
  return response;
}

/** What a call error becomes: nothing under failurePolicy Ignore, kube's 500 under Fail. */
export function failClosed(inv: Invocation, err: unknown): StatusError | undefined {
  if (!(err instanceof ErrCallingWebhook)) throw err;
  if (inv.accessor.webhook.failurePolicy === 'Ignore') return undefined;
  return newInternalError(err);
}

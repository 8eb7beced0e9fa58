/**
 * A CRD's `Webhook` conversion strategy (kube's apiextensions-apiserver
 * pkg/apiserver/conversion/webhook_converter.go): objects not already in the desired version go
 * to the webhook in one ConversionReview (v1 or v1beta1, the first the CRD's
 * conversionReviewVersions lists); the answer must hold as many objects, each of the desired
 * apiVersion and the same kind, name, namespace and uid. The converted object keeps the original
 * metadata except labels and annotations, which the webhook may change. Failures are kube's
 * `conversion webhook for <group/version, Kind=kind> failed: …`, answered as 500 Internal errors.
 */
import { randomUUID } from 'node:crypto';
import { fieldErrorString, newInternalError, validateLabels } from '@windlass/machinery';
import type { KubeObject } from '../registry/types.js';
import { CallError, postJSON, type ServiceResolver } from '../admission/webhook/client.js';
import type { ClientConfig } from '../admission/webhook/types.js';
import type { CRD } from './types.js';

export interface ConversionWebhook {
  clientConfig: ClientConfig;
  conversionReviewVersions?: string[];
}

/** kube's webhook converter has no per-call timeout of its own beyond its client's 30 seconds. */
const conversionTimeoutSeconds = 30;

export function conversionWebhookOf(crd: CRD): ConversionWebhook | undefined {
  const conversion = crd.spec.conversion as { strategy?: string; webhook?: ConversionWebhook } | undefined;
  return conversion?.strategy === 'Webhook' && conversion.webhook?.clientConfig ? conversion.webhook : undefined;
}

const gvk = (obj: KubeObject) => `${obj.apiVersion ?? ''}, Kind=${obj.kind ?? ''}`;

/**
 * Converts objects to `desiredAPIVersion` through the webhook. `resolver` reaches service
 * references (the admission webhooks' resolver).
 */
export async function convertByWebhook(webhook: ConversionWebhook, objs: KubeObject[], desiredAPIVersion: string, resolver: () => ServiceResolver | undefined): Promise<KubeObject[]> {
  const pending = objs.map((o, i) => ({ o, i })).filter(({ o }) => o.apiVersion !== desiredAPIVersion);
  if (pending.length === 0) return objs;
  // Errors name the input's kind: a list's when several objects go at once, as kube converts lists.
  const first = pending[0].o;
  const subject = objs.length > 1 ? `${first.apiVersion ?? ''}, Kind=${first.kind ?? ''}List` : gvk(first);
  const failed = (message: string) => newInternalError(`conversion webhook for ${subject} failed: ${message}`);
  const version = (webhook.conversionReviewVersions ?? []).find((v) => v === 'v1' || v === 'v1beta1');
  if (!version) throw newInternalError('no supported conversion review versions');
  const uid = randomUUID();
  const apiVersion = `apiextensions.k8s.io/${version}`;
  const review = { kind: 'ConversionReview', apiVersion, request: { uid, desiredAPIVersion, objects: pending.map(({ o }) => o) } };
  const r = resolver();
  if (!r && webhook.clientConfig.service) throw failed('no service resolver');
  let answer: Record<string, unknown>;
  try {
    answer = (await postJSON(webhook.clientConfig, review, conversionTimeoutSeconds, r!, false)) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof CallError) throw failed(err.message);
    throw err;
  }
  const converted = convertedObjects(answer, version, uid);
  if (typeof converted === 'string') throw failed(converted);
  if (converted.length !== pending.length) {
    if (objs.length === 1) throw failed('no objects returned');
    throw newInternalError(`conversion webhook for ${subject} returned ${converted.length} objects, expected ${pending.length}`);
  }
  const out = [...objs];
  pending.forEach(({ o, i }, n) => {
    const c = converted[n];
    const where = objs.length > 1 ? `invalid converted object at index ${n}` : 'invalid object at index 0';
    if (!c || typeof c !== 'object' || Array.isArray(c)) throw newInternalError(`conversion webhook for ${subject} returned ${where}: not an object`);
    if (c.apiVersion !== desiredAPIVersion) throw newInternalError(`conversion webhook for ${subject} returned ${where}: invalid groupVersion (expected ${desiredAPIVersion}, received ${c.apiVersion ?? ''})`);
    if (c.kind !== o.kind) throw newInternalError(`conversion webhook for ${subject} returned ${where}: invalid kind (expected ${o.kind}, received ${c.kind ?? ''})`);
    const invalid = sameIdentity(o, c) ?? restoreObjectMeta(o, c);
    if (invalid) throw newInternalError(`conversion webhook for ${subject} returned ${objs.length > 1 ? `invalid converted object at index ${n}` : 'invalid object'}: ${invalid}`);
    out[i] = c;
  });
  return out;
}

function convertedObjects(answer: Record<string, unknown>, version: string, uid: string): KubeObject[] | string {
  if (version === 'v1' && (answer.apiVersion !== 'apiextensions.k8s.io/v1' || answer.kind !== 'ConversionReview')) {
    return `expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${answer.apiVersion ?? ''}, Kind=${answer.kind ?? ''}`;
  }
  const response = answer.response as { uid?: string; result?: { status?: string; message?: string }; convertedObjects?: KubeObject[] } | undefined;
  if (!response || typeof response !== 'object') return 'no response provided';
  if (version === 'v1' && (response.uid ?? '') !== uid) return `expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(response.uid ?? '')}`;
  const status = response.result?.status ?? '';
  if (status !== 'Success') return response.result?.message ? response.result.message : `response.result.status was '${status}', not 'Success'`;
  return response.convertedObjects ?? [];
}

/** kube's validateConvertedObject. */
function sameIdentity(a: KubeObject, b: KubeObject): string | undefined {
  const ma = a.metadata ?? {}, mb = (b.metadata ?? {}) as KubeObject['metadata'];
  if ((ma.name ?? '') !== (mb.name ?? '')) return `must have the same name: ${ma.name ?? ''} != ${mb.name ?? ''}`;
  if ((ma.namespace ?? '') !== (mb.namespace ?? '')) return `must have the same namespace: ${ma.namespace ?? ''} != ${mb.namespace ?? ''}`;
  if ((ma.uid ?? '') !== (mb.uid ?? '')) return `must have the same UID: ${ma.uid ?? ''} != ${mb.uid ?? ''}`;
  return undefined;
}

/** kube's restoreObjectMeta: the original metadata, with the webhook's labels and annotations. */
function restoreObjectMeta(original: KubeObject, converted: KubeObject): string | undefined {
  const response = converted.metadata as unknown;
  if (response === undefined) return 'missing metadata in converted object';
  if (!response || typeof response !== 'object' || Array.isArray(response)) return `invalid metadata of type ${typeof response} in converted object`;
  const meta = structuredClone(original.metadata ?? {}) as Record<string, unknown>;
  for (const field of ['labels', 'annotations'] as const) {
    const value = (response as Record<string, unknown>)[field];
    if (value === undefined || value === null) {
      delete meta[field];
      continue;
    }
    if (typeof value !== 'object' || Array.isArray(value)) return `invalid metadata.${field} of type ${typeof value} in converted object`;
    for (const [k, v] of Object.entries(value)) if (typeof v !== 'string') return `metadata.${field}[${k}] must be a string, but is ${typeof v} in converted object`;
    if (field === 'labels') {
      const errs = validateLabels(value as Record<string, string>, 'metadata.labels').map(fieldErrorString);
      if (errs.length > 0) return errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`;
    }
    meta[field] = value;
  }
  converted.metadata = meta as KubeObject['metadata'];
  return undefined;
}

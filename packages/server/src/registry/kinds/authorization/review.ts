/**
 * What the review kinds (authorization and authentication) share: kube's 422 for a refused
 * review, the request-namespace rule of kube's create handler, the answer written as kube's
 * Go structs serialize, and Go's `%#v` of the values their validation messages print.
 */
import { failure, fieldErrorString, goQuote, newBadRequest, type FieldError, type StatusError } from '@windlass/machinery';
import { goEncoderFor, loadedSchemas, loadGoTypes, loadSchemas } from '@windlass/schemas';
import type { KubeObject, ObjectMeta } from '../../types.js';

/**
 * The REST storages of the reviews call NewInvalid with the kind of the decoded internal
 * object, which is empty: `.authorization.k8s.io "" is invalid: …`, details without kind or name.
 */
export function reviewInvalid(group: string, errs: FieldError[]): StatusError {
  const list = errs.length === 1 ? fieldErrorString(errs[0]) : `[${errs.map(fieldErrorString).join(', ')}]`;
  return failure(422, 'Invalid', `.${group} "" is invalid: ${list}`, {
    group,
    causes: errs.map((e) => ({ reason: e.type, message: e.detail, field: e.field })),
  });
}

/** field.Invalid with the value already rendered as Go's error formatting would (`"x"`, `authorization.X{…}`, `"null"`). */
export function invalidRendered(field: string, rendered: string, msg: string): FieldError {
  return { type: 'FieldValueInvalid', field, detail: `Invalid value: ${rendered}: ${msg}` };
}

/** A string value as field errors print it (%q). */
export const goString = (s: string | undefined): string => goQuote(s ?? '');

/** A nil pointer, as field errors print it. */
export const goNil = '"null"';

/**
 * kube's create handler (rest.EnsureObjectNamespaceMatchesRequestNamespace): a namespaced
 * object takes the request's namespace or must already name it; a cluster-scoped one loses any.
 */
export function ensureRequestNamespace(obj: KubeObject, requestNamespace: string, namespaced: boolean): void {
  obj.metadata ??= {};
  const expected = namespaced ? requestNamespace : '';
  const ns = obj.metadata.namespace ?? '';
  if (ns === expected) return;
  if (ns === '') obj.metadata.namespace = expected;
  else if (expected === '') delete obj.metadata.namespace;
  else throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
}

/** The answer as kube serializes it: `creationTimestamp: null`, empty omitempty fields left out. */
export async function encodeAnswer(obj: KubeObject, gvk: { group: string; version: string; kind: string }): Promise<KubeObject> {
  const [schemas] = await Promise.all([loadedSchemas() ?? loadSchemas(), loadGoTypes()]);
  goEncoderFor(schemas, gvk)?.(obj as never);
  // Go writes the struct's fields in order: kind, apiVersion, metadata, spec, status.
  const { metadata, spec, status, ...rest } = obj;
  delete rest.kind;
  delete rest.apiVersion;
  const out: KubeObject = { kind: gvk.kind, apiVersion: gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version, metadata };
  if (spec !== undefined) out.spec = spec;
  if (status !== undefined) out.status = status;
  return Object.assign(out, rest);
}

const isEmpty = (v: unknown) =>
  v === undefined || v === null || v === '' || v === 0 ||
  (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0);

/** Whether ObjectMeta equals Go's zero value, managedFields aside (apiequality.Semantic: nil and empty are equal). */
export function metaIsEmpty(meta: ObjectMeta | undefined, except: readonly string[] = []): boolean {
  if (!meta) return true;
  return Object.entries(meta).every(([k, v]) => k === 'managedFields' || except.includes(k) || isEmpty(v));
}

const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** time.Time's GoString; decoded times are in the server's Local zone. */
function goTime(v: unknown): string {
  if (typeof v !== 'string' || Number.isNaN(Date.parse(v))) return 'time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)';
  const d = new Date(v);
  const nanos = (d.getTime() % 1000) * 1_000_000;
  return `time.Date(${d.getFullYear()}, time.${months[d.getMonth()]}, ${d.getDate()}, ${d.getHours()}, ${d.getMinutes()}, ${d.getSeconds()}, ${nanos}, time.Local)`;
}

const goStringMap = (m: unknown) => {
  if (!m || typeof m !== 'object') return 'map[string]string(nil)';
  const entries = Object.entries(m as Record<string, string>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `map[string]string{${entries.map(([k, v]) => `${goQuote(k)}:${goQuote(String(v))}`).join(', ')}}`;
};

const goStrings = (l: unknown) => (Array.isArray(l) ? `[]string{${l.map((s) => goQuote(String(s))).join(', ')}}` : '[]string(nil)');
const goBoolPtr = (b: unknown) => (typeof b === 'boolean' ? `(*bool)(0xc000010000)` : '(*bool)(nil)');

function goOwnerReferences(refs: unknown): string {
  if (!Array.isArray(refs)) return '[]v1.OwnerReference(nil)';
  const one = (r: Record<string, unknown>) =>
    `v1.OwnerReference{APIVersion:${goString(r.apiVersion as string)}, Kind:${goString(r.kind as string)}, Name:${goString(r.name as string)}, UID:${goString(r.uid as string)}, Controller:${goBoolPtr(r.controller)}, BlockOwnerDeletion:${goBoolPtr(r.blockOwnerDeletion)}}`;
  return `[]v1.OwnerReference{${refs.map((r) => one((r ?? {}) as Record<string, unknown>)).join(', ')}}`;
}

/** `%#v` of a metav1.ObjectMeta, as `metadata: Invalid value: …: must be empty` prints it. */
export function goObjectMeta(meta: ObjectMeta | undefined): string {
  const m = (meta ?? {}) as Record<string, unknown>;
  const grace = typeof m.deletionGracePeriodSeconds === 'number' ? '(*int64)(0xc000010000)' : '(*int64)(nil)';
  return 'v1.ObjectMeta{' + [
    `Name:${goString(m.name as string)}`, `GenerateName:${goString(m.generateName as string)}`, `Namespace:${goString(m.namespace as string)}`,
    `SelfLink:${goString(m.selfLink as string)}`, `UID:${goString(m.uid as string)}`, `ResourceVersion:${goString(m.resourceVersion as string)}`,
    `Generation:${typeof m.generation === 'number' ? m.generation : 0}`, `CreationTimestamp:${goTime(m.creationTimestamp)}`,
    `DeletionTimestamp:${m.deletionTimestamp ? goTime(m.deletionTimestamp) : '<nil>'}`, `DeletionGracePeriodSeconds:${grace}`,
    `Labels:${goStringMap(m.labels)}`, `Annotations:${goStringMap(m.annotations)}`, `OwnerReferences:${goOwnerReferences(m.ownerReferences)}`,
    `Finalizers:${goStrings(m.finalizers)}`, 'ManagedFields:[]v1.ManagedFieldsEntry(nil)',
  ].join(', ') + '}';
}

/**
 * kubectl's move from client-side to server-side apply (kube's lastAppliedManager and
 * lastAppliedUpdater): when `kubectl apply --server-side` conflicts only on fields the object's
 * `kubectl.kubernetes.io/last-applied-configuration` still holds as they are live, the apply is
 * forced; and while an object keeps that annotation, kubectl's server-side applies keep it equal
 * to what they applied, so a later client-side apply computes its patch from the right base.
 */
import { compare, toFieldSet, type FieldSet, type JsonValue, type SmdType } from '@windlass/patch';
import { goMarshalSorted } from '@windlass/machinery';
import type { KubeObject } from '../registry/types.js';

export const lastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';

/** Only kubectl's own applier migrates; other managers opt out by their name. */
export const migratingManager = 'kubectl';

/**
 * The fields a client-side apply set that still hold the values it set: conflicts on these are
 * the client-side applier's, which the server-side applier takes over. Undefined without a
 * usable annotation.
 */
export function allowedConflictsFromLastApplied(live: JsonValue, type: SmdType, apiVersion: string): FieldSet | undefined {
  const annotations = (live as { metadata?: { annotations?: Record<string, string> } }).metadata?.annotations;
  const text = annotations?.[lastAppliedAnnotation];
  if (!text) return undefined;
  let last: JsonValue;
  try {
    last = JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
  if (!last || typeof last !== 'object' || Array.isArray(last) || last.apiVersion !== apiVersion) return undefined;
  try {
    const c = compare(last, live, type);
    return toFieldSet(last, type).difference(c.modified).difference(c.added).difference(c.removed);
  } catch {
    return undefined;
  }
}

/** buildLastApplied: the applied configuration without the annotation, as Go's json.Encoder writes a map (keys sorted, HTML escaped, a newline). */
export function keepLastApplied(out: KubeObject, applied: KubeObject): void {
  const annotations = out.metadata.annotations;
  if (!annotations?.[lastAppliedAnnotation]) return;
  const copy = structuredClone(applied);
  if (copy.metadata?.annotations) {
    delete copy.metadata.annotations[lastAppliedAnnotation];
    if (Object.keys(copy.metadata.annotations).length === 0) delete copy.metadata.annotations;
  }
  out.metadata.annotations = { ...annotations, [lastAppliedAnnotation]: `${goMarshalSorted(copy)}\n` };
}

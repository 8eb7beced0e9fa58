/**
 * Write preconditions, as kube's storage.Preconditions and optimistic concurrency answer them:
 * a uid the request names, and a resourceVersion that must still be the stored one.
 */
import { newConflict, OptimisticLockErrorMsg, type GroupResource, type StatusError } from '@windlass/machinery';
import type { KubeObject } from './types.js';

/** Conflicts that no newer state of the object could resolve (see preconditionFailed). */
const definitive = new WeakSet<object>();

/** storage.Preconditions.Check: a uid the request names must be the stored object's. */
export function checkUIDPrecondition(gr: GroupResource, name: string, uid: string, current: KubeObject): void {
  if (uid !== current.metadata.uid) throw newConflict(gr, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata.uid ?? ''}`);
}

/**
 * A resourceVersion precondition that does not hold. When it is older than the copy it was
 * checked against, every later state fails it too, so a stale cache copy need not be re-read.
 */
export function preconditionFailed(gr: GroupResource, name: string, precondition: string, current: KubeObject): StatusError {
  const err = newConflict(gr, name, OptimisticLockErrorMsg);
  if (Number(precondition) < Number(current.metadata.resourceVersion)) definitive.add(err);
  return err;
}

/** Whether a conflict is one no newer state of the object could resolve (a stale cache copy need not be re-read). */
export function isDefinitiveConflict(err: unknown): boolean {
  return typeof err === 'object' && err !== null && definitive.has(err);
}

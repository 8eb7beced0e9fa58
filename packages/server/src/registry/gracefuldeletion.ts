/**
 * What a DELETE does to an object, as kube's generic Store decides it (apiserver
 * pkg/registry/rest/delete.go BeforeDelete; pkg/registry/generic/registry/store.go Delete and
 * updateForGracefulDeletionAndFinalizers): nothing (a graceful deletion already under way that
 * the request would not shorten), remove it at once, or write it with deletionTimestamp first —
 * to keep it for its grace period or its finalizers, or (a graceful kind at grace 0) to remove
 * it right after, so watchers see it MODIFIED before DELETED as on kube.
 */
import { defaultGarbageCollectionPolicy, deletionFinalizers, markAsDeleting, type PropagationOptions } from './deletionpropagation.js';
import { nowTimestamp } from './objectmeta.js';
import type { KubeObject, ResourceDefinition } from './types.js';

export interface GracefulOptions extends PropagationOptions {
  /** DeleteOptions.gracePeriodSeconds; unset lets the kind choose (a pod's terminationGracePeriodSeconds). */
  gracePeriodSeconds?: number;
}

export type DeletionPlan =
  /** A graceful deletion is pending and the request asks for no shorter grace: nothing is written. */
  | { action: 'pending' }
  /** Removed without a write before it. */
  | { action: 'remove' }
  /** Written as `object`; removed right after when `thenRemove` (a graceful kind deleted with grace 0 and no finalizers). */
  | { action: 'update'; object: KubeObject; thenRemove: boolean };

interface BeforeDelete {
  graceful: boolean;
  pending: boolean;
  /** The grace period the write records (graceful only). */
  grace: number;
}

const notGraceful: BeforeDelete = { graceful: false, pending: false, grace: 0 };
const pendingGraceful: BeforeDelete = { graceful: false, pending: true, grace: 0 };

/**
 * BeforeDelete for one object (mutated: deletionTimestamp, deletionGracePeriodSeconds and the
 * generation of a graceful deletion). Preconditions and DeleteOptions validation are the
 * Store's and the handler's.
 */
function beforeDelete(def: ResourceDefinition, obj: KubeObject, requested: number | undefined, now: number): BeforeDelete {
  const meta = obj.metadata;
  // Negative values are one second on the delete path, in the options and in a stored object.
  const asked = requested !== undefined && requested < 0 ? 1 : requested;
  if (typeof meta.deletionGracePeriodSeconds === 'number' && meta.deletionGracePeriodSeconds < 0) meta.deletionGracePeriodSeconds = 1;
  if (!def.checkGracefulDelete) return notGraceful;

  if (meta.deletionTimestamp) {
    const current = meta.deletionGracePeriodSeconds;
    // Deleting with grace 0 already started (its removal may have failed): remove it now.
    if (current === undefined || current === null || current === 0) return notGraceful;
    // A deletion under way may only be shortened.
    if (asked === undefined || asked >= current) return pendingGraceful;
    let at = Date.parse(meta.deletionTimestamp) - current * 1000 + asked * 1000;
    let period = asked;
    if (at < now) {
      // Never into the past; a graceful request whose grace has already run out keeps one second,
      // so that whoever terminates the object still makes the final delete.
      at = now;
      if (period !== 0) period = 1;
    }
    meta.deletionTimestamp = nowTimestamp(new Date(at));
    meta.deletionGracePeriodSeconds = period;
    return { graceful: true, pending: false, grace: period };
  }

  const grace = def.checkGracefulDelete(obj, asked);
  if (grace === undefined) return notGraceful;
  meta.deletionTimestamp = nowTimestamp(new Date(now + grace * 1000));
  meta.deletionGracePeriodSeconds = grace;
  // The first deletion request changes what the object's controllers do.
  if (typeof meta.generation === 'number' && meta.generation > 0) meta.generation++;
  return { graceful: true, pending: false, grace };
}

/**
 * The plan for deleting `current` (not mutated) under the request's options. `storedResource`
 * is the stored resource's name (events take no part in garbage collection in any group).
 */
export function planDeletion(def: ResourceDefinition, storedResource: string, current: KubeObject, opts: GracefulOptions, now = Date.now()): DeletionPlan {
  const obj = structuredClone(current);
  const { graceful, pending, grace } = beforeDelete(def, obj, opts.gracePeriodSeconds, now);
  // Finalizers cannot be changed through DeleteOptions once a graceful deletion is pending.
  if (pending) return { action: 'pending' };
  const finalizers = deletionFinalizers(defaultGarbageCollectionPolicy(def, storedResource), obj, opts);
  if (finalizers) {
    if (finalizers.length > 0) obj.metadata.finalizers = finalizers;
    else delete obj.metadata.finalizers;
  }
  const pendingFinalizers = (obj.metadata.finalizers ?? []).length > 0 || def.pendingFinalization?.(obj) === true;
  if (!graceful) {
    if (!pendingFinalizers) return { action: 'remove' };
    markAsDeleting(obj, now);
    def.onDeletionRequested?.(obj);
    return { action: 'update', object: obj, thenRemove: false };
  }
  return { action: 'update', object: obj, thenRemove: !pendingFinalizers && grace === 0 };
}

/**
 * kube's deletion propagation on the delete path (apiserver registry/generic/registry/store.go:
 * shouldOrphanDependents, shouldDeleteDependentsInForeground, deletionFinalizersForGarbageCollection,
 * markAsDeleting): which of the garbage collector's finalizers a DELETE leaves on the object.
 * The garbage collector (controllers/garbagecollector.ts) then orphans or deletes its dependents
 * and removes the finalizer.
 */
import type { KubeObject, ResourceDefinition } from './types.js';
import { nowTimestamp } from './objectmeta.js';

export const orphanFinalizer = 'orphan';
export const foregroundFinalizer = 'foregroundDeletion';

export type PropagationPolicy = 'Foreground' | 'Background' | 'Orphan';

/** The parts of DeleteOptions propagation reads. */
export interface PropagationOptions {
  propagationPolicy?: PropagationPolicy;
  /** The deprecated boolean: set, it overrides everything. */
  orphanDependents?: boolean;
}

type GCPolicy = 'Unsupported' | 'OrphanDependents' | 'DeleteDependents';

/**
 * Each strategy's DefaultGarbageCollectionPolicy, by the version the request names: events take
 * no part (eventStrategy), v1 ReplicationControllers and batch/v1 Jobs orphan for backward
 * compatibility; everything else (apps/v1 included) leaves dependents to background collection.
 * The orphaning versions of apps, extensions and batch/v1beta1 are not served.
 */
export function defaultGarbageCollectionPolicy(def: ResourceDefinition, storedResource: string): GCPolicy {
  if (storedResource === 'events' && (def.group === '' || def.group === 'events.k8s.io')) return 'Unsupported';
  if (def.group === '' && def.version === 'v1' && def.resource === 'replicationcontrollers') return 'OrphanDependents';
  if (def.group === 'batch' && def.version === 'v1' && def.resource === 'jobs') return 'OrphanDependents';
  return 'DeleteDependents';
}

function shouldOrphan(policy: GCPolicy, finalizers: string[], opts: PropagationOptions): boolean {
  if (policy === 'Unsupported') return false;
  if (opts.orphanDependents !== undefined) return opts.orphanDependents;
  if (opts.propagationPolicy) return opts.propagationPolicy === 'Orphan';
  for (const f of finalizers) {
    if (f === orphanFinalizer) return true;
    if (f === foregroundFinalizer) return false;
  }
  return policy === 'OrphanDependents';
}

function shouldDeleteInForeground(policy: GCPolicy, finalizers: string[], opts: PropagationOptions): boolean {
  if (policy === 'Unsupported') return false;
  if (opts.orphanDependents !== undefined) return false;
  if (opts.propagationPolicy) return opts.propagationPolicy === 'Foreground';
  for (const f of finalizers) {
    if (f === foregroundFinalizer) return true;
    if (f === orphanFinalizer) return false;
  }
  return false;
}

/**
 * The finalizers the object keeps once the DELETE is applied: both garbage-collection
 * finalizers are dropped and put back as the options (then the existing ones, then the kind's
 * default) say. Undefined when the set does not change.
 */
export function deletionFinalizers(policy: GCPolicy, obj: KubeObject, opts: PropagationOptions): string[] | undefined {
  const existing = obj.metadata.finalizers ?? [];
  const next = existing.filter((f) => f !== orphanFinalizer && f !== foregroundFinalizer);
  if (shouldOrphan(policy, existing, opts)) next.push(orphanFinalizer);
  if (shouldDeleteInForeground(policy, existing, opts)) next.push(foregroundFinalizer);
  const before = new Set(existing);
  const after = new Set(next);
  if (before.size === after.size && [...after].every((f) => before.has(f))) return undefined;
  return next;
}

/**
 * markAsDeleting: an object kept for its finalizers outside a graceful deletion gets
 * deletionTimestamp now, unless an earlier one is set (a later one, left by a graceful deletion
 * being cut short, moves to now), and a zero grace period; the first time, its generation moves
 * on, as controllers of an object being deleted change behaviour.
 */
export function markAsDeleting(obj: KubeObject, now = Date.now()): void {
  const meta = obj.metadata;
  if (!meta.deletionTimestamp && typeof meta.generation === 'number' && meta.generation > 0) meta.generation++;
  if (!meta.deletionTimestamp || Date.parse(meta.deletionTimestamp) > now) meta.deletionTimestamp = nowTimestamp(new Date(now));
  meta.deletionGracePeriodSeconds = 0;
}

/**
 * kube's handlers drop repeated owner references (the same UID and the same fields as one
 * already kept) from every create, update and patch, and say so in a warning: clients that
 * append their owner on each reconcile would otherwise grow the list forever.
 */
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../registry/types.js';

const advice = 'API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ';

/**
 * Removes the duplicates in place and returns kube's warning, or undefined when there were
 * none. `afterPatch`: a patch is checked once it is applied (kube: after mutating admission).
 */
export function dedupOwnerReferences(obj: KubeObject, afterPatch: boolean): string | undefined {
  const refs = obj.metadata?.ownerReferences as Array<{ uid?: string }> | undefined;
  if (!Array.isArray(refs) || refs.length < 2) return undefined;
  const kept: Array<{ uid?: string }> = [];
  const seen = new Set<string | undefined>();
  const duplicates: string[] = [];
  for (const ref of refs) {
    if (seen.has(ref?.uid) && kept.some((k) => isDeepStrictEqual(k, ref))) {
      duplicates.push(String(ref.uid ?? ''));
      continue;
    }
    seen.add(ref?.uid);
    kept.push(ref);
  }
  if (duplicates.length === 0) return undefined;
  (obj.metadata as { ownerReferences?: unknown }).ownerReferences = kept;
  return `.metadata.ownerReferences contains duplicate entries${afterPatch ? ' after mutating admission happens' : ''}; ${advice}${duplicates.join(', ')}`;
}

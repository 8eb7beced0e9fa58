/**
 * NamespaceLifecycle admission: namespaced objects are created only in namespaces that
 * exist and are not being terminated; the system namespaces cannot be deleted.
 */
import { failure, newForbidden, newNotFound, qualifiedResource } from '@windlass/machinery';
import type { CreateAdmission, Store } from '../registry/store.js';
import type { KubeObject } from '../registry/types.js';
import { decodeKeyValue } from '../registry/codec.js';

export const immortalNamespaces = new Set(['default', 'kube-system', 'kube-public']);

/**
 * Namespaces this replica was asked to delete in the last few seconds: their cached state may
 * still say Active, so creates in them read the namespace from storage (kube's
 * forceLiveLookupCache in the NamespaceLifecycle plugin).
 */
const recentlyDeleted = new Map<string, number>();
const liveLookupMs = 30_000;

export function namespaceDeletionRequested(name: string): void {
  const now = Date.now();
  for (const [ns, at] of recentlyDeleted) if (now - at > liveLookupMs) recentlyDeleted.delete(ns);
  recentlyDeleted.set(name, now);
}

function needsLiveLookup(name: string): boolean {
  const at = recentlyDeleted.get(name);
  return at !== undefined && Date.now() - at <= liveLookupMs;
}

export function namespaceExists(namespaces: Store): CreateAdmission {
  return async (store: Store, obj: KubeObject) => {
    const ns = obj.metadata.namespace ?? '';
    // As kube's admission plugin reads its informer, read the namespace from the watch cache,
    // and only on a miss (a namespace created a moment ago) from the store.
    const key = namespaces.objectKey('', ns);
    const live = needsLiveLookup(ns);
    const cached = live ? undefined : namespaces.cacher?.cache.tree.get(key);
    // The common case needs no decoding: the cache keeps the phase among the namespace's fields.
    if (cached?.attrs.fields['status.phase'] === 'Active') return;
    let nsObj = cached?.object;
    if (!nsObj) {
      const kv = await namespaces.storage.get(key);
      if (!kv) throw newNotFound({ group: '', resource: 'namespaces' }, ns);
      nsObj = decodeKeyValue(kv);
    }
    if (nsObj.metadata.deletionTimestamp || (nsObj.status as { phase?: string } | undefined)?.phase === 'Terminating') {
      const name = obj.metadata.name ?? '';
      throw failure(403, 'Forbidden', `${qualifiedResource(store.gr)} "${name}" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`, {
        name, ...(store.gr.group ? { group: store.gr.group } : {}), kind: store.gr.resource,
        causes: [{ reason: 'NamespaceTerminating', message: `namespace ${ns} is being terminated`, field: 'metadata.namespace' }],
      });
    }
  };
}

export function checkNamespaceDeletable(name: string): void {
  if (immortalNamespaces.has(name)) throw newForbidden({ group: '', resource: 'namespaces' }, name, 'this namespace may not be deleted');
}

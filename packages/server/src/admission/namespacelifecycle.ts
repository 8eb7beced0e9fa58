/**
 * NamespaceLifecycle admission: namespaced objects are created only in namespaces that
 * exist and are not being terminated; the system namespaces cannot be deleted.
 */
import { failure, newForbidden, newNotFound, qualifiedResource } from '@windlass/machinery';
import type { CreateAdmission, Store } from '../registry/store.js';
import type { KubeObject } from '../registry/types.js';

export const immortalNamespaces = new Set(['default', 'kube-system', 'kube-public']);

export function namespaceExists(namespaces: Store): CreateAdmission {
  return async (store: Store, obj: KubeObject) => {
    const ns = obj.metadata.namespace ?? '';
    const kv = await namespaces.storage.get(namespaces.objectKey('', ns));
    if (!kv) throw newNotFound({ group: '', resource: 'namespaces' }, ns);
    const nsObj = JSON.parse(kv.value.toString('utf8')) as KubeObject;
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

/**
 * StorageObjectInUseProtection (plugin/pkg/admission/storage/storageobjectinuseprotection):
 * every new PersistentVolume gets the kubernetes.io/pv-protection finalizer and every new
 * PersistentVolumeClaim kubernetes.io/pvc-protection, so that the controllers can hold their
 * deletion while a pod or claim still uses them.
 */
import type { AdmissionPlugin } from '../registry/types.js';

export const pvProtectionFinalizer = 'kubernetes.io/pv-protection';
export const pvcProtectionFinalizer = 'kubernetes.io/pvc-protection';

export const storageObjectInUseProtection: AdmissionPlugin = {
  name: 'StorageObjectInUseProtection',
  mutate(attrs) {
    if (attrs.operation !== 'CREATE' || attrs.subresource !== '') return;
    const kind = attrs.obj.kind;
    // The plugin acts on the two resources only; the kind tells them apart (both are core/v1).
    const finalizer = kind === 'PersistentVolume' ? pvProtectionFinalizer : kind === 'PersistentVolumeClaim' ? pvcProtectionFinalizer : undefined;
    if (!finalizer) return;
    const finalizers = attrs.obj.metadata.finalizers ?? [];
    if (finalizers.includes(finalizer)) return;
    attrs.obj.metadata.finalizers = [...finalizers, finalizer];
  },
};

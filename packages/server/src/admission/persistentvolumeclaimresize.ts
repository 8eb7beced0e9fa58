/**
 * PersistentVolumeClaimResize (plugin/pkg/admission/storage/persistentvolume/resize): a claim
 * may only grow once bound, and only when its StorageClass allows volume expansion.
 */
import { newForbidden } from '@windlass/machinery';
import type { AdmissionPlugin, KubeObject } from '../registry/types.js';
import { compareQuantities, parseQuantity } from '../registry/validation/quantity.js';

type Claim = KubeObject & { spec?: Record<string, any>; status?: Record<string, any> };

const storageOf = (pvc: Claim) => parseQuantity(String(pvc.spec?.resources?.requests?.storage ?? '0')) ?? parseQuantity('0')!;

/** helper.GetPersistentVolumeClaimClass: the beta annotation, else spec.storageClassName. */
function claimClass(pvc: Claim): string {
  return pvc.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? (typeof pvc.spec?.storageClassName === 'string' ? pvc.spec.storageClassName : '');
}

export const persistentVolumeClaimResize: AdmissionPlugin = {
  name: 'PersistentVolumeClaimResize',
  async validate(attrs) {
    if (attrs.operation !== 'UPDATE' || attrs.subresource !== '' || attrs.obj.kind !== 'PersistentVolumeClaim' || !attrs.old) return;
    const pvc = attrs.obj as Claim, old = attrs.old as Claim;
    if (compareQuantities(storageOf(pvc), storageOf(old)) <= 0) return;
    const gr = { group: '', resource: 'persistentvolumeclaims' };
    const name = pvc.metadata.name ?? '';
    if (old.status?.phase !== 'Bound') throw newForbidden(gr, name, 'Only bound persistent volume claims can be expanded');
    const className = claimClass(pvc);
    const sc = className === '' ? undefined : await attrs.lookup('storage.k8s.io', 'storageclasses')?.get('', className);
    if (sc?.allowVolumeExpansion !== true) {
      throw newForbidden(gr, name, 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
    }
  },
};

/**
 * DefaultStorageClass (plugin/pkg/admission/storage/storageclass/setdefault): a new claim that
 * names no class (neither spec.storageClassName nor the beta annotation) gets the default
 * StorageClass, the newest of those annotated as default (ties by name).
 */
import { newForbidden } from '@windlass/machinery';
import type { AdmissionPlugin, KubeObject } from '../registry/types.js';

export const isDefaultClassAnnotation = 'storageclass.kubernetes.io/is-default-class';
export const betaIsDefaultClassAnnotation = 'storageclass.beta.kubernetes.io/is-default-class';

/** storageutil.IsDefaultAnnotation. */
export function isDefaultStorageClass(obj: KubeObject): boolean {
  const a = obj.metadata.annotations ?? {};
  return a[isDefaultClassAnnotation] === 'true' || a[betaIsDefaultClassAnnotation] === 'true';
}

/** volumeutil.GetDefaultClass: newest default first, then by name. */
export function pickDefaultClass(classes: KubeObject[]): KubeObject | undefined {
  const defaults = classes.filter(isDefaultStorageClass);
  defaults.sort((a, b) => {
    const ta = Date.parse(a.metadata.creationTimestamp ?? '') || 0, tb = Date.parse(b.metadata.creationTimestamp ?? '') || 0;
    if (ta === tb) return (a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1;
    return tb - ta;
  });
  return defaults[0];
}

export const defaultStorageClass: AdmissionPlugin = {
  name: 'DefaultStorageClass',
  async mutate(attrs) {
    if (attrs.operation !== 'CREATE' || attrs.subresource !== '' || attrs.obj.kind !== 'PersistentVolumeClaim') return;
    const pvc = attrs.obj as KubeObject & { spec?: Record<string, unknown> };
    const spec = (pvc.spec ??= {});
    if ('volume.beta.kubernetes.io/storage-class' in (pvc.metadata.annotations ?? {})) return;
    if (spec.storageClassName !== undefined && spec.storageClassName !== null) return;
    const classes = attrs.lookup('storage.k8s.io', 'storageclasses');
    if (!classes) return;
    let all: KubeObject[];
    try {
      all = await classes.list('');
    } catch (err) {
      throw newForbidden({ group: '', resource: 'persistentvolumeclaims' }, pvc.metadata.name ?? '', String((err as Error).message ?? err));
    }
    const def = pickDefaultClass(all);
    if (def) spec.storageClassName = def.metadata.name;
  },
};

/**
 * The finalizer-name rules of kube's core validation (pkg/apis/core/validation
 * validateKubeFinalizerName), which every kind validated with core's ValidateObjectMeta applies
 * on top of apimachinery's: a name without a `/` must be one of the standard finalizers.
 */
import { fieldErr, isQualifiedName, type FieldError } from '@windlass/machinery';

export const standardFinalizers = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

export function validateKubeFinalizerName(name: string, path: string): FieldError[] {
  if (name.split('/').length === 1 && !standardFinalizers.has(name)) {
    return [fieldErr.invalid(path, name, 'name is neither a standard finalizer name nor is it fully qualified')];
  }
  return [];
}

/** validateFinalizerName: apimachinery's qualified-name check, then kube's standard names. */
export function validateFinalizerName(name: string, path: string): FieldError[] {
  return [...isQualifiedName(name).map((m) => fieldErr.invalid(path, name, m)), ...validateKubeFinalizerName(name, path)];
}

/** The extra metadata.finalizers[i] checks of core's ValidateObjectMeta and ValidateObjectMetaUpdate. */
export function validateMetadataKubeFinalizers(meta: { finalizers?: unknown }): FieldError[] {
  const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
  return finalizers.flatMap((f, i) => validateKubeFinalizerName(String(f), `metadata.finalizers[${i}]`));
}

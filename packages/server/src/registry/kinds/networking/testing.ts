/** Test helpers for the kind strategies: errors as kube prints them, and objects with metadata. */
import { fieldErrorString, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';

export const messages = (errs: FieldError[]): string[] => errs.map(fieldErrorString);

export function object(body: Record<string, unknown>, name = 'x', namespace?: string): KubeObject {
  return { metadata: { name, ...(namespace ? { namespace } : {}) }, ...body } as KubeObject;
}

/** The create path of a definition's strategy: defaults, prepareForCreate, validate. */
export function create(def: KindDefinition, obj: KubeObject): string[] {
  def.strategy?.defaults?.(obj);
  def.strategy?.prepareForCreate?.(obj);
  return messages(def.strategy?.validate?.(obj) ?? []);
}

export function update(def: KindDefinition, obj: KubeObject, old: KubeObject): string[] {
  def.strategy?.defaults?.(obj);
  def.strategy?.prepareForUpdate?.(obj, old);
  return messages(def.strategy?.validateUpdate?.(obj, old) ?? []);
}

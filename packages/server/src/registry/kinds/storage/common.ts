/** Validation shared by the storage.k8s.io kinds (pkg/apis/storage/validation). */
import { fieldErr, isQualifiedName, type FieldError } from '@windlass/machinery';

type Obj = Record<string, unknown>;
export const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const obj = (v: unknown): Obj => (isObject(v) ? v : {});
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');

const maxProvisionerParameterSize = 256 * 1024;
const maxProvisionerParameterLen = 512;

/** validateProvisioner: required, and a qualified name once lower-cased. */
export function validateProvisioner(provisioner: string, path: string): FieldError[] {
  if (provisioner.length === 0) return [fieldErr.required(path)];
  return isQualifiedName(provisioner.toLowerCase()).map((m) => fieldErr.invalid(path, provisioner, m));
}

/** validateParameters of a StorageClass or VolumeAttributesClass. */
export function validateParameters(params: unknown, allowEmpty: boolean, path: string): FieldError[] {
  const entries = Object.entries(obj(params));
  if (entries.length > maxProvisionerParameterLen) return [fieldErr.tooLong(path, maxProvisionerParameterLen)];
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of entries) {
    if (k.length < 1) errs.push(fieldErr.invalid(path, k, 'field can not be empty.'));
    total += Buffer.byteLength(k) + Buffer.byteLength(String(v ?? ''));
  }
  if (total > maxProvisionerParameterSize) errs.push(fieldErr.tooLong(path, maxProvisionerParameterSize));
  if (!allowEmpty && entries.length === 0) errs.push(fieldErr.required(path, 'must contain at least one key/value pair'));
  return errs;
}

/** reflect.DeepEqual of two string maps: an absent (nil) map equals only another absent one. */
export function sameStringMap(a: unknown, b: unknown): boolean {
  const ma = isObject(a) ? a : undefined, mb = isObject(b) ? b : undefined;
  if (!ma || !mb) return !ma && !mb;
  const ka = Object.keys(ma), kb = Object.keys(mb);
  return ka.length === kb.length && ka.every((k) => k in mb && ma[k] === mb[k]);
}

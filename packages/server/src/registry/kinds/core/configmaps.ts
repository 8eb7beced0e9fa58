import { fieldErr, isConfigMapKey, type FieldError } from '@windlass/machinery';
import type { KubeObject, ResourceDefinition } from '../../types.js';
import { nameIsDNSSubdomain } from '../../names.js';
import { ageColumn, column, maxDataSize, standardVerbs } from '../common.js';
import { ageOf } from '../../age.js';

type ConfigMap = KubeObject & { data?: Record<string, string>; binaryData?: Record<string, string>; immutable?: boolean };

function validateConfigMap(obj: KubeObject): FieldError[] {
  const cm = obj as ConfigMap;
  const errs: FieldError[] = [];
  let total = 0;
  for (const [key, value] of Object.entries(cm.data ?? {})) {
    for (const msg of isConfigMapKey(key)) errs.push(fieldErr.invalid(`data[${key}]`, key, msg));
    total += key.length + Buffer.byteLength(String(value));
  }
  for (const [key, value] of Object.entries(cm.binaryData ?? {})) {
    for (const msg of isConfigMapKey(key)) errs.push(fieldErr.invalid(`binaryData[${key}]`, key, msg));
    if (cm.data && key in cm.data) errs.push(fieldErr.invalid(`binaryData[${key}]`, key, 'duplicate of key present in data'));
    total += key.length + Buffer.from(String(value), 'base64').length;
  }
  if (total > maxDataSize) errs.push({ type: 'FieldValueTooLong', field: '', detail: `Too long: must have at most ${maxDataSize} bytes` });
  return errs;
}

export const configMaps: ResourceDefinition = {
  group: '', version: 'v1', kind: 'ConfigMap', listKind: 'ConfigMapList', resource: 'configmaps', singularName: 'configmap',
  namespaced: true, shortNames: ['cm'], verbs: standardVerbs, storageVersionHash: 'qFsyl6wFWjQ=',
  strategy: {
    nameValidator: nameIsDNSSubdomain,
    validate: validateConfigMap,
    validateUpdate(obj, old) {
      const errs = validateConfigMap(obj);
      const o = old as ConfigMap, n = obj as ConfigMap;
      if (o.immutable === true) {
        if (n.immutable !== true) errs.push(fieldErr.forbidden('immutable', 'field is immutable when `immutable` is set'));
        if (JSON.stringify(n.data ?? {}) !== JSON.stringify(o.data ?? {})) errs.push(fieldErr.forbidden('data', 'field is immutable when `immutable` is set'));
        if (JSON.stringify(n.binaryData ?? {}) !== JSON.stringify(o.binaryData ?? {})) errs.push(fieldErr.forbidden('binaryData', 'field is immutable when `immutable` is set'));
      }
      return errs;
    },
  },
  table: {
    columns: [column('Data', 'string', 'Data contains the configuration data.'), ageColumn],
    cells: (obj) => {
      const cm = obj as ConfigMap;
      return [Object.keys(cm.data ?? {}).length + Object.keys(cm.binaryData ?? {}).length, ageOf(obj.metadata.creationTimestamp)];
    },
  },
};

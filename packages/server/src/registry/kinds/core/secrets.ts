import { fieldErr, isConfigMapKey, newBadRequest, type FieldError } from '@windlass/machinery';
import type { KubeObject, ResourceDefinition } from '../../types.js';
import { nameIsDNSSubdomain } from '../../names.js';
import { ageColumn, column, maxDataSize, standardVerbs } from '../common.js';
import { ageOf } from '../../age.js';
import { secretWarnings } from './secretwarnings.js';

type Secret = KubeObject & { data?: Record<string, string>; stringData?: Record<string, string>; type?: string; immutable?: boolean };

const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Keys each well-known secret type must carry (kube's ValidateSecret). */
const requiredKeys: Record<string, string[]> = {
  'kubernetes.io/dockercfg': ['.dockercfg'],
  'kubernetes.io/dockerconfigjson': ['.dockerconfigjson'],
  'kubernetes.io/ssh-auth': ['ssh-privatekey'],
  'kubernetes.io/tls': ['tls.crt', 'tls.key'],
};

function validateSecret(obj: KubeObject): FieldError[] {
  const s = obj as Secret;
  const errs: FieldError[] = [];
  let total = 0;
  for (const [key, value] of Object.entries(s.data ?? {})) {
    for (const msg of isConfigMapKey(key)) errs.push(fieldErr.invalid(`data[${key}]`, key, msg));
    total += Buffer.from(value, 'base64').length;
  }
  if (total > maxDataSize) errs.push({ type: 'FieldValueTooLong', field: 'data', detail: `Too long: may not be more than ${maxDataSize} bytes` });
  const type = s.type ?? 'Opaque';
  for (const key of requiredKeys[type] ?? []) {
    if (!s.data || !(key in s.data)) errs.push(fieldErr.required(`data[${key}]`));
  }
  if (type === 'kubernetes.io/basic-auth' && !(s.data && ('username' in s.data || 'password' in s.data))) {
    errs.push(fieldErr.required('data[username]'));
  }
  if (type === 'kubernetes.io/service-account-token' && !s.metadata.annotations?.['kubernetes.io/service-account.name']) {
    errs.push(fieldErr.required('metadata.annotations[kubernetes.io/service-account.name]'));
  }
  return errs;
}

export const secrets: ResourceDefinition = {
  group: '', version: 'v1', kind: 'Secret', listKind: 'SecretList', resource: 'secrets', singularName: 'secret',
  namespaced: true, verbs: standardVerbs, storageVersionHash: 'S6u1pOWzb84=',
  strategy: {
    nameValidator: nameIsDNSSubdomain,
    normalize(obj) {
      const s = obj as Secret;
      for (const [key, value] of Object.entries(s.data ?? {})) {
        if (typeof value !== 'string' || !base64Pattern.test(value)) {
          throw newBadRequest(`Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte ${firstBadBase64Byte(String(value))} (key ${JSON.stringify(key)})`);
        }
      }
      // stringData is write-only: kube's conversion folds it into data, overriding same keys.
      if (s.stringData) {
        s.data = { ...(s.data ?? {}) };
        for (const [k, v] of Object.entries(s.stringData)) s.data[k] = Buffer.from(String(v), 'utf8').toString('base64');
        delete s.stringData;
      }
    },
    // SetDefaults_Secret: decoding defaults the type, so the writer owns it.
    defaults(obj) {
      const s = obj as Secret;
      if (!s.type) s.type = 'Opaque';
    },
    validate: validateSecret,
    validateUpdate(obj, old) {
      const errs = validateSecret(obj);
      const n = obj as Secret, o = old as Secret;
      if ((n.type ?? 'Opaque') !== (o.type ?? 'Opaque')) errs.push(fieldErr.invalid('type', n.type, 'field is immutable'));
      if (o.immutable === true) {
        if (n.immutable !== true) errs.push(fieldErr.forbidden('immutable', 'field is immutable when `immutable` is set'));
        if (JSON.stringify(n.data ?? {}) !== JSON.stringify(o.data ?? {})) errs.push(fieldErr.forbidden('data', 'field is immutable when `immutable` is set'));
      }
      return errs;
    },
    warningsOnCreate: secretWarnings,
    warningsOnUpdate: (obj) => secretWarnings(obj),
  },
  // kube's secret.SelectableFields: `kubectl get secrets --field-selector type=kubernetes.io/tls`.
  selectableFields: { type: (obj) => (obj as Secret).type ?? '' },
  table: {
    columns: [column('Type', 'string', 'The type of the secret'), column('Data', 'string', 'The number of entries in data'), ageColumn],
    cells: (obj) => {
      const s = obj as Secret;
      return [s.type ?? 'Opaque', Object.keys(s.data ?? {}).length, ageOf(obj.metadata.creationTimestamp)];
    },
  },
};

function firstBadBase64Byte(v: string): number {
  for (let i = 0; i < v.length; i++) if (!/[A-Za-z0-9+/=]/.test(v[i])) return i;
  return Math.floor(v.length / 4) * 4;
}

/**
 * core/v1 ServiceAccounts as kube 1.35 serves them: the strategy keeps only the name of each
 * `secrets` reference (cleanSecretReferences); validation is the object metadata's; the
 * printer counts the secrets.
 */
import type { KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { nameIsDNSSubdomain } from '../../names.js';
import { serviceAccountWarnings } from './secretwarnings.js';

type ServiceAccount = KubeObject & { secrets?: unknown };

function cleanSecretReferences(o: KubeObject): void {
  const sa = o as ServiceAccount;
  if (!Array.isArray(sa.secrets)) return;
  sa.secrets = sa.secrets.map((s) => {
    const name = s && typeof s === 'object' ? (s as { name?: unknown }).name : undefined;
    return name === undefined || name === '' ? {} : { name };
  });
}

export const serviceAccounts: KindDefinition = {
  group: '', version: 'v1', resource: 'serviceaccounts',
  strategy: {
    nameValidator: nameIsDNSSubdomain,
    prepareForCreate: cleanSecretReferences,
    prepareForUpdate: cleanSecretReferences,
    warningsOnCreate: (sa) => serviceAccountWarnings(sa),
    warningsOnUpdate: serviceAccountWarnings,
  },
  table: {
    columns: [column('Secrets', 'string', 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Pods are only limited to this list if this service account has a "kubernetes.io/enforce-mountable-secrets" annotation set to "true". The "kubernetes.io/enforce-mountable-secrets" annotation is deprecated since v1.32. Prefer separate namespaces to isolate access to mounted secrets. This field should not be used to find auto-generated service account token secrets for use outside of pods. Instead, tokens can be requested directly using the TokenRequest API, or service account token secrets can be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret'), ageColumn],
    cells: (o) => [Array.isArray((o as ServiceAccount).secrets) ? ((o as ServiceAccount).secrets as unknown[]).length : 0, ageOf(o.metadata.creationTimestamp)],
  },
};

/**
 * ServiceAccount admission (plugin/pkg/admission/serviceaccount): a new pod runs as its
 * namespace's `default` account unless it names one, the account must exist, and unless
 * automounting is off the pod gets the `kube-api-access-<random>` projected token volume
 * mounted into every container. Mirror pods may reference no accounts or secrets.
 */
import { newForbidden } from '@windlass/machinery';
import type { AdmissionAttributes, AdmissionPlugin, KubeObject } from '../registry/types.js';
import { generateName } from '../registry/objectmeta.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);

export const defaultServiceAccountName = 'default';
export const defaultAPITokenMountPath = '/var/run/secrets/kubernetes.io/serviceaccount';
const volumePrefix = 'kube-api-access-';
const mirrorPodAnnotation = 'kubernetes.io/config.mirror';
const enforceMountableSecretsAnnotation = 'kubernetes.io/enforce-mountable-secrets';
/** serviceaccount.WarnOnlyBoundTokenExpirationSeconds: an hour plus the kubelet's slack. */
const tokenExpirationSeconds = 3607;

const gr = { group: '', resource: 'pods' };

function applies(attrs: AdmissionAttributes): boolean {
  return attrs.operation === 'CREATE' && attrs.subresource === '';
}

function isMirrorPod(pod: KubeObject): boolean {
  return mirrorPodAnnotation in (pod.metadata.annotations ?? {});
}

async function getServiceAccount(attrs: AdmissionAttributes, namespace: string, name: string): Promise<KubeObject> {
  const sa = await attrs.lookup('', 'serviceaccounts')?.get(namespace, name);
  if (!sa) {
    throw newForbidden(gr, attrs.obj.metadata.name ?? '', `error looking up service account ${namespace}/${name}: serviceaccount "${name}" not found`);
  }
  return sa;
}

/** TokenVolumeSource: the bound token, the cluster CA and the namespace, as one projected volume. */
export function tokenVolumeSource(): Json {
  return {
    defaultMode: 0o644,
    sources: [
      { serviceAccountToken: { expirationSeconds: tokenExpirationSeconds, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
  };
}

function shouldAutomount(sa: KubeObject, spec: Json): boolean {
  if (typeof spec.automountServiceAccountToken === 'boolean') return spec.automountServiceAccountToken;
  if (typeof sa.automountServiceAccountToken === 'boolean') return sa.automountServiceAccountToken;
  return true;
}

function mountServiceAccountToken(spec: Json): void {
  const volumes = list(spec.volumes);
  const existing = volumes.find((v) => typeof v.name === 'string' && v.name.startsWith(volumePrefix));
  const volumeName = existing ? (existing.name as string) : generateName(volumePrefix);
  let needsVolume = false;
  for (const key of ['initContainers', 'containers']) {
    for (const c of list(spec[key])) {
      const mounts = list(c.volumeMounts);
      if (mounts.some((m) => m.mountPath === defaultAPITokenMountPath)) continue;
      c.volumeMounts = [...mounts, { name: volumeName, readOnly: true, mountPath: defaultAPITokenMountPath }];
      needsVolume = true;
    }
  }
  if (!existing && needsVolume) spec.volumes = [...volumes, { name: volumeName, projected: tokenVolumeSource() }];
}

/** Secrets a pod references (podutil.VisitPodSecretNames, the parts limitSecretReferences checks). */
function limitSecretReferences(sa: KubeObject, pod: KubeObject): string | undefined {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const mountable = new Set(list(sa.secrets).map((s) => String(s.name ?? '')));
  for (const v of list(spec.volumes)) {
    if (isObject(v.secret) && !mountable.has(String(v.secret.secretName ?? ''))) {
      return `volume with secret.secretName="${String(v.secret.secretName ?? '')}" is not allowed because service account ${sa.metadata.name} does not reference that secret`;
    }
  }
  for (const key of ['initContainers', 'containers']) {
    for (const c of list(spec[key])) {
      for (const e of list(c.envFrom)) {
        if (isObject(e.secretRef) && !mountable.has(String(e.secretRef.name ?? ''))) {
          return `${key === 'containers' ? 'container' : 'init container'} ${String(c.name)} with envFrom referencing secret.secretName="${String(e.secretRef.name)}" is not allowed because service account ${sa.metadata.name} does not reference that secret`;
        }
      }
      for (const e of list(c.env)) {
        const ref = isObject(e.valueFrom) ? e.valueFrom.secretKeyRef : undefined;
        if (isObject(ref) && !mountable.has(String(ref.name ?? ''))) {
          return `${key === 'containers' ? 'container' : 'init container'} ${String(c.name)} with envVar ${String(e.name)} referencing secret.secretName="${String(ref.name)}" is not allowed because service account ${sa.metadata.name} does not reference that secret`;
        }
      }
    }
  }
  const pullSecrets = new Set(list(sa.imagePullSecrets).map((s) => String(s.name ?? '')));
  const refs = list(spec.imagePullSecrets);
  for (let i = 0; i < refs.length; i++) {
    if (!pullSecrets.has(String(refs[i].name ?? ''))) {
      return `imagePullSecrets[${i}].name="${String(refs[i].name ?? '')}" is not allowed because service account ${sa.metadata.name} does not reference that imagePullSecret`;
    }
  }
  return undefined;
}

export const serviceAccountAdmission: AdmissionPlugin = {
  name: 'ServiceAccount',
  async mutate(attrs) {
    if (!applies(attrs)) return;
    const pod = attrs.obj;
    if (isMirrorPod(pod)) return;
    const spec = (isObject(pod.spec) ? pod.spec : (pod.spec = {})) as Json;
    if (!spec.serviceAccountName) spec.serviceAccountName = defaultServiceAccountName;
    // v1's deprecated field mirrors the name (kube's conversion back from the internal type).
    spec.serviceAccount = spec.serviceAccountName;
    const sa = await getServiceAccount(attrs, pod.metadata.namespace ?? '', String(spec.serviceAccountName));
    if (shouldAutomount(sa, spec)) mountServiceAccountToken(spec);
    if (list(spec.imagePullSecrets).length === 0 && list(sa.imagePullSecrets).length > 0) {
      spec.imagePullSecrets = list(sa.imagePullSecrets).map((s) => ({ name: s.name }));
    }
  },
  async validate(attrs) {
    if (!applies(attrs)) return;
    const pod = attrs.obj;
    const spec = isObject(pod.spec) ? pod.spec : {};
    const name = pod.metadata.name ?? '';
    if (isMirrorPod(pod)) {
      if (spec.serviceAccountName) throw newForbidden(gr, name, 'a mirror pod may not reference service accounts');
      const usesSecrets = list(spec.volumes).some((v) => isObject(v.secret)) || list(spec.imagePullSecrets).length > 0;
      if (usesSecrets) throw newForbidden(gr, name, 'a mirror pod may not reference secrets');
      if (list(spec.volumes).some((v) => isObject(v.projected) && list(v.projected.sources).some((s) => isObject(s.serviceAccountToken)))) {
        throw newForbidden(gr, name, 'a mirror pod may not use ServiceAccountToken volume projections');
      }
      return;
    }
    if (!spec.serviceAccountName) throw newForbidden(gr, name, `no service account specified for pod ${pod.metadata.namespace ?? ''}/${name}`);
    const sa = await getServiceAccount(attrs, pod.metadata.namespace ?? '', String(spec.serviceAccountName));
    if (String(sa.metadata.annotations?.[enforceMountableSecretsAnnotation] ?? '').toLowerCase() === 'true') {
      const refused = limitSecretReferences(sa, pod);
      if (refused) throw newForbidden(gr, name, refused);
    }
  },
};

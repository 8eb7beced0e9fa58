/**
 * The CustomResourceDefinition kind itself (apiextensions.k8s.io/v1), as kube's
 * pkg/registry/customresourcedefinition strategy and REST: v1 defaults, status reset on create
 * with the storage version recorded in storedVersions, generation on spec changes, the
 * validation of pkg/apis/apiextensions/validation, and deletion that waits for the
 * customresourcecleanup finalizer with a Terminating condition.
 */
import type { KindDefinition, KubeObject } from '../registry/types.js';
import { nowRFC3339, setCondition } from './naming.js';
import { cleanupFinalizer, type CRD } from './types.js';
import { validateCRD, validateCRDUpdate } from './validation.js';

/** kube's SetDefaults_CustomResourceDefinitionSpec (v1) and SetDefaults_ServiceReference. */
export function defaultCRD(obj: KubeObject): void {
  const spec = (obj as CRD).spec;
  if (!spec || typeof spec !== 'object') return;
  const names = spec.names;
  if (names && typeof names === 'object') {
    if (!names.singular && typeof names.kind === 'string') names.singular = names.kind.toLowerCase();
    if (!names.listKind && typeof names.kind === 'string' && names.kind) names.listKind = `${names.kind}List`;
  }
  spec.conversion ??= { strategy: 'None' };
  const webhook = (spec.conversion as { webhook?: { clientConfig?: { service?: { port?: number } } } }).webhook;
  if (webhook?.clientConfig?.service && webhook.clientConfig.service.port === undefined) webhook.clientConfig.service.port = 443;
}

function recordStorageVersion(crd: CRD): void {
  const storage = (crd.spec?.versions ?? []).find((v) => v.storage);
  if (!storage) return;
  const status = (crd.status ??= {});
  const stored = (status.storedVersions ??= []);
  if (!stored.includes(storage.name)) stored.push(storage.name);
}

export const crdDefinition: KindDefinition = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  resource: 'customresourcedefinitions',
  generation: true,
  strategy: {
    defaults: defaultCRD,
    prepareForCreate(obj) {
      const crd = obj as CRD;
      crd.status = {};
      recordStorageVersion(crd);
    },
    prepareForUpdate(obj) {
      recordStorageVersion(obj as CRD);
    },
    validate: (obj) => validateCRD(obj as CRD),
    validateUpdate: (obj, old) => validateCRDUpdate(obj as CRD, old as CRD),
  },
  // kube's REST.Delete: the first delete adds the cleanup finalizer, the finalizer controller removes it.
  pendingFinalization: (obj) => !obj.metadata.deletionTimestamp,
  onDeletionRequested(obj) {
    const crd = obj as CRD;
    const finalizers = (crd.metadata.finalizers ??= []);
    // kube's REST.Delete only sets deletionTimestamp: no grace period, no generation bump.
    delete crd.metadata.deletionGracePeriodSeconds;
    if (!finalizers.includes(cleanupFinalizer)) {
      finalizers.push(cleanupFinalizer);
      if (typeof crd.metadata.generation === 'number' && crd.metadata.generation > 1) crd.metadata.generation--;
    }
    setCondition(crd, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionPending', message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon' }, nowRFC3339());
  },
};

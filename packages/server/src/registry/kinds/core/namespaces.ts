import type { KubeObject, ResourceDefinition } from '../../types.js';
import { nameIsDNSLabel } from '../../names.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';

type Namespace = KubeObject & { spec?: { finalizers?: string[] }; status?: { phase?: string } };

/** kube labels every namespace with its own name so selectors can target it. */
const nameLabel = 'kubernetes.io/metadata.name';

function setNameLabel(obj: KubeObject): void {
  if (!obj.metadata.name) return;
  obj.metadata.labels = { ...(obj.metadata.labels ?? {}), [nameLabel]: obj.metadata.name };
}

export const namespaces: ResourceDefinition = {
  group: '', version: 'v1', kind: 'Namespace', listKind: 'NamespaceList', resource: 'namespaces', singularName: 'namespace',
  namespaced: false, shortNames: ['ns'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  storageVersionHash: 'Q3oi5N2YM8M=', deleteReturnsObject: true,
  strategy: {
    nameValidator: nameIsDNSLabel,
    prepareForCreate(obj) {
      const ns = obj as Namespace;
      ns.spec = { ...(ns.spec ?? {}), finalizers: ['kubernetes'] };
      ns.status = { phase: 'Active' };
      setNameLabel(obj);
    },
    prepareForUpdate(obj, old) {
      // spec.finalizers and status belong to the finalize and status subresources.
      const ns = obj as Namespace, o = old as Namespace;
      ns.spec = { ...(ns.spec ?? {}), finalizers: o.spec?.finalizers };
      if (ns.spec.finalizers === undefined) delete ns.spec.finalizers;
      ns.status = o.status;
      setNameLabel(obj);
    },
  },
  table: {
    columns: [column('Status', 'string', 'The status of the namespace'), ageColumn],
    cells: (obj) => [(obj as Namespace).status?.phase ?? '', ageOf(obj.metadata.creationTimestamp)],
  },
  pendingFinalization: (obj) => ((obj as Namespace).spec?.finalizers ?? []).length > 0,
  onDeletionRequested(obj) {
    (obj as Namespace).status = { ...((obj as Namespace).status ?? {}), phase: 'Terminating' };
  },
  selectableFields: { 'status.phase': (obj) => (obj as Namespace).status?.phase ?? '' },
};

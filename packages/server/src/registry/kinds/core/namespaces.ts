/**
 * core/v1 Namespaces as kube 1.35 serves them: SetDefaults_Namespace (the
 * kubernetes.io/metadata.name label) and SetDefaults_NamespaceStatus (Active); on create the
 * `kubernetes` finalizer is added to spec.finalizers, which only the finalize subresource may
 * change afterwards; status.phase follows deletion (ValidateNamespaceStatusUpdate); deletion
 * marks the namespace Terminating. PodSecurity refuses pod-security labels it cannot parse.
 */
import { fieldErr, newInvalid, type FieldError } from '@windlass/machinery';
import type { AdmissionPlugin, KubeObject, ResourceDefinition, StatusStrategy } from '../../types.js';
import { nameIsDNSLabel } from '../../names.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { validateFinalizerName, validateMetadataKubeFinalizers } from '../../validation/finalizers.js';
import { podSecurityNamespaceUpdateWarnings } from '../../../admission/podsecurity.js';

type Namespace = KubeObject & { spec?: { finalizers?: string[] }; status?: { phase?: string } };

/** kube labels every namespace with its own name so selectors can target it. */
const nameLabel = 'kubernetes.io/metadata.name';

function setNameLabel(obj: KubeObject): void {
  if (!obj.metadata.name) return;
  obj.metadata.labels = { ...(obj.metadata.labels ?? {}), [nameLabel]: obj.metadata.name };
}

function validateNamespace(obj: KubeObject): FieldError[] {
  const finalizers = (obj as Namespace).spec?.finalizers;
  const errs = validateMetadataKubeFinalizers(obj.metadata);
  // ValidateNamespace reports each spec finalizer at the list's path, without its index.
  for (const f of Array.isArray(finalizers) ? finalizers : []) errs.push(...validateFinalizerName(String(f), 'spec.finalizers'));
  return errs;
}

const podSecurityLevels = ['privileged', 'baseline', 'restricted'];
const podSecurityLabels: Array<[string, 'level' | 'version']> = [
  ['pod-security.kubernetes.io/enforce', 'level'], ['pod-security.kubernetes.io/enforce-version', 'version'],
  ['pod-security.kubernetes.io/audit', 'level'], ['pod-security.kubernetes.io/audit-version', 'version'],
  ['pod-security.kubernetes.io/warn', 'level'], ['pod-security.kubernetes.io/warn-version', 'version'],
];

/** PolicyToEvaluate's parse errors of a namespace's pod-security labels (pod-security-admission/api). */
export function podSecurityLabelErrors(labels: Record<string, string> | undefined): FieldError[] {
  const errs: FieldError[] = [];
  for (const [label, kind] of podSecurityLabels) {
    if (!labels || !(label in labels)) continue;
    const value = labels[label];
    const path = `metadata.labels[${label}]`;
    if (kind === 'level' && !podSecurityLevels.includes(value)) errs.push(fieldErr.invalid(path, value, `must be one of ${podSecurityLevels.join(', ')}`));
    if (kind === 'version' && value !== 'latest' && !/^v1\.(0|[1-9][0-9]*)$/.test(value)) errs.push(fieldErr.invalid(path, value, 'must be "latest" or "v1.x"'));
  }
  return errs;
}

/**
 * The namespace half of the PodSecurity admission plugin: labels that do not parse are refused
 * on create, and on update when they changed (a namespace stored with them may keep them); an
 * update to a stricter enforce level warns about the existing pods that would not pass it.
 */
export const podSecurityNamespaceLabels: AdmissionPlugin = {
  name: 'PodSecurity',
  validate(attrs) {
    if (attrs.subresource !== '') return;
    const errs = podSecurityLabelErrors(attrs.obj.metadata.labels);
    if (errs.length > 0) {
      const oldErrs = attrs.operation === 'UPDATE' && attrs.old ? podSecurityLabelErrors(attrs.old.metadata.labels) : [];
      if (oldErrs.length === 0 || JSON.stringify(oldErrs) !== JSON.stringify(errs)) {
        throw newInvalid({ group: '', kind: 'Namespace' }, attrs.obj.metadata.name ?? '', errs);
      }
    }
    // A stricter enforce level is tried against the pods already there, as warnings.
    return podSecurityNamespaceUpdateWarnings(attrs);
  },
};

const statusStrategy: StatusStrategy = {
  validateUpdate(obj) {
    const ns = obj as Namespace;
    const phase = ns.status?.phase ?? '';
    const errs = validateMetadataKubeFinalizers(obj.metadata);
    if (!obj.metadata.deletionTimestamp) {
      if (phase !== 'Active') errs.push(fieldErr.invalid('status.Phase', phase, "may only be 'Active' if `deletionTimestamp` is empty"));
    } else if (phase !== 'Terminating') {
      errs.push(fieldErr.invalid('status.Phase', phase, "may only be 'Terminating' if `deletionTimestamp` is not empty"));
    }
    return errs;
  },
};

/** namespaces/finalize writes spec (its finalizers) and metadata; status stays the stored one. */
const finalizeStrategy: StatusStrategy = {
  prepareForUpdate(obj, old) {
    (obj as Namespace).status = (old as Namespace).status;
    if ((obj as Namespace).status === undefined) delete (obj as Namespace).status;
  },
  validateUpdate(obj) {
    const finalizers = (obj as Namespace).spec?.finalizers;
    const errs = validateMetadataKubeFinalizers(obj.metadata);
    (Array.isArray(finalizers) ? finalizers : []).forEach((f, i) => errs.push(...validateFinalizerName(String(f), `spec.finalizers[${i}]`)));
    return errs;
  },
};

export const namespaces: ResourceDefinition = {
  group: '', version: 'v1', kind: 'Namespace', listKind: 'NamespaceList', resource: 'namespaces', singularName: 'namespace',
  namespaced: false, shortNames: ['ns'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  storageVersionHash: 'Q3oi5N2YM8M=', deleteReturnsObject: true,
  strategy: {
    nameValidator: nameIsDNSLabel,
    defaults(obj) {
      setNameLabel(obj);
      const ns = obj as Namespace;
      ns.status = ns.status && typeof ns.status === 'object' ? ns.status : {};
      if (!ns.status.phase) ns.status.phase = 'Active';
    },
    prepareForCreate(obj) {
      const ns = obj as Namespace;
      const finalizers = Array.isArray(ns.spec?.finalizers) ? ns.spec!.finalizers : [];
      // The kubernetes finalizer is required on create (not a default: it is removed over the namespace's life).
      ns.spec = { ...(ns.spec ?? {}), finalizers: finalizers.includes('kubernetes') ? finalizers : [...finalizers, 'kubernetes'] };
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
    validate: validateNamespace,
    validateUpdate: validateNamespace,
  },
  subresourceStrategies: { status: statusStrategy, finalize: finalizeStrategy },
  admission: [podSecurityNamespaceLabels],
  table: {
    columns: [column('Status', 'string', 'The status of the namespace'), ageColumn],
    cells: (obj) => [(obj as Namespace).status?.phase ?? '', ageOf(obj.metadata.creationTimestamp)],
  },
  pendingFinalization: (obj) => ((obj as Namespace).spec?.finalizers ?? []).length > 0,
  onDeletionRequested(obj) {
    // kube's namespace deletion sets only the deletionTimestamp and the Terminating phase.
    delete obj.metadata.deletionGracePeriodSeconds;
    (obj as Namespace).status = { ...((obj as Namespace).status ?? {}), phase: 'Terminating' };
  },
  selectableFields: {
    'status.phase': (obj) => (obj as Namespace).status?.phase ?? '',
    // "name" stays selectable for backward compatibility, as in kube.
    name: (obj) => obj.metadata.name ?? '',
  },
};

/**
 * core/v1 PersistentVolumes as kube 1.35 serves them: SetDefaults_PersistentVolume, the
 * strategy (a new volume is Pending since its phase transition; status belongs to the status
 * subresource, which stamps lastPhaseTransitionTime on phase changes), ValidatePersistentVolume
 * and ValidatePersistentVolumeUpdate, the mount-options annotation check of
 * pkg/volume/validation, StorageObjectInUseProtection's pv-protection finalizer, the printer.
 */
import { fieldErr, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject, StatusStrategy } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { nowTimestamp } from '../../objectmeta.js';
import { nameIsDNSSubdomain } from '../../names.js';
import { canonicalQuantityString } from '../../validation/quantity.js';
import {
  defaultPersistentVolumeSource, persistentVolumeSourceFields, validatePersistentVolumeSpec,
} from '../../validation/persistentvolumesource.js';
import { goCmpDiff, persistentVolumeSourceType } from '../../validation/gocmp.js';
import { storageObjectInUseProtection } from '../../../admission/storageobjectinuseprotection.js';
import { persistentVolumeWarnings } from './warnings.js';

type Obj = Record<string, unknown>;
type PersistentVolume = KubeObject & { spec?: Obj; status?: Obj };

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const mountOptionAnnotation = 'volume.beta.kubernetes.io/mount-options';
const betaStorageClassAnnotation = 'volume.beta.kubernetes.io/storage-class';

/** The volume types whose plugins accept mount options (pkg/volume/validation checkMountOption). */
const mountOptionSources = ['gcePersistentDisk', 'awsElasticBlockStore', 'glusterfs', 'nfs', 'rbd', 'quobyte', 'iscsi', 'cinder', 'cephfs', 'azureFile', 'vsphereVolume', 'azureDisk', 'photonPersistentDisk'];

export function defaultPersistentVolume(obj: KubeObject): void {
  const pv = obj as PersistentVolume;
  if (isObject(pv.spec)) {
    const spec = pv.spec;
    if (!spec.persistentVolumeReclaimPolicy) spec.persistentVolumeReclaimPolicy = 'Retain';
    if (spec.volumeMode === undefined || spec.volumeMode === null) spec.volumeMode = 'Filesystem';
    defaultPersistentVolumeSource(spec);
  }
  // Status is a struct in Go: its phase is defaulted even when the body has none.
  pv.status = isObject(pv.status) ? pv.status : {};
  if (!pv.status.phase) pv.status.phase = 'Pending';
}

function validateMountOptions(pv: PersistentVolume): FieldError[] {
  const spec = isObject(pv.spec) ? pv.spec : {};
  if (mountOptionSources.some((s) => isObject(spec[s]))) return [];
  if (pv.metadata.annotations && mountOptionAnnotation in pv.metadata.annotations) {
    return [fieldErr.forbidden(`metadata.annotations.${mountOptionAnnotation}`, 'may not specify mount options for this volume type')];
  }
  return [];
}

function validatePersistentVolume(pv: PersistentVolume, old?: PersistentVolume): FieldError[] {
  const spec = isObject(pv.spec) ? pv.spec : {};
  // An invalid label value already stored in the required node affinity is tolerated on update.
  const oldRequired = isObject(old?.spec?.nodeAffinity) ? (old!.spec!.nodeAffinity as Obj).required : undefined;
  const allowInvalid = oldRequired !== undefined && validatePersistentVolumeSpecLabels(oldRequired);
  return validatePersistentVolumeSpec(spec, pv.metadata.name ?? '', false, 'spec', { allowInvalidLabelValueInRequiredNodeAffinity: allowInvalid });
}

function validatePersistentVolumeSpecLabels(required: unknown): boolean {
  const terms = isObject(required) && Array.isArray(required.nodeSelectorTerms) ? required.nodeSelectorTerms : [];
  return terms.some((t) => isObject(t) && Array.isArray(t.matchExpressions) && t.matchExpressions.some((e) =>
    isObject(e) && Array.isArray(e.values) && e.values.some((v) => typeof v === 'string' && !/^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/.test(v) || (typeof v === 'string' && v.length > 63))));
}

function sourceOf(spec: Obj): Obj {
  const out: Obj = {};
  for (const f of persistentVolumeSourceFields) if (spec[f] !== undefined && spec[f] !== null) out[f] = spec[f];
  return out;
}

/** ValidatePersistentVolumeUpdate: the volume source and mode are fixed; node affinity once set. */
function validatePersistentVolumeUpdate(pv: PersistentVolume, old: PersistentVolume): FieldError[] {
  const errs = validatePersistentVolume(pv, old);
  const spec = isObject(pv.spec) ? pv.spec : {};
  const oldSpec = isObject(old.spec) ? old.spec : {};
  const newSource = structuredClone(sourceOf(spec));
  const oldSource = sourceOf(oldSpec);
  // A CSI controllerExpandSecretRef may be added to a volume that had none.
  if (isObject(oldSource.csi) && oldSource.csi.controllerExpandSecretRef === undefined && isObject(newSource.csi)) delete newSource.csi.controllerExpandSecretRef;
  if (JSON.stringify(newSource) !== JSON.stringify(oldSource) && !sameJSON(newSource, oldSource)) {
    errs.push(fieldErr.forbidden('spec.persistentvolumesource', `spec.persistentvolumesource is immutable after creation\n${goCmpDiff(persistentVolumeSourceType, oldSource, newSource)}`));
  }
  if ((spec.volumeMode ?? null) !== (oldSpec.volumeMode ?? null)) errs.push(fieldErr.invalid('volumeMode', spec.volumeMode ?? null, 'field is immutable'));
  if (oldSpec.nodeAffinity !== undefined && oldSpec.nodeAffinity !== null && !sameJSON(spec.nodeAffinity ?? null, oldSpec.nodeAffinity)) {
    errs.push(fieldErr.invalid('nodeAffinity', spec.nodeAffinity ?? null, 'field is immutable'));
  }
  if (typeof oldSpec.volumeAttributesClassName === 'string' && spec.volumeAttributesClassName === undefined) {
    errs.push(fieldErr.forbidden('spec.volumeAttributesClassName', 'update from non-nil value to nil is forbidden'));
  }
  return errs;
}

/** JSON equality regardless of key order (apimachinery's semantic equality on decoded objects). */
export function sameJSON(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJSON(v, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined), kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => sameJSON(a[k], b[k]));
  }
  return false;
}

/** The status subresource: spec is the stored one; a phase change is stamped with its time. */
const statusStrategy: StatusStrategy = {
  prepareForUpdate(obj, old) {
    for (const key of Object.keys(obj)) if (!['status', 'metadata', 'apiVersion', 'kind'].includes(key) && !(key in old)) delete obj[key];
    for (const key of Object.keys(old)) if (!['status', 'metadata', 'apiVersion', 'kind'].includes(key)) obj[key] = old[key];
    const status = ((obj as PersistentVolume).status ??= {});
    const oldStatus = (old as PersistentVolume).status ?? {};
    if ((oldStatus.phase ?? '') === (status.phase ?? '')) {
      if (status.lastPhaseTransitionTime === undefined || status.lastPhaseTransitionTime === null) {
        if (oldStatus.lastPhaseTransitionTime !== undefined) status.lastPhaseTransitionTime = oldStatus.lastPhaseTransitionTime;
      }
    } else if (status.lastPhaseTransitionTime === undefined || status.lastPhaseTransitionTime === null || status.lastPhaseTransitionTime === oldStatus.lastPhaseTransitionTime) {
      status.lastPhaseTransitionTime = nowTimestamp();
    }
  },
  validateUpdate: () => [],
};

/** helper.GetAccessModesAsString: RWO, ROX, RWX, RWOP in that order, duplicates dropped. */
export function accessModesString(modes: unknown): string {
  const list = Array.isArray(modes) ? modes : [];
  return [['ReadWriteOnce', 'RWO'], ['ReadOnlyMany', 'ROX'], ['ReadWriteMany', 'RWX'], ['ReadWriteOncePod', 'RWOP']]
    .filter(([mode]) => list.includes(mode)).map(([, short]) => short).join(',');
}

export const persistentVolumes: KindDefinition = {
  group: '', version: 'v1', resource: 'persistentvolumes',
  strategy: {
    warningsOnCreate: persistentVolumeWarnings,
    warningsOnUpdate: (pv) => persistentVolumeWarnings(pv),
    nameValidator: nameIsDNSSubdomain,
    defaults: defaultPersistentVolume,
    prepareForCreate(obj) {
      (obj as PersistentVolume).status = { phase: 'Pending', lastPhaseTransitionTime: nowTimestamp() };
    },
    validate: (obj) => [...validatePersistentVolume(obj as PersistentVolume), ...validateMountOptions(obj as PersistentVolume)],
    // kube validates the new volume, then again as part of ValidatePersistentVolumeUpdate.
    validateUpdate: (obj, old) => [
      ...validatePersistentVolume(obj as PersistentVolume, old as PersistentVolume), ...validateMountOptions(obj as PersistentVolume),
      ...validatePersistentVolumeUpdate(obj as PersistentVolume, old as PersistentVolume),
    ],
  },
  subresourceStrategies: { status: statusStrategy },
  admission: [storageObjectInUseProtection],
  // "name" is a field kube kept selectable for backward compatibility.
  selectableFields: { name: (obj) => obj.metadata.name ?? '' },
  table: {
    columns: [
      column('Capacity', 'string', 'capacity is the description of the persistent volume\'s resources and capacity. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity'),
      column('Access Modes', 'string', 'accessModes contains all ways the volume can be mounted. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes'),
      column('Reclaim Policy', 'string', 'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim. Valid options are Retain (default for manually created PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the volume plugin underlying this PersistentVolume. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming'),
      column('Status', 'string', 'phase indicates if a volume is available, bound to a claim, or released by a claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase'),
      column('Claim', 'string', 'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding'),
      column('StorageClass', 'string', 'StorageClass of the pv'),
      column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pv'),
      column('Reason', 'string', 'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.'),
      ageColumn,
      column('VolumeMode', 'string', 'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state. Value of Filesystem is implied when not included in spec.', 1),
    ],
    cells(obj) {
      const pv = obj as PersistentVolume;
      const spec = isObject(pv.spec) ? pv.spec : {};
      const status = isObject(pv.status) ? pv.status : {};
      const claim = isObject(spec.claimRef) ? `${spec.claimRef.namespace ?? ''}/${spec.claimRef.name ?? ''}` : '';
      const capacity = isObject(spec.capacity) && typeof spec.capacity.storage === 'string' ? canonicalQuantityString(spec.capacity.storage) : '0';
      const phase = pv.metadata.deletionTimestamp ? 'Terminating' : (status.phase ?? '');
      const storageClass = pv.metadata.annotations?.[betaStorageClassAnnotation] ?? (spec.storageClassName ?? '');
      return [
        capacity, accessModesString(spec.accessModes), spec.persistentVolumeReclaimPolicy ?? '', phase, claim, storageClass,
        typeof spec.volumeAttributesClassName === 'string' ? spec.volumeAttributesClassName : '<unset>', status.reason ?? '',
        ageOf(pv.metadata.creationTimestamp), typeof spec.volumeMode === 'string' ? spec.volumeMode : '<unset>',
      ];
    },
  },
};

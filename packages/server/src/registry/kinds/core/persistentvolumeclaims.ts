/**
 * core/v1 PersistentVolumeClaims as kube 1.35 serves them: SetDefaults_PersistentVolumeClaim
 * (Pending, Filesystem), the strategy's data-source rules (a dataSource kube does not populate
 * from is dropped, the other one mirrored into dataSourceRef), ValidatePersistentVolumeClaim
 * (Update) with the immutable-spec diff, the status strategy, the printer, and the admission
 * plugins that act on claims: DefaultStorageClass, StorageObjectInUseProtection and
 * PersistentVolumeClaimResize.
 */
import { fieldErr, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject, StatusStrategy } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { nameIsDNSSubdomain } from '../../names.js';
import { compareQuantities, canonicalQuantityString, parseQuantity } from '../../validation/quantity.js';
import { validateLabelSelector } from '../../validation/labelselector.js';
import { supportedVolumeModes, validateAccessModes, validatePositiveQuantity } from '../../validation/persistentvolumesource.js';
import { goCmpDiff, persistentVolumeClaimSpecType } from '../../validation/gocmp.js';
import { storageObjectInUseProtection } from '../../../admission/storageobjectinuseprotection.js';
import { defaultStorageClass } from '../../../admission/defaultstorageclass.js';
import { persistentVolumeClaimResize } from '../../../admission/persistentvolumeclaimresize.js';
import { accessModesString } from './persistentvolumes.js';
import { persistentVolumeClaimWarnings } from './warnings.js';

type Obj = Record<string, unknown>;
type Claim = KubeObject & { spec?: Obj; status?: Obj };

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Obj => (isObject(v) ? v : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
export const betaStorageClassAnnotation = 'volume.beta.kubernetes.io/storage-class';

/** SetDefaults_PersistentVolumeClaimSpec; also for claim templates (StatefulSets, ephemeral volumes). */
export function defaultPersistentVolumeClaimSpec(spec: Obj): void {
  if (spec.volumeMode === undefined || spec.volumeMode === null) spec.volumeMode = 'Filesystem';
}

function defaultPersistentVolumeClaim(o: KubeObject): void {
  const pvc = o as Claim;
  if (isObject(pvc.spec)) defaultPersistentVolumeClaimSpec(pvc.spec);
  pvc.status = isObject(pvc.status) ? pvc.status : {};
  if (!pvc.status.phase) pvc.status.phase = 'Pending';
}

/** A data source kube can populate from without AnyVolumeDataSource: a claim, or a CSI snapshot. */
function dataSourceIsEnabled(spec: Obj): boolean {
  const ds = spec.dataSource;
  if (!isObject(ds)) return false;
  const group = str(ds.apiGroup);
  return (ds.kind === 'PersistentVolumeClaim' && group === '') || (ds.kind === 'VolumeSnapshot' && group === 'snapshot.storage.k8s.io');
}

/** EnforceDataSourceBackwardsCompatibility and NormalizeDataSources (pkg/api/persistentvolumeclaim). */
function normalizeDataSources(spec: Obj, oldSpec?: Obj): void {
  const oldInUse = oldSpec !== undefined && (isObject(oldSpec.dataSource) || isObject(oldSpec.dataSourceRef));
  if (!oldInUse && !isObject(spec.dataSourceRef) && !dataSourceIsEnabled(spec)) delete spec.dataSource;
  const ds = spec.dataSource, ref = spec.dataSourceRef;
  if (isObject(ds) && !isObject(ref)) {
    spec.dataSourceRef = { ...(typeof ds.apiGroup === 'string' ? { apiGroup: ds.apiGroup } : {}), kind: ds.kind ?? '', name: ds.name ?? '' };
  } else if (isObject(ref) && !isObject(ds) && (ref.namespace === undefined || ref.namespace === null)) {
    spec.dataSource = { ...(typeof ref.apiGroup === 'string' ? { apiGroup: ref.apiGroup } : {}), kind: ref.kind ?? '', name: ref.name ?? '' };
  }
}

function validateDataSource(ds: Obj, path: string, allowInvalidGroup: boolean, withNamespace: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (str(ds.name).length === 0) errs.push(fieldErr.required(`${path}.name`));
  if (str(ds.kind).length === 0) errs.push(fieldErr.required(`${path}.kind`));
  const group = str(ds.apiGroup);
  if (group.length === 0 && ds.kind !== 'PersistentVolumeClaim') {
    errs.push(fieldErr.invalid(path, str(ds.kind), "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
  }
  if (group.length > 0 && !allowInvalidGroup) for (const m of isDNS1123Subdomain(group)) errs.push(fieldErr.invalid(`${path}.apiGroup`, group, m));
  if (withNamespace && typeof ds.namespace === 'string' && ds.namespace.length > 0) {
    for (const m of isDNS1123Label(ds.namespace)) errs.push(fieldErr.invalid(`${path}.namespace`, ds.namespace, m));
  }
  return errs;
}

export interface ClaimSpecOptions {
  allowInvalidLabelValueInSelector?: boolean;
  allowInvalidAPIGroupInDataSourceOrRef?: boolean;
}

/** ValidatePersistentVolumeClaimSpec; `path` is `spec` for claims, `spec.volumeClaimTemplates[0].spec`… for templates. */
export function validatePersistentVolumeClaimSpec(spec: Obj, path: string, opts: ClaimSpecOptions = {}): FieldError[] {
  const errs: FieldError[] = [];
  const modes = Array.isArray(spec.accessModes) ? spec.accessModes : [];
  if (modes.length === 0) errs.push(fieldErr.required(`${path}.accessModes`, 'at least 1 access mode is required'));
  if (isObject(spec.selector)) errs.push(...validateLabelSelector(spec.selector, { allowInvalidLabelValueInSelector: opts.allowInvalidLabelValueInSelector }, `${path}.selector`));
  errs.push(...validateAccessModes(modes, `${path}.accessModes`));

  const requests = obj(obj(spec.resources).requests);
  const storagePath = `${path}.resources[storage]`;
  if (!('storage' in requests)) errs.push(fieldErr.required(storagePath));
  else errs.push(...validatePositiveQuantity(requests.storage, storagePath));

  const className = spec.storageClassName;
  if (typeof className === 'string' && className.length > 0) {
    for (const m of isDNS1123Subdomain(className)) errs.push(fieldErr.invalid(`${path}.storageClassName`, className, m));
  }
  if (typeof spec.volumeMode === 'string' && !supportedVolumeModes.includes(spec.volumeMode)) {
    errs.push(fieldErr.notSupported(`${path}.volumeMode`, spec.volumeMode, supportedVolumeModes));
  }
  const allowGroup = opts.allowInvalidAPIGroupInDataSourceOrRef === true;
  const ds = spec.dataSource, ref = spec.dataSourceRef;
  if (isObject(ds)) errs.push(...validateDataSource(ds, `${path}.dataSource`, allowGroup, false));
  if (isObject(ref)) errs.push(...validateDataSource(ref, `${path}.dataSourceRef`, allowGroup, true));
  if (isObject(ref) && typeof ref.namespace === 'string' && ref.namespace.length > 0) {
    // kube prints the field path itself as the value.
    if (isObject(ds)) errs.push(fieldErr.invalid(path, `${path}.dataSource`, 'may not be specified when dataSourceRef.namespace is specified'));
  } else if (isObject(ds) && isObject(ref)) {
    const same = (ds.apiGroup ?? null) === (ref.apiGroup ?? null) && ds.kind === ref.kind && ds.name === ref.name;
    if (!same) errs.push(fieldErr.invalid(path, `${path}.dataSource`, 'must match dataSourceRef'));
  }
  const vac = spec.volumeAttributesClassName;
  if (typeof vac === 'string' && vac.length > 0) {
    for (const m of isDNS1123Subdomain(vac)) errs.push(fieldErr.invalid(`${path}.volumeAttributesClassName`, vac, m));
  }
  return errs;
}

function optionsFor(old?: Claim): ClaimSpecOptions {
  if (!old) return {};
  const spec = obj(old.spec);
  return {
    allowInvalidAPIGroupInDataSourceOrRef: typeof obj(spec.dataSource).apiGroup === 'string' || typeof obj(spec.dataSourceRef).apiGroup === 'string',
    allowInvalidLabelValueInSelector: validateLabelSelector(spec.selector, {}, 'spec.selector').length > 0,
  };
}

const requestsStorage = (pvc: Claim) => obj(obj(obj(pvc.spec).resources).requests).storage;

/** ValidatePersistentVolumeClaimUpdate (without the object metadata, which the store checks). */
function validateClaimUpdate(pvc: Claim, old: Claim): FieldError[] {
  const errs = validatePersistentVolumeClaimSpec(obj(pvc.spec), 'spec', optionsFor(old));
  const newSpec = structuredClone(obj(pvc.spec));
  const oldSpec = structuredClone(obj(old.spec));
  // The binder sets volumeName once.
  if (str(oldSpec.volumeName).length === 0) {
    if (newSpec.volumeName === undefined) delete oldSpec.volumeName;
    else oldSpec.volumeName = newSpec.volumeName;
  }
  const oldAnn = old.metadata.annotations ?? {}, newAnn = pvc.metadata.annotations ?? {};
  const oldSC = oldSpec.storageClassName, newSC = newSpec.storageClassName;
  const hasOldAnn = betaStorageClassAnnotation in oldAnn, hasNewAnn = betaStorageClassAnnotation in newAnn;
  const upgradeFromAnnotation = hasOldAnn && (oldSC === undefined || oldSC === null) && typeof newSC === 'string' && newSC === oldAnn[betaStorageClassAnnotation]
    && (!hasNewAnn || newAnn[betaStorageClassAnnotation] === oldAnn[betaStorageClassAnnotation]);
  if (upgradeFromAnnotation) {
    delete newSpec.storageClassName;
  } else {
    if ((newAnn[betaStorageClassAnnotation] ?? '') !== (oldAnn[betaStorageClassAnnotation] ?? '')) {
      errs.push(fieldErr.invalid(`metadata.annotations.${betaStorageClassAnnotation}`, newAnn[betaStorageClassAnnotation] ?? '', 'field is immutable'));
    }
    // A claim without a class may get one (what the DefaultStorageClass admission would have set).
    if (typeof newSC === 'string' && (oldSC === undefined || oldSC === null) && (!hasOldAnn || newSC === oldAnn[betaStorageClassAnnotation])) {
      delete newSpec.storageClassName;
    }
  }
  const bound = obj(pvc.status).phase === 'Bound';
  if (bound && isObject(obj(newSpec.resources).requests)) {
    const requests = obj(newSpec.resources).requests as Obj;
    const oldStorage = requestsStorage(old);
    if (oldStorage === undefined) delete requests.storage;
    else requests.storage = oldStorage;
  }
  if (bound && typeof newSpec.volumeAttributesClassName === 'string') {
    if (oldSpec.volumeAttributesClassName === undefined) delete newSpec.volumeAttributesClassName;
    else newSpec.volumeAttributesClassName = oldSpec.volumeAttributesClassName;
  }
  const diff = goCmpDiff(persistentVolumeClaimSpecType, oldSpec, newSpec);
  if (diff !== '') {
    errs.push(fieldErr.forbidden('spec', `spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n${diff}`));
  }
  const oldSize = parseQuantity(String(requestsStorage(old) ?? '0')) ?? parseQuantity('0')!;
  const newSize = parseQuantity(String(requestsStorage(pvc) ?? '0')) ?? parseQuantity('0')!;
  const statusSize = parseQuantity(String(obj(obj(old.status).capacity).storage ?? '0')) ?? parseQuantity('0')!;
  if (compareQuantities(newSize, oldSize) < 0 && compareQuantities(newSize, statusSize) <= 0) {
    errs.push(fieldErr.forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity'));
  }
  const newMode = obj(pvc.spec).volumeMode ?? null, oldMode = obj(old.spec).volumeMode ?? null;
  if (newMode !== oldMode) errs.push(fieldErr.invalid('volumeMode', newMode, 'field is immutable'));
  const oldVAC = obj(old.spec).volumeAttributesClassName, newVAC = obj(pvc.spec).volumeAttributesClassName;
  if (typeof oldVAC === 'string' && oldVAC !== newVAC) {
    if (newVAC === undefined || newVAC === null) errs.push(fieldErr.forbidden('spec.volumeAttributesClassName', 'update from non-nil value to nil is forbidden'));
    else if (newVAC === '') errs.push(fieldErr.forbidden('spec.volumeAttributesClassName', 'update from non-nil value to an empty string is forbidden'));
  }
  return errs;
}

const resizeStatuses = ['ControllerResizeInProgress', 'ControllerResizeInfeasible', 'NodeResizeInProgress', 'NodeResizeInfeasible', 'NodeResizePending'];

/** validatePersistentVolumeClaimResourceKey: qualified, and only `storage` among native names. */
function validateClaimResourceKey(key: string, path: string): FieldError[] {
  const errs = isQualifiedName(key).map((m) => fieldErr.invalid(path, key, m));
  if (errs.length > 0) return errs;
  const native = !key.includes('/') || key.includes('kubernetes.io/');
  return native && key !== 'storage' ? [fieldErr.notSupported(path, key, ['storage'])] : [];
}

/** ValidatePersistentVolumeClaimStatusUpdate (RecoverVolumeExpansionFailure is GA in 1.35). */
function validateClaimStatusUpdate(pvc: Claim): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(obj(pvc.spec).accessModes) || (obj(pvc.spec).accessModes as unknown[]).length === 0) errs.push(fieldErr.required('Spec.accessModes'));
  const status = obj(pvc.status);
  for (const [k, v] of Object.entries(obj(status.capacity))) {
    const q = parseQuantity(String(v));
    if (q && q.mantissa < 0n) errs.push(fieldErr.invalid(`status.capacity[${k}]`, Number(v), 'must be a valid resource quantity'));
  }
  for (const [k, v] of Object.entries(obj(status.allocatedResourceStatuses))) {
    errs.push(...validateClaimResourceKey(k, 'status.allocatedResourceStatus'));
    if (!resizeStatuses.includes(String(v))) errs.push(fieldErr.notSupported('status.allocatedResourceStatus', k, resizeStatuses));
  }
  for (const [k, v] of Object.entries(obj(status.allocatedResources))) {
    const keyErrs = validateClaimResourceKey(k, 'status.allocatedResources');
    if (keyErrs.length > 0) {
      errs.push(...keyErrs);
      continue;
    }
    const q = parseQuantity(String(v));
    if (q && q.mantissa < 0n) errs.push(fieldErr.invalid(`status.allocatedResources[${k}]`, String(v), 'must be greater than or equal to 0'));
  }
  return errs;
}

const statusStrategy: StatusStrategy = {
  prepareForUpdate(o, old) {
    for (const key of Object.keys(o)) if (!['status', 'metadata', 'apiVersion', 'kind'].includes(key) && !(key in old)) delete o[key];
    for (const key of Object.keys(old)) if (!['status', 'metadata', 'apiVersion', 'kind'].includes(key)) o[key] = old[key];
  },
  validateUpdate: (o) => validateClaimStatusUpdate(o as Claim),
};

export const persistentVolumeClaims: KindDefinition = {
  group: '', version: 'v1', resource: 'persistentvolumeclaims',
  strategy: {
    warningsOnCreate: persistentVolumeClaimWarnings,
    warningsOnUpdate: (pvc) => persistentVolumeClaimWarnings(pvc),
    nameValidator: nameIsDNSSubdomain,
    defaults: defaultPersistentVolumeClaim,
    prepareForCreate(o) {
      const pvc = o as Claim;
      pvc.status = { phase: 'Pending' };
      if (isObject(pvc.spec)) normalizeDataSources(pvc.spec);
    },
    prepareForUpdate(o, old) {
      const pvc = o as Claim;
      if (isObject(pvc.spec)) normalizeDataSources(pvc.spec, obj((old as Claim).spec));
    },
    validate: (o) => validatePersistentVolumeClaimSpec(obj((o as Claim).spec), 'spec'),
    // kube validates the new claim, then again inside ValidatePersistentVolumeClaimUpdate.
    validateUpdate: (o, old) => [...validatePersistentVolumeClaimSpec(obj((o as Claim).spec), 'spec', optionsFor(old as Claim)), ...validateClaimUpdate(o as Claim, old as Claim)],
  },
  subresourceStrategies: { status: statusStrategy },
  admission: [defaultStorageClass, storageObjectInUseProtection, persistentVolumeClaimResize],
  selectableFields: { name: (o) => o.metadata.name ?? '' },
  table: {
    columns: [
      column('Status', 'string', 'phase represents the current phase of PersistentVolumeClaim.'),
      column('Volume', 'string', 'volumeName is the binding reference to the PersistentVolume backing this claim.'),
      column('Capacity', 'string', 'capacity represents the actual resources of the underlying volume.'),
      column('Access Modes', 'string', 'accessModes contains the actual access modes the volume backing the PVC has. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1'),
      column('StorageClass', 'string', 'StorageClass of the pvc'),
      column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc'),
      ageColumn,
      column('VolumeMode', 'string', 'volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.', 1),
    ],
    cells(o) {
      const pvc = o as Claim;
      const spec = obj(pvc.spec), status = obj(pvc.status);
      const phase = pvc.metadata.deletionTimestamp ? 'Terminating' : str(status.phase);
      const volumeName = str(spec.volumeName);
      let capacity = '', modes = '';
      if (volumeName !== '') {
        modes = accessModesString(status.accessModes);
        const storage = obj(status.capacity).storage;
        capacity = typeof storage === 'string' ? canonicalQuantityString(storage) : '0';
      }
      const storageClass = pvc.metadata.annotations?.[betaStorageClassAnnotation] ?? (typeof spec.storageClassName === 'string' ? spec.storageClassName : '');
      return [
        phase, volumeName, capacity, modes, storageClass,
        typeof spec.volumeAttributesClassName === 'string' ? spec.volumeAttributesClassName : '<unset>',
        ageOf(pvc.metadata.creationTimestamp), typeof spec.volumeMode === 'string' ? spec.volumeMode : '<unset>',
      ];
    },
  },
};


/**
 * storage.k8s.io/v1 CSIDrivers: SetDefaults_CSIDriver (1.35: seLinuxMount false with
 * SELinuxMountReadWriteOncePod on), ValidateCSIDriver(Update) (the driver name is validated
 * at `name`; attachRequired and volumeLifecycleModes are fixed), generation bumped on changes
 * to the mutable fields, the printer.
 */
import { fieldErr, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { nameIsPathSegment } from '../../names.js';
import { duplicate } from '../../validation/goformat.js';
import { validateCSIDriverName } from '../../validation/persistentvolumesource.js';
import { validateMetadataKubeFinalizers } from '../../validation/finalizers.js';
import { isObject, obj } from './common.js';
import { sameJSON } from '../core/persistentvolumes.js';

type Obj = Record<string, unknown>;
type CSIDriver = KubeObject & { spec?: Obj };

const fsGroupPolicies = ['File', 'None', 'ReadWriteOnceWithFSType'];
const lifecycleModes = ['Persistent', 'Ephemeral'];

function defaultCSIDriver(o: KubeObject): void {
  const d = o as CSIDriver;
  const spec = (d.spec = isObject(d.spec) ? d.spec : {});
  spec.attachRequired ??= true;
  spec.podInfoOnMount ??= false;
  spec.storageCapacity ??= false;
  spec.fsGroupPolicy ??= 'ReadWriteOnceWithFSType';
  if (!Array.isArray(spec.volumeLifecycleModes) || spec.volumeLifecycleModes.length === 0) spec.volumeLifecycleModes = ['Persistent'];
  spec.requiresRepublish ??= false;
  spec.seLinuxMount ??= false;
}

function validateTokenRequests(requests: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const audiences = new Set<string>();
  (Array.isArray(requests) ? requests : []).forEach((raw, i) => {
    const r = obj(raw);
    const p = `${path}[${i}]`;
    const audience = String(r.audience ?? '');
    if (audiences.has(audience)) {
      errs.push(duplicate(`${p}.audience`, audience));
      return;
    }
    audiences.add(audience);
    if (typeof r.expirationSeconds !== 'number') return;
    if (r.expirationSeconds < 600) errs.push(fieldErr.invalid(`${p}.expirationSeconds`, r.expirationSeconds, 'may not specify a duration less than 10 minutes'));
    if (r.expirationSeconds > 2 ** 32) errs.push(fieldErr.invalid(`${p}.expirationSeconds`, r.expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
  });
  return errs;
}

function requiredBool(v: unknown, path: string): FieldError[] {
  return v === undefined || v === null ? [fieldErr.required(path)] : [];
}

export function validateCSIDriver(d: CSIDriver): FieldError[] {
  const errs = validateMetadataKubeFinalizers(d.metadata);
  errs.push(...validateCSIDriverName(d.metadata.name ?? '', 'name'));
  const spec = obj(d.spec);
  const p = 'spec';
  errs.push(...requiredBool(spec.attachRequired, `${p}.attachedRequired`));
  errs.push(...requiredBool(spec.podInfoOnMount, `${p}.podInfoOnMount`));
  errs.push(...requiredBool(spec.storageCapacity, `${p}.storageCapacity`));
  if (spec.fsGroupPolicy === undefined || spec.fsGroupPolicy === null) errs.push(fieldErr.required(`${p}.fsGroupPolicy`));
  else if (!fsGroupPolicies.includes(String(spec.fsGroupPolicy))) errs.push(fieldErr.notSupported(`${p}.fsGroupPolicy`, spec.fsGroupPolicy, fsGroupPolicies));
  errs.push(...validateTokenRequests(spec.tokenRequests, `${p}.tokenRequests`));
  const modes = Array.isArray(spec.volumeLifecycleModes) ? spec.volumeLifecycleModes : [];
  if (modes.length === 0) errs.push(fieldErr.required(`${p}.volumeLifecycleModes`, 'at least one mode must be specified'));
  for (const m of modes) if (!lifecycleModes.includes(String(m))) errs.push(fieldErr.notSupported(`${p}.volumeLifecycleModes`, m, lifecycleModes));
  errs.push(...requiredBool(spec.seLinuxMount, `${p}.seLinuxMount`));
  if (typeof spec.nodeAllocatableUpdatePeriodSeconds === 'number' && spec.nodeAllocatableUpdatePeriodSeconds < 10) {
    errs.push(fieldErr.invalid(`${p}.nodeAllocatableUpdatePeriodSeconds`, spec.nodeAllocatableUpdatePeriodSeconds, 'must be greater than or equal to 10 seconds'));
  }
  return errs;
}

function validateCSIDriverUpdate(d: CSIDriver, old: CSIDriver): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(d.spec), oldSpec = obj(old.spec);
  if ((spec.attachRequired ?? null) !== (oldSpec.attachRequired ?? null)) errs.push(fieldErr.invalid('spec.attachedRequired', spec.attachRequired ?? null, 'field is immutable'));
  if (!sameJSON(spec.volumeLifecycleModes ?? null, oldSpec.volumeLifecycleModes ?? null)) {
    errs.push({ type: 'FieldValueInvalid', field: 'spec.volumeLifecycleModes', detail: `Invalid value: []storage.VolumeLifecycleMode{${(Array.isArray(spec.volumeLifecycleModes) ? spec.volumeLifecycleModes : []).map((m) => JSON.stringify(String(m))).join(', ')}}: field is immutable` });
  }
  errs.push(...validateTokenRequests(spec.tokenRequests, 'spec.tokenRequests'));
  return errs;
}

/** Fields a driver may change; a change to one of them bumps the generation. */
const mutableFields = ['tokenRequests', 'requiresRepublish', 'seLinuxMount', 'podInfoOnMount', 'fsGroupPolicy', 'nodeAllocatableUpdatePeriodSeconds'];

export const csiDrivers: KindDefinition = {
  group: 'storage.k8s.io', version: 'v1', resource: 'csidrivers',
  strategy: {
    // The driver name is checked by the kind's validation (at `name`), the store's only as a path segment.
    nameValidator: nameIsPathSegment,
    defaults: defaultCSIDriver,
    prepareForUpdate(o, old) {
      const spec = obj((o as CSIDriver).spec), oldSpec = obj((old as CSIDriver).spec);
      if (mutableFields.some((f) => !sameJSON(spec[f] ?? null, oldSpec[f] ?? null))) {
        o.metadata.generation = (old.metadata.generation ?? 0) + 1;
      } else if (old.metadata.generation !== undefined) {
        o.metadata.generation = old.metadata.generation;
      }
    },
    validate: (o) => validateCSIDriver(o as CSIDriver),
    validateUpdate: (o, old) => [...validateCSIDriver(o as CSIDriver), ...validateCSIDriverUpdate(o as CSIDriver, old as CSIDriver)],
  },
  table: {
    columns: [
      column('AttachRequired', 'boolean', 'attachRequired indicates this CSI volume driver requires an attach operation (because it implements the CSI ControllerPublishVolume() method), and that the Kubernetes attach detach controller should call the attach volume interface which checks the volumeattachment status and waits until the volume is attached before proceeding to mounting. The CSI external-attacher coordinates with CSI volume driver and updates the volumeattachment status when the attach operation is complete. If the value is specified to false, the attach operation will be skipped. Otherwise the attach operation will be called.\n\nThis field is immutable.'),
      column('PodInfoOnMount', 'boolean', 'podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations, if set to true. If set to false, pod information will not be passed on mount. Default is false.'),
      column('StorageCapacity', 'boolean', 'storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report by creating CSIStorageCapacity objects with capacity information, if set to true.'),
      column('TokenRequests', 'string', 'tokenRequests indicates the CSI driver needs pods\' service account tokens it is mounting volume for to do necessary authentication.'),
      column('RequiresRepublish', 'boolean', 'requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume.'),
      column('Modes', 'string', 'volumeLifecycleModes defines what kind of volumes this CSI volume driver supports.'),
      ageColumn,
    ],
    cells(o) {
      const spec = obj((o as CSIDriver).spec);
      const modes = Array.isArray(spec.volumeLifecycleModes) ? spec.volumeLifecycleModes.map(String).join(',') : '';
      const tokens = Array.isArray(spec.tokenRequests) ? spec.tokenRequests.map((t) => String(obj(t).audience ?? '')).join(',') : '<unset>';
      return [
        spec.attachRequired !== false, spec.podInfoOnMount === true, spec.storageCapacity === true, tokens, spec.requiresRepublish === true,
        modes || '<none>', ageOf(o.metadata.creationTimestamp),
      ];
    },
  },
};

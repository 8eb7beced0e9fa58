/**
 * storage.k8s.io/v1 VolumeAttachments: status reset on create and kept by spec writes,
 * ValidateVolumeAttachment and its v1 additions (the attacher is a CSI driver name), the
 * source (a PV name or an inline PV spec, validated as inline), the read-only spec (printed
 * with Go's %#v), the printer.
 */
import { fieldErr, goQuote, isDNS1123Subdomain, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject, StatusStrategy } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { nameIsDNSSubdomain } from '../../names.js';
import { invalidGo } from '../../validation/goformat.js';
import { validateCSIDriverName, validatePersistentVolumeSpec } from '../../validation/persistentvolumesource.js';
import { validateMetadataKubeFinalizers } from '../../validation/finalizers.js';
import { isObject, obj, str } from './common.js';
import { sameJSON } from '../core/persistentvolumes.js';

type Obj = Record<string, unknown>;
type VolumeAttachment = KubeObject & { spec?: Obj; status?: Obj };

const maxAttachedVolumeMetadataSize = 256 * 1024;
const maxVolumeErrorMessageSize = 1024;

function validateVolumeAttachment(va: VolumeAttachment): FieldError[] {
  const errs = validateMetadataKubeFinalizers(va.metadata);
  const spec = obj(va.spec);
  const attacher = str(spec.attacher);
  if (attacher.length === 0) errs.push(fieldErr.required('spec.attacher'));
  const source = obj(spec.source);
  const inline = source.inlineVolumeSpec, pvName = source.persistentVolumeName;
  const hasInline = inline !== undefined && inline !== null, hasPV = typeof pvName === 'string';
  if (!hasInline && !hasPV) errs.push(fieldErr.required('spec.source', 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  else if (hasInline && hasPV) errs.push(fieldErr.forbidden('spec.source', 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  else if (hasPV) {
    if (pvName.length === 0) errs.push(fieldErr.required('spec.source.persistentVolumeName', 'must specify non empty persistentVolumeName'));
  } else errs.push(...validatePersistentVolumeSpec(obj(inline), '', true, 'spec.source.inlineVolumeSpec'));
  const nodeName = str(spec.nodeName);
  for (const m of isDNS1123Subdomain(nodeName)) errs.push(fieldErr.invalid('spec.nodeName', nodeName, m));

  const status = obj(va.status);
  let size = 0;
  for (const [k, v] of Object.entries(obj(status.attachmentMetadata))) size += Buffer.byteLength(k) + Buffer.byteLength(String(v ?? ''));
  if (size > maxAttachedVolumeMetadataSize) errs.push(fieldErr.tooLong('status.attachmentMetadata', maxAttachedVolumeMetadataSize));
  for (const which of ['attachError', 'detachError']) {
    const e = status[which];
    if (isObject(e) && Buffer.byteLength(str(e.message)) > maxVolumeErrorMessageSize) errs.push(fieldErr.tooLong(`status.${which}.message`, maxAttachedVolumeMetadataSize));
  }

  // ValidateVolumeAttachmentV1.
  errs.push(...validateCSIDriverName(attacher, 'spec.attacher'));
  if (hasPV) for (const m of isDNS1123Subdomain(pvName)) errs.push(fieldErr.invalid('spec.source.persistentVolumeName', pvName, m));
  return errs;
}

/** Go's %#v of a storage.VolumeAttachmentSpec. */
function goSpecRepr(spec: Obj): string {
  const source = obj(spec.source);
  const pv = typeof source.persistentVolumeName === 'string' ? '(*string)(0xc000000000)' : '(*string)(nil)';
  const inline = source.inlineVolumeSpec !== undefined && source.inlineVolumeSpec !== null ? '(*core.PersistentVolumeSpec)(0xc000000000)' : '(*core.PersistentVolumeSpec)(nil)';
  return `storage.VolumeAttachmentSpec{Attacher:${goQuote(str(spec.attacher))}, Source:storage.VolumeAttachmentSource{PersistentVolumeName:${pv}, InlineVolumeSpec:${inline}}, NodeName:${goQuote(str(spec.nodeName))}}`;
}

function validateVolumeAttachmentUpdate(va: VolumeAttachment, old: VolumeAttachment): FieldError[] {
  const errs = validateVolumeAttachment(va);
  if (!sameJSON(obj(va.spec), obj(old.spec))) errs.push(invalidGo('spec', goSpecRepr(obj(va.spec)), 'field is immutable'));
  return errs;
}

const statusStrategy: StatusStrategy = {
  validateUpdate: (o, old) => validateVolumeAttachmentUpdate(o as VolumeAttachment, old as VolumeAttachment),
};

export const volumeAttachments: KindDefinition = {
  group: 'storage.k8s.io', version: 'v1', resource: 'volumeattachments',
  strategy: {
    nameValidator: nameIsDNSSubdomain,
    prepareForCreate(o) {
      (o as VolumeAttachment).status = {};
    },
    validate: (o) => validateVolumeAttachment(o as VolumeAttachment),
    validateUpdate: (o, old) => validateVolumeAttachmentUpdate(o as VolumeAttachment, old as VolumeAttachment),
  },
  subresourceStrategies: { status: statusStrategy },
  table: {
    columns: [
      { ...column('Attacher', 'string', 'attacher indicates the name of the volume driver that MUST handle this request. This is the name returned by GetPluginName().'), format: 'name' },
      column('PV', 'string', 'persistentVolumeName represents the name of the persistent volume to attach.'),
      column('Node', 'string', 'nodeName represents the node that the volume should be attached to.'),
      column('Attached', 'boolean', 'attached indicates the volume is successfully attached. This field must only be set by the entity completing the attach operation, i.e. the external-attacher.'),
      ageColumn,
    ],
    cells(o) {
      const va = o as VolumeAttachment;
      const spec = obj(va.spec);
      return [str(spec.attacher), str(obj(spec.source).persistentVolumeName), str(spec.nodeName), obj(va.status).attached === true, ageOf(o.metadata.creationTimestamp)];
    },
  },
};

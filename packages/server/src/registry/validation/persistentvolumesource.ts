/**
 * A PersistentVolume's spec as kube defaults and validates it (pkg/apis/core/v1/defaults.go,
 * pkg/apis/core/validation ValidatePersistentVolumeSpec and the *PersistentVolumeSource
 * validators): PersistentVolumes and a VolumeAttachment's inlineVolumeSpec share it.
 */
import { fieldErr, isDNS1123Label, isDNS1123Subdomain, type FieldError } from '@windlass/machinery';
import { notSupportedGo, goResourceList } from './goformat.js';
import { validateNodeSelector } from './nodeselector.js';
import { compareQuantities, parseQuantity, scaledValue } from './quantity.js';

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Obj => (isObject(v) ? v : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

export const supportedAccessModes = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const supportedReclaimPolicies = ['Delete', 'Recycle', 'Retain'];
export const supportedVolumeModes = ['Block', 'Filesystem'];
const supportedHostPathTypes = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];

const inclusiveRange = (lo: number, hi: number) => `must be between ${lo} and ${hi}, inclusive`;

/** The SetDefaults_* of the volume sources a PersistentVolumeSpec can hold. */
export function defaultPersistentVolumeSource(spec: Obj): void {
  const hostPath = spec.hostPath;
  if (isObject(hostPath) && hostPath.type === undefined) hostPath.type = '';
  const rbd = spec.rbd;
  if (isObject(rbd)) {
    if (!rbd.pool) rbd.pool = 'rbd';
    if (!rbd.user) rbd.user = 'admin';
    if (!rbd.keyring) rbd.keyring = '/etc/ceph/keyring';
  }
  const iscsi = spec.iscsi;
  if (isObject(iscsi) && !iscsi.iscsiInterface) iscsi.iscsiInterface = 'default';
  const azureDisk = spec.azureDisk;
  if (isObject(azureDisk)) {
    azureDisk.cachingMode ??= 'ReadWrite';
    azureDisk.kind ??= 'Shared';
    azureDisk.fsType ??= 'ext4';
    azureDisk.readOnly ??= false;
  }
  const scaleIO = spec.scaleIO;
  if (isObject(scaleIO)) {
    if (!scaleIO.storageMode) scaleIO.storageMode = 'ThinProvisioned';
    if (!scaleIO.fsType) scaleIO.fsType = 'xfs';
  }
}

/** Go's path.Clean, enough to tell whether a path is the root. */
function cleanPath(p: string): string {
  const abs = p.startsWith('/');
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!abs) out.push('..');
    } else out.push(part);
  }
  const joined = out.join('/');
  return abs ? `/${joined}` : joined || '.';
}

export function validatePathNoBacksteps(p: string, path: string): FieldError[] {
  return p.replace(/\\/g, '/').split('/').includes('..') ? [fieldErr.invalid(path, p, "must not contain '..'")] : [];
}

function validateHostPath(s: Obj, path: string): FieldError[] {
  const p = str(s.path);
  if (p.length === 0) return [fieldErr.required(`${path}.path`)];
  const errs = validatePathNoBacksteps(p, `${path}.path`);
  if (s.type !== undefined && s.type !== null && !supportedHostPathTypes.includes(str(s.type))) {
    errs.push(fieldErr.notSupported(`${path}.type`, s.type, supportedHostPathTypes));
  }
  return errs;
}

function requireFields(s: Obj, path: string, names: string[]): FieldError[] {
  return names.filter((n) => str(s[n]).length === 0).map((n) => fieldErr.required(`${path}.${n}`));
}

function validatePartition(s: Obj, path: string): FieldError[] {
  const partition = num(s.partition);
  return partition < 0 || partition > 255 ? [fieldErr.invalid(`${path}.partition`, partition, inclusiveRange(1, 255))] : [];
}

function validateSecretReference(ref: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(ref.name);
  if (name.length === 0) errs.push(fieldErr.required(`${path}.name`));
  else for (const m of isDNS1123Subdomain(name)) errs.push(fieldErr.invalid(`${path}.name`, name, m));
  const ns = str(ref.namespace);
  if (ns.length === 0) errs.push(fieldErr.required(`${path}.namespace`));
  else for (const m of isDNS1123Label(ns)) errs.push(fieldErr.invalid(`${path}.namespace`, ns, m));
  return errs;
}

/** ValidateCSIDriverName: CSIDrivers, CSINode drivers, VolumeAttachment attachers, CSI volume drivers. */
export function validateCSIDriverName(name: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (name.length === 0) errs.push(fieldErr.required(path));
  if (name.length > 63) errs.push(fieldErr.tooLong(path, 63));
  for (const m of isDNS1123Subdomain(name.toLowerCase())) errs.push(fieldErr.invalid(path, name, m));
  return errs;
}

function validateCSI(s: Obj, path: string): FieldError[] {
  const errs = validateCSIDriverName(str(s.driver), `${path}.driver`);
  if (str(s.volumeHandle).length === 0) errs.push(fieldErr.required(`${path}.volumeHandle`));
  for (const ref of ['controllerPublishSecretRef', 'controllerExpandSecretRef', 'nodePublishSecretRef', 'nodeExpandSecretRef']) {
    if (isObject(s[ref])) errs.push(...validateSecretReference(s[ref] as Obj, `${path}.${ref}`));
  }
  return errs;
}

const iqnRe = /iqn\.\d{4}-\d{2}\.([A-Za-z0-9\-.]+)(:[^,;*&$|\s]+)$/;
const euiRe = /^eui.[A-Za-z0-9]{16}$/;
const naaRe = /^naa.[A-Za-z0-9]{32}$/;

function badIqn(v: string): boolean {
  return (v.startsWith('iqn') && !iqnRe.test(v)) || (v.startsWith('eui') && !euiRe.test(v)) || (v.startsWith('naa') && !naaRe.test(v));
}

function validateISCSI(s: Obj, pvName: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const portal = str(s.targetPortal);
  if (portal.length === 0) errs.push(fieldErr.required(`${path}.targetPortal`));
  if (typeof s.initiatorName === 'string' && `${pvName}:${portal}`.length > 64) {
    errs.push(fieldErr.invalid(`${path}.targetportal`, portal, 'Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.'));
  }
  const iqn = str(s.iqn);
  if (iqn.length === 0) errs.push(fieldErr.required(`${path}.iqn`));
  else if (!/^(iqn|eui|naa)/.test(iqn) || badIqn(iqn)) errs.push(fieldErr.invalid(`${path}.iqn`, iqn, 'must be valid format'));
  const lun = num(s.lun);
  if (lun < 0 || lun > 255) errs.push(fieldErr.invalid(`${path}.lun`, lun, inclusiveRange(0, 255)));
  if ((s.chapAuthDiscovery === true || s.chapAuthSession === true) && !isObject(s.secretRef)) errs.push(fieldErr.required(`${path}.secretRef`));
  if (isObject(s.secretRef) && str(s.secretRef.name).length === 0) errs.push(fieldErr.required(`${path}.secretRef.name`));
  if (typeof s.initiatorName === 'string') {
    const initiator = s.initiatorName;
    if (!/^(iqn|eui|naa)/.test(initiator)) errs.push(fieldErr.invalid(`${path}.initiatorname`, initiator, 'must be valid format'));
    if (badIqn(initiator)) errs.push(fieldErr.invalid(`${path}.initiatorname`, initiator, 'must be valid format'));
  }
  return errs;
}

function validateFC(s: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const wwns = list(s.targetWWNs), wwids = list(s.wwids);
  if (wwns.length < 1 && wwids.length < 1) errs.push(fieldErr.required(`${path}.targetWWNs`, 'must specify either targetWWNs or wwids, but not both'));
  if (wwns.length !== 0 && wwids.length !== 0) errs.push(fieldErr.invalid(`${path}.targetWWNs`, wwns, 'targetWWNs and wwids can not be specified simultaneously'));
  if (wwns.length !== 0) {
    if (typeof s.lun !== 'number') errs.push(fieldErr.required(`${path}.lun`, 'lun is required if targetWWNs is specified'));
    else if (s.lun < 0 || s.lun > 255) errs.push(fieldErr.invalid(`${path}.lun`, s.lun, inclusiveRange(0, 255)));
  }
  return errs;
}

function validateFlex(s: Obj, path: string): FieldError[] {
  const errs = requireFields(s, path, ['driver']);
  for (const k of Object.keys(obj(s.options))) {
    const parts = k.split('/');
    const ns = parts.length >= 2 ? parts[0] : k;
    const normalized = `.${ns.toLowerCase()}`;
    if (normalized.endsWith('.kubernetes.io') || normalized.endsWith('.k8s.io')) {
      errs.push(fieldErr.invalid(`${path}.options[${k}]`, k, 'kubernetes.io and k8s.io namespaces are reserved'));
    }
  }
  return errs;
}

function validateAzureDisk(s: Obj, path: string): FieldError[] {
  const errs = requireFields(s, path, ['diskName']);
  const uri = str(s.diskURI);
  if (uri === '') errs.push(fieldErr.required(`${path}.diskURI`));
  if (typeof s.cachingMode === 'string' && !['None', 'ReadOnly', 'ReadWrite'].includes(s.cachingMode)) {
    errs.push(fieldErr.notSupported(`${path}.cachingMode`, s.cachingMode, ['None', 'ReadOnly', 'ReadWrite']));
  }
  if (typeof s.kind === 'string') {
    if (!['Dedicated', 'Managed', 'Shared'].includes(s.kind)) errs.push(fieldErr.notSupported(`${path}.kind`, s.kind, ['Dedicated', 'Managed', 'Shared']));
    if (s.kind === 'Managed' && !uri.startsWith('/subscriptions/')) {
      errs.push(fieldErr.notSupported(`${path}.diskURI`, uri, ['/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}']));
    }
    if (s.kind !== 'Managed' && !uri.startsWith('https://')) {
      errs.push(fieldErr.notSupported(`${path}.diskURI`, uri, ['https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd']));
    }
  }
  return errs;
}

function validateQuobyte(s: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const registry = str(s.registry);
  if (registry.length === 0) errs.push(fieldErr.required(`${path}.registry`, 'must be a host:port pair or multiple pairs separated by commas'));
  else if (str(s.tenant).length >= 65) errs.push(fieldErr.required(`${path}.tenant`, 'must be a UUID and may not exceed a length of 64 characters'));
  else {
    for (const pair of registry.split(',')) {
      if (!/^(\[[^\]]*\]|[^:[\]]*):[^:]*$/.test(pair)) errs.push(fieldErr.invalid(`${path}.registry`, registry, 'must be a host:port pair or multiple pairs separated by commas'));
    }
  }
  if (str(s.volume).length === 0) errs.push(fieldErr.required(`${path}.volume`));
  return errs;
}

function validateStorageOS(s: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(s.volumeName);
  if (name.length === 0) errs.push(fieldErr.required(`${path}.volumeName`));
  else for (const m of isDNS1123Label(name)) errs.push(fieldErr.invalid(`${path}.volumeName`, name, m));
  const ns = str(s.volumeNamespace);
  if (ns.length > 0) for (const m of isDNS1123Label(ns)) errs.push(fieldErr.invalid(`${path}.volumeNamespace`, ns, m));
  if (isObject(s.secretRef)) {
    if (str(s.secretRef.name).length === 0) errs.push(fieldErr.required(`${path}.secretRef.name`));
    if (str(s.secretRef.namespace).length === 0) errs.push(fieldErr.required(`${path}.secretRef.namespace`));
  }
  return errs;
}

/** Each source: its JSON name, the field path kube reports its errors under, its validator. */
const sources: Array<[string, string, (s: Obj, path: string, pvName: string) => FieldError[]]> = [
  ['hostPath', 'hostPath', validateHostPath],
  ['gcePersistentDisk', 'persistentDisk', (s, p) => [...requireFields(s, p, ['pdName']), ...validatePartition(s, p)]],
  ['awsElasticBlockStore', 'awsElasticBlockStore', (s, p) => [...requireFields(s, p, ['volumeID']), ...validatePartition(s, p)]],
  ['glusterfs', 'glusterfs', (s, p) => {
    const errs = requireFields(s, p, ['endpoints', 'path']);
    if (typeof s.endpointsNamespace === 'string') {
      const ns = s.endpointsNamespace;
      if (ns === '') errs.push(fieldErr.invalid(`${p}.endpointsNamespace`, ns, 'if the endpointnamespace is set, it must be a valid namespace name'));
      else for (const m of isDNS1123Label(ns)) errs.push(fieldErr.invalid(`${p}.endpointsNamespace`, ns, m));
    }
    return errs;
  }],
  ['flocker', 'flocker', (s, p) => {
    const errs: FieldError[] = [];
    const name = str(s.datasetName), uuid = str(s.datasetUUID);
    if (name.length === 0 && uuid.length === 0) errs.push(fieldErr.required(p, 'one of datasetName and datasetUUID is required'));
    if (name.length !== 0 && uuid.length !== 0) errs.push(fieldErr.invalid(p, 'resource', 'datasetName and datasetUUID can not be specified simultaneously'));
    if (name.includes('/')) errs.push(fieldErr.invalid(`${p}.datasetName`, name, "must not contain '/'"));
    return errs;
  }],
  ['nfs', 'nfs', (s, p) => {
    const errs = requireFields(s, p, ['server', 'path']);
    if (!str(s.path).startsWith('/')) errs.push(fieldErr.invalid(`${p}.path`, str(s.path), 'must be an absolute path'));
    return errs;
  }],
  ['rbd', 'rbd', (s, p) => {
    const errs: FieldError[] = [];
    if (list(s.monitors).length === 0) errs.push(fieldErr.required(`${p}.monitors`));
    if (str(s.image).length === 0) errs.push(fieldErr.required(`${p}.image`));
    return errs;
  }],
  ['quobyte', 'quobyte', validateQuobyte],
  ['cephfs', 'cephfs', (s, p) => (list(s.monitors).length === 0 ? [fieldErr.required(`${p}.monitors`)] : [])],
  ['iscsi', 'iscsi', (s, p, pvName) => validateISCSI(s, pvName, p)],
  ['cinder', 'cinder', (s, p) => {
    const errs = requireFields(s, p, ['volumeID']);
    if (isObject(s.secretRef)) {
      if (str(s.secretRef.name).length === 0) errs.push(fieldErr.required(`${p}.secretRef.name`));
      if (str(s.secretRef.namespace).length === 0) errs.push(fieldErr.required(`${p}.secretRef.namespace`));
    }
    return errs;
  }],
  ['fc', 'fc', validateFC],
  ['flexVolume', 'flexVolume', validateFlex],
  ['azureFile', 'azureFile', (s, p) => {
    const errs = requireFields(s, p, ['secretName', 'shareName']);
    if (typeof s.secretNamespace === 'string' && s.secretNamespace.length === 0) errs.push(fieldErr.required(`${p}.secretNamespace`));
    return errs;
  }],
  ['vsphereVolume', 'vsphereVolume', (s, p) => requireFields(s, p, ['volumePath'])],
  ['photonPersistentDisk', 'photonPersistentDisk', (s, p) => requireFields(s, p, ['pdID'])],
  ['portworxVolume', 'portworxVolume', (s, p) => requireFields(s, p, ['volumeID'])],
  ['azureDisk', 'azureDisk', validateAzureDisk],
  ['scaleIO', 'scaleIO', (s, p) => requireFields(s, p, ['gateway', 'system', 'volumeName'])],
  ['local', 'local', (s, p) => {
    const lp = str(s.path);
    if (lp === '') return [fieldErr.required(`${p}.path`)];
    return validatePathNoBacksteps(lp, `${p}.path`);
  }],
  ['storageos', 'storageos', validateStorageOS],
  ['csi', 'csi', validateCSI],
];

/** The volume source fields of a spec (what the spec.persistentvolumesource immutability compares). */
export const persistentVolumeSourceFields = sources.map(([name]) => name);

function validateBasicResource(raw: unknown, path: string): FieldError[] {
  const q = parseQuantity(String(raw));
  if (!q) return [];
  const value = scaledValue(q, 0);
  return value < 0n ? [fieldErr.invalid(path, Number(value), 'must be a valid resource quantity')] : [];
}

/** ValidatePositiveQuantityValue: `Invalid value: "0": must be greater than zero`. */
export function validatePositiveQuantity(raw: unknown, path: string): FieldError[] {
  const q = parseQuantity(String(raw));
  if (!q) return [];
  const zero = parseQuantity('0')!;
  return compareQuantities(q, zero) <= 0 ? [fieldErr.invalid(path, String(raw), 'must be greater than zero')] : [];
}

export interface PersistentVolumeSpecOptions {
  /** The node affinity of the stored volume already held label values kube now refuses. */
  allowInvalidLabelValueInRequiredNodeAffinity?: boolean;
}

function validateAccessModes(modes: unknown[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  let rwop = false, other = false;
  for (const m of modes) {
    if (!supportedAccessModes.includes(String(m))) errs.push(fieldErr.notSupported(path, m, supportedAccessModes));
    if (m === 'ReadWriteOncePod') rwop = true;
    else if (supportedAccessModes.includes(String(m))) other = true;
  }
  if (rwop && other) errs.push(fieldErr.forbidden(path, 'may not use ReadWriteOncePod with other access modes'));
  return errs;
}

export { validateAccessModes };

/** ValidatePersistentVolumeSpec; `inline` for a VolumeAttachment's inlineVolumeSpec. */
export function validatePersistentVolumeSpec(spec: Obj, pvName: string, inline: boolean, path: string, opts: PersistentVolumeSpecOptions = {}): FieldError[] {
  const errs: FieldError[] = [];
  const capacity = spec.capacity;
  const capacityKeys = isObject(capacity) ? Object.keys(capacity) : [];
  if (inline) {
    if (spec.claimRef !== undefined && spec.claimRef !== null) errs.push(fieldErr.forbidden(`${path}.claimRef`, 'may not be specified in the context of inline volumes'));
    if (capacityKeys.length !== 0) errs.push(fieldErr.forbidden(`${path}.capacity`, 'may not be specified in the context of inline volumes'));
    if (!isObject(spec.csi)) errs.push(fieldErr.required(`${path}.csi`, 'has to be specified in the context of inline volumes'));
  }
  const modes = list(spec.accessModes);
  if (modes.length === 0) errs.push(fieldErr.required(`${path}.accessModes`));
  errs.push(...validateAccessModes(modes, `${path}.accessModes`));

  if (!inline) {
    if (capacityKeys.length === 0) errs.push(fieldErr.required(`${path}.capacity`));
    if (!capacityKeys.includes('storage') || capacityKeys.length > 1) {
      errs.push(notSupportedGo(`${path}.capacity`, goResourceList(capacity), ['storage']));
    }
    for (const k of capacityKeys) {
      const v = (capacity as Obj)[k];
      errs.push(...validateBasicResource(v, `${path}.capacity[${k}]`), ...validatePositiveQuantity(v, `${path}.capacity[${k}]`));
    }
  }

  const reclaim = str(spec.persistentVolumeReclaimPolicy);
  if (reclaim.length > 0) {
    if (inline) {
      if (reclaim !== 'Retain') errs.push(fieldErr.forbidden(`${path}.persistentVolumeReclaimPolicy`, 'may only be Retain in the context of inline volumes'));
    } else if (!supportedReclaimPolicies.includes(reclaim)) {
      errs.push(fieldErr.notSupported(`${path}.persistentVolumeReclaimPolicy`, reclaim, supportedReclaimPolicies));
    }
  }

  let nodeAffinitySpecified = false;
  if (spec.nodeAffinity !== undefined && spec.nodeAffinity !== null) {
    if (inline) errs.push(fieldErr.forbidden(`${path}.nodeAffinity`, 'may not be specified in the context of inline volumes'));
    else {
      nodeAffinitySpecified = true;
      const required = obj(spec.nodeAffinity).required;
      if (isObject(required)) errs.push(...validateNodeSelector(required, opts.allowInvalidLabelValueInRequiredNodeAffinity === true, `${path}.nodeAffinity.required`));
      else errs.push(fieldErr.required(`${path}.nodeAffinity.required`, 'must specify required node constraints'));
    }
  }

  let numVolumes = 0;
  for (const [name, errPath, validate] of sources) {
    const src = spec[name];
    if (src === undefined || src === null) continue;
    // kube lets flexVolume through without the one-type check.
    if (numVolumes > 0 && name !== 'flexVolume') {
      errs.push(fieldErr.forbidden(`${path}.${name}`, 'may not specify more than 1 volume type'));
      continue;
    }
    numVolumes++;
    errs.push(...validate(obj(src), `${path}.${errPath}`, pvName));
    if (name === 'local' && !nodeAffinitySpecified) errs.push(fieldErr.required(`${path}.nodeAffinity`, 'Local volume requires node affinity'));
  }
  if (numVolumes === 0) errs.push(fieldErr.required(path, 'must specify a volume type'));

  const hostPath = spec.hostPath;
  if (isObject(hostPath) && cleanPath(str(hostPath.path)) === '/' && reclaim === 'Recycle') {
    errs.push(fieldErr.forbidden(`${path}.persistentVolumeReclaimPolicy`, "may not be 'recycle' for a hostPath mount of '/'"));
  }

  const className = str(spec.storageClassName);
  if (className.length > 0) {
    if (inline) errs.push(fieldErr.forbidden(`${path}.storageClassName`, 'may not be specified in the context of inline volumes'));
    else for (const m of isDNS1123Subdomain(className)) errs.push(fieldErr.invalid(`${path}.storageClassName`, className, m));
  }
  if (typeof spec.volumeMode === 'string') {
    if (inline) {
      if (spec.volumeMode !== 'Filesystem') errs.push(fieldErr.forbidden(`${path}.volumeMode`, 'may not specify volumeMode other than Filesystem in the context of inline volumes'));
    } else if (!supportedVolumeModes.includes(spec.volumeMode)) {
      errs.push(fieldErr.notSupported(`${path}.volumeMode`, spec.volumeMode, supportedVolumeModes));
    }
  }
  if (typeof spec.volumeAttributesClassName === 'string') {
    const vac = spec.volumeAttributesClassName;
    if (vac.length === 0) errs.push(fieldErr.required(`${path}.volumeAttributesClassName`, 'an empty string is disallowed'));
    else for (const m of isDNS1123Subdomain(vac)) errs.push(fieldErr.invalid(`${path}.volumeAttributesClassName`, vac, m));
    if (!isObject(spec.csi)) errs.push(fieldErr.required(`${path}.csi`, 'has to be specified when using volumeAttributesClassName'));
  }
  return errs;
}


/**
 * ValidateVolumes and each volume source (pkg/apis/core/validation), with kube's field paths
 * (including its historical quirks: `downwarAPI`, `persistentDisk`, `cephfs`).
 */
import { fieldErr, isDNS1123Subdomain, isQualifiedName as qualified, validateAnnotations, validateLabels, type FieldError } from '@windlass/machinery';
import { validateLabelSelector } from '../../../validation/labelselector.js';
import { quantityOf, validateResourceQuantityValue } from './resources.js';
import { isDNS1123LabelErrors, isDNS1123SubdomainErrors } from './names.js';
import { arr, duplicate, fileMode, inclusiveRangeError, invalidRepr, isObject, isSet, obj, objs, str, type JsonObject } from './util.js';
import { canonicalQuantity, quantitySign } from '../../../validation/quantity.js';

export interface VolumeOptions {
  allowNonLocalProjectedTokenPath?: boolean;
  resourceIsPod?: boolean;
}

/** validatePathNoBacksteps. */
export function pathNoBacksteps(target: string, path: string): FieldError[] {
  return target.split('/').includes('..') ? [fieldErr.invalid(path, target, "must not contain '..'")] : [];
}

/** validateLocalDescendingPath: relative, without `..` elements. */
export function localDescendingPath(target: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (target.startsWith('/')) errs.push(fieldErr.invalid(path, target, 'must be a relative path'));
  errs.push(...pathNoBacksteps(target, path));
  return errs;
}

/** ValidateLocalNonReservedPath. */
export function localNonReservedPath(target: string, path: string): FieldError[] {
  const errs = localDescendingPath(target, path);
  if (target.startsWith('..') && !target.startsWith('../')) errs.push(fieldErr.invalid(path, target, "must not start with '..'"));
  return errs;
}

function keyToPath(kp: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(kp.key)) errs.push(fieldErr.required(`${path}.key`));
  if (!str(kp.path)) errs.push(fieldErr.required(`${path}.path`));
  errs.push(...localNonReservedPath(str(kp.path), `${path}.path`));
  errs.push(...fileMode(kp.mode, `${path}.mode`));
  return errs;
}

const volumeFieldPaths = new Set(['metadata.name', 'metadata.namespace', 'metadata.labels', 'metadata.annotations', 'metadata.uid']);
const resourceFieldPaths = ['limits.cpu', 'limits.ephemeral-storage', 'limits.memory', 'requests.cpu', 'requests.ephemeral-storage', 'requests.memory'];

/** validateObjectFieldSelector (downward API field references). */
export function objectFieldSelector(fs: JsonObject, allowed: Set<string>, path: string): FieldError[] {
  const apiVersion = str(fs.apiVersion);
  const fieldPath = str(fs.fieldPath);
  if (!apiVersion) return [fieldErr.required(`${path}.apiVersion`)];
  if (!fieldPath) return [fieldErr.required(`${path}.fieldPath`)];
  if (apiVersion !== 'v1') {
    return [fieldErr.invalid(`${path}.fieldPath`, fieldPath, `error converting fieldPath: field label not supported: ${fieldPath}`)];
  }
  const sub = /^(metadata\.(?:annotations|labels))\['(.*)'\]$/.exec(fieldPath) ?? /^(metadata\.(?:annotations|labels))\[(.*)\]$/.exec(fieldPath);
  const generic = /^([^[]+)\[(.*)\]$/.exec(fieldPath);
  if (sub) {
    const key = sub[2];
    const errs = sub[1] === 'metadata.annotations' ? isQualified(key.toLowerCase(), path) : isQualified(key, path);
    return errs;
  }
  if (generic) return [fieldErr.invalid(path, generic[1], 'does not support subscript')];
  if (!allowed.has(fieldPath)) return [fieldErr.notSupported(`${path}.fieldPath`, fieldPath, [...allowed].sort())];
  return [];
}

function isQualified(key: string, path: string): FieldError[] {
  return qualified(key).map((msg) => fieldErr.invalid(path, key, msg));
}

const cpuDivisors = new Set(['1m', '1']);
const byteDivisors = new Set(['1', '1k', '1M', '1G', '1T', '1P', '1E', '1Ki', '1Mi', '1Gi', '1Ti', '1Pi', '1Ei']);
const byteDivisorList = '1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei';

function resourceDivisor(resource: string, divisor: unknown, path: string): FieldError[] {
  const q = quantityOf(divisor);
  if (!q || quantitySign(q) === 0) return [];
  const d = canonicalQuantity(q);
  const p = `${path}.divisor`;
  switch (resource) {
    case 'limits.cpu': case 'requests.cpu':
      return cpuDivisors.has(d) ? [] : [fieldErr.invalid(p, resource, "only divisor's values 1m and 1 are supported with the cpu resource")];
    case 'limits.memory': case 'requests.memory':
      return byteDivisors.has(d) ? [] : [fieldErr.invalid(p, resource, `only divisor's values ${byteDivisorList} are supported with the memory resource`)];
    case 'limits.ephemeral-storage': case 'requests.ephemeral-storage':
      return byteDivisors.has(d) ? [] : [fieldErr.invalid(p, resource, `only divisor's values ${byteDivisorList} are supported with the local ephemeral storage resource`)];
  }
  if ((resource.startsWith('requests.hugepages-') || resource.startsWith('limits.hugepages-')) && !byteDivisors.has(d)) {
    return [fieldErr.invalid(p, resource, `only divisor's values ${byteDivisorList} are supported with the hugepages resource`)];
  }
  return [];
}

/** validateContainerResourceFieldSelector. */
export function resourceFieldSelector(fs: JsonObject, path: string, volume: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const resource = str(fs.resource);
  if (volume && !str(fs.containerName)) errs.push(fieldErr.required(`${path}.containerName`));
  else if (!resource) errs.push(fieldErr.required(`${path}.resource`));
  else if (!resourceFieldPaths.includes(resource) && !resource.startsWith('requests.hugepages-') && !resource.startsWith('limits.hugepages-')) {
    errs.push(fieldErr.notSupported(`${path}.resource`, resource, resourceFieldPaths));
  }
  errs.push(...resourceDivisor(resource, fs.divisor, path));
  return errs;
}

function downwardAPIFile(file: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const p = str(file.path);
  if (!p) errs.push(fieldErr.required(`${path}.path`));
  errs.push(...localNonReservedPath(p, `${path}.path`));
  if (isObject(file.fieldRef)) {
    errs.push(...objectFieldSelector(file.fieldRef, volumeFieldPaths, `${path}.fieldRef`));
    if (isObject(file.resourceFieldRef)) errs.push(fieldErr.invalid(path, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
  } else if (isObject(file.resourceFieldRef)) {
    errs.push(...resourceFieldSelector(file.resourceFieldRef, `${path}.resourceFieldRef`, true));
  } else {
    errs.push(fieldErr.required(path, 'one of fieldRef and resourceFieldRef is required'));
  }
  errs.push(...fileMode(file.mode, `${path}.mode`));
  return errs;
}

function projectedSources(projected: JsonObject, path: string, opts: VolumeOptions): FieldError[] {
  const errs: FieldError[] = [];
  const allPaths = new Set<string>();
  const claim = (p: string, value: string) => {
    if (allPaths.has(p)) errs.push(fieldErr.invalid(path, value, 'conflicting duplicate paths'));
    else allPaths.add(p);
  };
  objs(projected.sources).forEach((source, i) => {
    let n = 0;
    const src = `${path}.sources[${i}]`;
    for (const kind of ['secret', 'configMap'] as const) {
      const s = source[kind];
      if (!isObject(s)) continue;
      n++;
      if (!str(s.name)) errs.push(fieldErr.required(`${src}.${kind}.name`));
      objs(s.items).forEach((kp, j) => {
        errs.push(...keyToPath(kp, `${src}.${kind}.items[${j}]`));
        if (str(kp.path)) claim(str(kp.path), str(s.name));
      });
    }
    if (isObject(source.downwardAPI)) {
      n++;
      for (const file of objs(source.downwardAPI.items)) {
        errs.push(...downwardAPIFile(file, `${src}.downwardAPI`));
        if (str(file.path)) claim(str(file.path), str(file.path));
      }
    }
    if (isObject(source.serviceAccountToken)) {
      n++;
      const t = source.serviceAccountToken;
      const exp = typeof t.expirationSeconds === 'number' ? t.expirationSeconds : 0;
      if (exp < 600) errs.push(fieldErr.invalid(`${src}.serviceAccountToken.expirationSeconds`, exp, 'may not specify a duration less than 10 minutes'));
      if (exp > 2 ** 32) errs.push(fieldErr.invalid(`${src}.serviceAccountToken.expirationSeconds`, exp, 'may not specify a duration larger than 2^32 seconds'));
      if (!str(t.path)) errs.push(fieldErr.required(`${path}.path`));
      else if (!opts.allowNonLocalProjectedTokenPath) errs.push(...localNonReservedPath(str(t.path), `${path}.path`));
    }
    if (isObject(source.clusterTrustBundle)) {
      n++;
      const b = source.clusterTrustBundle;
      const bp = `${src}.clusterTrustBundle`;
      const usingName = isSet(b.name);
      const usingSigner = isSet(b.signerName);
      if (usingName && usingSigner) errs.push(invalidRepr(bp, 'core.ClusterTrustBundleProjection{...}', 'only one of name and signerName may be used'));
      else if (usingName) {
        if (!str(b.name)) errs.push(fieldErr.required(`${bp}.name`, 'must be a valid object name'));
        if (isSet(b.labelSelector)) errs.push(invalidRepr(`${bp}.labelSelector`, '&v1.LabelSelector{...}', 'labelSelector must be unset if name is specified'));
      } else if (usingSigner) {
        if (!str(b.signerName)) errs.push(fieldErr.required(`${bp}.signerName`, 'must be a valid signer name'));
        errs.push(...validateLabelSelector(b.labelSelector, {}, `${bp}.labelSelector`));
      } else {
        errs.push(fieldErr.required(bp, 'either name or signerName must be specified'));
      }
      if (!str(b.path)) errs.push(fieldErr.required(`${bp}.path`));
      errs.push(...localNonReservedPath(str(b.path), `${bp}.path`));
      claim(str(b.path), str(b.path));
    }
    if (isObject(source.podCertificate)) n++;
    if (n > 1) errs.push(fieldErr.forbidden(src, 'may not specify more than 1 volume type per source'));
  });
  return errs;
}

const hostPathTypes = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];

function required(src: JsonObject, fields: string[], path: string): FieldError[] {
  return fields.filter((f) => !str(src[f]) && !(Array.isArray(src[f]) && (src[f] as unknown[]).length > 0)).map((f) => fieldErr.required(`${path}.${f}`));
}

function persistentClaimTemplate(tpl: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const meta = obj(tpl.metadata);
  errs.push(...validateAnnotations(meta.annotations, `${path}.metadata.annotations`));
  errs.push(...validateLabels(meta.labels, `${path}.metadata.labels`));
  for (const [k, v] of Object.entries(meta)) {
    if (k === 'labels' || k === 'annotations' || v === undefined || v === null || v === '' || (k === 'creationTimestamp')) continue;
    errs.push(fieldErr.forbidden(`${path}.metadata.${k}`, 'cannot be set'));
  }
  const spec = obj(tpl.spec);
  const sp = `${path}.spec`;
  const modes = arr(spec.accessModes).map(str);
  if (modes.length === 0) errs.push(fieldErr.required(`${sp}.accessModes`, 'at least 1 access mode is required'));
  const supported = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
  for (const m of modes) if (!supported.includes(m)) errs.push(fieldErr.notSupported(`${sp}.accessModes`, m, supported));
  if (modes.includes('ReadWriteOncePod') && modes.some((m) => m !== 'ReadWriteOncePod' && supported.includes(m))) {
    errs.push(fieldErr.forbidden(`${sp}.accessModes`, 'may not use ReadWriteOncePod with other access modes'));
  }
  errs.push(...validateLabelSelector(spec.selector, {}, `${sp}.selector`));
  const storagePath = `${sp}.resources[storage]`;
  const storage = quantityOf(obj(obj(spec.resources).requests).storage);
  if (!storage) errs.push(fieldErr.required(storagePath));
  else if (quantitySign(storage) <= 0) errs.push(fieldErr.invalid(storagePath, canonicalQuantity(storage), 'must be greater than zero'));
  else errs.push(...validateResourceQuantityValue('storage', storage, storagePath));
  if (typeof spec.storageClassName === 'string' && spec.storageClassName) {
    for (const msg of isDNS1123Subdomain(spec.storageClassName)) errs.push(fieldErr.invalid(`${sp}.storageClassName`, spec.storageClassName, msg));
  }
  if (typeof spec.volumeMode === 'string' && !['Block', 'Filesystem'].includes(spec.volumeMode)) {
    errs.push(fieldErr.notSupported(`${sp}.volumeMode`, spec.volumeMode, ['Block', 'Filesystem']));
  }
  return errs;
}

/** validateVolumeSource: exactly one source, each with its own rules. */
function volumeSource(v: JsonObject, path: string, volName: string, podName: string | undefined, opts: VolumeOptions): FieldError[] {
  const errs: FieldError[] = [];
  let n = 0;
  const one = (key: string, check: (src: JsonObject) => FieldError[], errKey = key) => {
    const src = v[key];
    if (!isObject(src)) return;
    if (n > 0) { errs.push(fieldErr.forbidden(`${path}.${errKey}`, 'may not specify more than 1 volume type')); return; }
    n++;
    errs.push(...check(src));
  };
  one('emptyDir', (s) => {
    const q = quantityOf(s.sizeLimit);
    return q && quantitySign(q) < 0 ? [fieldErr.forbidden(`${path}.emptyDir.sizeLimit`, 'SizeLimit field must be a valid resource quantity')] : [];
  });
  one('hostPath', (s) => {
    const p = `${path}.hostPath`;
    if (!str(s.path)) return [fieldErr.required(`${p}.path`)];
    const e = pathNoBacksteps(str(s.path), `${p}.path`);
    if (typeof s.type === 'string' && !hostPathTypes.includes(s.type)) e.push(fieldErr.notSupported(`${p}.type`, s.type, hostPathTypes));
    return e;
  });
  one('gitRepo', (s) => [...required(s, ['repository'], `${path}.gitRepo`), ...localDescendingPath(str(s.directory), `${path}.gitRepo.directory`)]);
  one('gcePersistentDisk', (s) => {
    const e = required(s, ['pdName'], `${path}.persistentDisk`);
    const part = typeof s.partition === 'number' ? s.partition : 0;
    if (part < 0 || part > 255) e.push(fieldErr.invalid(`${path}.persistentDisk.partition`, part, inclusiveRangeError(1, 255)));
    return e;
  });
  one('awsElasticBlockStore', (s) => {
    const e = required(s, ['volumeID'], `${path}.awsElasticBlockStore`);
    const part = typeof s.partition === 'number' ? s.partition : 0;
    if (part < 0 || part > 255) e.push(fieldErr.invalid(`${path}.awsElasticBlockStore.partition`, part, inclusiveRangeError(1, 255)));
    return e;
  });
  one('secret', (s) => {
    const p = `${path}.secret`;
    const e = required(s, ['secretName'], p);
    e.push(...fileMode(s.defaultMode, `${p}.defaultMode`));
    objs(s.items).forEach((kp, i) => e.push(...keyToPath(kp, `${p}.items[${i}]`)));
    return e;
  });
  one('nfs', (s) => {
    const e = required(s, ['server', 'path'], `${path}.nfs`);
    if (!str(s.path).startsWith('/')) e.push(fieldErr.invalid(`${path}.nfs.path`, str(s.path), 'must be an absolute path'));
    return e;
  });
  one('iscsi', (s) => {
    const p = `${path}.iscsi`;
    const e = required(s, ['targetPortal'], p);
    const iqn = str(s.iqn);
    if (!iqn) e.push(fieldErr.required(`${p}.iqn`));
    else if (!/^(iqn|eui|naa)/.test(iqn)) e.push(fieldErr.invalid(`${p}.iqn`, iqn, 'must be valid format starting with iqn, eui, or naa'));
    const lun = typeof s.lun === 'number' ? s.lun : 0;
    if (lun < 0 || lun > 255) e.push(fieldErr.invalid(`${p}.lun`, lun, inclusiveRangeError(0, 255)));
    if ((s.chapAuthDiscovery === true || s.chapAuthSession === true) && !isObject(s.secretRef)) e.push(fieldErr.required(`${p}.secretRef`));
    return e;
  });
  one('glusterfs', (s) => required(s, ['endpoints', 'path'], `${path}.glusterfs`));
  one('flocker', (s) => {
    const e: FieldError[] = [];
    const p = `${path}.flocker`;
    if (!str(s.datasetName) && !str(s.datasetUUID)) e.push(fieldErr.required(p, 'one of datasetName and datasetUUID is required'));
    if (str(s.datasetName) && str(s.datasetUUID)) e.push(fieldErr.invalid(p, 'resource', 'datasetName and datasetUUID can not be specified simultaneously'));
    if (str(s.datasetName).includes('/')) e.push(fieldErr.invalid(`${p}.datasetName`, str(s.datasetName), "must not contain '/'"));
    return e;
  });
  one('persistentVolumeClaim', (s) => required(s, ['claimName'], `${path}.persistentVolumeClaim`));
  one('rbd', (s) => required(s, ['monitors', 'image'], `${path}.rbd`));
  one('cinder', (s) => {
    const e = required(s, ['volumeID'], `${path}.cinder`);
    if (isObject(s.secretRef) && !str(s.secretRef.name)) e.push(fieldErr.required(`${path}.cinder.secretRef.name`));
    return e;
  });
  one('cephfs', (s) => required(s, ['monitors'], `${path}.cephfs`), 'cephFS');
  one('quobyte', (s) => {
    const p = `${path}.quobyte`;
    const e: FieldError[] = [];
    if (!str(s.registry)) e.push(fieldErr.required(`${p}.registry`, 'must be a host:port pair or multiple pairs separated by commas'));
    else if (str(s.tenant).length >= 65) e.push(fieldErr.required(`${p}.tenant`, 'must be a UUID and may not exceed a length of 64 characters'));
    if (!str(s.volume)) e.push(fieldErr.required(`${p}.volume`));
    return e;
  });
  one('downwardAPI', (s) => {
    const p = `${path}.downwardAPI`;
    const e = fileMode(s.defaultMode, `${p}.defaultMode`);
    for (const file of objs(s.items)) e.push(...downwardAPIFile(file, p));
    return e;
  }, 'downwarAPI');
  one('fc', (s) => {
    const p = `${path}.fc`;
    const e: FieldError[] = [];
    const wwns = arr(s.targetWWNs), wwids = arr(s.wwids);
    if (wwns.length < 1 && wwids.length < 1) e.push(fieldErr.required(`${p}.targetWWNs`, 'must specify either targetWWNs or wwids, but not both'));
    if (wwns.length !== 0 && wwids.length !== 0) e.push(invalidRepr(`${p}.targetWWNs`, `[]string{${wwns.map((w) => JSON.stringify(str(w))).join(', ')}}`, 'targetWWNs and wwids can not be specified simultaneously'));
    if (wwns.length !== 0) {
      if (typeof s.lun !== 'number') e.push(fieldErr.required(`${p}.lun`, 'lun is required if targetWWNs is specified'));
      else if (s.lun < 0 || s.lun > 255) e.push(fieldErr.invalid(`${p}.lun`, s.lun, inclusiveRangeError(0, 255)));
    }
    return e;
  });
  one('flexVolume', (s) => {
    const e = required(s, ['driver'], `${path}.flexVolume`);
    for (const k of Object.keys(obj(s.options))) {
      const ns = k.includes('/') ? k.slice(0, k.indexOf('/')) : k;
      const norm = `.${ns.toLowerCase()}`;
      if (norm.endsWith('.kubernetes.io') || norm.endsWith('.k8s.io')) e.push(fieldErr.invalid(`${path}.flexVolume.options[${k}]`, k, 'kubernetes.io and k8s.io namespaces are reserved'));
    }
    return e;
  });
  one('configMap', (s) => {
    const p = `${path}.configMap`;
    const e = required(s, ['name'], p);
    e.push(...fileMode(s.defaultMode, `${p}.defaultMode`));
    objs(s.items).forEach((kp, i) => e.push(...keyToPath(kp, `${p}.items[${i}]`)));
    return e;
  });
  one('azureFile', (s) => required(s, ['secretName', 'shareName'], `${path}.azureFile`));
  one('vsphereVolume', (s) => required(s, ['volumePath'], `${path}.vsphereVolume`));
  one('photonPersistentDisk', (s) => required(s, ['pdID'], `${path}.photonPersistentDisk`));
  one('portworxVolume', (s) => required(s, ['volumeID'], `${path}.portworxVolume`));
  one('azureDisk', (s) => {
    const p = `${path}.azureDisk`;
    const e = required(s, ['diskName', 'diskURI'], p);
    const caching = ['None', 'ReadOnly', 'ReadWrite'];
    if (typeof s.cachingMode === 'string' && !caching.includes(s.cachingMode)) e.push(fieldErr.notSupported(`${p}.cachingMode`, s.cachingMode, caching));
    const kinds = ['Dedicated', 'Managed', 'Shared'];
    if (typeof s.kind === 'string' && !kinds.includes(s.kind)) e.push(fieldErr.notSupported(`${p}.kind`, s.kind, kinds));
    if (s.kind === 'Managed' && !str(s.diskURI).startsWith('/subscriptions/')) {
      e.push(fieldErr.notSupported(`${p}.diskURI`, str(s.diskURI), ['/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}']));
    }
    if (typeof s.kind === 'string' && s.kind !== 'Managed' && !str(s.diskURI).startsWith('https://')) {
      e.push(fieldErr.notSupported(`${p}.diskURI`, str(s.diskURI), ['https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd']));
    }
    return e;
  });
  one('storageos', (s) => {
    const p = `${path}.storageos`;
    const e: FieldError[] = [];
    if (!str(s.volumeName)) e.push(fieldErr.required(`${p}.volumeName`));
    else e.push(...isDNS1123LabelErrors(str(s.volumeName), `${p}.volumeName`));
    if (str(s.volumeNamespace)) e.push(...isDNS1123LabelErrors(str(s.volumeNamespace), `${p}.volumeNamespace`));
    if (isObject(s.secretRef) && !str(s.secretRef.name)) e.push(fieldErr.required(`${p}.secretRef.name`));
    return e;
  });
  one('projected', (s) => [...fileMode(s.defaultMode, `${path}.projected.defaultMode`), ...projectedSources(s, `${path}.projected`, opts)]);
  one('scaleIO', (s) => required(s, ['gateway', 'system', 'volumeName'], `${path}.scaleIO`));
  one('csi', (s) => {
    const p = `${path}.csi`;
    const driver = str(s.driver);
    const e: FieldError[] = [];
    if (!driver) e.push(fieldErr.required(`${p}.driver`));
    if (driver.length > 63) e.push(fieldErr.tooLong(`${p}.driver`, 63));
    e.push(...isDNS1123Subdomain(driver.toLowerCase()).map((msg) => fieldErr.invalid(`${p}.driver`, driver, msg)));
    if (isObject(s.nodePublishSecretRef)) {
      const name = str(s.nodePublishSecretRef.name);
      if (!name) e.push(fieldErr.required(`${p}.nodePublishSecretRef.name`));
      else e.push(...isDNS1123SubdomainErrors(name, `${p}.name`));
    }
    return e;
  });
  one('ephemeral', (s) => {
    const p = `${path}.ephemeral`;
    if (!isObject(s.volumeClaimTemplate)) return [fieldErr.required(`${p}.volumeClaimTemplate`)];
    const e = persistentClaimTemplate(s.volumeClaimTemplate, `${p}.volumeClaimTemplate`);
    if (podName && volName) {
      const pvcName = `${podName}-${volName}`;
      for (const msg of isDNS1123Subdomain(pvcName)) e.push(fieldErr.invalid(`${path}.name`, volName, `PVC name ${JSON.stringify(pvcName)}: ${msg}`));
    }
    return e;
  });
  one('image', (s) => {
    const p = `${path}.image`;
    const e: FieldError[] = [];
    if (opts.resourceIsPod && !str(s.reference)) e.push(fieldErr.required(`${p}.reference`));
    const policy = str(s.pullPolicy);
    if (policy === '') e.push(fieldErr.required(`${p}.pullPolicy`));
    else if (!['Always', 'IfNotPresent', 'Never'].includes(policy)) e.push(fieldErr.notSupported(`${p}.pullPolicy`, policy, ['Always', 'IfNotPresent', 'Never']));
    return e;
  });
  if (n === 0) errs.push(fieldErr.required(path, 'must specify a volume type'));
  return errs;
}

/** ValidateVolumes: the valid volumes by name (what mounts may name) and the errors. */
export function validateVolumes(volumes: unknown, podName: string | undefined, path: string, opts: VolumeOptions): { vols: Map<string, JsonObject>; errs: FieldError[] } {
  const errs: FieldError[] = [];
  const vols = new Map<string, JsonObject>();
  const createdPVCs = new Set<string>();
  if (podName) for (const v of objs(volumes)) if (isObject(v.ephemeral)) createdPVCs.add(`${podName}-${str(v.name)}`);
  objs(volumes).forEach((v, i) => {
    const p = `${path}[${i}]`;
    const name = str(v.name);
    const el = volumeSource(v, p, name, podName, opts);
    if (!name) el.push(fieldErr.required(`${p}.name`));
    else el.push(...isDNS1123LabelErrors(name, `${p}.name`));
    if (vols.has(name)) el.push(duplicate(`${p}.name`, name));
    if (el.length === 0) vols.set(name, v);
    else errs.push(...el);
    if (isObject(v.persistentVolumeClaim) && createdPVCs.has(str(v.persistentVolumeClaim.claimName))) {
      errs.push(fieldErr.invalid(`${p}.persistentVolumeClaim.claimName`, str(v.persistentVolumeClaim.claimName), 'must not reference a PVC that gets created for an ephemeral volume'));
    }
  });
  return { vols, errs };
}

/**
 * Containers of a pod spec: validateContainers, validateInitContainers and
 * validateEphemeralContainers with what they share (ports, env, mounts, devices, probes,
 * lifecycle handlers, pull policy, resources, resize policy, security context).
 */
import { fieldErr, isConfigMapKey, nameIsDNSSubdomain, type FieldError } from '@windlass/machinery';
import { validateContainerResources } from './resources.js';
import { validateContainerSecurityContext } from './securitycontext.js';
import { isDNS1123LabelErrors, isHTTPHeaderName, isRelaxedEnvVarName, isValidPortName, isValidPortNum, validatePortNumOrName } from './names.js';
import { localDescendingPath, objectFieldSelector, pathNoBacksteps, resourceFieldSelector } from './volumes.js';
import { arr, duplicate, isObject, isSet, nonnegative, notFound, obj, objs, str, type JsonObject } from './util.js';

export interface ContainerOptions {
  /** Pod termination grace period: sleep actions may not exceed it. */
  gracePeriod?: number;
  restartPolicy: string;
  hostUsers: boolean;
  claimNames: Set<string>;
  allowIndivisibleHugePagesValues?: boolean;
}

const envFieldPaths = new Set(['metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName', 'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs']);

function keySelector(s: JsonObject, path: string): FieldError[] {
  const errs = nameIsDNSSubdomain(str(s.name), false).map((msg) => fieldErr.invalid(`${path}.name`, str(s.name), msg));
  const key = str(s.key);
  if (!key) errs.push(fieldErr.required(`${path}.key`));
  else errs.push(...isConfigMapKey(key).map((msg) => fieldErr.invalid(`${path}.key`, key, msg)));
  return errs;
}

/** ValidateEnv. */
export function validateEnv(env: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(env).forEach((ev, i) => {
    const p = `${path}[${i}]`;
    const name = str(ev.name);
    if (!name) errs.push(fieldErr.required(`${p}.name`));
    else errs.push(...isRelaxedEnvVarName(name).map((msg) => fieldErr.invalid(`${p}.name`, name, msg)));
    if (!isObject(ev.valueFrom)) return;
    const vf = ev.valueFrom;
    const vp = `${p}.valueFrom`;
    let n = 0;
    if (isObject(vf.fieldRef)) { n++; errs.push(...objectFieldSelector(vf.fieldRef, envFieldPaths, `${vp}.fieldRef`)); }
    if (isObject(vf.resourceFieldRef)) { n++; errs.push(...resourceFieldSelector(vf.resourceFieldRef, `${vp}.resourceFieldRef`, false)); }
    if (isObject(vf.configMapKeyRef)) { n++; errs.push(...keySelector(vf.configMapKeyRef, `${vp}.configMapKeyRef`)); }
    if (isObject(vf.secretKeyRef)) { n++; errs.push(...keySelector(vf.secretKeyRef, `${vp}.secretKeyRef`)); }
    if (n === 0) errs.push(fieldErr.invalid(vp, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
    else if (str(ev.value) !== '') errs.push(fieldErr.invalid(vp, '', 'may not be specified when `value` is not empty'));
    else if (n > 1) errs.push(fieldErr.invalid(vp, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

/** ValidateEnvFrom. */
export function validateEnvFrom(envFrom: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(envFrom).forEach((ev, i) => {
    const p = `${path}[${i}]`;
    const prefix = str(ev.prefix);
    if (prefix) errs.push(...isRelaxedEnvVarName(prefix).map((msg) => fieldErr.invalid(`${p}.prefix`, prefix, msg)));
    let n = 0;
    for (const kind of ['configMapRef', 'secretRef']) {
      const ref = ev[kind];
      if (!isObject(ref)) continue;
      n++;
      const name = str(ref.name);
      if (!name) errs.push(fieldErr.required(`${p}.${kind}.name`));
      else errs.push(...nameIsDNSSubdomain(name, true).map((msg) => fieldErr.invalid(`${p}.${kind}.name`, name, msg)));
    }
    if (n === 0) errs.push(fieldErr.invalid(path, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (n > 1) errs.push(fieldErr.invalid(path, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

function validatePorts(ports: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  objs(ports).forEach((port, i) => {
    const p = `${path}[${i}]`;
    const name = str(port.name);
    if (name) {
      const msgs = isValidPortName(name);
      if (msgs.length > 0) errs.push(...msgs.map((msg) => fieldErr.invalid(`${p}.name`, name, msg)));
      else if (names.has(name)) errs.push(duplicate(`${p}.name`, name));
      else names.add(name);
    }
    const cp = typeof port.containerPort === 'number' ? port.containerPort : 0;
    if (cp === 0) errs.push(fieldErr.required(`${p}.containerPort`));
    else errs.push(...isValidPortNum(cp).map((msg) => fieldErr.invalid(`${p}.containerPort`, cp, msg)));
    const hp = typeof port.hostPort === 'number' ? port.hostPort : 0;
    if (hp !== 0) errs.push(...isValidPortNum(hp).map((msg) => fieldErr.invalid(`${p}.hostPort`, hp, msg)));
    const protocol = str(port.protocol);
    if (!protocol) errs.push(fieldErr.required(`${p}.protocol`));
    else if (!['SCTP', 'TCP', 'UDP'].includes(protocol)) errs.push(fieldErr.notSupported(`${p}.protocol`, protocol, ['SCTP', 'TCP', 'UDP']));
  });
  return errs;
}

/** ValidateVolumeMounts (kube reports subPath/subPathExpr/propagation errors on the list's path, not the item's). */
function validateVolumeMounts(c: JsonObject, vols: Map<string, JsonObject>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const mountpoints = new Set<string>();
  const devices = new Map(objs(c.volumeDevices).map((d) => [str(d.name), str(d.devicePath)]));
  const privileged = obj(c.securityContext).privileged === true;
  objs(c.volumeMounts).forEach((m, i) => {
    const p = `${path}[${i}]`;
    const name = str(m.name);
    const mountPath = str(m.mountPath);
    if (!name) errs.push(fieldErr.required(`${p}.name`));
    if (!vols.has(name)) errs.push(notFound(`${p}.name`, name));
    if (!mountPath) errs.push(fieldErr.required(`${p}.mountPath`));
    if (mountpoints.has(mountPath)) errs.push(fieldErr.invalid(`${p}.mountPath`, mountPath, 'must be unique'));
    mountpoints.add(mountPath);
    if (devices.has(name)) errs.push(fieldErr.invalid(`${p}.name`, name, 'must not already exist in volumeDevices'));
    if ([...devices.values()].includes(mountPath)) errs.push(fieldErr.invalid(`${p}.mountPath`, mountPath, 'must not already exist as a path in volumeDevices'));
    const subPath = str(m.subPath);
    const subPathExpr = str(m.subPathExpr);
    if (isObject(vols.get(name)?.image)) {
      if (subPath) errs.push(fieldErr.invalid(`${p}.subPath`, subPath, 'not allowed in image volume sources'));
      if (subPathExpr) errs.push(fieldErr.invalid(`${p}.subPathExpr`, subPathExpr, 'not allowed in image volume sources'));
    }
    if (subPath) errs.push(...localDescendingPath(subPath, `${path}.subPath`));
    if (subPathExpr) {
      if (subPath) errs.push(fieldErr.invalid(`${p}.subPathExpr`, subPathExpr, 'subPathExpr and subPath are mutually exclusive'));
      errs.push(...localDescendingPath(subPathExpr, `${path}.subPathExpr`));
    }
    if (typeof m.mountPropagation === 'string') {
      const supported = ['Bidirectional', 'HostToContainer', 'None'];
      if (!supported.includes(m.mountPropagation)) errs.push(fieldErr.notSupported(`${path}.mountPropagation`, m.mountPropagation, supported));
      if (m.mountPropagation === 'Bidirectional' && !privileged) {
        errs.push(fieldErr.forbidden(`${path}.mountPropagation`, 'Bidirectional mount propagation is available only to privileged containers'));
      }
    }
    if (typeof m.recursiveReadOnly === 'string') {
      const rro = m.recursiveReadOnly;
      if (rro === 'Enabled' || rro === 'IfPossible') {
        if (m.readOnly !== true) errs.push(fieldErr.forbidden(`${path}.recursiveReadOnly`, 'may only be specified when readOnly is true'));
        if (typeof m.mountPropagation === 'string' && m.mountPropagation !== 'None') {
          errs.push(fieldErr.forbidden(`${path}.recursiveReadOnly`, 'may only be specified when mountPropagation is None or not specified'));
        }
      } else if (rro !== 'Disabled') {
        errs.push(fieldErr.notSupported(`${path}.recursiveReadOnly`, rro, ['Disabled', 'Enabled', 'IfPossible']));
      }
    }
  });
  return errs;
}

function validateVolumeDevices(c: JsonObject, vols: Map<string, JsonObject>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const mounts = new Map(objs(c.volumeMounts).map((m) => [str(m.name), str(m.mountPath)]));
  const paths = new Set<string>();
  const names = new Set<string>();
  objs(c.volumeDevices).forEach((d, i) => {
    const p = `${path}[${i}]`;
    const name = str(d.name);
    const devicePath = str(d.devicePath);
    const vol = vols.get(name);
    const isPVC = !!vol && (isObject(vol.persistentVolumeClaim) || isObject(vol.ephemeral));
    if (!name) errs.push(fieldErr.required(`${p}.name`));
    if (names.has(name)) errs.push(fieldErr.invalid(`${p}.name`, name, 'must be unique'));
    if (vol && !isPVC) errs.push(fieldErr.invalid(`${p}.name`, name, 'can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode'));
    if (!vol) errs.push(notFound(`${p}.name`, name));
    if (!devicePath) errs.push(fieldErr.required(`${p}.devicePath`));
    if (paths.has(devicePath)) errs.push(fieldErr.invalid(`${p}.devicePath`, devicePath, 'must be unique'));
    if (devicePath && pathNoBacksteps(devicePath, '').length > 0) errs.push(fieldErr.invalid(`${p}.devicePath`, devicePath, "can not contain backsteps ('..')"));
    else paths.add(devicePath);
    if (mounts.has(name)) errs.push(fieldErr.invalid(`${p}.name`, name, 'must not already exist in volumeMounts'));
    if ([...mounts.values()].includes(devicePath)) errs.push(fieldErr.invalid(`${p}.devicePath`, devicePath, 'must not already exist as a path in volumeMounts'));
    if (name) names.add(name);
  });
  return errs;
}

function validateHandler(handler: JsonObject, kinds: string[], gracePeriod: number | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let n = 0;
  for (const kind of kinds) {
    const action = handler[kind];
    if (!isObject(action)) continue;
    const p = `${path}.${kind}`;
    if (n > 0) { errs.push(fieldErr.forbidden(p, 'may not specify more than 1 handler type')); continue; }
    n++;
    switch (kind) {
      case 'exec':
        if (arr(action.command).length === 0) errs.push(fieldErr.required(`${p}.command`));
        break;
      case 'httpGet': {
        if (!str(action.path)) errs.push(fieldErr.required(`${p}.path`));
        errs.push(...validatePortNumOrName(action.port, `${p}.port`));
        const scheme = str(action.scheme);
        if (scheme !== 'HTTP' && scheme !== 'HTTPS') errs.push(fieldErr.notSupported(`${p}.scheme`, scheme, ['HTTP', 'HTTPS']));
        for (const h of objs(action.httpHeaders)) errs.push(...isHTTPHeaderName(str(h.name)).map((msg) => fieldErr.invalid(`${p}.httpHeaders`, str(h.name), msg)));
        break;
      }
      case 'tcpSocket':
        errs.push(...validatePortNumOrName(action.port, `${p}.port`));
        break;
      case 'grpc':
        errs.push(...validatePortNumOrName(typeof action.port === 'number' ? action.port : 0, `${p}.port`));
        break;
      case 'sleep': {
        const seconds = typeof action.seconds === 'number' ? action.seconds : 0;
        // PodLifecycleSleepActionAllowZero is on by default since 1.33.
        if (gracePeriod !== undefined && (seconds < 0 || seconds > gracePeriod)) {
          errs.push(fieldErr.invalid(p, seconds, `must be non-negative and less than terminationGracePeriodSeconds (${gracePeriod})`));
        }
        break;
      }
    }
  }
  if (n === 0) errs.push(fieldErr.required(path, 'must specify a handler type'));
  return errs;
}

const probeHandlers = ['exec', 'httpGet', 'tcpSocket', 'grpc'];
const lifecycleHandlers = ['exec', 'httpGet', 'tcpSocket', 'sleep'];

function validateProbe(probe: unknown, kind: 'liveness' | 'readiness' | 'startup', gracePeriod: number | undefined, path: string): FieldError[] {
  if (!isObject(probe)) return [];
  const errs = validateHandler(probe, probeHandlers, gracePeriod, path);
  for (const f of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']) {
    errs.push(...nonnegative(typeof probe[f] === 'number' ? (probe[f] as number) : 0, `${path}.${f}`));
  }
  const tgps = probe.terminationGracePeriodSeconds;
  if (typeof tgps === 'number' && tgps <= 0) errs.push(fieldErr.invalid(`${path}.terminationGracePeriodSeconds`, tgps, 'must be greater than 0'));
  if (kind !== 'readiness' && probe.successThreshold !== 1) errs.push(fieldErr.invalid(`${path}.successThreshold`, typeof probe.successThreshold === 'number' ? probe.successThreshold : 0, 'must be 1'));
  if (kind === 'readiness' && typeof tgps === 'number') errs.push(fieldErr.invalid(`${path}.terminationGracePeriodSeconds`, tgps, 'must not be set for readinessProbes'));
  return errs;
}

function validateLifecycle(lifecycle: JsonObject, gracePeriod: number | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (isObject(lifecycle.postStart)) errs.push(...validateHandler(lifecycle.postStart, lifecycleHandlers, gracePeriod, `${path}.postStart`));
  if (isObject(lifecycle.preStop)) errs.push(...validateHandler(lifecycle.preStop, lifecycleHandlers, gracePeriod, `${path}.preStop`));
  return errs;
}

function validateProbesAndLifecycle(c: JsonObject, gracePeriod: number | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (isObject(c.lifecycle)) errs.push(...validateLifecycle(c.lifecycle, gracePeriod, `${path}.lifecycle`));
  errs.push(...validateProbe(c.livenessProbe, 'liveness', gracePeriod, `${path}.livenessProbe`));
  errs.push(...validateProbe(c.readinessProbe, 'readiness', gracePeriod, `${path}.readinessProbe`));
  errs.push(...validateProbe(c.startupProbe, 'startup', gracePeriod, `${path}.startupProbe`));
  return errs;
}

function validatePullPolicy(policy: string, path: string): FieldError[] {
  if (policy === '') return [fieldErr.required(path)];
  return ['Always', 'IfNotPresent', 'Never'].includes(policy) ? [] : [fieldErr.notSupported(path, policy, ['Always', 'IfNotPresent', 'Never'])];
}

function validateResizePolicy(list: unknown, path: string, podRestartPolicy: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  objs(list).forEach((p, i) => {
    const name = str(p.resourceName);
    if (seen.has(name)) errs.push(duplicate(`${path}[${i}]`, name));
    seen.add(name);
    if (name === '') errs.push(fieldErr.required(path));
    else if (name !== 'cpu' && name !== 'memory') errs.push(fieldErr.notSupported(path, name, ['cpu', 'memory']));
    const policy = str(p.restartPolicy);
    if (policy === '') errs.push(fieldErr.required(path));
    else if (policy !== 'NotRequired' && policy !== 'RestartContainer') errs.push(fieldErr.notSupported(path, policy, ['NotRequired', 'RestartContainer']));
    if (podRestartPolicy === 'Never' && policy !== 'NotRequired') errs.push(fieldErr.invalid(path, policy, "must be 'NotRequired' when `restartPolicy` is 'Never'"));
  });
  return errs;
}

/** validateContainerCommon: what every kind of container must satisfy. */
function validateContainerCommon(c: JsonObject, vols: Map<string, JsonObject>, path: string, opts: ContainerOptions): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(c.name);
  if (!name) errs.push(fieldErr.required(`${path}.name`));
  else errs.push(...isDNS1123LabelErrors(name, `${path}.name`));
  if (!str(c.image)) errs.push(fieldErr.required(`${path}.image`));
  const tmp = str(c.terminationMessagePolicy);
  if (tmp === '') errs.push(fieldErr.required(`${path}.terminationMessagePolicy`));
  else if (tmp !== 'File' && tmp !== 'FallbackToLogsOnError') errs.push(fieldErr.notSupported(`${path}.terminationMessagePolicy`, tmp, ['File', 'FallbackToLogsOnError']));
  errs.push(...validatePorts(c.ports, `${path}.ports`));
  errs.push(...validateEnv(c.env, `${path}.env`));
  errs.push(...validateEnvFrom(c.envFrom, `${path}.envFrom`));
  errs.push(...validateVolumeMounts(c, vols, `${path}.volumeMounts`));
  errs.push(...validateVolumeDevices(c, vols, `${path}.volumeDevices`));
  errs.push(...validatePullPolicy(str(c.imagePullPolicy), `${path}.imagePullPolicy`));
  errs.push(...validateContainerResources(c.resources, opts.claimNames, `${path}.resources`, opts));
  errs.push(...validateResizePolicy(c.resizePolicy, `${path}.resizePolicy`, opts.restartPolicy));
  errs.push(...validateContainerSecurityContext(c.securityContext, `${path}.securityContext`, opts.hostUsers));
  return errs;
}

/** validateContainerOnlyForPod: a Pod's image (not a template's) may not be padded. */
export function validateContainerOnlyForPod(c: JsonObject, path: string): FieldError[] {
  const image = str(c.image);
  return image.length !== image.trim().length ? [fieldErr.invalid(`${path}.image`, image, 'must not have leading or trailing whitespace')] : [];
}

function hostPortConflicts(containers: JsonObject[], path: string, indexOffset = 0, seen = new Set<string>()): FieldError[] {
  const errs: FieldError[] = [];
  containers.forEach((c, ci) => {
    objs(c.ports).forEach((port, pi) => {
      const hp = typeof port.hostPort === 'number' ? port.hostPort : 0;
      if (hp === 0) return;
      const key = `${str(port.protocol)}/${str(port.hostIP)}/${hp}`;
      if (seen.has(key)) errs.push(duplicate(`${path}[${ci + indexOffset}].ports[${pi}].hostPort`, key));
      else seen.add(key);
    });
  });
  return errs;
}

export function validateContainers(containers: unknown, vols: Map<string, JsonObject>, path: string, opts: ContainerOptions): FieldError[] {
  const list = objs(containers);
  if (list.length === 0) return [fieldErr.required(path)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  list.forEach((c, i) => {
    const p = `${path}[${i}]`;
    errs.push(...validateContainerCommon(c, vols, p, opts));
    const name = str(c.name);
    if (names.has(name)) errs.push(duplicate(`${p}.name`, name));
    else names.add(name);
    errs.push(...validateProbesAndLifecycle(c, opts.gracePeriod, p));
    if (isSet(c.restartPolicy)) errs.push(fieldErr.forbidden(`${p}.restartPolicy`, 'may not be set for non-init containers'));
  });
  errs.push(...hostPortConflicts(list, path));
  return errs;
}

export function validateInitContainers(containers: unknown, regular: unknown, vols: Map<string, JsonObject>, path: string, opts: ContainerOptions): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set(objs(regular).map((c) => str(c.name)));
  objs(containers).forEach((c, i) => {
    const p = `${path}[${i}]`;
    errs.push(...validateContainerCommon(c, vols, p, opts));
    let restartAlways = false;
    if (isSet(c.restartPolicy)) {
      const rp = str(c.restartPolicy);
      if (rp !== 'Always') errs.push(fieldErr.notSupported(`${p}.restartPolicy`, rp, ['Always']));
      restartAlways = rp === 'Always';
    }
    const name = str(c.name);
    if (names.has(name)) errs.push(duplicate(`${p}.name`, name));
    else if (name) names.add(name);
    errs.push(...hostPortConflicts([c], path, i));
    if (restartAlways) {
      errs.push(...validateProbesAndLifecycle(c, opts.gracePeriod, p));
    } else {
      for (const f of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe']) {
        if (isSet(c[f])) errs.push(fieldErr.forbidden(`${p}.${f}`, 'may not be set for init containers without restartPolicy=Always'));
      }
    }
  });
  return errs;
}

/** Fields of EphemeralContainerCommon an ephemeral container may set (allowedEphemeralContainerFields). */
const ephemeralAllowed = new Set([
  'name', 'image', 'command', 'args', 'workingDir', 'envFrom', 'env', 'volumeMounts', 'volumeDevices', 'terminationMessagePath',
  'terminationMessagePolicy', 'imagePullPolicy', 'securityContext', 'stdin', 'stdinOnce', 'tty', 'targetContainerName',
]);

function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isObject(v)) return Object.values(v).every(isZero);
  return false;
}

export function validateEphemeralContainers(ephemeral: unknown, containers: unknown, init: unknown, vols: Map<string, JsonObject>, path: string, opts: ContainerOptions): FieldError[] {
  const list = objs(ephemeral);
  if (list.length === 0) return [];
  const errs: FieldError[] = [];
  const other = new Set([...objs(containers), ...objs(init)].map((c) => str(c.name)));
  const all = new Set(other);
  list.forEach((ec, i) => {
    const p = `${path}[${i}]`;
    errs.push(...validateContainerCommon(ec, vols, p, opts));
    errs.push(...validateContainerOnlyForPod(ec, p));
    const name = str(ec.name);
    if (all.has(name)) errs.push(duplicate(`${p}.name`, name));
    else all.add(name);
    const target = str(ec.targetContainerName);
    if (target && !other.has(target)) errs.push(notFound(`${p}.targetContainerName`, target));
    for (const [k, v] of Object.entries(ec)) {
      if (!ephemeralAllowed.has(k) && !isZero(v)) errs.push(fieldErr.forbidden(`${p}.${k}`, 'cannot be set for an Ephemeral Container'));
    }
    objs(ec.volumeMounts).forEach((vm, j) => {
      if (str(vm.subPath)) errs.push(fieldErr.forbidden(`${p}.volumeMounts[${j}].subPath`, 'cannot be set for an Ephemeral Container'));
      if (str(vm.subPathExpr)) errs.push(fieldErr.forbidden(`${p}.volumeMounts[${j}].subPathExpr`, 'cannot be set for an Ephemeral Container'));
    });
  });
  return errs;
}

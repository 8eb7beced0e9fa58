/**
 * Security contexts of pods and containers (validatePodSpecSecurityContext,
 * ValidateSecurityContext, seccomp and AppArmor profiles, sysctls, Windows options) and the
 * OS-specific restrictions of validateLinux/validateWindows.
 */
import { fieldErr, isDNS1123Subdomain, type FieldError } from '@windlass/machinery';
import { isValidUserOrGroupID } from './names.js';
import { localDescendingPath } from './volumes.js';
import { duplicate, invalidRepr, isObject, isSet, obj, objs, str, visitContainers, type JsonObject } from './util.js';

function idErrors(value: unknown, path: string): FieldError[] {
  return typeof value === 'number' ? isValidUserOrGroupID(value).map((msg) => fieldErr.invalid(path, value, msg)) : [];
}

/** Go's %#v of a *core.SeccompProfile. */
function seccompRepr(sp: JsonObject): string {
  const lp = isSet(sp.localhostProfile) ? '(*string)(0xc000000000)' : '(*string)(nil)';
  return `&core.SeccompProfile{Type:${JSON.stringify(str(sp.type))}, LocalhostProfile:${lp}}`;
}

export function validateSeccompProfile(sp: unknown, path: string): FieldError[] {
  if (!isObject(sp)) return [];
  const errs: FieldError[] = [];
  const type = str(sp.type);
  const supported = ['Localhost', 'RuntimeDefault', 'Unconfined'];
  if (type === '') errs.push(fieldErr.required(`${path}.type`, 'type is required when seccompProfile is set'));
  else if (!supported.includes(type)) errs.push(fieldErr.notSupported(`${path}.type`, type, supported));
  if (type === 'Localhost') {
    if (!isSet(sp.localhostProfile)) errs.push(fieldErr.required(`${path}.localhostProfile`, 'must be set when seccomp type is Localhost'));
    else errs.push(...localDescendingPath(str(sp.localhostProfile), `${path}.localhostProfile`));
  } else if (isSet(sp.localhostProfile)) {
    errs.push(invalidRepr(`${path}.localhostProfile`, seccompRepr(sp), 'can only be set when seccomp type is Localhost'));
  }
  return errs;
}

export function validateAppArmorProfile(profile: unknown, path: string): FieldError[] {
  if (!isObject(profile)) return [];
  const errs: FieldError[] = [];
  const type = str(profile.type);
  switch (type) {
    case 'Localhost': {
      if (!isSet(profile.localhostProfile)) {
        errs.push(fieldErr.required(`${path}.localhostProfile`, 'must be set when AppArmor type is Localhost'));
        break;
      }
      const lp = str(profile.localhostProfile);
      if (lp.trim() !== lp) errs.push(fieldErr.invalid(`${path}.localhostProfile`, lp, 'must not be padded with whitespace'));
      else if (lp === '') errs.push(fieldErr.required(`${path}.localhostProfile`, 'must be set when AppArmor type is Localhost'));
      if (Buffer.byteLength(lp) > 4095) errs.push(fieldErr.tooLong(`${path}.localhostProfile`, 4095));
      break;
    }
    case 'RuntimeDefault':
    case 'Unconfined':
      if (isSet(profile.localhostProfile)) errs.push(fieldErr.invalid(`${path}.localhostProfile`, str(profile.localhostProfile), 'can only be set when AppArmor type is Localhost'));
      break;
    case '':
      errs.push(fieldErr.required(`${path}.type`, 'type is required when appArmorProfile is set'));
      break;
    default:
      errs.push(fieldErr.notSupported(`${path}.type`, type, ['Localhost', 'RuntimeDefault', 'Unconfined']));
  }
  return errs;
}

const netBiosRe = /^[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}$/;
const windowsDomainDNSRe = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

export function validateWindowsOptions(options: unknown, path: string): FieldError[] {
  if (!isObject(options)) return [];
  const errs: FieldError[] = [];
  if (typeof options.gmsaCredentialSpecName === 'string') {
    for (const msg of isDNS1123Subdomain(options.gmsaCredentialSpecName)) errs.push(fieldErr.invalid(`${path}.gmsaCredentialSpecName`, options.gmsaCredentialSpecName, msg));
  }
  if (typeof options.gmsaCredentialSpec === 'string') {
    const l = Buffer.byteLength(options.gmsaCredentialSpec);
    if (l === 0) errs.push(fieldErr.invalid(`${path}.gmsaCredentialSpec`, '', 'gmsaCredentialSpec cannot be an empty string'));
    else if (l > 64 * 1024) errs.push(fieldErr.invalid(`${path}.gmsaCredentialSpec`, options.gmsaCredentialSpec, 'gmsaCredentialSpec size must be under 64 KiB'));
  }
  if (typeof options.runAsUserName === 'string') {
    const name = options.runAsUserName;
    const p = `${path}.runAsUserName`;
    const parts = name.split('\\');
    if (name.length === 0) errs.push(fieldErr.invalid(p, name, 'runAsUserName cannot be an empty string'));
    else if (/[\x00-\x1f\x7f]/.test(name)) errs.push(fieldErr.invalid(p, name, 'runAsUserName cannot contain control characters'));
    else if (parts.length > 2) errs.push(fieldErr.invalid(p, name, 'runAsUserName cannot contain more than one backslash'));
    else {
      const hasDomain = parts.length === 2;
      const domain = hasDomain ? parts[0] : '';
      const user = hasDomain ? parts[1] : parts[0];
      if (domain.length >= 256) errs.push(fieldErr.invalid(p, name, "runAsUserName's Domain length must be under 256 characters"));
      if (hasDomain && !(netBiosRe.test(domain) || windowsDomainDNSRe.test(domain))) errs.push(fieldErr.invalid(p, name, "runAsUserName's Domain doesn't match the NetBios nor the DNS format"));
      if (user.length === 0) errs.push(fieldErr.invalid(p, name, "runAsUserName's User cannot be empty"));
      else if (user.length > 104) errs.push(fieldErr.invalid(p, name, "runAsUserName's User length must not be longer than 104 characters"));
      if (/^[. ]+$/.test(user)) errs.push(fieldErr.invalid(p, name, "runAsUserName's User cannot contain only periods or spaces"));
      if (/["/\\:;|=,+*?<>@[\]]/.test(user)) errs.push(fieldErr.invalid(p, name, `runAsUserName's User cannot contain the following characters: "/\\:;|=,+*?<>@[]`));
    }
  }
  return errs;
}

const sysctlFmt = '([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const sysctlRe = new RegExp(`^${sysctlFmt}$`);

/** The kernel namespace a sysctl belongs to (component-helpers' GetNamespace), for hostNetwork/hostIPC pods. */
function sysctlNamespace(name: string): 'net' | 'ipc' | '' {
  const n = name.replace(/\//g, '.');
  if (n.startsWith('net.')) return 'net';
  if (['kernel.sem', 'kernel.shmall', 'kernel.shmmax', 'kernel.shmmni', 'kernel.shm_rmid_forced'].includes(n) || n.startsWith('kernel.msg') || n.startsWith('fs.mqueue.')) return 'ipc';
  return '';
}

export interface SecurityContextOptions {
  allowNamespacedSysctlsForHostNetAndHostIPC?: boolean;
}

/** validatePodSpecSecurityContext. `spec` gives hostNetwork/hostPID/hostIPC (on the spec in v1). */
export function validatePodSecurityContext(spec: JsonObject, path: string, opts: SecurityContextOptions): FieldError[] {
  const sc = spec.securityContext;
  if (!isObject(sc)) return [];
  const errs: FieldError[] = [];
  errs.push(...idErrors(sc.fsGroup, `${path}.fsGroup`));
  errs.push(...idErrors(sc.runAsUser, `${path}.runAsUser`));
  errs.push(...idErrors(sc.runAsGroup, `${path}.runAsGroup`));
  (Array.isArray(sc.supplementalGroups) ? sc.supplementalGroups : []).forEach((g, i) => errs.push(...idErrors(g, `${path}.supplementalGroups[${i}]`)));
  if (spec.shareProcessNamespace === true && spec.hostPID === true) {
    errs.push(fieldErr.invalid(`${path}.shareProcessNamespace`, true, 'ShareProcessNamespace and HostPID cannot both be enabled'));
  }
  const names = new Set<string>();
  objs(sc.sysctls).forEach((s, i) => {
    const p = `${path}.sysctls[${i}].name`;
    const name = str(s.name);
    if (name === '') errs.push(fieldErr.required(p));
    else if (name.length > 253 || !sysctlRe.test(name)) errs.push(fieldErr.invalid(p, name, `must have at most 253 characters and match regex ^${sysctlFmt}$`));
    else if (names.has(name)) errs.push(duplicate(p, name));
    if (!opts.allowNamespacedSysctlsForHostNetAndHostIPC) {
      const ns = sysctlNamespace(name);
      if (spec.hostNetwork === true && ns === 'net') errs.push(fieldErr.invalid(p, name, "may not be specified when 'hostNetwork' is true"));
      else if (spec.hostIPC === true && ns === 'ipc') errs.push(fieldErr.invalid(p, name, "may not be specified when 'hostIPC' is true"));
    }
    names.add(name);
  });
  if (typeof sc.fsGroupChangePolicy === 'string' && !['Always', 'OnRootMismatch'].includes(sc.fsGroupChangePolicy)) {
    errs.push(fieldErr.notSupported(`${path}.fsGroupChangePolicy`, sc.fsGroupChangePolicy, ['Always', 'OnRootMismatch']));
  }
  errs.push(...validateSeccompProfile(sc.seccompProfile, `${path}.seccompProfile`));
  errs.push(...validateWindowsOptions(sc.windowsOptions, `${path}.windowsOptions`));
  errs.push(...validateAppArmorProfile(sc.appArmorProfile, `${path}.appArmorProfile`));
  if (typeof sc.supplementalGroupsPolicy === 'string' && !['Merge', 'Strict'].includes(sc.supplementalGroupsPolicy)) {
    errs.push(fieldErr.notSupported(`${path}.supplementalGroupsPolicy`, sc.supplementalGroupsPolicy, ['Merge', 'Strict']));
  }
  if (typeof sc.seLinuxChangePolicy === 'string' && !['MountOption', 'Recursive'].includes(sc.seLinuxChangePolicy)) {
    errs.push(fieldErr.notSupported(`${path}.seLinuxChangePolicy`, sc.seLinuxChangePolicy, ['MountOption', 'Recursive']));
  }
  return errs;
}

/** Go's %#v of a *core.SecurityContext, as two messages print it (only the head matters to readers). */
function securityContextRepr(): string {
  return '&core.SecurityContext{...}';
}

/** ValidateSecurityContext of a container. */
export function validateContainerSecurityContext(sc: unknown, path: string, hostUsers: boolean): FieldError[] {
  if (!isObject(sc)) return [];
  const errs: FieldError[] = [];
  errs.push(...idErrors(sc.runAsUser, `${path}.runAsUser`));
  errs.push(...idErrors(sc.runAsGroup, `${path}.runAsGroup`));
  if (typeof sc.procMount === 'string') {
    if (!['Default', 'Unmasked'].includes(sc.procMount)) errs.push(fieldErr.notSupported(`${path}.procMount`, sc.procMount, ['Default', 'Unmasked']));
    if (hostUsers && sc.procMount === 'Unmasked') errs.push(fieldErr.invalid(`${path}.procMount`, 'Unmasked', '`hostUsers` must be false to use `Unmasked`'));
  }
  errs.push(...validateSeccompProfile(sc.seccompProfile, `${path}.seccompProfile`));
  if (sc.allowPrivilegeEscalation === false) {
    if (sc.privileged === true) errs.push(invalidRepr(path, securityContextRepr(), 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
    for (const cap of obj(sc.capabilities).add instanceof Array ? (obj(sc.capabilities).add as unknown[]) : []) {
      if (cap === 'CAP_SYS_ADMIN') errs.push(invalidRepr(path, securityContextRepr(), 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'));
    }
  }
  errs.push(...validateWindowsOptions(sc.windowsOptions, `${path}.windowsOptions`));
  errs.push(...validateAppArmorProfile(sc.appArmorProfile, `${path}.appArmorProfile`));
  return errs;
}

/** validateLinux: Windows options are refused on a Linux pod. */
export function validateLinux(spec: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (isObject(obj(spec.securityContext).windowsOptions)) errs.push(fieldErr.forbidden(`${path}.securityContext.windowsOptions`, 'windows options cannot be set for a linux pod'));
  visitContainers(spec, (c, cp) => {
    if (isObject(obj(c.securityContext).windowsOptions)) errs.push(fieldErr.forbidden(`${cp}.securityContext.windowsOptions`, 'windows options cannot be set for a linux pod'));
  }, path);
  return errs;
}

/** validateWindows: Linux-only settings are refused on a Windows pod. */
export function validateWindows(spec: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const sc = spec.securityContext;
  const no = (p: string) => errs.push(fieldErr.forbidden(p, 'cannot be set for a windows pod'));
  if (isObject(sc)) {
    if (isSet(sc.appArmorProfile)) no(`${path}.securityContext.appArmorProfile`);
    if (isSet(sc.seLinuxOptions)) no(`${path}.securityContext.seLinuxOptions`);
    if (isSet(spec.hostUsers)) no(`${path}.hostUsers`);
    if (spec.hostPID === true) no(`${path}.hostPID`);
    if (spec.hostIPC === true) no(`${path}.hostIPC`);
    if (isSet(sc.seccompProfile)) no(`${path}.securityContext.seccompProfile`);
    if (isSet(sc.fsGroup)) no(`${path}.securityContext.fsGroup`);
    if (isSet(sc.fsGroupChangePolicy)) no(`${path}.securityContext.fsGroupChangePolicy`);
    if (Array.isArray(sc.sysctls) && sc.sysctls.length > 0) no(`${path}.securityContext.sysctls`);
    if (isSet(spec.shareProcessNamespace)) no(`${path}.shareProcessNamespace`);
    if (isSet(sc.runAsUser)) no(`${path}.securityContext.runAsUser`);
    if (isSet(sc.runAsGroup)) no(`${path}.securityContext.runAsGroup`);
    if (isSet(sc.supplementalGroups)) no(`${path}.securityContext.supplementalGroups`);
    if (isSet(sc.supplementalGroupsPolicy)) no(`${path}.securityContext.supplementalGroupsPolicy`);
    if (isSet(sc.seLinuxChangePolicy)) no(`${path}.securityContext.seLinuxChangePolicy`);
  }
  visitContainers(spec, (c, cp) => {
    const csc = c.securityContext;
    if (!isObject(csc)) return;
    const p = `${cp}.securityContext`;
    for (const f of ['appArmorProfile', 'seLinuxOptions', 'seccompProfile', 'capabilities', 'readOnlyRootFilesystem', 'privileged', 'allowPrivilegeEscalation', 'procMount', 'runAsUser', 'runAsGroup']) {
      if (isSet(csc[f])) no(`${p}.${f}`);
    }
  }, path);
  return errs;
}

/** validateWindowsHostProcessPod. */
export function validateWindowsHostProcess(spec: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let containers = 0, hostProcess = 0;
  const podHP = obj(obj(spec.securityContext).windowsOptions).hostProcess;
  visitContainers(spec, (c, cp) => {
    containers++;
    const hp = obj(obj(c.securityContext).windowsOptions).hostProcess;
    if (typeof podHP === 'boolean' && typeof hp === 'boolean' && podHP !== hp) {
      errs.push(fieldErr.invalid(`${cp}.securityContext.windowsOptions.hostProcess`, hp, `pod hostProcess value must be identical if both are specified, was ${podHP}`));
    }
    if (hp === true || (hp === undefined && podHP === true)) hostProcess++;
  }, path);
  if (hostProcess > 0) {
    if (hostProcess !== containers) errs.push(fieldErr.invalid(path, '', 'If pod contains any hostProcess containers then all containers must be HostProcess containers'));
    if (spec.hostNetwork !== true) errs.push(fieldErr.invalid(`${path}.hostNetwork`, false, 'hostNetwork must be true if pod contains any hostProcess containers'));
  }
  return errs;
}

/** validateHostUsers: a pod in its own user namespace may not share the host's others. */
export function validateHostUsers(spec: JsonObject, path: string): FieldError[] {
  if (spec.hostUsers !== false) return [];
  const errs: FieldError[] = [];
  if (spec.hostNetwork === true) errs.push(fieldErr.forbidden(`${path}.hostNetwork`, 'when `pod.Spec.HostUsers` is false'));
  if (spec.hostPID === true) errs.push(fieldErr.forbidden(`${path}.HostPID`, 'when `pod.Spec.HostUsers` is false'));
  if (spec.hostIPC === true) errs.push(fieldErr.forbidden(`${path}.HostIPC`, 'when `pod.Spec.HostUsers` is false'));
  return errs;
}

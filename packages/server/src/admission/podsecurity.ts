/**
 * PodSecurity admission (k8s.io/pod-security-admission, as of 1.35) for pods: the namespace's
 * `pod-security.kubernetes.io/enforce[-version]` labels choose a Pod Security Standard level
 * (privileged, baseline, restricted) and version; a pod violating it is refused with the
 * checks' reasons and details, in the library's order (baseline checks, then restricted ones,
 * each sorted by ID). The default policy is privileged, with no exemptions.
 */
import { newForbidden } from '@windlass/machinery';
import type { AdmissionAttributes, AdmissionPlugin, KubeObject } from '../registry/types.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Json => (isObject(v) ? v : {});
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export type Level = 'privileged' | 'baseline' | 'restricted';

/** A policy version: a 1.x minor, or latest. */
export interface LevelVersion { level: Level; minor: number | 'latest' }

/** The newest minor the checks know; later versions evaluate as this one. */
const maxMinor = 35;

interface CheckResult { reason: string; detail: string }
type CheckFn = (meta: Json, spec: Json) => CheckResult | undefined;
interface VersionedCheck { min: number; fn: CheckFn; overrides?: string[] }
interface Check { id: string; level: 'baseline' | 'restricted'; versions: VersionedCheck[] }

const joinQuote = (items: string[]) => (items.length === 0 ? '' : `"${items.join('", "')}"`);
const pluralize = (singular: string, plural: string, n: number) => (n === 1 ? singular : plural);
const sorted = (s: Set<string>) => [...s].sort();
const containersPhrase = (names: string[]) => `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;

function visitContainers(spec: Json, fn: (c: Json) => void): void {
  for (const c of list(spec.initContainers)) fn(c);
  for (const c of list(spec.containers)) fn(c);
  for (const c of list(spec.ephemeralContainers)) fn(c);
}

const isWindows = (spec: Json) => obj(spec.os).name === 'windows';
const userNamespaced = (spec: Json) => spec.hostUsers === false;
const sc = (c: Json) => obj(c.securityContext);

const allowPrivilegeEscalation: CheckFn = (_m, spec) => {
  const bad: string[] = [];
  visitContainers(spec, (c) => { if (sc(c).allowPrivilegeEscalation !== false) bad.push(str(c.name)); });
  return bad.length ? { reason: 'allowPrivilegeEscalation != false', detail: `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false` } : undefined;
};

const appArmorProfile: CheckFn = (meta, spec) => {
  const allowedType = (t: string) => t === 'RuntimeDefault' || t === 'Localhost';
  const setters: string[] = [];
  const values = new Set<string>();
  const podProfile = obj(spec.securityContext).appArmorProfile;
  if (isObject(podProfile) && !allowedType(str(podProfile.type))) { setters.push('pod'); values.add(str(podProfile.type)); }
  const bad: string[] = [];
  visitContainers(spec, (c) => {
    const p = sc(c).appArmorProfile;
    if (isObject(p) && !allowedType(str(p.type))) { bad.push(str(c.name)); values.add(str(p.type)); }
  });
  if (bad.length) setters.push(containersPhrase(bad));
  const forbidden: string[] = [];
  for (const [k, v] of Object.entries(obj(meta.annotations))) {
    if (!k.startsWith('container.apparmor.security.beta.kubernetes.io/')) continue;
    const value = str(v);
    if (!(value === '' || value === 'runtime/default' || value.startsWith('localhost/'))) forbidden.push(`${k}=${JSON.stringify(value)}`);
  }
  const valueList = sorted(values);
  if (forbidden.length) {
    valueList.push(...forbidden.sort());
    setters.push(pluralize('annotation', 'annotations', forbidden.length));
  }
  if (!setters.length) return undefined;
  return { reason: pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', valueList.length), detail: `${setters.join(' and ')} must not set AppArmor profile type to ${joinQuote(valueList)}` };
};

const defaultCapabilities = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);

const capabilitiesBaseline: CheckFn = (_m, spec) => {
  const bad: string[] = [];
  const caps = new Set<string>();
  visitContainers(spec, (c) => {
    const capabilities = sc(c).capabilities;
    if (!isObject(capabilities)) return;
    let valid = true;
    for (const cap of Array.isArray(capabilities.add) ? capabilities.add.map(str) : []) if (!defaultCapabilities.has(cap)) { valid = false; caps.add(cap); }
    if (!valid) bad.push(str(c.name));
  });
  return bad.length ? { reason: 'non-default capabilities', detail: `${containersPhrase(bad)} must not include ${joinQuote(sorted(caps))} in securityContext.capabilities.add` } : undefined;
};

const capabilitiesRestricted: CheckFn = (_m, spec) => {
  const missingDrop: string[] = [];
  const adding: string[] = [];
  const forbidden = new Set<string>();
  visitContainers(spec, (c) => {
    const capabilities = sc(c).capabilities;
    if (!isObject(capabilities)) { missingDrop.push(str(c.name)); return; }
    const drop = Array.isArray(capabilities.drop) ? capabilities.drop.map(str) : [];
    if (!drop.includes('ALL')) missingDrop.push(str(c.name));
    let added = false;
    for (const cap of Array.isArray(capabilities.add) ? capabilities.add.map(str) : []) if (cap !== 'NET_BIND_SERVICE') { added = true; forbidden.add(cap); }
    if (added) adding.push(str(c.name));
  });
  const details: string[] = [];
  if (missingDrop.length) details.push(`${containersPhrase(missingDrop)} must set securityContext.capabilities.drop=["ALL"]`);
  if (adding.length) details.push(`${containersPhrase(adding)} must not include ${joinQuote(sorted(forbidden))} in securityContext.capabilities.add`);
  return details.length ? { reason: 'unrestricted capabilities', detail: details.join('; ') } : undefined;
};

const hostNamespaces: CheckFn = (_m, spec) => {
  const used = (['hostNetwork', 'hostPID', 'hostIPC'] as const).filter((k) => spec[k] === true).map((k) => `${k}=true`);
  return used.length ? { reason: 'host namespaces', detail: used.join(', ') } : undefined;
};

const hostPathVolumes: CheckFn = (_m, spec) => {
  const names = list(spec.volumes).filter((v) => isObject(v.hostPath)).map((v) => str(v.name));
  return names.length ? { reason: 'hostPath volumes', detail: `${pluralize('volume', 'volumes', names.length)} ${joinQuote(names)}` } : undefined;
};

const hostPorts: CheckFn = (_m, spec) => {
  const bad: string[] = [];
  const ports = new Set<string>();
  visitContainers(spec, (c) => {
    let valid = true;
    for (const p of list(c.ports)) if (typeof p.hostPort === 'number' && p.hostPort !== 0) { valid = false; ports.add(String(p.hostPort)); }
    if (!valid) bad.push(str(c.name));
  });
  if (!bad.length) return undefined;
  return {
    reason: 'hostPort',
    detail: `${containersPhrase(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('hostPort', 'hostPorts', ports.size)} ${sorted(ports).join(', ')}`,
  };
};

const hostProbesAndHostLifecycle: CheckFn = (_m, spec) => {
  const bad = new Set<string>();
  const hosts = new Set<string>();
  const check = (handler: unknown, name: string) => {
    for (const action of [obj(handler).httpGet, obj(handler).tcpSocket]) {
      const host = str(obj(action).host);
      if (host) { bad.add(name); hosts.add(host); }
    }
  };
  visitContainers(spec, (c) => {
    for (const probe of [c.livenessProbe, c.readinessProbe, c.startupProbe]) check(probe, str(c.name));
    for (const h of [obj(c.lifecycle).postStart, obj(c.lifecycle).preStop]) check(h, str(c.name));
  });
  if (!bad.size) return undefined;
  return {
    reason: 'probe or lifecycle host',
    detail: `${pluralize('container', 'containers', bad.size)} ${joinQuote(sorted(bad))} ${pluralize('uses', 'use', bad.size)} ${pluralize('probe or lifecycle host', 'probe or lifecycle hosts', hosts.size)} ${joinQuote(sorted(hosts))}`,
  };
};

const privileged: CheckFn = (_m, spec) => {
  const bad: string[] = [];
  visitContainers(spec, (c) => { if (sc(c).privileged === true) bad.push(str(c.name)); });
  return bad.length ? { reason: 'privileged', detail: `${containersPhrase(bad)} must not set securityContext.privileged=true` } : undefined;
};

const procMount: CheckFn = (_m, spec) => {
  const bad: string[] = [];
  const types = new Set<string>();
  visitContainers(spec, (c) => {
    const pm = sc(c).procMount;
    if (typeof pm === 'string' && pm !== 'Default') { bad.push(str(c.name)); types.add(pm); }
  });
  return bad.length ? { reason: 'procMount', detail: `${containersPhrase(bad)} must not set securityContext.procMount to ${joinQuote(sorted(types))}` } : undefined;
};

const relaxedForUserNamespace = (fn: CheckFn): CheckFn => (m, spec) => (userNamespaced(spec) ? undefined : fn(m, spec));
const skipWindows = (fn: CheckFn): CheckFn => (m, spec) => (isWindows(spec) ? undefined : fn(m, spec));

const restrictedVolumeTypes = [
  'hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'nfs', 'iscsi', 'glusterfs', 'rbd', 'flexVolume', 'cinder', 'cephfs',
  'flocker', 'fc', 'azureFile', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'portworxVolume', 'scaleIO', 'storageos',
];
const allowedVolumeTypes = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'image', 'persistentVolumeClaim', 'projected', 'secret'];

const restrictedVolumes: CheckFn = (_m, spec) => {
  const bad: string[] = [];
  const types = new Set<string>();
  for (const v of list(spec.volumes)) {
    if (allowedVolumeTypes.some((t) => isObject(v[t]))) continue;
    bad.push(str(v.name));
    types.add(restrictedVolumeTypes.find((t) => isObject(v[t])) ?? 'unknown');
  }
  if (!bad.length) return undefined;
  return {
    reason: 'restricted volume types',
    detail: `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('restricted volume type', 'restricted volume types', types.size)} ${joinQuote(sorted(types))}`,
  };
};

const runAsNonRoot: CheckFn = (_m, spec) => {
  const setters: string[] = [];
  let podNonRoot = false;
  const podValue = obj(spec.securityContext).runAsNonRoot;
  if (typeof podValue === 'boolean') { if (!podValue) setters.push('pod'); else podNonRoot = true; }
  const explicit: string[] = [];
  const implicit: string[] = [];
  visitContainers(spec, (c) => {
    const v = sc(c).runAsNonRoot;
    if (typeof v === 'boolean') { if (!v) explicit.push(str(c.name)); } else if (!podNonRoot) implicit.push(str(c.name));
  });
  if (explicit.length) setters.push(containersPhrase(explicit));
  if (setters.length) return { reason: 'runAsNonRoot != true', detail: `${setters.join(' and ')} must not set securityContext.runAsNonRoot=false` };
  if (implicit.length) return { reason: 'runAsNonRoot != true', detail: `pod or ${containersPhrase(implicit)} must set securityContext.runAsNonRoot=true` };
  return undefined;
};

const runAsUser: CheckFn = (_m, spec) => {
  const setters: string[] = [];
  if (obj(spec.securityContext).runAsUser === 0) setters.push('pod');
  const bad: string[] = [];
  visitContainers(spec, (c) => { if (sc(c).runAsUser === 0) bad.push(str(c.name)); });
  if (bad.length) setters.push(containersPhrase(bad));
  return setters.length ? { reason: 'runAsUser=0', detail: `${setters.join(' and ')} must not set runAsUser=0` } : undefined;
};

const seLinuxOptions = (allowedTypes: Set<string>): CheckFn => (_m, spec) => {
  const setters: string[] = [];
  const badTypes = new Set<string>();
  let setUser = false, setRole = false;
  const valid = (o: Json) => {
    let ok = true;
    if (!allowedTypes.has(str(o.type))) { ok = false; badTypes.add(str(o.type)); }
    if (str(o.user)) { ok = false; setUser = true; }
    if (str(o.role)) { ok = false; setRole = true; }
    return ok;
  };
  const podOpts = obj(spec.securityContext).seLinuxOptions;
  if (isObject(podOpts) && !valid(podOpts)) setters.push('pod');
  const bad: string[] = [];
  visitContainers(spec, (c) => { const o = sc(c).seLinuxOptions; if (isObject(o) && !valid(o)) bad.push(str(c.name)); });
  if (bad.length) setters.push(containersPhrase(bad));
  if (!setters.length) return undefined;
  const data: string[] = [];
  if (badTypes.size) data.push(`${pluralize('type', 'types', badTypes.size)} ${joinQuote(sorted(badTypes))}`);
  if (setUser) data.push('user may not be set');
  if (setRole) data.push('role may not be set');
  return { reason: 'seLinuxOptions', detail: `${setters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}` };
};

const validSeccomp = (t: string) => t === 'Localhost' || t === 'RuntimeDefault';

const seccompBaselineAnnotations: CheckFn = (meta, spec) => {
  const annotations = obj(meta.annotations);
  const forbidden = new Set<string>();
  const validValue = (v: string) => v === 'runtime/default' || v === 'docker/default' || v.startsWith('localhost/');
  const podKey = 'seccomp.security.alpha.kubernetes.io/pod';
  if (podKey in annotations && !validValue(str(annotations[podKey]))) forbidden.add(`${podKey}=${JSON.stringify(str(annotations[podKey]))}`);
  visitContainers(spec, (c) => {
    const key = `container.seccomp.security.alpha.kubernetes.io/${str(c.name)}`;
    if (key in annotations && !validValue(str(annotations[key]))) forbidden.add(`${key}=${JSON.stringify(str(annotations[key]))}`);
  });
  return forbidden.size ? { reason: 'seccompProfile', detail: `forbidden ${pluralize('annotation', 'annotations', forbidden.size)} ${sorted(forbidden).join(', ')}` } : undefined;
};

const seccompBaseline: CheckFn = (_m, spec) => {
  const setters: string[] = [];
  const values = new Set<string>();
  const podSP = obj(spec.securityContext).seccompProfile;
  if (isObject(podSP) && !validSeccomp(str(podSP.type))) { setters.push('pod'); values.add(str(podSP.type)); }
  const bad: string[] = [];
  visitContainers(spec, (c) => { const sp = sc(c).seccompProfile; if (isObject(sp) && !validSeccomp(str(sp.type))) { bad.push(str(c.name)); values.add(str(sp.type)); } });
  if (bad.length) setters.push(containersPhrase(bad));
  return setters.length ? { reason: 'seccompProfile', detail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sorted(values))}` } : undefined;
};

const seccompRestricted: CheckFn = (_m, spec) => {
  const setters: string[] = [];
  const values = new Set<string>();
  let podSet = false;
  const podSP = obj(spec.securityContext).seccompProfile;
  if (isObject(podSP)) { if (!validSeccomp(str(podSP.type))) { setters.push('pod'); values.add(str(podSP.type)); } else podSet = true; }
  const explicit: string[] = [];
  const implicit: string[] = [];
  visitContainers(spec, (c) => {
    const sp = sc(c).seccompProfile;
    if (isObject(sp)) { if (!validSeccomp(str(sp.type))) { explicit.push(str(c.name)); values.add(str(sp.type)); } } else if (!podSet) implicit.push(str(c.name));
  });
  if (explicit.length) setters.push(containersPhrase(explicit));
  if (setters.length) return { reason: 'seccompProfile', detail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sorted(values))}` };
  if (implicit.length) return { reason: 'seccompProfile', detail: `pod or ${containersPhrase(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"` };
  return undefined;
};

const sysctlsV1_0 = ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start'];
const sysctlsV1_27 = [...sysctlsV1_0, 'net.ipv4.ip_local_reserved_ports'];
const sysctlsV1_29 = [...sysctlsV1_27, 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes'];
const sysctlsV1_32 = [...sysctlsV1_29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'];

const sysctls = (allowed: string[]): CheckFn => (_m, spec) => {
  const bad = list(obj(spec.securityContext).sysctls).map((s) => str(s.name)).filter((n) => !allowed.includes(n));
  return bad.length ? { reason: 'forbidden sysctls', detail: bad.join(', ') } : undefined;
};

const windowsHostProcess: CheckFn = (_m, spec) => {
  const bad: string[] = [];
  visitContainers(spec, (c) => { if (obj(sc(c).windowsOptions).hostProcess === true) bad.push(str(c.name)); });
  const setters: string[] = [];
  if (obj(obj(spec.securityContext).windowsOptions).hostProcess === true) setters.push('pod');
  if (bad.length) setters.push(containersPhrase(bad));
  return setters.length ? { reason: 'hostProcess', detail: `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true` } : undefined;
};

const selinuxTypes1_0 = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t']);
const selinuxTypes1_31 = new Set([...selinuxTypes1_0, 'container_engine_t']);

/** The checks of pod-security-admission's policy package, each with the versions it changed at. */
const checks: Check[] = [
  { id: 'appArmorProfile', level: 'baseline', versions: [{ min: 0, fn: appArmorProfile }] },
  { id: 'capabilities_baseline', level: 'baseline', versions: [{ min: 0, fn: capabilitiesBaseline }] },
  { id: 'hostNamespaces', level: 'baseline', versions: [{ min: 0, fn: hostNamespaces }] },
  { id: 'hostPathVolumes', level: 'baseline', versions: [{ min: 0, fn: hostPathVolumes }] },
  { id: 'hostPorts', level: 'baseline', versions: [{ min: 0, fn: hostPorts }] },
  { id: 'hostProbesAndHostLifecycle', level: 'baseline', versions: [{ min: 34, fn: hostProbesAndHostLifecycle }] },
  { id: 'privileged', level: 'baseline', versions: [{ min: 0, fn: privileged }] },
  { id: 'procMount', level: 'baseline', versions: [{ min: 0, fn: procMount }, { min: 35, fn: relaxedForUserNamespace(procMount) }] },
  { id: 'seLinuxOptions', level: 'baseline', versions: [{ min: 0, fn: seLinuxOptions(selinuxTypes1_0) }, { min: 31, fn: seLinuxOptions(selinuxTypes1_31) }] },
  { id: 'seccompProfile_baseline', level: 'baseline', versions: [{ min: 0, fn: seccompBaselineAnnotations }, { min: 19, fn: seccompBaseline }] },
  { id: 'sysctls', level: 'baseline', versions: [{ min: 0, fn: sysctls(sysctlsV1_0) }, { min: 27, fn: sysctls(sysctlsV1_27) }, { min: 29, fn: sysctls(sysctlsV1_29) }, { min: 32, fn: sysctls(sysctlsV1_32) }] },
  { id: 'windowsHostProcess', level: 'baseline', versions: [{ min: 0, fn: windowsHostProcess }] },
  { id: 'allowPrivilegeEscalation', level: 'restricted', versions: [{ min: 8, fn: allowPrivilegeEscalation }, { min: 25, fn: skipWindows(allowPrivilegeEscalation) }] },
  { id: 'capabilities_restricted', level: 'restricted', versions: [{ min: 22, fn: capabilitiesRestricted, overrides: ['capabilities_baseline'] }, { min: 25, fn: skipWindows(capabilitiesRestricted), overrides: ['capabilities_baseline'] }] },
  { id: 'procMount_restricted', level: 'restricted', versions: [{ min: 35, fn: procMount, overrides: ['procMount'] }] },
  { id: 'restrictedVolumes', level: 'restricted', versions: [{ min: 0, fn: restrictedVolumes, overrides: ['hostPathVolumes'] }] },
  { id: 'runAsNonRoot', level: 'restricted', versions: [{ min: 0, fn: runAsNonRoot }, { min: 35, fn: relaxedForUserNamespace(runAsNonRoot) }] },
  { id: 'runAsUser', level: 'restricted', versions: [{ min: 23, fn: runAsUser }, { min: 35, fn: relaxedForUserNamespace(runAsUser) }] },
  { id: 'seccompProfile_restricted', level: 'restricted', versions: [{ min: 19, fn: seccompRestricted, overrides: ['seccompProfile_baseline'] }, { min: 25, fn: skipWindows(seccompRestricted), overrides: ['seccompProfile_baseline'] }] },
];

function versionAt(check: Check, minor: number): VersionedCheck | undefined {
  let found: VersionedCheck | undefined;
  for (const v of check.versions) if (v.min <= minor) found = v;
  return found;
}

/** EvaluatePod: the failed checks of a level and version, in the library's order. */
export function evaluatePod(lv: LevelVersion, meta: Json, spec: Json): CheckResult[] {
  if (lv.level === 'privileged') return [];
  const minor = lv.minor === 'latest' || lv.minor > maxMinor ? maxMinor : lv.minor;
  const active = checks.map((c) => ({ c, v: versionAt(c, minor) })).filter((x) => x.v && (x.c.level === 'baseline' || lv.level === 'restricted'));
  const overridden = new Set(active.filter((x) => x.c.level === 'restricted').flatMap((x) => x.v!.overrides ?? []));
  const ordered = [
    ...active.filter((x) => x.c.level === 'baseline' && !overridden.has(x.c.id)).sort((a, b) => (a.c.id < b.c.id ? -1 : 1)),
    ...active.filter((x) => x.c.level === 'restricted').sort((a, b) => (a.c.id < b.c.id ? -1 : 1)),
  ];
  const results: CheckResult[] = [];
  for (const { v } of ordered) {
    const r = v!.fn(meta, spec);
    if (r) results.push(r);
  }
  return results;
}

/** AggregateCheckResult.ForbiddenDetail. */
export function forbiddenDetail(results: CheckResult[]): string {
  return results.map((r) => (r.detail ? `${r.reason} (${r.detail})` : r.reason)).join(', ');
}

export function levelVersionString(lv: LevelVersion): string {
  return `${lv.level}:${lv.minor === 'latest' ? 'latest' : `v1.${lv.minor}`}`;
}

const labelPrefix = 'pod-security.kubernetes.io/';

/** PolicyToEvaluate for one mode: an invalid level means restricted, an invalid version latest. */
export function policyFor(labels: Record<string, string> | undefined, mode: 'enforce' | 'audit' | 'warn'): LevelVersion {
  const l = labels ?? {};
  const rawLevel = l[`${labelPrefix}${mode}`];
  const level: Level = rawLevel === undefined ? 'privileged' : rawLevel === 'privileged' || rawLevel === 'baseline' || rawLevel === 'restricted' ? rawLevel : 'restricted';
  const rawVersion = l[`${labelPrefix}${mode}-version`];
  let minor: number | 'latest' = 'latest';
  const m = rawVersion !== undefined ? /^v1\.(0|[1-9][0-9]*)$/.exec(rawVersion) : null;
  if (m) minor = Number(m[1]);
  return { level, minor };
}

/** Subresources that cannot change a pod's spec (ignoredPodSubresources). */
const ignoredSubresources = new Set(['exec', 'attach', 'binding', 'eviction', 'log', 'portforward', 'proxy', 'status']);

/** isSignificantPodUpdate: only container changes other than images are worth a new evaluation. */
function isSignificantUpdate(pod: KubeObject, old: KubeObject): boolean {
  const spec = obj(pod.spec), oldSpec = obj(old.spec);
  for (const key of ['containers', 'initContainers']) {
    const n = list(spec[key]), o = list(oldSpec[key]);
    if (n.length !== o.length) return true;
    if (n.some((c, i) => c.image !== o[i].image)) return true;
  }
  const oldEphemeral = list(oldSpec.ephemeralContainers);
  for (const c of list(spec.ephemeralContainers)) {
    const prev = oldEphemeral.find((o) => o.name === c.name);
    if (!prev || prev.image !== c.image) return true;
  }
  return false;
}

async function namespaceLabels(attrs: AdmissionAttributes, namespace = attrs.obj.metadata.namespace ?? ''): Promise<Record<string, string> | undefined> {
  const ns = await attrs.lookup('', 'namespaces')?.get('', namespace);
  return ns?.metadata.labels;
}

export interface NamespacePolicy { enforce: LevelVersion; warn: LevelVersion }

const levelRank: Record<Level, number> = { privileged: 0, baseline: 1, restricted: 2 };

/**
 * api.PolicyToEvaluate for the enforce and warn modes: an unparsable enforce level enforces
 * restricted, an unparsable warn level fails open to privileged, and an enforce level stricter
 * than an unset warn level warns at the enforce level and version too.
 */
export function namespacePolicy(labels: Record<string, string> | undefined): NamespacePolicy {
  const enforce = policyFor(labels, 'enforce');
  const warn = policyFor(labels, 'warn');
  const l = labels ?? {};
  const rawWarn = l[`${labelPrefix}warn`];
  if (rawWarn !== undefined && rawWarn !== 'privileged' && rawWarn !== 'baseline' && rawWarn !== 'restricted') warn.level = 'privileged';
  const rawEnforce = l[`${labelPrefix}enforce`];
  const enforceParsed = rawEnforce === 'privileged' || rawEnforce === 'baseline' || rawEnforce === 'restricted';
  if (rawWarn === undefined && enforceParsed && levelRank[enforce.level] > levelRank[warn.level]) {
    warn.level = enforce.level;
    if (l[`${labelPrefix}warn-version`] === undefined) warn.minor = enforce.minor;
  }
  return { enforce, warn };
}

const sameLevelVersion = (a: LevelVersion, b: LevelVersion) => a.level === b.level && a.minor === b.minor;

/** The warning PodSecurity's warn mode adds for a pod or pod template the namespace's warn level refuses. */
function warnViolations(attrs: AdmissionAttributes, warn: LevelVersion, meta: Json, spec: Json): void {
  if (warn.level === 'privileged') return;
  const results = evaluatePod(warn, meta, spec);
  if (results.length > 0) attrs.warn(`would violate PodSecurity ${JSON.stringify(levelVersionString(warn))}: ${forbiddenDetail(results)}`);
}

export const podSecurityAdmission: AdmissionPlugin = {
  name: 'PodSecurity',
  async validate(attrs) {
    if (ignoredSubresources.has(attrs.subresource)) return;
    if (attrs.operation === 'UPDATE' && attrs.old && !isSignificantUpdate(attrs.obj, attrs.old)) return;
    const policy = namespacePolicy(await namespaceLabels(attrs));
    const meta = obj(attrs.obj.metadata), spec = obj(attrs.obj.spec);
    if (policy.enforce.level !== 'privileged') {
      const results = evaluatePod(policy.enforce, meta, spec);
      if (results.length > 0) {
        throw newForbidden({ group: '', resource: 'pods' }, attrs.obj.metadata.name ?? '', `violates PodSecurity ${JSON.stringify(levelVersionString(policy.enforce))}: ${forbiddenDetail(results)}`);
      }
    }
    // A pod the enforce level refused gets no warning; one it admitted may still get the warn level's.
    warnViolations(attrs, policy.warn, meta, spec);
  },
};

/** Where each workload kind keeps its pod template (DefaultPodSpecExtractor). */
function podTemplateOf(obj0: KubeObject): unknown {
  if ('template' in obj0) return obj0.template; // PodTemplate
  const spec = obj(obj0.spec);
  if ('jobTemplate' in spec) return obj(obj(spec.jobTemplate).spec).template; // CronJob
  return spec.template;
}

/**
 * PodSecurity for pod controllers (ValidatePodController): deployments, replica sets, stateful
 * sets, daemon sets, jobs, cron jobs, replication controllers and pod templates are never
 * refused, but their template is checked against the warn level on every write of the main
 * resource, so people learn before the pods fail.
 */
export const podSecurityControllerAdmission: AdmissionPlugin = {
  name: 'PodSecurity',
  async validate(attrs) {
    if (attrs.subresource !== '') return;
    const policy = namespacePolicy(await namespaceLabels(attrs));
    if (policy.warn.level === 'privileged') return;
    const template = podTemplateOf(attrs.obj);
    if (!isObject(template)) return;
    warnViolations(attrs, policy.warn, obj(template.metadata), obj(template.spec));
  },
};

/** The lexically first pod with a given set of violations, and how many pods share it. */
interface PodCount { podName: string; podCount: number }

const namespaceMaxPodsToCheck = 3000;

/** A pod's controller's uid (metav1.GetControllerOf), if any. */
function controllerUID(pod: KubeObject): string | undefined {
  for (const ref of Array.isArray(pod.metadata.ownerReferences) ? pod.metadata.ownerReferences : []) {
    if (isObject(ref) && ref.controller === true) return str(ref.uid);
  }
  return undefined;
}

/** prioritizePods: one pod per controller first, the replicas of controllers already seen last. */
function prioritizePods(pods: KubeObject[]): KubeObject[] {
  const first: KubeObject[] = [], duplicates: KubeObject[] = [];
  const seen = new Set<string>();
  for (const pod of pods) {
    const uid = controllerUID(pod);
    if (uid === undefined) first.push(pod);
    else if (seen.has(uid)) duplicates.push(pod);
    else { first.push(pod); seen.add(uid); }
  }
  return [...first, ...duplicates];
}

/**
 * EvaluatePodsInNamespace: the warnings of a namespace update that makes the enforce level
 * stricter, one per distinct set of violated checks, naming the first pod (and how many others).
 */
export async function evaluatePodsInNamespace(attrs: AdmissionAttributes, namespace: string, enforce: LevelVersion): Promise<string[]> {
  const lookup = attrs.lookup('', 'pods');
  if (!lookup) return ['failed to list pods while checking new PodSecurity enforce level'];
  let pods: KubeObject[];
  try {
    pods = prioritizePods(await lookup.list(namespace));
  } catch {
    return ['failed to list pods while checking new PodSecurity enforce level'];
  }
  const total = pods.length;
  const checked = pods.slice(0, namespaceMaxPodsToCheck);
  const counts = new Map<string, PodCount>();
  for (const pod of checked) {
    const results = evaluatePod(enforce, obj(pod.metadata), obj(pod.spec));
    if (results.length === 0) continue;
    const reason = results.map((r) => r.reason).join(', ');
    const name = pod.metadata.name ?? '';
    const c = counts.get(reason);
    if (!c) counts.set(reason, { podName: name, podCount: 1 });
    else {
      if (name < c.podName) c.podName = name;
      c.podCount++;
    }
  }
  const warnings: string[] = [];
  if (checked.length < total) warnings.push(`new PodSecurity enforce level only checked against the first ${checked.length} of ${total} existing pods`);
  if (counts.size > 0) warnings.push(`existing pods in namespace ${JSON.stringify(namespace)} violate the new PodSecurity enforce level ${JSON.stringify(levelVersionString(enforce))}`);
  const podWarnings = [...counts.entries()].map(([reason, c]) => {
    if (c.podCount === 1) return `${c.podName}: ${reason}`;
    if (c.podCount === 2) return `${c.podName} (and 1 other pod): ${reason}`;
    return `${c.podName} (and ${c.podCount - 1} other pods): ${reason}`;
  });
  podWarnings.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return [...warnings, ...podWarnings];
}

/**
 * The namespace-update half of ValidateNamespace: a stricter enforce level is dry-run against the
 * namespace's pods and answered with warnings; equal, privileged or relaxed levels are not.
 */
export async function podSecurityNamespaceUpdateWarnings(attrs: AdmissionAttributes): Promise<void> {
  if (attrs.operation !== 'UPDATE' || !attrs.old || attrs.subresource !== '') return;
  const next = namespacePolicy(attrs.obj.metadata.labels).enforce;
  const prev = namespacePolicy(attrs.old.metadata.labels).enforce;
  if (sameLevelVersion(next, prev) || next.level === 'privileged') return;
  if (next.minor === prev.minor && levelRank[next.level] <= levelRank[prev.level]) return;
  for (const w of await evaluatePodsInNamespace(attrs, attrs.obj.metadata.name ?? '', next)) attrs.warn(w);
}

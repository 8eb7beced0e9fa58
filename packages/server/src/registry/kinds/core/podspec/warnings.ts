/**
 * Warnings for pods and pod templates, ported from Kubernetes 1.35's pkg/api/pod/warnings.go
 * (GetWarningsForPod, GetWarningsForPodTemplate, warningsForOverlappingVirtualPaths) and the
 * AppArmor annotation sync of pkg/registry/core/pod/strategy.go (applyAppArmorVersionSkew).
 *
 * A pod's paths start at `spec`/`metadata`; a template's carry its prefix
 * (`spec.template.spec…`, `spec.jobTemplate.spec.template.metadata…`). Go iterates maps in random
 * order; we use the object's key order.
 */
import { child, fractionalBytesWarning, nodeLabelDeprecation, nodeSelectorTermWarnings, pvcSpecWarnings } from '../../warnings.js';
import { deepEqual, isObject, num, obj, objs, str, visitContainers, type JsonObject } from './util.js';

const deprecatedAnnotations: Array<{ key: string; message: string }> = [
  { key: 'scheduler.alpha.kubernetes.io/critical-pod', message: 'non-functional in v1.16+; use the "priorityClassName" field instead' },
  { key: 'security.alpha.kubernetes.io/sysctls', message: 'non-functional in v1.11+; use the "sysctls" field instead' },
  { key: 'security.alpha.kubernetes.io/unsafe-sysctls', message: 'non-functional in v1.11+; use the "sysctls" field instead' },
];

/** Volume plugins kube deprecated or removed, in warnings.go's order, with their message. */
const deprecatedVolumes: Array<[string, string]> = [
  ['photonPersistentDisk', 'deprecated in v1.11, non-functional in v1.16+'],
  ['gitRepo', 'deprecated in v1.11'],
  ['scaleIO', 'deprecated in v1.16, non-functional in v1.22+'],
  ['flocker', 'deprecated in v1.22, non-functional in v1.25+'],
  ['storageOS', 'deprecated in v1.22, non-functional in v1.25+'],
  ['quobyte', 'deprecated in v1.22, non-functional in v1.25+'],
  ['glusterfs', 'deprecated in v1.25, non-functional in v1.26+'],
  ['ephemeral', ''],
  ['cephfs', 'deprecated in v1.28, non-functional in v1.31+'],
  ['rbd', 'deprecated in v1.28, non-functional in v1.31+'],
];

const seccompPodAnnotation = 'seccomp.security.alpha.kubernetes.io/pod';
const seccompContainerPrefix = 'container.seccomp.security.alpha.kubernetes.io/';
export const appArmorAnnotationPrefix = 'container.apparmor.security.beta.kubernetes.io/';

const isSet = (v: unknown) => v !== undefined && v !== null;
const annotationPath = (prefix: string, key: string) => `${child(prefix, 'metadata.annotations')}[${key}]`;

/** GetWarningsForPod: what a pod's create answers with (pods warn on create only). */
export function podWarnings(pod: JsonObject): string[] {
  return podSpecAndMetaWarnings('', obj(pod.spec), obj(pod.metadata));
}

/** GetWarningsForPodTemplate under `path` (`spec.template`, `template`, `spec.jobTemplate.spec.template`). */
export function podTemplateWarnings(path: string, template: unknown): string[] {
  if (!isObject(template)) return [];
  return podSpecAndMetaWarnings(path, obj(template.spec), obj(template.metadata));
}

function podSpecAndMetaWarnings(prefix: string, spec: JsonObject, meta: JsonObject): string[] {
  const warnings: string[] = [];
  const specPath = child(prefix, 'spec');
  const annotations = obj(meta.annotations);

  // Deprecated node labels in selectors, affinity and topology spread constraints.
  for (const k of Object.keys(obj(spec.nodeSelector))) {
    const msg = nodeLabelDeprecation(k);
    if (msg) warnings.push(`${specPath}.nodeSelector[${k}]: ${msg}`);
  }
  const affinity = obj(spec.affinity);
  if (isObject(affinity.nodeAffinity)) {
    const n = affinity.nodeAffinity;
    if (isObject(n.requiredDuringSchedulingIgnoredDuringExecution)) {
      objs(n.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms).forEach((term, i) => {
        warnings.push(...nodeSelectorTermWarnings(term, `${specPath}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[${i}]`));
      });
    }
    objs(n.preferredDuringSchedulingIgnoredDuringExecution).forEach((term, i) => {
      warnings.push(...nodeSelectorTermWarnings(term.preference, `${specPath}.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[${i}].preference`));
    });
  }
  objs(spec.topologySpreadConstraints).forEach((t, i) => {
    const path = `${specPath}.topologySpreadConstraints[${i}]`;
    const msg = nodeLabelDeprecation(str(t.topologyKey));
    if (msg) warnings.push(`${path}.topologyKey: ${str(t.topologyKey)} is ${msg}`);
    if (!isSet(t.labelSelector)) warnings.push(`${path}.labelSelector: a null labelSelector results in matching no pod`);
  });

  for (const d of deprecatedAnnotations) {
    if (d.key in annotations) warnings.push(`${annotationPath(prefix, d.key)}: ${d.message}`);
  }

  objs(spec.volumes).forEach((v, i) => {
    const path = `${specPath}.volumes[${i}]`;
    for (const [type, message] of deprecatedVolumes) {
      if (!isSet(v[type])) continue;
      if (type === 'ephemeral') {
        const template = obj(v.ephemeral).volumeClaimTemplate;
        if (isSet(template)) warnings.push(...pvcSpecWarnings(`${path}.ephemeral.volumeClaimTemplate.spec`, obj(template).spec));
      } else {
        warnings.push(`${path}.${type}: ${message}`);
      }
    }
  });

  warnings.push(...overlappingVirtualPathWarnings(objs(spec.volumes)));

  const hostAliases = objs(spec.hostAliases);
  if (hostAliases.length > 1) {
    const seen = new Set<string>();
    hostAliases.forEach((a, i) => {
      const ip = str(a.ip);
      if (seen.has(ip)) warnings.push(`${specPath}.hostAliases[${i}].ip: duplicate ip ${JSON.stringify(ip)}`);
      else seen.add(ip);
    });
  }
  const pullSecrets = objs(spec.imagePullSecrets);
  if (pullSecrets.length > 1) {
    const seen = new Set<string>();
    pullSecrets.forEach((s, i) => {
      const name = str(s.name);
      if (seen.has(name)) warnings.push(`${specPath}.imagePullSecrets[${i}].name: duplicate name ${JSON.stringify(name)}`);
      else seen.add(name);
    });
  }
  pullSecrets.forEach((s, i) => {
    if (str(s.name) === '') warnings.push(`${specPath}.imagePullSecrets[${i}].name: invalid empty name ""`);
  });

  const overhead = obj(spec.overhead);
  warnings.push(...fractionalBytesWarning(`${specPath}.overhead[memory]`, overhead.memory));
  warnings.push(...fractionalBytesWarning(`${specPath}.overhead[ephemeral-storage]`, overhead['ephemeral-storage']));

  const podSC = obj(spec.securityContext);
  if (!isSet(podSC.seccompProfile) && seccompPodAnnotation in annotations) {
    warnings.push(`${annotationPath(prefix, seccompPodAnnotation)}: non-functional in v1.27+; use the "seccompProfile" field instead`);
  }
  const hasPodAppArmorProfile = isSet(podSC.appArmorProfile);

  visitContainers(spec, (c, p) => {
    const sc = obj(c.securityContext);
    const name = str(c.name);
    if (!isSet(sc.seccompProfile) && `${seccompContainerPrefix}${name}` in annotations) {
      warnings.push(`${annotationPath(prefix, seccompContainerPrefix + name)}: non-functional in v1.27+; use the "seccompProfile" field instead`);
    }
    // Pods warn about these annotations while syncing them to fields (appArmorVersionSkew).
    if (prefix && !hasPodAppArmorProfile && !isSet(sc.appArmorProfile) && `${appArmorAnnotationPrefix}${name}` in annotations) {
      warnings.push(`${annotationPath(prefix, appArmorAnnotationPrefix + name)}: deprecated since v1.30; use the "appArmorProfile" field instead`);
    }
    const resources = obj(c.resources);
    const limits = obj(resources.limits), requests = obj(resources.requests);
    warnings.push(...fractionalBytesWarning(`${p}.resources.limits[memory]`, limits.memory));
    warnings.push(...fractionalBytesWarning(`${p}.resources.requests[memory]`, requests.memory));
    warnings.push(...fractionalBytesWarning(`${p}.resources.limits[ephemeral-storage]`, limits['ephemeral-storage']));
    warnings.push(...fractionalBytesWarning(`${p}.resources.requests[ephemeral-storage]`, requests['ephemeral-storage']));

    const env = objs(c.env);
    if (env.length > 1) {
      const names = new Set<string>();
      env.forEach((e, i) => {
        const envName = str(e.name);
        if (!names.has(envName)) { names.add(envName); return; }
        // A redefinition that keeps the earlier value through $(NAME) is fine; anything else hides it.
        const ref = `$(${envName})`;
        const value = str(e.value);
        if (isSet(e.valueFrom) || value === ref || !value.includes(ref)) {
          warnings.push(`${p}.env[${i}]: hides previous definition of ${JSON.stringify(envName)}, which may be dropped when using apply`);
        }
      });
    }
  }, specPath);

  // Ports across all containers: the same containerPort/protocol twice is at best redundant.
  const allPorts = new Map<string, Array<{ path: string; port: JsonObject }>>();
  visitContainers(spec, (c, p) => {
    objs(c.ports).forEach((port, i) => {
      const path = `${p}.ports[${i}]`;
      const hostIP = str(port.hostIP), hostPort = num(port.hostPort);
      if (hostIP !== '' && hostPort === 0) warnings.push(`${path}: hostIP set without hostPort: ${goContainerPort(port)}`);
      const key = `${num(port.containerPort)}/${str(port.protocol)}`;
      const others = allPorts.get(key);
      if (!others) { allPorts.set(key, [{ path, port }]); return; }
      for (const other of others) {
        const otherIP = str(other.port.hostIP), otherPort = num(other.port.hostPort);
        if (hostIP === otherIP && hostPort === otherPort) warnings.push(`${path}: duplicate port definition with ${other.path}`);
        else if (hostPort === 0 || otherPort === 0) warnings.push(`${path}: overlapping port definition with ${other.path}`);
        else if (hostPort === otherPort && (hostIP === '') !== (otherIP === '')) warnings.push(`${path}: dangerously ambiguous port definition with ${other.path}`);
      }
      others.push({ path, port });
    });
  }, specPath);

  if (typeof spec.terminationGracePeriodSeconds === 'number' && spec.terminationGracePeriodSeconds < 0) {
    warnings.push(`${specPath}.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1`);
  }

  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = affinity[kind];
    if (!isObject(a)) continue;
    const base = `${specPath}.affinity.${kind}`;
    objs(a.requiredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => {
      if (!isSet(t.labelSelector)) warnings.push(`${base}.requiredDuringSchedulingIgnoredDuringExecution[${i}].labelSelector: a null labelSelector results in matching no pod`);
    });
    objs(a.preferredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => {
      if (!isSet(obj(t.podAffinityTerm).labelSelector)) warnings.push(`${base}.preferredDuringSchedulingIgnoredDuringExecution[${i}].podAffinityTerm.labelSelector: a null labelSelector results in matching no pod`);
    });
  }
  return warnings;
}

/** Go's `%+v` of the internal core.ContainerPort (strings unquoted). */
function goContainerPort(p: JsonObject): string {
  return `{Name:${str(p.name)} HostPort:${num(p.hostPort)} ContainerPort:${num(p.containerPort)} Protocol:${str(p.protocol)} HostIP:${str(p.hostIP)}}`;
}

/**
 * warningsForOverlappingVirtualPaths: keys of one configMap/secret/downwardAPI/projected volume
 * written to the same path, or one path inside another, overwrite each other.
 */
function overlappingVirtualPathWarnings(volumes: JsonObject[]): string[] {
  const warnings: string[] = [];
  const paths = (items: unknown) => objs(items).map((i) => str(i.path));
  for (const v of volumes) {
    const name = JSON.stringify(str(v.name));
    const cm = v.configMap, secret = v.secret, downward = v.downwardAPI;
    if (isObject(cm) && Array.isArray(cm.items)) warnings.push(...checkOverlap(paths(cm.items), `volume ${name} (ConfigMap ${JSON.stringify(str(cm.name))}): overlapping paths`));
    if (isObject(secret) && Array.isArray(secret.items)) warnings.push(...checkOverlap(paths(secret.items), `volume ${name} (Secret ${JSON.stringify(str(secret.secretName))}): overlapping paths`));
    if (isObject(downward) && Array.isArray(downward.items)) warnings.push(...checkOverlap(paths(downward.items), `volume ${name} (DownwardAPI): overlapping paths`));
    if (!isObject(v.projected)) continue;
    // kube keeps these across sources: a source that matches no case re-checks the previous one's paths.
    let sourcePaths: string[] = [];
    let message = '';
    const allPaths: string[] = [];
    for (const source of objs(v.projected.sources)) {
      if (Object.values(source).every((x) => !isSet(x))) {
        warnings.push(`volume ${name} (Projected) has no sources provided`);
        continue;
      }
      const s = (k: string) => (isObject(source[k]) ? (source[k] as JsonObject) : undefined);
      const pcm = s('configMap'), psecret = s('secret'), pdown = s('downwardAPI'), token = s('serviceAccountToken'), bundle = s('clusterTrustBundle');
      if (pcm && Array.isArray(pcm.items)) {
        sourcePaths = paths(pcm.items);
        message = `volume ${name} (Projected ConfigMap ${JSON.stringify(str(pcm.name))}): overlapping paths`;
      } else if (psecret && Array.isArray(psecret.items)) {
        sourcePaths = paths(psecret.items);
        message = `volume ${name} (Projected Secret ${JSON.stringify(str(psecret.name))}): overlapping paths`;
      } else if (pdown && Array.isArray(pdown.items)) {
        sourcePaths = paths(pdown.items);
        message = `volume ${name} (Projected DownwardAPI): overlapping paths`;
      } else if (token) {
        sourcePaths = [str(token.path)];
        message = `volume ${name} (Projected ServiceAccountToken): overlapping paths`;
      } else if (bundle) {
        sourcePaths = [str(bundle.path)];
        const which = isSet(bundle.name) ? str(bundle.name) : str(bundle.signerName);
        message = `volume ${name} (Projected ClusterTrustBundle ${JSON.stringify(which)}): overlapping paths`;
      }
      if (sourcePaths.length === 0) continue;
      warnings.push(...checkOverlap(sourcePaths, message));
      const unique = [...new Set(sourcePaths)];
      warnings.push(...checkOverlap([...unique, ...allPaths].sort(), message));
      for (const p of unique) if (!allPaths.includes(p)) allPaths.push(p);
    }
  }
  return warnings;
}

/** checkVolumeMappingForOverlap with kube's prefix test (which does not require a separator after the prefix). */
function checkOverlap(paths: string[], message: string): string[] {
  const warnings: string[] = [];
  const seen: string[] = [];
  for (const path of paths) {
    const normalized = path.replace(/\/+$/, '');
    const collision = findOverlap(seen, normalized);
    if (collision !== '') warnings.push(`${message}: ${JSON.stringify(normalized)} with ${JSON.stringify(collision)}`);
    if (!seen.includes(normalized)) seen.push(normalized);
  }
  return warnings;
}

function findOverlap(paths: string[], path: string): string {
  for (const item of paths) {
    if (item === '' || path === '') return '';
    if (item === path) return item;
    if (`${item}/`.startsWith(path)) return item;
    if (`${path}/`.startsWith(item)) return item;
  }
  return '';
}

/** ApparmorFieldForAnnotation: the profile an annotation value names, or undefined for one kube cannot map. */
function appArmorFieldForAnnotation(value: string): JsonObject | undefined {
  if (value === 'unconfined') return { type: 'Unconfined' };
  if (value === 'runtime/default') return { type: 'RuntimeDefault' };
  if (value.startsWith('localhost/')) {
    const localhostProfile = value.slice('localhost/'.length);
    // ValidateAppArmorProfileField refuses an empty localhost profile.
    return localhostProfile === '' ? undefined : { type: 'Localhost', localhostProfile };
  }
  return undefined;
}

/**
 * applyAppArmorVersionSkew (pod create): a container's deprecated AppArmor annotation without the
 * field becomes the field (unless the pod-level profile already says the same), with a warning
 * whenever the annotation is not backed by a field. Returns the warnings.
 */
export function applyAppArmorVersionSkew(pod: JsonObject): string[] {
  const spec = obj(pod.spec);
  if (obj(spec.os).name === 'windows') return [];
  const annotations = obj(obj(pod.metadata).annotations);
  const podProfile = obj(spec.securityContext).appArmorProfile;
  const warnings: string[] = [];
  visitContainers(spec, (c) => {
    const key = `${appArmorAnnotationPrefix}${str(c.name)}`;
    if (!(key in annotations)) return;
    const sc = obj(c.securityContext);
    if (isSet(sc.appArmorProfile)) return;
    const field = appArmorFieldForAnnotation(str(annotations[key]));
    let warn = field === undefined;
    if (field && !deepEqual(field, isSet(podProfile) ? podProfile : undefined)) {
      c.securityContext = { ...sc, appArmorProfile: field };
      warn = true;
    }
    if (warn) warnings.push(`metadata.annotations[${key}]: deprecated since v1.30; use the "appArmorProfile" field instead`);
  });
  return warnings;
}

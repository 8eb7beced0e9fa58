/**
 * core/v1 Services: kube's SetDefaults_Service, ValidateService / ValidateServiceUpdate /
 * ValidateServiceStatusUpdate, the service strategy (type-dependent fields dropped on type
 * changes), ClusterIP and NodePort allocation where kube's REST storage does it (after
 * mutating admission, before the strategy), their release on delete, and the printer.
 */
import {
  fieldErr, goQuote, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, validateLabels, type FieldError,
} from '@windlass/machinery';
import type { KindDefinition, KubeObject, ServiceRanges } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import {
  allocateCreate, allocateUpdate, externallyAccessible, isHeadless, needsClusterIP, needsHealthCheck, needsNodePort,
  normalizeClusterIPs, patchAllocatedValues, releaseServiceAllocations, sameStrings, specOf, validateClusterIPsRelatedFields,
  type Service, type ServicePort, type ServiceSpec,
} from '../../allocators/service.js';
import { firstServiceIP } from '../../allocators/cidr.js';
import { parseIP, portProtocols, validateCIDR, validateEndpointIP, validateIP, validatePortNumOrName, isValidPortNum } from '../../validation/network.js';
import { serviceWarnings } from './warnings.js';

const defaultClientIPTimeoutSeconds = 10800;
const maxClientIPTimeoutSeconds = 86400;

const portsOf = (s: ServiceSpec): ServicePort[] => (Array.isArray(s.ports) ? s.ports : []);
const strings = (v: unknown): string[] => (Array.isArray(v) ? (v as string[]) : []);

/** SetDefaults_Service (v1). */
export function defaultService(obj: KubeObject): void {
  const svc = obj as Service;
  const s = specOf(svc);
  if (!s.sessionAffinity) s.sessionAffinity = 'None';
  if (s.sessionAffinity === 'None') delete s.sessionAffinityConfig;
  if (s.sessionAffinity === 'ClientIP') {
    const cfg = s.sessionAffinityConfig as { clientIP?: { timeoutSeconds?: number } } | undefined;
    if (cfg?.clientIP?.timeoutSeconds == null) s.sessionAffinityConfig = { clientIP: { timeoutSeconds: defaultClientIPTimeoutSeconds } };
  }
  if (!s.type) s.type = 'ClusterIP';
  for (const p of portsOf(s)) {
    if (!p || typeof p !== 'object') continue;
    if (!p.protocol) p.protocol = 'TCP';
    if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port ?? 0;
  }
  if (externallyAccessible(s) && !s.externalTrafficPolicy) s.externalTrafficPolicy = 'Cluster';
  if (s.internalTrafficPolicy == null && (s.type === 'NodePort' || s.type === 'LoadBalancer' || s.type === 'ClusterIP')) s.internalTrafficPolicy = 'Cluster';
  if (s.type === 'LoadBalancer') {
    if (s.allocateLoadBalancerNodePorts == null) s.allocateLoadBalancerNodePorts = true;
    for (const ing of (svc.status?.loadBalancer?.ingress ?? []) as Array<Record<string, unknown>>) {
      if (ing && ing.ip && ing.ipMode == null) ing.ipMode = 'VIP';
    }
  }
}

const dns1123Label = (v: string, path: string) => isDNS1123Label(v).map((m) => fieldErr.invalid(path, v, m));
const dns1123Subdomain = (v: string, path: string) => isDNS1123Subdomain(v).map((m) => fieldErr.invalid(path, v, m));
const qualifiedName = (v: string, path: string) => isQualifiedName(v).map((m) => fieldErr.invalid(path, v, m));

/** Go's %#v of the core.ServicePort kube uses as the key of duplicate ports. */
function goServicePortKey(protocol: string, port: number): string {
  return `core.ServicePort{Name:"", Protocol:${goQuote(protocol)}, AppProtocol:(*string)(nil), Port:${port}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`;
}

function validateServicePort(sp: ServicePort, requireName: boolean, names: Set<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = sp.name ?? '';
  if (requireName && name === '') errs.push(fieldErr.required(`${path}.name`));
  else if (name !== '') {
    errs.push(...dns1123Label(name, `${path}.name`));
    if (names.has(name)) errs.push({ type: 'FieldValueDuplicate', field: `${path}.name`, detail: `Duplicate value: ${JSON.stringify(name)}` });
    else names.add(name);
  }
  const port = sp.port ?? 0;
  for (const msg of isValidPortNum(port)) errs.push(fieldErr.invalid(`${path}.port`, port, msg));
  if (!sp.protocol) errs.push(fieldErr.required(`${path}.protocol`));
  else if (!portProtocols.includes(sp.protocol)) errs.push(fieldErr.notSupported(`${path}.protocol`, sp.protocol, portProtocols));
  errs.push(...validatePortNumOrName(sp.targetPort, `${path}.targetPort`));
  if (sp.appProtocol != null) errs.push(...qualifiedName(sp.appProtocol, `${path}.appProtocol`));
  return errs;
}

function validateClientIPAffinityConfig(cfg: unknown, path: string): FieldError[] {
  const why = 'when session affinity type is ClientIP';
  const c = cfg as { clientIP?: { timeoutSeconds?: number } } | undefined;
  if (!c) return [fieldErr.required(path, why)];
  if (!c.clientIP) return [fieldErr.required(`${path}.clientIP`, why)];
  const t = c.clientIP.timeoutSeconds;
  if (t == null) return [fieldErr.required(`${path}.clientIP.timeoutSeconds`, why)];
  if (t <= 0 || t > maxClientIPTimeoutSeconds) return [fieldErr.invalid(`${path}.clientIP.timeoutSeconds`, t, `must be greater than 0 and less than ${maxClientIPTimeoutSeconds}`)];
  return [];
}

function validateExternalTrafficPolicy(s: ServiceSpec): FieldError[] {
  const errs: FieldError[] = [];
  const etp = s.externalTrafficPolicy ?? '';
  if (!externallyAccessible(s)) {
    if (etp !== '') errs.push(fieldErr.invalid('spec.externalTrafficPolicy', etp, 'may only be set for externally-accessible services'));
  } else if (etp === '') errs.push(fieldErr.required('spec.externalTrafficPolicy'));
  else if (etp !== 'Cluster' && etp !== 'Local') errs.push(fieldErr.notSupported('spec.externalTrafficPolicy', etp, ['Cluster', 'Local']));
  const hc = s.healthCheckNodePort ?? 0;
  if (!needsHealthCheck(s)) {
    if (hc !== 0) errs.push(fieldErr.invalid('spec.healthCheckNodePort', hc, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
  } else if (hc === 0) errs.push(fieldErr.required('spec.healthCheckNodePort'));
  else for (const msg of isValidPortNum(hc)) errs.push(fieldErr.invalid('spec.healthCheckNodePort', hc, msg));
  return errs;
}

function validateLoadBalancerClass(s: ServiceSpec, o?: ServiceSpec): FieldError[] {
  const errs: FieldError[] = [];
  if (o && o.type === 'LoadBalancer' && s.type === 'LoadBalancer' && (o.loadBalancerClass ?? null) !== (s.loadBalancerClass ?? null)) {
    errs.push(fieldErr.invalid('spec.loadBalancerClass', s.loadBalancerClass ?? null, 'may not change once set'));
  }
  if (s.loadBalancerClass == null) return errs;
  if (s.type === 'LoadBalancer') errs.push(...qualifiedName(s.loadBalancerClass, 'spec.loadBalancerClass'));
  else errs.push(fieldErr.forbidden('spec.loadBalancerClass', "may only be used when `type` is 'LoadBalancer'"));
  return errs;
}

const topologyHints = 'service.kubernetes.io/topology-aware-hints';
const topologyMode = 'service.kubernetes.io/topology-mode';
const sourceRangesAnnotation = 'service.beta.kubernetes.io/load-balancer-source-ranges';
const supportedTypes = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const trafficDistributions = ['PreferClose', 'PreferSameNode', 'PreferSameZone'];

/** ValidateService, without the object metadata (the Store validates it with the kind's name rule). */
export function validateService(obj: KubeObject): FieldError[] {
  const svc = obj as Service;
  const s = svc.spec ?? {};
  const errs: FieldError[] = [];
  const ann = svc.metadata.annotations ?? {};
  if (topologyHints in ann && topologyMode in ann && ann[topologyHints] !== ann[topologyMode]) {
    errs.push(fieldErr.invalid(`metadata.annotations[${topologyMode}]`, ann[topologyMode], `must match annotations[${topologyHints}] when both are specified`));
  }
  const ports = portsOf(s);
  const headless = isHeadless(s);
  if (ports.length === 0 && !headless && s.type !== 'ExternalName') errs.push(fieldErr.required('spec.ports'));
  switch (s.type) {
    case 'LoadBalancer':
    case 'NodePort':
      if (headless) errs.push(fieldErr.invalid('spec.clusterIPs[0]', 'None', `may not be set to 'None' for ${s.type} services`));
      break;
    case 'ExternalName': {
      if (strings(s.clusterIPs).length > 0) errs.push(fieldErr.forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
      if (strings(s.ipFamilies).length > 0) errs.push(fieldErr.forbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
      if (s.ipFamilyPolicy != null) errs.push(fieldErr.forbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
      const cname = (s.externalName ?? '').replace(/\.$/, '');
      if (cname.length > 0) errs.push(...dns1123Subdomain(cname, 'spec.externalName'));
      else errs.push(fieldErr.required('spec.externalName'));
      break;
    }
  }
  const names = new Set<string>();
  ports.forEach((p, i) => errs.push(...validateServicePort(p ?? {}, ports.length > 1, names, `spec.ports[${i}]`)));
  if (s.selector) errs.push(...validateLabels(s.selector, 'spec.selector'));
  const affinity = String(s.sessionAffinity ?? '');
  if (affinity === '') errs.push(fieldErr.required('spec.sessionAffinity'));
  else if (affinity !== 'ClientIP' && affinity !== 'None') errs.push(fieldErr.notSupported('spec.sessionAffinity', affinity, ['ClientIP', 'None']));
  if (affinity === 'ClientIP') errs.push(...validateClientIPAffinityConfig(s.sessionAffinityConfig, 'spec.sessionAffinityConfig'));
  else if (affinity === 'None' && s.sessionAffinityConfig != null) errs.push(fieldErr.forbidden('spec.sessionAffinityConfig', 'must not be set when session affinity is None'));
  errs.push(...validateClusterIPsRelatedFields(s));
  strings(s.externalIPs).forEach((ip, i) => {
    const e = validateIP(ip, `spec.externalIPs[${i}]`);
    errs.push(...(e.length > 0 ? e : validateEndpointIP(ip, `spec.externalIPs[${i}]`)));
  });
  if (!s.type) errs.push(fieldErr.required('spec.type'));
  else if (!supportedTypes.includes(s.type)) errs.push(fieldErr.notSupported('spec.type', s.type, supportedTypes));
  if (s.type === 'ClusterIP') {
    ports.forEach((p, i) => {
      if (p?.nodePort) errs.push(fieldErr.forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"));
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    if (!p?.nodePort) return;
    const key = `${p.protocol ?? ''}/${p.nodePort}`;
    if (nodePorts.has(key)) errs.push({ type: 'FieldValueDuplicate', field: `spec.ports[${i}].nodePort`, detail: `Duplicate value: ${p.nodePort}` });
    nodePorts.add(key);
  });
  const seen = new Set<string>();
  ports.forEach((p, i) => {
    const key = `${p?.protocol ?? ''}/${p?.port ?? 0}`;
    if (seen.has(key)) errs.push({ type: 'FieldValueDuplicate', field: `spec.ports[${i}]`, detail: `Duplicate value: ${goServicePortKey(p?.protocol ?? '', p?.port ?? 0)}` });
    seen.add(key);
  });
  const ranges = strings(s.loadBalancerSourceRanges);
  if (ranges.length > 0) {
    // kube's path really is spelled with a capital L here.
    if (s.type !== 'LoadBalancer') errs.push(fieldErr.forbidden('spec.LoadBalancerSourceRanges', "may only be used when `type` is 'LoadBalancer'"));
    ranges.forEach((r, i) => errs.push(...validateCIDR(r.trim(), `spec.LoadBalancerSourceRanges[${i}]`)));
  } else if (sourceRangesAnnotation in ann) {
    const path = `metadata.annotations[${sourceRangesAnnotation}]`;
    if (s.type !== 'LoadBalancer') errs.push(fieldErr.forbidden(path, "may only be used when `type` is 'LoadBalancer'"));
    const val = ann[sourceRangesAnnotation].trim();
    if (val !== '') for (const r of val.split(',')) errs.push(...validateCIDR(r.trim(), path));
  }
  if (s.allocateLoadBalancerNodePorts != null && s.type !== 'LoadBalancer') errs.push(fieldErr.forbidden('spec.allocateLoadBalancerNodePorts', "may only be used when `type` is 'LoadBalancer'"));
  if (s.type === 'LoadBalancer' && s.allocateLoadBalancerNodePorts == null) errs.push(fieldErr.required('allocateLoadBalancerNodePorts'));
  errs.push(...validateLoadBalancerClass(s));
  errs.push(...validateExternalTrafficPolicy(s));
  if (s.internalTrafficPolicy == null) {
    if (s.type === 'NodePort' || s.type === 'LoadBalancer' || s.type === 'ClusterIP') errs.push(fieldErr.required('spec.internalTrafficPolicy'));
  } else if (s.internalTrafficPolicy !== 'Cluster' && s.internalTrafficPolicy !== 'Local') {
    errs.push(fieldErr.notSupported('spec.internalTrafficPolicy', s.internalTrafficPolicy, ['Cluster', 'Local']));
  }
  if (s.trafficDistribution != null && !trafficDistributions.includes(String(s.trafficDistribution))) {
    errs.push(fieldErr.notSupported('spec.trafficDistribution', s.trafficDistribution, trafficDistributions));
  }
  return errs;
}

function validateUpgradeDowngradeClusterIPs(o: ServiceSpec, s: ServiceSpec): FieldError[] {
  if (s.type === 'ExternalName' || o.type === 'ExternalName') return [];
  if (isHeadless(o) && isHeadless(s)) return [];
  const errs: FieldError[] = [];
  const oldIPs = strings(o.clusterIPs), newIPs = strings(s.clusterIPs);
  if (oldIPs.length === newIPs.length) {
    oldIPs.forEach((ip, i) => {
      if (ip !== newIPs[i]) errs.push(fieldErr.invalid(`spec.clusterIPs[${i}]`, newIPs, 'may not change once set'));
    });
  } else if (oldIPs.length > newIPs.length) {
    if (newIPs.length === 0) errs.push(fieldErr.invalid('spec.clusterIPs[0]', newIPs, 'primary clusterIP can not be unset'));
    if (oldIPs.length > 0 && newIPs.length > 0 && newIPs[0] !== oldIPs[0]) errs.push(fieldErr.invalid('spec.clusterIPs[0]', newIPs, 'may not change once set'));
    if (newIPs.length === 1 && s.ipFamilyPolicy !== 'SingleStack') {
      errs.push(fieldErr.invalid('spec.ipFamilyPolicy', s.ipFamilyPolicy ?? null, "must be set to 'SingleStack' when releasing the secondary clusterIP"));
    }
  } else if (oldIPs.length > 0 && newIPs[0] !== oldIPs[0]) {
    errs.push(fieldErr.invalid('spec.clusterIPs[0]', newIPs, 'may not change once set'));
  }
  return errs;
}

function validateUpgradeDowngradeIPFamilies(o: ServiceSpec, s: ServiceSpec): FieldError[] {
  if (s.type === 'ExternalName' || o.type === 'ExternalName') return [];
  if (isHeadless(o) !== isHeadless(s) || isHeadless(s)) return [];
  const errs: FieldError[] = [];
  const oldF = strings(o.ipFamilies), newF = strings(s.ipFamilies);
  if (oldF.length === newF.length) {
    oldF.forEach((f, i) => {
      if (f !== newF[i]) errs.push(fieldErr.invalid('spec.ipFamilies[0]', newF, 'may not change once set'));
    });
  } else if (oldF.length > newF.length) {
    if (strings(s.clusterIPs).length === 0) errs.push(fieldErr.invalid('spec.ipFamilies[0]', newF, 'primary ipFamily can not be unset'));
    if (newF.length > 0 && newF[0] !== oldF[0]) errs.push(fieldErr.invalid('spec.ipFamilies[0]', strings(s.clusterIPs), 'may not change once set'));
    if (newF.length === 1 && s.ipFamilyPolicy !== 'SingleStack') {
      errs.push(fieldErr.invalid('spec.ipFamilyPolicy', s.ipFamilyPolicy ?? null, "must be set to 'SingleStack' when releasing the secondary ipFamily"));
    }
  } else if (oldF.length > 0 && newF.length > 0 && newF[0] !== oldF[0]) {
    errs.push(fieldErr.invalid('spec.ipFamilies[0]', strings(s.clusterIPs), 'may not change once set'));
  }
  return errs;
}

/** ValidateServiceUpdate, without the metadata checks the Store makes. */
export function validateServiceUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const s = (obj as Service).spec ?? {}, o = (old as Service).spec ?? {};
  const errs = [...validateUpgradeDowngradeClusterIPs(o, s), ...validateUpgradeDowngradeIPFamilies(o, s)];
  errs.push(...validateLoadBalancerClass(s, o).filter((e) => e.detail.endsWith('may not change once set')));
  if (needsHealthCheck(o) && needsHealthCheck(s) && o.healthCheckNodePort !== s.healthCheckNodePort) {
    errs.push(fieldErr.forbidden('spec.healthCheckNodePort', 'field is immutable'));
  }
  return [...errs, ...validateService(obj)];
}

/** ValidateServiceStatusUpdate: the load balancer status (ValidateLoadBalancerStatus). */
export function validateServiceStatus(obj: KubeObject): FieldError[] {
  const svc = obj as Service;
  const ingress = (svc.status?.loadBalancer?.ingress ?? []) as Array<Record<string, any>>;
  const path = 'status.loadBalancer.ingress';
  if (svc.spec?.type !== 'LoadBalancer' && ingress.length !== 0) return [fieldErr.forbidden(path, "may only be used when `spec.type` is 'LoadBalancer'")];
  const errs: FieldError[] = [];
  ingress.forEach((ing, i) => {
    const p = `${path}[${i}]`;
    const ip = String(ing?.ip ?? ''), hostname = String(ing?.hostname ?? '');
    if (ip) errs.push(...validateIP(ip, `${p}.ip`));
    if (ing?.ipMode == null) {
      if (ip) errs.push(fieldErr.required(`${p}.ipMode`, 'must be specified when `ip` is set'));
    } else if (!ip) errs.push(fieldErr.forbidden(`${p}.ipMode`, 'may not be specified when `ip` is not set'));
    else if (ing.ipMode !== 'Proxy' && ing.ipMode !== 'VIP') errs.push(fieldErr.notSupported(`${p}.ipMode`, ing.ipMode, ['Proxy', 'VIP']));
    if (hostname) {
      errs.push(...dns1123Subdomain(hostname, `${p}.hostname`));
      if (parseIP(hostname)) errs.push(fieldErr.invalid(`${p}.hostname`, hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

/**
 * dropTypeDependentFields: fields the old type needed and the new one does not, which the
 * server may have filled in itself, are dropped when the client left them unchanged.
 */
function dropTypeDependentFields(svc: Service, old: Service): void {
  const s = specOf(svc), o = old.spec ?? {};
  if (needsClusterIP(o) && !needsClusterIP(s)) {
    if ((o.clusterIP ?? '') === (s.clusterIP ?? '') && sameStrings(o.clusterIPs, s.clusterIPs)) {
      delete s.clusterIP;
      delete s.clusterIPs;
    }
    if (sameStrings(o.ipFamilies, s.ipFamilies)) delete s.ipFamilies;
    if ((o.ipFamilyPolicy ?? '') === (s.ipFamilyPolicy ?? '')) delete s.ipFamilyPolicy;
  }
  const nodePorts = (x: ServiceSpec) => new Set(portsOf(x).map((p) => p?.nodePort ?? 0).filter((n) => n !== 0));
  if (needsNodePort(o) && !needsNodePort(s)) {
    const oldPorts = nodePorts(o);
    if ([...nodePorts(s)].every((n) => oldPorts.has(n))) for (const p of portsOf(s)) if (p) delete p.nodePort;
  }
  if (needsHealthCheck(o) && !needsHealthCheck(s) && o.healthCheckNodePort === s.healthCheckNodePort) delete s.healthCheckNodePort;
  if (o.type === 'LoadBalancer' && s.type !== 'LoadBalancer' && o.allocateLoadBalancerNodePorts != null && o.allocateLoadBalancerNodePorts === s.allocateLoadBalancerNodePorts) {
    delete s.allocateLoadBalancerNodePorts;
  }
  if (o.type === 'LoadBalancer' && s.type !== 'LoadBalancer' && (o.loadBalancerClass ?? null) === (s.loadBalancerClass ?? null)) delete s.loadBalancerClass;
  if (needsNodePort(o) && !needsNodePort(s) && o.externalTrafficPolicy === s.externalTrafficPolicy) delete s.externalTrafficPolicy;
  const needsITP = (x: ServiceSpec) => x.type === 'ClusterIP' || x.type === 'NodePort' || x.type === 'LoadBalancer';
  if (needsITP(o) && !needsITP(s) && (o.internalTrafficPolicy ?? null) === (s.internalTrafficPolicy ?? null)) delete s.internalTrafficPolicy;
  if (s.type !== 'LoadBalancer') svc.status = { ...(svc.status ?? {}), loadBalancer: {} };
}

function makePortString(ports: ServicePort[]): string {
  return ports.map((p) => (p.nodePort ? `${p.port}:${p.nodePort}/${p.protocol}` : `${p.port}/${p.protocol}`)).join(',');
}

function loadBalancerIPs(svc: Service): string {
  const ingress = (svc.status?.loadBalancer?.ingress ?? []) as Array<{ ip?: string; hostname?: string }>;
  return ingress.map((i) => i.ip || i.hostname || '').filter((x) => x !== '').join(',');
}

/** getServiceExternalIP (wide, as the server always prints). */
function externalIPCell(svc: Service): string {
  const s = svc.spec ?? {};
  const external = strings(s.externalIPs);
  switch (s.type) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length > 0 ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = loadBalancerIPs(svc);
      if (external.length > 0) return [...(lb ? lb.split(',') : []), ...external].join(',');
      return lb || '<pending>';
    }
    case 'ExternalName':
      return s.externalName ?? '';
  }
  return '<unknown>';
}

function formatSelector(sel: Record<string, string> | null | undefined): string {
  const keys = Object.keys(sel ?? {}).sort();
  return keys.length === 0 ? '<none>' : keys.map((k) => `${k}=${sel![k]}`).join(',');
}

/** The `kubernetes` Service kube-apiserver keeps in `default`, holding the range's first address. */
export function kubernetesServiceObject(ranges: ServiceRanges, securePort: number): KubeObject {
  const ip = firstServiceIP(ranges.clusterIPRange);
  return {
    apiVersion: 'v1', kind: 'Service',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: {
      type: 'ClusterIP', clusterIP: ip, clusterIPs: [ip], sessionAffinity: 'None',
      ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: securePort }],
    },
  };
}

export const services: KindDefinition = {
  group: '', version: 'v1', resource: 'services',
  allowCreateOnUpdate: true,
  deleteReturnsObject: true,
  strategy: {
    warningsOnCreate: serviceWarnings,
    warningsOnUpdate: (svc) => serviceWarnings(svc),
    defaults: defaultService,
    prepareForUpdate(obj, old) {
      const svc = obj as Service, o = old as Service;
      patchAllocatedValues(specOf(svc), o.spec ?? {});
      normalizeClusterIPs(specOf(svc), o.spec ?? {});
      dropTypeDependentFields(svc, o);
    },
    validate: validateService,
    validateUpdate: validateServiceUpdate,
  },
  subresourceStrategies: {
    status: { validateUpdate: (obj) => validateServiceStatus(obj) },
  },
  // kube's BeginCreate/BeginUpdate: after mutating admission, before the strategy; what a write
  // takes goes back when it fails, what it gives up is released once it is stored.
  async beginCreate(obj, ctx, dryRun) {
    const txn = await allocateCreate(obj as Service, ctx, dryRun);
    return (stored) => txn.finish(stored);
  },
  async beginUpdate(obj, old, ctx, dryRun) {
    const txn = await allocateUpdate(obj as Service, old as Service, ctx, dryRun);
    return (stored) => txn.finish(stored);
  },
  async afterDelete(obj, ctx) {
    await releaseServiceAllocations(obj as Service, ctx);
    // As kube: the Service's Endpoints go with it, so a new Service of the name starts clean.
    try {
      await ctx.lookup('', 'endpoints')?.delete(obj.metadata.namespace ?? '', obj.metadata.name ?? '');
    } catch (err) {
      if ((err as { code?: number }).code !== 404) throw err;
    }
  },
  // kube's service.SelectableFields.
  selectableFields: {
    'spec.clusterIP': (obj) => (obj as Service).spec?.clusterIP ?? '',
    'spec.type': (obj) => (obj as Service).spec?.type ?? '',
  },
  table: {
    columns: [
      column('Type', 'string', 'type determines how the Service is exposed.'),
      column('Cluster-IP', 'string', 'clusterIP is the IP address of the service and is usually assigned randomly.'),
      column('External-IP', 'string', 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.'),
      column('Port(s)', 'string', 'The list of ports that are exposed by this service.'),
      ageColumn,
      column('Selector', 'string', 'Route service traffic to pods with label keys and values matching this selector.', 1),
    ],
    cells(obj) {
      const svc = obj as Service;
      const s = svc.spec ?? {};
      const clusterIPs = strings(s.clusterIPs);
      return [s.type ?? '', clusterIPs[0] ?? '<none>', externalIPCell(svc), makePortString(portsOf(s)) || '<none>', ageOf(obj.metadata.creationTimestamp), formatSelector(s.selector)];
    },
  },
};

/**
 * A Service's allocated fields, as kube's service REST storage handles them
 * (pkg/registry/core/service/storage: alloc.go and the BeginCreate/BeginUpdate/AfterDelete
 * hooks of storage.go): IP families inferred from the cluster and the request, ClusterIPs
 * from --service-cluster-ip-range, NodePorts and the health-check node port from
 * --service-node-port-range. Each create or update gets a transaction the Store finishes
 * after its write (ResourceDefinition.beginCreate/beginUpdate): a write that fails frees what
 * it took, one that is stored frees what it gave up.
 */
import { fieldErr, newInternalError, newInvalid, type FieldError } from '@windlass/machinery';
import type { KubeObject, StoreContext } from '../types.js';
import { ClusterIPAllocator, IPAllocationError } from './clusterip.js';
import { NodePortAllocator, PortAllocationError, PortAllocationOperation } from './nodeport.js';
import { isIPv6String, validateIP } from '../validation/network.js';

export interface ServicePort {
  name?: string;
  protocol?: string;
  appProtocol?: string;
  port?: number;
  targetPort?: number | string;
  nodePort?: number;
}

export interface ServiceSpec {
  type?: string;
  clusterIP?: string;
  clusterIPs?: string[] | null;
  ipFamilies?: string[] | null;
  ipFamilyPolicy?: string | null;
  ports?: ServicePort[];
  selector?: Record<string, string> | null;
  externalIPs?: string[];
  externalName?: string;
  externalTrafficPolicy?: string;
  internalTrafficPolicy?: string | null;
  healthCheckNodePort?: number;
  allocateLoadBalancerNodePorts?: boolean | null;
  loadBalancerClass?: string | null;
  [key: string]: unknown;
}

export type Service = KubeObject & { spec?: ServiceSpec; status?: Record<string, any> };

const serviceKind = { group: '', kind: 'Service' };

export const specOf = (svc: Service): ServiceSpec => (svc.spec ??= {});
const ips = (s: ServiceSpec): string[] => (Array.isArray(s.clusterIPs) ? s.clusterIPs : []);
const families = (s: ServiceSpec): string[] => (Array.isArray(s.ipFamilies) ? s.ipFamilies : []);
const portsOf = (s: ServiceSpec): ServicePort[] => (Array.isArray(s.ports) ? s.ports : []);

export const needsClusterIP = (s: ServiceSpec) => s.type !== 'ExternalName';
export const needsNodePort = (s: ServiceSpec) => s.type === 'NodePort' || s.type === 'LoadBalancer';
/** apiservice.ExternallyAccessible. */
export const externallyAccessible = (s: ServiceSpec) => s.type === 'LoadBalancer' || s.type === 'NodePort' || (s.type === 'ClusterIP' && (s.externalIPs ?? []).length > 0);
/** apiservice.NeedsHealthCheck: a LoadBalancer keeping traffic on the receiving node. */
export const needsHealthCheck = (s: ServiceSpec) => s.type === 'LoadBalancer' && s.externalTrafficPolicy === 'Local';
export const isHeadless = (s: ServiceSpec) => ips(s).length === 1 && ips(s)[0] === 'None';

export function sameStrings(a: string[] | null | undefined, b: string[] | null | undefined): boolean {
  const x = a ?? [], y = b ?? [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

const familyOf = (ip: string): string => (isIPv6String(ip) ? 'IPv6' : validateIP(ip, '').length === 0 ? 'IPv4' : 'unknown');

/**
 * normalizeClusterIPs: keeps clusterIP and clusterIPs in step for clients that only know
 * the singular field, on create (old undefined) and update.
 */
export function normalizeClusterIPs(svc: ServiceSpec, old?: ServiceSpec): void {
  if (!old) {
    if (svc.clusterIP && ips(svc).length === 0) svc.clusterIPs = [svc.clusterIP];
    return;
  }
  if (ips(old).length > 0 && ips(svc).length === 0 && (old.clusterIP ?? '') === (svc.clusterIP ?? '')) svc.clusterIPs = old.clusterIPs;
  if ((old.clusterIP ?? '') !== (svc.clusterIP ?? '')) {
    if (old.clusterIP && !svc.clusterIP && sameStrings(old.clusterIPs, svc.clusterIPs)) delete svc.clusterIPs;
    if (svc.clusterIP && sameStrings(old.clusterIPs, svc.clusterIPs)) svc.clusterIPs = [svc.clusterIP];
  }
}

/**
 * patchAllocatedValues: an update that leaves out what the server allocated (a re-applied
 * manifest without clusterIP or nodePort) keeps the allocated values.
 */
export function patchAllocatedValues(svc: ServiceSpec, old: ServiceSpec): void {
  if (needsClusterIP(old) && needsClusterIP(svc)) {
    if (!svc.clusterIP) svc.clusterIP = old.clusterIP ?? '';
    if (ips(svc).length === 0 && ips(old).length > 0) svc.clusterIPs = old.clusterIPs;
  }
  if (needsNodePort(old) && needsNodePort(svc)) {
    const used = (s: ServiceSpec) => new Set(portsOf(s).map((p) => p.nodePort ?? 0).filter((n) => n !== 0));
    const newUsed = used(svc);
    const kept = new Set([...used(old)].filter((n) => newUsed.has(n)));
    const byName = new Map<string, number>();
    for (const p of portsOf(old)) byName.set(p.name ?? '', p.nodePort ?? 0);
    for (const p of portsOf(svc)) {
      if (p.nodePort) continue;
      const oldVal = byName.get(p.name ?? '') ?? 0;
      if (!kept.has(oldVal) && oldVal !== 0) p.nodePort = oldVal;
    }
  }
  if (needsHealthCheck(old) && needsHealthCheck(svc) && !svc.healthCheckNodePort) svc.healthCheckNodePort = old.healthCheckNodePort;
}

/**
 * defaultOnReadService: Services stored before ClusterIPs and IP families existed read as if
 * they had them, and an ExternalName Service reads without internalTrafficPolicy.
 */
export function defaultOnRead(svc: ServiceSpec, primaryFamily: string): void {
  normalizeClusterIPs(svc);
  if (needsClusterIP(svc) && families(svc).length === 0) {
    if (svc.clusterIP === 'None') {
      if (!svc.selector || Object.keys(svc.selector).length === 0) {
        svc.ipFamilyPolicy = 'RequireDualStack';
        svc.ipFamilies = [primaryFamily, primaryFamily === 'IPv4' ? 'IPv6' : 'IPv4'];
      } else {
        svc.ipFamilyPolicy = 'SingleStack';
        svc.ipFamilies = [primaryFamily];
      }
    } else if (ips(svc).length > 0) {
      svc.ipFamilies = ips(svc).map((ip) => (isIPv6String(ip) ? 'IPv6' : 'IPv4'));
      svc.ipFamilyPolicy = svc.ipFamilies.length === 1 ? 'SingleStack' : 'RequireDualStack';
    }
  }
  if (svc.type === 'ExternalName') delete svc.internalTrafficPolicy;
}

const supportedFamilies = ['IPv4', 'IPv6'];
const supportedPolicies = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];

/** ValidateServiceClusterIPsRelatedFields (used by validation and before allocation). */
export function validateClusterIPsRelatedFields(s: ServiceSpec): FieldError[] {
  if (s.type === 'ExternalName') return [];
  const errs: FieldError[] = [];
  const list = ips(s);
  if (s.clusterIP) {
    if (list.length === 0) errs.push(fieldErr.required('spec.clusterIPs'));
    else if (list[0] !== s.clusterIP) errs.push(fieldErr.invalid('spec.clusterIPs', list, 'first value must match `clusterIP`'));
  } else if (list.length !== 0) {
    errs.push(fieldErr.invalid('spec.clusterIPs', list, 'must be empty when `clusterIP` is not specified'));
  }
  const seen = new Set<string>();
  families(s).forEach((f, i) => {
    if (!supportedFamilies.includes(f)) errs.push(fieldErr.notSupported(`spec.ipFamilies[${i}]`, f, supportedFamilies));
    if (seen.has(f)) errs.push({ type: 'FieldValueDuplicate', field: `spec.ipFamilies[${i}]`, detail: `Duplicate value: ${JSON.stringify(f)}` });
    seen.add(f);
  });
  if (s.ipFamilyPolicy != null && !supportedPolicies.includes(s.ipFamilyPolicy)) errs.push(fieldErr.notSupported('spec.ipFamilyPolicy', s.ipFamilyPolicy, supportedPolicies));
  let invalidIPs = false;
  list.forEach((ip, i) => {
    if (i === 0 && ip === 'None') {
      if (list.length > 1) {
        invalidIPs = true;
        errs.push(fieldErr.invalid('spec.clusterIPs', list, "'None' must be the first and only value"));
      }
      return;
    }
    const e = validateIP(ip, `spec.clusterIPs[${i}]`);
    if (e.length > 0) invalidIPs = true;
    errs.push(...e);
  });
  if (list.length > 2) errs.push(fieldErr.invalid('spec.clusterIPs', list, 'may only hold up to 2 values'));
  if (invalidIPs) return errs;
  if (list.length > 1 && isIPv6String(list[0]) === isIPv6String(list[1])) {
    errs.push(fieldErr.invalid('spec.clusterIPs', list, 'may specify no more than one IP for each IP family'));
  }
  if (!isHeadless(s) && list.length > 0 && families(s).length > 0) {
    list.forEach((ip, i) => {
      const f = families(s)[i];
      if (f === undefined) return;
      if (f === 'IPv4' && isIPv6String(ip)) errs.push(fieldErr.invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      if (f === 'IPv6' && !isIPv6String(ip)) errs.push(fieldErr.invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
    });
  }
  return errs;
}

/** The cluster's service IP families: the family of --service-cluster-ip-range (single-stack). */
function configuredFamilies(ctx: StoreContext): string[] {
  return [new ClusterIPAllocator(ctx).family === 6 ? 'IPv6' : 'IPv4'];
}

/**
 * initIPFamilyFields: ipFamilyPolicy and ipFamilies from the request, the old object and the
 * cluster's configuration. Throws kube's 422 for families the cluster does not serve.
 */
export function initIPFamilyFields(svc: Service, old: Service | undefined, ctx: StoreContext): void {
  const s = specOf(svc);
  const o = old?.spec;
  if (s.type === 'ExternalName') return;
  const configured = configuredFamilies(ctx);
  if (o && isMatchingPreferDualStack(s, o)) return;
  if (s.ipFamilyPolicy == null) {
    if (o?.ipFamilyPolicy) s.ipFamilyPolicy = o.ipFamilyPolicy;
    else if (s.clusterIP === 'None' && (!s.selector || Object.keys(s.selector).length === 0)) s.ipFamilyPolicy = 'RequireDualStack';
    else s.ipFamilyPolicy = 'SingleStack';
  }
  const pre = validateClusterIPsRelatedFields(s);
  if (pre.length > 0) throw newInvalid(serviceKind, svc.metadata.name ?? '', pre);
  const errs: FieldError[] = [];
  if (o) {
    if (s.ipFamilyPolicy === 'SingleStack') {
      if (sameStrings(o.clusterIPs, s.clusterIPs) && ips(s).length > 1) s.clusterIPs = ips(s).slice(0, 1);
      if (sameStrings(o.ipFamilies, s.ipFamilies) && families(s).length > 1) s.ipFamilies = families(s).slice(0, 1);
    } else {
      if (ips(s).length > 0 && ips(s).length < ips(o).length) errs.push(fieldErr.invalid('spec.ipFamilyPolicy', s.ipFamilyPolicy, "must be 'SingleStack' to release the secondary cluster IP"));
      if (families(s).length > 0 && families(s).length < families(o).length) errs.push(fieldErr.invalid('spec.ipFamilyPolicy', s.ipFamilyPolicy, "must be 'SingleStack' to release the secondary IP family"));
    }
  }
  if (s.ipFamilyPolicy === 'SingleStack') {
    if (ips(s).length === 2) errs.push(fieldErr.invalid('spec.ipFamilyPolicy', s.ipFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"));
    if (families(s).length === 2) errs.push(fieldErr.invalid('spec.ipFamilyPolicy', s.ipFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"));
  }
  const list = ips(s);
  for (let i = 0; i < list.length; i++) {
    if (list[i] === 'None') break;
    const fam = familyOf(list[i]);
    if (i >= families(s).length) {
      if (!configured.includes(fam)) errs.push(fieldErr.invalid(`spec.clusterIPs[${i}]`, list, `${fam} is not configured on this cluster`));
      else s.ipFamilies = [...families(s), fam];
    }
  }
  if (errs.length > 0) throw newInvalid(serviceKind, svc.metadata.name ?? '', errs);
  if (s.clusterIP === 'None' && (!s.selector || Object.keys(s.selector).length === 0)) {
    if (families(s).length === 0) s.ipFamilies = [configured[0]];
    if (families(s).length < 2 && s.ipFamilyPolicy !== 'SingleStack') s.ipFamilies = [...families(s), families(s)[0] === 'IPv4' ? 'IPv6' : 'IPv4'];
    return;
  }
  if (s.ipFamilyPolicy === 'RequireDualStack' && configured.length < 2) {
    errs.push(fieldErr.invalid('spec.ipFamilyPolicy', s.ipFamilyPolicy, 'this cluster is not configured for dual-stack services'));
  }
  families(s).forEach((f, i) => {
    if (!configured.includes(f)) errs.push(fieldErr.invalid(`spec.ipFamilies[${i}]`, f, 'not configured on this cluster'));
  });
  if (errs.length > 0) throw newInvalid(serviceKind, svc.metadata.name ?? '', errs);
  if (families(s).length === 0) s.ipFamilies = [configured[0]];
}

function isMatchingPreferDualStack(s: ServiceSpec, o: ServiceSpec): boolean {
  if (s.ipFamilyPolicy == null || o.type !== s.type) return false;
  if (s.type !== 'ClusterIP' && s.type !== 'NodePort' && s.type !== 'LoadBalancer') return false;
  if (s.ipFamilyPolicy !== 'PreferDualStack' || (o.ipFamilyPolicy != null && o.ipFamilyPolicy !== 'PreferDualStack')) return false;
  return sameStrings(o.clusterIPs, s.clusterIPs) && sameStrings(o.ipFamilies, s.ipFamilies);
}

/**
 * What one Service write allocated and gave up (kube's transaction of alloc.go), ended by
 * exactly one finish: stored, what it gave up is released; not stored, what it took is.
 */
export interface ServiceAllocation {
  finish(stored: boolean): Promise<void>;
}

class Allocation implements ServiceAllocation {
  allocatedIPs: string[] = [];
  releasedIPs: string[] = [];
  private finished = false;
  constructor(readonly ipAlloc: ClusterIPAllocator, readonly ports: PortAllocationOperation, readonly dryRun: boolean) {}

  /**
   * As kube's Commit and Revert, failures are logged rather than answered: the write's outcome
   * stands, and a value left allocated is a leak, never a duplicate.
   */
  async finish(stored: boolean): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    const ips = stored ? this.releasedIPs : this.allocatedIPs;
    if (!this.dryRun) {
      for (const ip of ips) {
        try {
          await this.ipAlloc.release(ip);
        } catch (err) {
          console.error(`service allocation: releasing ClusterIP ${ip} failed:`, err);
        }
      }
    }
    try {
      await (stored ? this.ports.commit() : this.ports.revert());
    } catch (err) {
      console.error(`service allocation: releasing node ports failed:`, err);
    }
  }
}

const svcRef = (svc: Service) => ({ namespace: svc.metadata.namespace ?? '', name: svc.metadata.name ?? '' });

/** allocIPs: allocates the requested (or next free) address of each family; kube's 422 or 500 on failure. */
async function allocClusterIPs(svc: Service, alloc: Allocation): Promise<void> {
  const s = specOf(svc);
  if (s.type === 'ExternalName') return;
  if (ips(s)[0] === 'None') return;
  const list = [...ips(s)];
  const fams = families(s);
  for (let i = 0; i < fams.length; i++) {
    if (i >= list.length) list.push('');
    const requested = list[i];
    let ip: string;
    if (requested === '') {
      try {
        ip = await alloc.ipAlloc.allocateNext(svcRef(svc), alloc.dryRun);
      } catch (err) {
        throw newInternalError(`failed to allocate a serviceIP: ${(err as Error).message}`);
      }
    } else {
      try {
        await alloc.ipAlloc.allocate(requested, svcRef(svc), alloc.dryRun);
      } catch (err) {
        if (!(err instanceof IPAllocationError)) throw err;
        throw newInvalid(serviceKind, svc.metadata.name ?? '', [fieldErr.invalid('spec.clusterIPs', s.clusterIPs ?? [], `failed to allocate IP ${requested}: ${err.message}`)]);
      }
      ip = requested;
    }
    if (!alloc.dryRun) alloc.allocatedIPs.push(ip);
    list[i] = ip;
    if (i === 0) s.clusterIP = ip;
  }
  s.clusterIPs = list;
}

function nodePortInvalid(svc: Service, index: number, port: number, err: PortAllocationError) {
  return newInvalid(serviceKind, svc.metadata.name ?? '', [fieldErr.invalid(`spec.ports[${index}].nodePort`, port, err.message)]);
}

function shouldAllocateNodePorts(s: ServiceSpec): boolean {
  if (s.type === 'NodePort') return true;
  if (s.type === 'LoadBalancer') return s.allocateLoadBalancerNodePorts !== false;
  return false;
}

/** initNodePorts: requested node ports reserved, missing ones allocated; ports sharing a number share a node port. */
async function initNodePorts(svc: Service, op: PortAllocationOperation): Promise<void> {
  const s = specOf(svc);
  const ports = portsOf(s);
  const byPort = new Map<number, number>();
  for (let i = 0; i < ports.length; i++) {
    const sp = ports[i];
    if (!sp.nodePort && !shouldAllocateNodePorts(s)) continue;
    const allocated = byPort.get(sp.port ?? 0) ?? 0;
    if (allocated === 0) {
      const requested = ports.find((p) => p.port === sp.port && p.nodePort)?.nodePort ?? 0;
      if (requested) {
        try {
          await op.allocate(requested);
        } catch (err) {
          if (err instanceof PortAllocationError) throw nodePortInvalid(svc, i, requested, err);
          throw err;
        }
        sp.nodePort = requested;
        byPort.set(sp.port ?? 0, requested);
      } else {
        try {
          sp.nodePort = await op.allocateNext();
        } catch (err) {
          throw newInternalError(`failed to allocate a nodePort: ${(err as Error).message}`);
        }
        byPort.set(sp.port ?? 0, sp.nodePort);
      }
    } else if (sp.nodePort !== allocated) {
      if (!sp.nodePort) sp.nodePort = allocated;
      else {
        try {
          await op.allocate(sp.nodePort);
        } catch (err) {
          if (err instanceof PortAllocationError) throw nodePortInvalid(svc, i, sp.nodePort, err);
          throw err;
        }
      }
    }
  }
}

async function allocHealthCheckNodePort(svc: Service, op: PortAllocationOperation): Promise<void> {
  const s = specOf(svc);
  if (s.healthCheckNodePort) {
    try {
      await op.allocate(s.healthCheckNodePort);
    } catch (err) {
      throw newInternalError(`failed to allocate requested HealthCheck NodePort ${s.healthCheckNodePort}: ${(err as Error).message}`);
    }
    return;
  }
  try {
    s.healthCheckNodePort = await op.allocateNext();
  } catch (err) {
    throw newInternalError(`failed to allocate a HealthCheck NodePort 0: ${(err as Error).message}`);
  }
}

function newAllocation(ctx: StoreContext, dryRun: boolean): Allocation {
  return new Allocation(new ClusterIPAllocator(ctx), new PortAllocationOperation(new NodePortAllocator(ctx), dryRun), dryRun);
}

async function guarded(alloc: Allocation, work: () => Promise<void>): Promise<ServiceAllocation> {
  try {
    await work();
    return alloc;
  } catch (err) {
    await alloc.finish(false);
    throw err;
  }
}

/** BeginCreate: families initialized, ClusterIPs and node ports allocated. */
export async function allocateCreate(svc: Service, ctx: StoreContext, dryRun: boolean): Promise<ServiceAllocation> {
  normalizeClusterIPs(specOf(svc));
  initIPFamilyFields(svc, undefined, ctx);
  const alloc = newAllocation(ctx, dryRun);
  return guarded(alloc, async () => {
    await allocClusterIPs(svc, alloc);
    const s = specOf(svc);
    if (needsNodePort(s)) await initNodePorts(svc, alloc.ports);
    if (needsHealthCheck(s)) await allocHealthCheckNodePort(svc, alloc.ports);
  });
}

/** BeginUpdate's allocation: type changes allocate or give up ClusterIPs and node ports. */
export async function allocateUpdate(svc: Service, old: Service, ctx: StoreContext, dryRun: boolean): Promise<ServiceAllocation> {
  initIPFamilyFields(svc, old, ctx);
  const alloc = newAllocation(ctx, dryRun);
  const s = specOf(svc), o = old.spec ?? {};
  return guarded(alloc, async () => {
    await updateClusterIPs(svc, old, alloc);
    if (needsNodePort(o) && (s.type === 'ExternalName' || s.type === 'ClusterIP')) {
      for (const p of portsOf(o)) if (p.nodePort) alloc.ports.releaseDeferred(p.nodePort);
    }
    if (needsNodePort(s)) await updateNodePorts(svc, old, alloc.ports);
    const needed = needsHealthCheck(o), needs = needsHealthCheck(s);
    if (!needed && needs) await allocHealthCheckNodePort(svc, alloc.ports);
    else if (needed && !needs && o.healthCheckNodePort) alloc.ports.releaseDeferred(o.healthCheckNodePort);
  });
}

async function updateClusterIPs(svc: Service, old: Service, alloc: Allocation): Promise<void> {
  const s = specOf(svc), o = old.spec ?? {};
  if (isMatchingPreferDualStack(s, o)) return;
  if (o.type === 'ExternalName' && s.type !== 'ExternalName') {
    await allocClusterIPs(svc, alloc);
    return;
  }
  if (ips(o)[0] === 'None') return;
  if (o.type !== 'ExternalName' && s.type === 'ExternalName') {
    alloc.releasedIPs.push(...ips(o).filter((ip) => ip !== ''));
    return;
  }
  const upgraded = families(o).length === 1 && families(s).length === 2;
  const downgraded = families(o).length === 2 && families(s).length === 1;
  if (upgraded) {
    // Only one family is ever configured here, so initIPFamilyFields has refused this already.
    return;
  }
  if (downgraded && ips(o)[1]) alloc.releasedIPs.push(ips(o)[1]);
}

/** updateNodePorts: new node ports reserved or allocated, ones no longer used given up on commit. */
async function updateNodePorts(svc: Service, old: Service, op: PortAllocationOperation): Promise<void> {
  const s = specOf(svc);
  const oldPorts = portsOf(old.spec ?? {}).map((p) => p.nodePort ?? 0).filter((n) => n !== 0);
  const taken = new Set<number>();
  const seen: string[] = [];
  const ports = portsOf(s);
  for (let i = 0; i < ports.length; i++) {
    const sp = ports[i];
    if (!sp.nodePort && !shouldAllocateNodePorts(s)) continue;
    if (sp.nodePort) {
      if (!oldPorts.includes(sp.nodePort) && !taken.has(sp.nodePort)) {
        try {
          await op.allocate(sp.nodePort);
        } catch (err) {
          if (err instanceof PortAllocationError) throw nodePortInvalid(svc, i, sp.nodePort, err);
          throw err;
        }
        taken.add(sp.nodePort);
      }
    } else {
      try {
        sp.nodePort = await op.allocateNext();
      } catch (err) {
        throw newInternalError(`failed to allocate a nodePort: ${(err as Error).message}`);
      }
    }
    const key = `${sp.protocol ?? ''}/${sp.nodePort}`;
    if (seen.includes(key)) throw newInternalError(`duplicate nodePort: {${sp.protocol ?? ''} ${sp.nodePort}}`);
    seen.push(key);
  }
  const now = new Set(ports.map((p) => p.nodePort ?? 0));
  for (const p of oldPorts) if (!now.has(p)) op.releaseDeferred(p);
}

/** releaseAllocatedResources (the after-delete hook): the Service's ClusterIPs and node ports go back to their ranges. */
export async function releaseServiceAllocations(svc: Service, ctx: StoreContext): Promise<void> {
  const s = svc.spec ?? {};
  if (s.type !== 'ExternalName' && ips(s)[0] !== 'None') {
    const ipAlloc = new ClusterIPAllocator(ctx);
    for (const ip of ips(s).length > 0 ? ips(s) : s.clusterIP ? [s.clusterIP] : []) await ipAlloc.release(ip);
  }
  const ports = portsOf(s).map((p) => p.nodePort ?? 0).filter((n) => n !== 0);
  if (needsHealthCheck(s) && s.healthCheckNodePort) ports.push(s.healthCheckNodePort);
  await new NodePortAllocator(ctx).release(ports);
}

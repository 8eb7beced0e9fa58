/**
 * ClusterIP allocation as kube 1.35 does it (pkg/registry/core/service/ipallocator, the
 * IPAddress-backed allocator of MultiCIDRServiceAllocator): every allocated address is a
 * networking.k8s.io/v1 IPAddress object named after the address and pointing at its
 * Service. Creating that object is the allocation, so two replicas can never hand out the
 * same address: the second create is AlreadyExists.
 */
import type { AdmissionLookup, KubeObject, StoreContext } from '../types.js';
import { ServiceCIDR } from './cidr.js';

/** kube's ipallocator errors; their messages end up in the Service's field errors. */
export class IPAllocationError extends Error {}

export const errAllocated = () => new IPAllocationError('provided IP is already allocated');
export const errMismatchedNetwork = () => new IPAllocationError('the provided network does not match the current range');
export const errFull = () => new IPAllocationError('range is full');
export const errNotInRange = (ip: string) => new IPAllocationError(`provided IP ${ip} is not in the valid range`);

/** The labels kube's allocator puts on its IPAddress objects. */
export const ipFamilyLabel = 'ipaddress.kubernetes.io/ip-family';
export const managedByLabel = 'ipaddress.kubernetes.io/managed-by';
export const allocatorName = 'ipallocator.k8s.io';

export interface ServiceRef {
  namespace: string;
  name: string;
}

const ranges = new Map<string, ServiceCIDR>();

/** The parsed --service-cluster-ip-range (parsed once per value). */
export function serviceCIDR(ctx: StoreContext): ServiceCIDR {
  const cidr = ctx.services.clusterIPRange;
  let r = ranges.get(cidr);
  if (!r) ranges.set(cidr, (r = new ServiceCIDR(cidr)));
  return r;
}

function ipAddresses(ctx: StoreContext): AdmissionLookup {
  const l = ctx.lookup('networking.k8s.io', 'ipaddresses');
  if (!l) throw new Error('networking.k8s.io/v1 ipaddresses are not served');
  return l;
}

function ipAddressObject(ip: string, family: 4 | 6, svc: ServiceRef): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1', kind: 'IPAddress',
    metadata: { name: ip, labels: { [ipFamilyLabel]: family === 4 ? 'IPv4' : 'IPv6', [managedByLabel]: allocatorName } },
    spec: { parentRef: { group: '', resource: 'services', namespace: svc.namespace, name: svc.name } },
  };
}

const isAlreadyExists = (err: unknown) => (err as { code?: number })?.code === 409;

export class ClusterIPAllocator {
  readonly cidr: ServiceCIDR;

  constructor(private readonly ctx: StoreContext) {
    this.cidr = serviceCIDR(ctx);
  }

  get family(): 4 | 6 {
    return this.cidr.family;
  }

  /** Reserves a requested address for the Service (AllocateService). */
  async allocate(ip: string, svc: ServiceRef, dryRun: boolean): Promise<void> {
    if (!this.cidr.contains(ip)) throw errMismatchedNetwork();
    if (!this.cidr.allocatable(ip)) throw errNotInRange(ip);
    // kube's dry-run allocator only checks the range: a taken address passes.
    if (dryRun) return;
    const canonical = this.cidr.format(this.cidr.toInt(ip)!);
    try {
      await ipAddresses(this.ctx).create('', ipAddressObject(canonical, this.cidr.family, svc));
    } catch (err) {
      if (isAlreadyExists(err)) throw errAllocated();
      throw err;
    }
  }

  /**
   * Picks a free address (AllocateNextService): a random one of the upper band first, then
   * the static band. A dry run answers the range's base address without looking.
   */
  async allocateNext(svc: ServiceRef, dryRun: boolean): Promise<string> {
    const c = this.cidr;
    if (dryRun) return c.format(c.network);
    const store = ipAddresses(this.ctx);
    const taken = new Set((await store.list('')).map((o) => o.metadata.name));
    for (const [from, to] of [[c.offsetAddress, c.rangeEnd + 1n], [c.rangeStart, c.offsetAddress]] as const) {
      const size = to - from;
      if (size <= 0n) continue;
      const start = randomBelow(size);
      for (let i = 0n; i < size; i++) {
        const ip = c.format(from + ((start + i) % size));
        if (taken.has(ip)) continue;
        try {
          await store.create('', ipAddressObject(ip, c.family, svc));
          return ip;
        } catch (err) {
          if (!isAlreadyExists(err)) throw err;
          taken.add(ip);
        }
      }
    }
    throw errFull();
  }

  /** Frees an address; one that is not allocated (or not in the range) is no error. */
  async release(ip: string): Promise<void> {
    if (!this.cidr.contains(ip)) return;
    const canonical = this.cidr.format(this.cidr.toInt(ip)!);
    try {
      await ipAddresses(this.ctx).delete('', canonical);
    } catch (err) {
      if ((err as { code?: number })?.code !== 404) throw err;
    }
  }
}

function randomBelow(n: bigint): bigint {
  if (n <= BigInt(Number.MAX_SAFE_INTEGER)) return BigInt(Math.floor(Math.random() * Number(n)));
  let r = 0n;
  for (let i = 0; i < 4; i++) r = (r << 32n) | BigInt(Math.floor(Math.random() * 2 ** 32));
  return r % n;
}

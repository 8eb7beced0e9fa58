import { describeBackends } from '@windlass/storage/testing';
import { failure } from '@windlass/machinery';
import type { AdmissionLookup, KubeObject, StoreContext } from '../types.js';
import { defaultServiceRanges } from '../types.js';
import { ServiceCIDR, firstServiceIP } from './cidr.js';
import { ClusterIPAllocator } from './clusterip.js';
import { NodePortAllocator, PortAllocationOperation, decodeBitmap, encodeBitmap } from './nodeport.js';

/** A stand-in for the IPAddress store: create is AlreadyExists on a taken name, as kube's. */
function ipAddressStore(): AdmissionLookup & { objects: Map<string, KubeObject> } {
  const objects = new Map<string, KubeObject>();
  return {
    objects,
    async create(_ns, obj) {
      const name = obj.metadata.name!;
      if (objects.has(name)) throw failure(409, 'AlreadyExists', `ipaddresses.networking.k8s.io "${name}" already exists`);
      objects.set(name, obj);
      return obj;
    },
    async delete(_ns, name) {
      objects.delete(name);
    },
    async get(_ns, name) {
      return objects.get(name);
    },
    async list() {
      return [...objects.values()];
    },
  };
}

function context(storage: StoreContext['storage'], prefix: string, ips = ipAddressStore(), ranges = defaultServiceRanges): StoreContext {
  return { storage, registryPrefix: `${prefix}registry`, services: ranges, lookup: (group, resource) => (group === 'networking.k8s.io' && resource === 'ipaddresses' ? ips : undefined) };
}

describe('service CIDR', () => {
  test('10.96.0.0/12: the network and broadcast addresses are never handed out; 256 addresses are kept for static allocation', () => {
    const c = new ServiceCIDR('10.96.0.0/12');
    expect(c.toString()).toBe('10.96.0.0/12');
    expect(c.format(c.rangeStart)).toBe('10.96.0.1');
    expect(c.format(c.rangeEnd)).toBe('10.111.255.254');
    expect(c.format(c.offsetAddress)).toBe('10.96.1.1');
    expect([c.allocatable('10.96.0.0'), c.allocatable('10.111.255.255'), c.allocatable('10.96.0.1'), c.allocatable('192.0.2.10')]).toEqual([false, false, true, false]);
    expect(c.contains('10.111.255.255')).toBe(true);
    expect(firstServiceIP('10.96.0.0/12')).toBe('10.96.0.1');
    expect(firstServiceIP('fd00:10:96::/112')).toBe('fd00:10:96::1');
  });

  test('small ranges keep no static band', () => {
    const c = new ServiceCIDR('10.0.0.0/29');
    expect(c.format(c.offsetAddress)).toBe(c.format(c.rangeStart));
  });
});

describe('node port bitmap (big.Int bytes)', () => {
  test('round trip; bit i is port base+i', () => {
    const bits = new Uint8Array(2768);
    bits[0] = 1;
    bits[9] = 1;
    bits[2767] = 1;
    const data = encodeBitmap(bits);
    expect(data.length).toBe(346);
    expect(data[data.length - 1]).toBe(1);
    expect(data[data.length - 2]).toBe(2);
    expect(Array.from(decodeBitmap(data, 2768)).flatMap((v, i) => (v ? [i] : []))).toEqual([0, 9, 2767]);
    expect(encodeBitmap(new Uint8Array(10)).length).toBe(0);
  });
});

describeBackends('allocators', (b) => {
  test('ClusterIPs: a requested address once, the next free one from the upper band, kube\'s errors', async () => {
    const ips = ipAddressStore();
    const alloc = new ClusterIPAllocator(context(b.storage, b.prefix, ips));
    const svc = { namespace: 'default', name: 'web' };
    await alloc.allocate('10.96.0.10', svc, false);
    expect(ips.objects.get('10.96.0.10')).toMatchObject({
      apiVersion: 'networking.k8s.io/v1', kind: 'IPAddress',
      metadata: { labels: { 'ipaddress.kubernetes.io/ip-family': 'IPv4', 'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io' } },
      spec: { parentRef: { group: '', resource: 'services', namespace: 'default', name: 'web' } },
    });
    await expect(alloc.allocate('10.96.0.10', svc, false)).rejects.toThrow('provided IP is already allocated');
    await expect(alloc.allocate('192.0.2.10', svc, false)).rejects.toThrow('the provided network does not match the current range');
    await expect(alloc.allocate('10.96.0.0', svc, false)).rejects.toThrow('provided IP 10.96.0.0 is not in the valid range');
    // A dry run only checks the range.
    await alloc.allocate('10.96.0.10', svc, true);
    expect(await alloc.allocateNext(svc, true)).toBe('10.96.0.0');
    const next = await alloc.allocateNext(svc, false);
    expect(new ServiceCIDR('10.96.0.0/12').toInt(next)! >= new ServiceCIDR('10.96.0.0/12').offsetAddress).toBe(true);
    expect(ips.objects.has(next)).toBe(true);
    await alloc.release(next);
    await alloc.release(next);
    expect(ips.objects.has(next)).toBe(false);
  });

  test('ClusterIPs: a full range is kube\'s "range is full"', async () => {
    const ctx = context(b.storage, b.prefix, ipAddressStore(), { ...defaultServiceRanges, clusterIPRange: '10.0.0.0/30' });
    const alloc = new ClusterIPAllocator(ctx);
    const got = [await alloc.allocateNext({ namespace: 'a', name: 'a' }, false), await alloc.allocateNext({ namespace: 'a', name: 'b' }, false)];
    expect(got.sort()).toEqual(['10.0.0.1', '10.0.0.2']);
    await expect(alloc.allocateNext({ namespace: 'a', name: 'c' }, false)).rejects.toThrow('range is full');
  });

  test('node ports: stored in one range record, unique across allocators sharing the store', async () => {
    const ctx = context(b.storage, b.prefix);
    const a = new NodePortAllocator(ctx), other = new NodePortAllocator(ctx);
    await a.allocate(30080);
    await expect(other.allocate(30080)).rejects.toThrow('provided port is already allocated');
    await expect(a.allocate(80)).rejects.toThrow('provided port is not in the valid range. The range of valid ports is 30000-32767');
    const seen = new Set<number>([30080]);
    const many = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : other).allocateNext()));
    for (const p of many) {
      expect(p >= 30000 && p <= 32767).toBe(true);
      expect(seen.has(p)).toBe(false);
      seen.add(p);
    }
    const kv = await b.storage.get(`${b.prefix}registry/ranges/servicenodeports`);
    expect(JSON.parse(kv!.value.toString())).toMatchObject({ kind: 'RangeAllocation', apiVersion: 'v1', range: '30000-32767' });
    await a.release([30080]);
    await other.allocate(30080);
  });

  test('node ports: a small range fills up; an operation reverts what it took and commits what it gave up', async () => {
    const ctx = context(b.storage, b.prefix, ipAddressStore(), { ...defaultServiceRanges, nodePortRange: { base: 31000, size: 3 } });
    const alloc = new NodePortAllocator(ctx);
    const op = new PortAllocationOperation(alloc, false);
    const taken = [await op.allocateNext(), await op.allocateNext()];
    await op.revert();
    const again = new PortAllocationOperation(alloc, false);
    await again.allocate(taken[0]);
    again.releaseDeferred(taken[0]);
    await again.allocateNext();
    await again.allocateNext();
    await expect(again.allocateNext()).rejects.toThrow('range is full');
    await again.commit();
    expect((await alloc.snapshot())[taken[0] - 31000]).toBe(0);
  });

  test('node ports: a dry run checks requests against the stored ports and invents the rest', async () => {
    const alloc = new NodePortAllocator(context(b.storage, b.prefix));
    await alloc.allocate(30100);
    const op = new PortAllocationOperation(alloc, true);
    await expect(op.allocate(30100)).rejects.toThrow('provided port is already allocated');
    await expect(op.allocate(80)).rejects.toThrow('provided port is not in the valid range');
    await op.allocate(30101);
    expect(await op.allocateNext()).toBe(30102);
    await op.revert();
    expect((await alloc.snapshot())[101]).toBe(0);
  });
});

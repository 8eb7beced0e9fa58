import { resourceClaims, resourceClaimTemplates } from './resourceclaims.js';
import { resourceSlices } from './resourceslices.js';
import { create, object, update } from '../networking/testing.js';

describe('ResourceClaim and ResourceClaimTemplate', () => {
  it('default exact requests to one device', () => {
    const claim = object({ spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } }, { name: 'any', firstAvailable: [{ name: 'a', deviceClassName: 'c', allocationMode: 'All' }] }] } } });
    expect(create(resourceClaims, claim)).toEqual([]);
    const requests = (claim.spec as { devices: { requests: Array<Record<string, Record<string, unknown>>> } }).devices.requests;
    expect(requests[0].exactly).toEqual({ deviceClassName: 'gpu.example.com', allocationMode: 'ExactCount', count: 1 });
    expect(requests[1].firstAvailable).toEqual([{ name: 'a', deviceClassName: 'c', allocationMode: 'All' }]);
  });

  it('need exactly one of exactly or firstAvailable, and keep the spec immutable', () => {
    expect(create(resourceClaims, object({ spec: { devices: { requests: [{ name: 'r' }] } } })))
      .toEqual(['spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required']);
    const spec = { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'c' } }] } };
    expect(update(resourceClaims, object({ spec: { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'd' } }] } } }), object({ spec })))
      .toEqual([expect.stringMatching(/^spec: Invalid value: .*: field is immutable$/)]);
    expect(create(resourceClaimTemplates, object({ spec: { spec: { devices: { requests: [{ name: 'Bad' }] } } } }))[0]).toMatch(/^spec.spec.devices.requests\[0\].name: Invalid value: "Bad"/);
  });

  it('print the claim state', () => {
    expect(resourceClaims.table!.cells(object({ status: { allocation: {}, reservedFor: [{}] } }))[0]).toBe('allocated,reserved');
    expect(resourceClaims.table!.cells(object({}))[0]).toBe('pending');
  });
});

describe('ResourceSlice', () => {
  it('needs exactly one node selection and selects on node and driver', () => {
    const slice = object({ spec: { driver: 'gpu.example.com', pool: { name: 'p', generation: 0, resourceSliceCount: 1 }, nodeName: 'n1', allNodes: true } });
    expect(create(resourceSlices, slice))
      .toEqual(['spec: Invalid value: "{`nodeName`, `allNodes`}": exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set']);
    expect(resourceSlices.selectableFields!['spec.nodeName'](slice)).toBe('n1');
    expect(resourceSlices.selectableFields!['spec.driver'](slice)).toBe('gpu.example.com');
  });

  it('stamps device taints with the time they were added', () => {
    const slice = object({ spec: { driver: 'd.example.com', pool: { name: 'p', resourceSliceCount: 1 }, allNodes: true, devices: [{ name: 'x', taints: [{ key: 'k', effect: 'NoSchedule' }] }] } });
    expect(create(resourceSlices, slice)).toEqual([]);
    expect((slice.spec as { devices: Array<{ taints: Array<{ timeAdded: string }> }> }).devices[0].taints[0].timeAdded).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });
});

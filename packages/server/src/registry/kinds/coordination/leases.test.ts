import { leases } from './leases.js';
import { create, object } from '../networking/testing.js';

describe('Lease', () => {
  it('validates durations, transitions and the leader election strategy', () => {
    expect(create(leases, object({ spec: { holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 4 } }))).toEqual([]);
    expect(create(leases, object({ spec: { leaseDurationSeconds: 0, leaseTransitions: -1 } }))).toEqual([
      'spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
      'spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0',
    ]);
    expect(create(leases, object({ spec: { strategy: 'Newest', preferredHolder: 'x' } })))
      .toEqual(['spec.strategy.strategy: Unsupported value: "Newest": supported values: "OldestEmulationVersion"']);
    expect(create(leases, object({ spec: { preferredHolder: 'x' } }))).toEqual(['spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined']);
  });

  it('is created by PUT, as leader election does', () => {
    expect(leases.allowCreateOnUpdate).toBe(true);
  });
});

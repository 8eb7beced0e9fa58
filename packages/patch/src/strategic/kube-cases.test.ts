/**
 * kube's own order-sensitive strategic merge patch cases (see kube-cases.fixture.ts):
 * applying TwoWay to Original must give TwoWayResult (or Modified), and ThreeWay to
 * Current must give Result, against the MergeItem test struct of patch_test.go.
 */
import type { PatchMeta, PatchMetaLookup } from '@windlass/machinery';
import { applyStrategicMergePatch } from './index.js';
import { kubeSMPCases } from './kube-cases.fixture.js';

interface Field {
  meta: PatchMeta;
  type?: Fields;
}
type Fields = Record<string, Field>;

// The struct tags of MergeItem and RetainKeysMergeItem in patch_test.go.
const mergeItem: Fields = {};
const retainKeysMergeItem: Fields = {};
Object.assign(mergeItem, {
  mergingList: { meta: { patchStrategy: 'merge', patchMergeKey: 'name' }, type: mergeItem },
  nonMergingList: { meta: {}, type: mergeItem },
  mergingIntList: { meta: { patchStrategy: 'merge' } },
  nonMergingIntList: { meta: {} },
  mergeItemPtr: { meta: { patchStrategy: 'merge', patchMergeKey: 'name' }, type: mergeItem },
  simpleMap: { meta: {} },
  replacingItem: { meta: { patchStrategy: 'replace' } },
  jsonItem: { meta: {} },
  retainKeysMap: { meta: { patchStrategy: 'retainKeys' }, type: retainKeysMergeItem },
  retainKeysMergingList: { meta: { patchStrategy: 'merge,retainKeys', patchMergeKey: 'name' }, type: mergeItem },
});
Object.assign(retainKeysMergeItem, {
  simpleMap: { meta: {} },
  mergingIntList: { meta: { patchStrategy: 'merge' } },
  mergingList: { meta: { patchStrategy: 'merge', patchMergeKey: 'name' }, type: mergeItem },
  nonMergingList: { meta: {}, type: mergeItem },
});

export const mergeItemLookup: PatchMetaLookup = (path) => {
  let fields: Fields | undefined = mergeItem;
  let meta: PatchMeta = {};
  for (const seg of path) {
    const f: Field | undefined = fields?.[seg];
    if (!f) return {};
    meta = f.meta;
    fields = f.type;
  }
  return meta;
};

const body = (v: unknown) => Buffer.from(JSON.stringify(v ?? null));
const asObject = (v: unknown) => (v ?? {}) as object;

function failureDetail(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    const err = e as { status?: { message?: string }; cause?: Error; message: string };
    return `${err.status?.message ?? ''} ${err.cause?.message ?? ''} ${err.message}`;
  }
  return '<no error>';
}

const twoWay = kubeSMPCases.filter((c) => c.TwoWay !== undefined && (c.ExpectedError || c.TwoWayResult !== undefined || c.Modified !== undefined));
const threeWay = kubeSMPCases.filter((c) => c.ThreeWay !== undefined && c.Result !== undefined && !c.ExpectedError);

describe('kube strategicpatch raw test cases', () => {
  test('the fixture holds the cases', () => {
    expect(twoWay.length).toBeGreaterThan(80);
    expect(threeWay.length).toBeGreaterThan(60);
  });

  test.each(twoWay.map((c) => [c.description, c] as const))('two-way: %s', (_d, c) => {
    const apply = () => applyStrategicMergePatch(asObject(c.Original), body(c.TwoWay), mergeItemLookup);
    if (c.ExpectedError) {
      expect(failureDetail(apply)).toContain(c.ExpectedError);
      return;
    }
    expect(apply()).toEqual(c.TwoWayResult ?? c.Modified ?? {});
  });

  test.each(threeWay.map((c) => [c.description, c] as const))('three-way: %s', (_d, c) => {
    expect(applyStrategicMergePatch(asObject(c.Current), body(c.ThreeWay), mergeItemLookup)).toEqual(c.Result ?? {});
  });
});

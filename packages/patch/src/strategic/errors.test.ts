/** Failure statuses of the strategic merge patch, matching interpretStrategicMergePatchError. */
import type { PatchMetaLookup } from '@windlass/machinery';
import { applyStrategicMergePatch } from './index.js';

const lookup: PatchMetaLookup = (path) => {
  switch (path.join('.')) {
    case 'metadata.finalizers':
    case 'spec.matrix':
      return { patchStrategy: 'merge' };
    case 'spec.items':
      return { patchStrategy: 'merge', patchMergeKey: 'name' };
    case 'spec.policy':
      return { patchStrategy: 'retainKeys' };
    case 'spec.weird':
      return { patchStrategy: 'merge,replace,retainKeys' };
    default:
      return {};
  }
};

const live = {
  metadata: { name: 'x', finalizers: ['a'] },
  spec: { items: [{ name: 'one', v: 1 }], matrix: [[1]], policy: { a: 1, b: 2 }, weird: [1] },
};

function statusOf(body: string): { code: number; reason?: string; message?: string; cause?: string } {
  try {
    applyStrategicMergePatch(live, Buffer.from(body), lookup);
  } catch (e) {
    const err = e as { status: { code: number; reason?: string; message?: string }; cause?: Error };
    return { code: err.status.code, reason: err.status.reason, message: err.status.message, cause: err.cause?.message };
  }
  throw new Error('patch unexpectedly succeeded');
}

describe('strategic merge patch errors', () => {
  test.each([
    ['<not json>', "invalid character '<' looking for beginning of value"],
    ['{"a":1', 'unexpected end of JSON input'],
    ['[]', 'json: cannot unmarshal array into Go value of type map[string]interface {}'],
    ['"x"', 'json: cannot unmarshal string into Go value of type map[string]interface {}'],
    ['{"metadata":{"$deleteFromPrimitiveList":["a"]}}', 'invalid patch format of primitive list'],
    ['{"metadata":{"$setElementOrder":["a"]}}', 'invalid patch format of setElementOrder list'],
    ['{"spec":{"policy":{"$retainKeys":"a"}}}', 'invalid patch format of retainKeys'],
    ['{"spec":{"policy":{"$retainKeys":["a"],"b":3}}}', 'invalid patch format of retainKeys'],
  ])('%s → 400 %j', (body, message) => {
    expect(statusOf(body)).toEqual({ code: 400, reason: 'BadRequest', message, cause: undefined });
  });

  test('lists of lists are 422 with kube’s generic message', () => {
    expect(statusOf('{"spec":{"matrix":[[2]]}}')).toEqual({
      code: 422,
      reason: 'Invalid',
      message: 'the server rejected our request due to an error in our request',
      cause: 'lists of lists are not supported',
    });
  });

  test.each([
    ['{"metadata":{"$patch":"merge"}}', 'unknown patch type: merge in map: map[$patch:merge]'],
    ['{"spec":{"items":[{"v":2}]}}', 'map: map[v:2] does not contain declared merge key: name'],
    ['{"spec":{"items":[{"$patch":"merge","name":"one"}]}}', 'merging lists cannot yet be specified in the patch'],
    ['{"spec":{"items":[{"$patch":"bogus","name":"one"}]}}', 'unknown patch type: bogus in map: map[$patch:bogus name:one]'],
    ['{"metadata":{"finalizers":[{"$patch":"replace"}]}}', 'list element types are not identical: [[a] [map[$patch:replace]]]'],
    ['{"metadata":{"$setElementOrder/finalizers":"a"}}', 'expected a []interface {}, but received a string'],
    ['{"metadata":{"$setElementOrder/finalizers":["b"],"finalizers":["c"]}}', "The order in patch list:\n[c]\n doesn't match $setElementOrder list:\n[b]\n"],
    ['{"spec":{"weird":[2]}}', 'unexpected patch strategy: [merge replace retainKeys]'],
  ])('%s → 500 with the Go error text', (body, message) => {
    expect(statusOf(body)).toEqual({ code: 500, reason: '', message, cause: undefined });
  });
});

describe('strategic merge patch edge cases', () => {
  const apply = (body: string) => applyStrategicMergePatch(live, Buffer.from(body), lookup);

  test('a null body patches nothing', () => {
    expect(apply('null')).toEqual(live);
  });

  test('$retainKeys clears unlisted keys', () => {
    expect((apply('{"spec":{"policy":{"$retainKeys":["b","c"],"c":3}}}') as typeof live).spec.policy).toEqual({ b: 2, c: 3 });
  });

  test('nulls and $patch maps inside newly added values are dropped', () => {
    expect(apply('{"spec":{"fresh":{"a":null,"b":{"$patch":"delete"},"c":[{"d":null}],"e":1}}}')).toEqual({
      ...live,
      spec: { ...live.spec, fresh: { c: [{}], e: 1 } },
    });
  });

  test('a value of another type replaces the original', () => {
    expect((apply('{"spec":{"items":"none"}}') as { spec: { items: unknown } }).spec.items).toBe('none');
  });

  test('a __proto__ key is data, not a prototype', () => {
    const out = apply('{"data":{"__proto__":{"polluted":true}}}') as { data: Record<string, unknown> };
    expect(Object.keys(out.data)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

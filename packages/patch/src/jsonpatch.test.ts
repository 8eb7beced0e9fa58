import { applyJsonPatch } from './jsonpatch.js';

const doc = {
  metadata: { name: 'demo', labels: { 'a/b': 'x', 'c~d': 'y' } },
  data: { a: '1', b: '2' },
  list: ['x', 'y', 'z'],
};

const apply = (ops: unknown, opts = {}) => applyJsonPatch(doc, Buffer.from(typeof ops === 'string' ? ops : JSON.stringify(ops)), opts);

function failure(ops: unknown, opts = {}): { code: number; reason?: string; message?: string; cause?: string } {
  try {
    apply(ops, opts);
  } catch (e) {
    const err = e as { status: { code: number; reason?: string; message?: string }; cause?: Error };
    return { code: err.status.code, reason: err.status.reason, message: err.status.message, cause: err.cause?.message };
  }
  throw new Error('patch unexpectedly succeeded');
}

describe('applyJsonPatch: operations', () => {
  test('add, remove, replace, move, copy and test in sequence', () => {
    const out = apply([
      { op: 'test', path: '/data/a', value: '1' },
      { op: 'add', path: '/data/c', value: '3' },
      { op: 'remove', path: '/data/b' },
      { op: 'replace', path: '/metadata/name', value: 'renamed' },
      { op: 'move', from: '/data/c', path: '/data/d' },
      { op: 'copy', from: '/data/a', path: '/data/e' },
      { op: 'add', path: '/list/1', value: 'new' },
      { op: 'add', path: '/list/-', value: 'end' },
      { op: 'remove', path: '/metadata/labels/a~1b' },
      { op: 'replace', path: '/metadata/labels/c~0d', value: 'z' },
    ]);
    expect(out).toEqual({
      metadata: { name: 'renamed', labels: { 'c~d': 'z' } },
      data: { a: '1', d: '3', e: '1' },
      list: ['x', 'new', 'y', 'z', 'end'],
    });
  });

  test('the original is never modified and the result shares nothing with it', () => {
    const before = JSON.stringify(doc);
    const out = apply([{ op: 'add', path: '/data/z', value: { deep: [1] } }]) as typeof doc & { data: { z: { deep: number[] } } };
    expect(JSON.stringify(doc)).toBe(before);
    out.metadata.labels['a/b'] = 'changed';
    expect(doc.metadata.labels['a/b']).toBe('x');
  });

  test('kube’s json-patch v4 quirks: negative indices, replace of a missing key, test against null', () => {
    expect((apply([{ op: 'remove', path: '/list/-1' }]) as typeof doc).list).toEqual(['x', 'y']);
    expect((apply([{ op: 'replace', path: '/list/-3', value: 'X' }]) as typeof doc).list).toEqual(['X', 'y', 'z']);
    expect((apply([{ op: 'replace', path: '/data/new', value: 'v' }]) as typeof doc).data).toEqual({ a: '1', b: '2', new: 'v' });
    expect(apply([{ op: 'test', path: '/data/missing', value: null }])).toEqual(doc);
    expect(apply([{ op: 'add', path: '/data/n' }])).toEqual({ ...doc, data: { ...doc.data, n: null } });
    const nested = applyJsonPatch({ l: [{ a: 1 }, { a: 2 }] }, Buffer.from('[{"op":"replace","path":"/l/-1/a","value":3}]'));
    expect(nested).toEqual({ l: [{ a: 1 }, { a: 3 }] });
    expect(apply([{ op: 'replace', path: '', value: { only: true } }])).toEqual({ only: true });
  });

  test('__proto__ and constructor are ordinary keys', () => {
    const out = apply([
      { op: 'add', path: '/data/__proto__', value: { polluted: true } },
      { op: 'add', path: '/data/constructor', value: 'c' },
    ]) as { data: Record<string, unknown> };
    expect(Object.keys(out.data)).toEqual(['a', 'b', '__proto__', 'constructor']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(apply([{ op: 'remove', path: '/data/a' }, { op: 'test', path: '/data/a', value: null }])).toEqual({ ...doc, data: { b: '2' } });
  });

  test('null and empty arrays patch nothing', () => {
    expect(apply('null')).toEqual(doc);
    expect(apply([])).toEqual(doc);
  });
});

describe('applyJsonPatch: failures', () => {
  const generic = { code: 422, reason: 'Invalid', message: 'the server rejected our request due to an error in our request' };

  test.each([
    [[{ op: 'test', path: '/data/a', value: '2' }], 'testing value /data/a failed: test failed'],
    [[{ op: 'test', path: '/data/missing', value: 'x' }], 'testing value /data/missing failed: test failed'],
    [[{ op: 'remove', path: '/data/missing' }], "error in remove for path: '/data/missing': Unable to remove nonexistent key: missing: missing value"],
    [[{ op: 'remove', path: '/nope/x' }], 'remove operation does not apply: doc is missing path: "/nope/x": missing value'],
    [[{ op: 'add', path: '/nope/x', value: 1 }], 'add operation does not apply: doc is missing path: "/nope/x": missing value'],
    [[{ op: 'replace', path: '/nope/x', value: 1 }], 'replace operation does not apply: doc is missing path: /nope/x: missing value'],
    [[{ op: 'replace', path: '/list/5', value: 1 }], 'replace operation does not apply: doc is missing key: /list/5: missing value'],
    [[{ op: 'add', path: '/list/9', value: 1 }], "error in add for path: '/list/9': Unable to access invalid index: 9: invalid index referenced"],
    [[{ op: 'move', from: '/nope/x', path: '/data/x' }], 'move operation does not apply: doc is missing from path: /nope/x: missing value'],
    [[{ op: 'frobnicate', path: '/data' }], 'Unexpected kind: frobnicate'],
    [[{ op: 'add', path: '', value: {} }], 'add operation does not apply: doc is missing path: "": missing value'],
    [[{ op: 'copy', from: '/data/a', path: '' }], 'copy operation does not apply: doc is missing destination path: : missing value'],
    [[{ path: '/data' }], 'Unexpected kind: unknown'],
    [[{ op: 'add', path: '/data/c', value: '3' }, { op: 'test', path: '/data/c', value: '4' }], 'testing value /data/c failed: test failed'],
  ])('%j → 422', (ops, cause) => {
    expect(failure(ops)).toEqual({ ...generic, cause });
  });

  test.each([
    ['{}', 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp'],
    ['"add"', 'error decoding patch: json: cannot unmarshal string into Go value of type []handlers.jsonPatchOp'],
    ['[1]', 'error decoding patch: json: cannot unmarshal number into Go value of type handlers.jsonPatchOp'],
    ['[{"op":1}]', 'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string'],
    ['[{"op":"add",', 'error decoding patch: unexpected end of JSON input'],
    ['[{op:"add"}]', "error decoding patch: invalid character 'o' looking for beginning of object key string"],
    ['', 'error decoding patch: unexpected end of JSON input'],
  ])('%j → 400', (body, message) => {
    expect(failure(body)).toEqual({ code: 400, reason: 'BadRequest', message, cause: undefined });
  });

  test('with fieldValidation=Ignore kube decodes with json-patch itself, without the prefix', () => {
    expect(failure('{}', { fieldValidation: 'Ignore' }).message).toBe('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
    expect(failure('[1]', { fieldValidation: 'Ignore' }).message).toBe('json: cannot unmarshal number into Go value of type jsonpatch.Operation');
  });

  test('more than 10000 operations is 413', () => {
    const ops = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/data/a', value: '1' }));
    expect(failure(ops)).toEqual({
      code: 413,
      reason: 'RequestEntityTooLarge',
      message: 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
      cause: undefined,
    });
    expect(apply(ops.slice(0, 10000))).toEqual(doc);
  });
});

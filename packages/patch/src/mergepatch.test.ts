import { applyMergePatch } from './mergepatch.js';

const doc = { metadata: { name: 'a', labels: { x: '1', y: '2' } }, data: { k: 'v' }, list: [1, 2] };
const apply = (body: string, opts = {}) => applyMergePatch(doc, Buffer.from(body), opts);

function failure(body: string, opts = {}) {
  try {
    apply(body, opts);
  } catch (e) {
    const err = e as { status: { code: number; reason?: string; message?: string } };
    return { code: err.status.code, reason: err.status.reason, message: err.status.message };
  }
  throw new Error('patch unexpectedly succeeded');
}

describe('applyMergePatch', () => {
  test('RFC 7386: maps merge, null deletes, lists are replaced', () => {
    expect(apply('{"metadata":{"labels":{"x":null,"z":"3"}},"list":[3],"data":null}')).toEqual({
      metadata: { name: 'a', labels: { y: '2', z: '3' } },
      list: [3],
    });
    expect(doc.metadata.labels).toEqual({ x: '1', y: '2' });
  });

  test('nulls are dropped from values inserted wholesale, also inside arrays', () => {
    expect(apply('{"fresh":{"a":null,"b":{"c":null,"d":1}},"list":[{"e":null,"f":2},null]}')).toEqual({
      ...doc,
      fresh: { b: { d: 1 } },
      list: [{ f: 2 }, null],
    });
  });

  test('keys such as constructor and prototype are ordinary keys', () => {
    expect(apply('{"data":{"constructor":"c","prototype":"p","z":"z"}}')).toEqual({
      ...doc,
      data: { k: 'v', constructor: 'c', prototype: 'p', z: 'z' },
    });
  });

  test.each([
    ['[1]', 'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}'],
    ['7', 'error decoding patch: json: cannot unmarshal number into Go value of type map[string]interface {}'],
    ['{"a":}', "error decoding patch: invalid character '}' looking for beginning of value"],
    ['null', 'Invalid JSON Patch'],
  ])('%j → 400 %j', (body, message) => {
    expect(failure(body)).toEqual({ code: 400, reason: 'BadRequest', message });
  });

  test('with fieldValidation=Ignore a syntax error is evanphx’s "Invalid JSON Patch"', () => {
    expect(failure('{"a":}', { fieldValidation: 'Ignore' }).message).toBe('Invalid JSON Patch');
    expect(failure('7', { fieldValidation: 'Ignore' }).message).toBe('Invalid JSON Patch');
  });
});

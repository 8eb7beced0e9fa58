import { CachedObject, defaultAttrs } from './cachedobject.js';
import { ProtobufMessages } from './protobufmessages.js';

const configMap = (name: string, rev: number, value: string) =>
  CachedObject.fromObject(`/registry/configmaps/default/${name}`, rev, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { value } }, defaultAttrs);

test('a message is encoded once per object and revision, and shared', () => {
  const cache = new ProtobufMessages(1 << 20);
  const v1 = configMap('a', 5, 'one');
  const first = cache.get(v1)!;
  expect(cache.get(v1)).toBe(first);
  // A new revision is another cached object: encoded anew, with its own content.
  const v2 = configMap('a', 6, 'two');
  const second = cache.get(v2)!;
  expect(second).not.toBe(first);
  expect(second.includes(Buffer.from('two'))).toBe(true);
  expect(first.includes(Buffer.from('one'))).toBe(true);
});

test('the least recently used messages go once the budget is exceeded', () => {
  const one = configMap('x', 1, 'x'.repeat(100));
  const size = new ProtobufMessages(1 << 20).get(one)!.length;
  const cache = new ProtobufMessages(size * 2);
  const [a, b, c] = ['a', 'b', 'c'].map((n, i) => configMap(n, i + 1, 'x'.repeat(100)));
  const ma = cache.get(a)!;
  const mb = cache.get(b)!;
  expect(cache.get(a)).toBe(ma); // a is now the most recently used
  cache.get(c); // over budget: b goes, a stays
  expect(cache.size).toBeLessThanOrEqual(size * 2);
  expect(cache.get(a)).toBe(ma);
  // b was evicted: encoded again, the same bytes in a new buffer.
  const again = cache.get(b)!;
  expect(again).not.toBe(mb);
  expect(again).toEqual(mb);
});

test('kinds without a protobuf message have none', () => {
  const cache = new ProtobufMessages(1 << 20);
  const cr = CachedObject.fromObject('/registry/example.com/widgets/default/w', 1, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }, defaultAttrs);
  expect(cache.get(cr)).toBeUndefined();
});

import { inRange, readRange, watchRange, withStartKey } from './keys.js';
import { isStorageError } from './types.js';

test('a trailing slash makes a watch a prefix watch that excludes siblings', () => {
  const prefix = watchRange('/registry/configmaps/a/');
  expect(inRange('/registry/configmaps/a/x', prefix)).toBe(true);
  expect(inRange('/registry/configmaps/ab/x', prefix)).toBe(false);
  expect(inRange('/registry/configmaps/a', prefix)).toBe(false);
  const key = watchRange('/registry/configmaps/a');
  expect(inRange('/registry/configmaps/a', key)).toBe(true);
  expect(inRange('/registry/configmaps/ab', key)).toBe(false);
  expect(inRange('/registry/configmaps/a/x', key)).toBe(false);
});

test('startKey narrows a prefix range and must lie inside it', () => {
  const r = readRange('/registry/pods/', true);
  expect(withStartKey(r, '/registry/pods/ns/b')).toEqual({ start: '/registry/pods/ns/b', end: '/registry/pods0' });
  expect(withStartKey(r, undefined)).toBe(r);
  let err: unknown;
  try {
    withStartKey(r, '/registry/services/x');
  } catch (e) {
    err = e;
  }
  expect(isStorageError(err, 'InvalidArgument')).toBe(true);
});

test('the empty prefix covers every key', () => {
  const all = readRange('', true);
  expect(inRange('/anything', all)).toBe(true);
  expect(inRange('\u00ff', all)).toBe(true);
});

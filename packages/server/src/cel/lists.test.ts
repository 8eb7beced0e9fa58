/** kube's lists library and cel-go's lists (version 3) and sets extensions, as kube 1.35 binds them. */
import { expectCases } from './testhelpers.js';

test('kube\'s lists library: isSorted, sum, min, max, indexOf, lastIndexOf', () => {
  expectCases([
    ['[1, 2, 3].isSorted()', true],
    ['["a", "b", "b", "c"].isSorted()', true],
    ['[2.0, 1.0].isSorted()', false],
    ['[].isSorted()', true],
    ['[1, 2, 3].sum()', 6n],
    ['[1.5, 2.5].sum()', 4],
    ['[duration("1s"), duration("500ms")].sum() == duration("1.5s")', true],
    ['[9223372036854775807, 1].sum()', { error: 'integer overflow' }],
    ['[3, 1, 2].min()', 1n],
    ['["b", "a", "c"].max()', 'c'],
    ['[timestamp("2024-01-01T00:00:00Z"), timestamp("2023-01-01T00:00:00Z")].min() == timestamp("2023-01-01T00:00:00Z")', true],
    ['[].min()', { error: 'min called on empty list' }],
    ['[].max()', { error: 'max called on empty list' }],
    ['[1, 2, 3, 2].indexOf(2)', 1n],
    ['[1, 2, 3, 2].lastIndexOf(2)', 3n],
    ['["a"].indexOf("z")', -1n],
    ['[[1], [2]].indexOf([2])', 1n],
    ['"abcabc".indexOf("c")', 2n],
  ]);
});

test('cel-go\'s lists extension: slice, flatten, sort, distinct, reverse, lists.range', () => {
  expectCases([
    ['[1, 2, 3, 4].slice(1, 3)', [2n, 3n]],
    ['[1, 2, 3, 4].slice(2, 4)', [3n, 4n]],
    ['[1, 2].slice(-1, 1)', { error: 'cannot slice(-1, 1), negative indexes not supported' }],
    ['[1, 2].slice(2, 1)', { error: 'cannot slice(2, 1), start index must be less than or equal to end index' }],
    ['[1, 2].slice(0, 3)', { error: 'cannot slice(0, 3), list is length 2' }],
    ['[1, [2, 3], [4]].flatten()', [1n, 2n, 3n, 4n]],
    ['[1, [2, [3, 4]]].flatten()', [1n, 2n, [3n, 4n]]],
    ['[1, 2, [], [], [3, 4]].flatten()', [1n, 2n, 3n, 4n]],
    ['[1, [2, [3, [4]]]].flatten(2)', [1n, 2n, 3n, [4n]]],
    ['[1, [2, [3, [4]]]].flatten(-1)', { error: 'level must be non-negative' }],
    ['[3, 2, 1].sort()', [1n, 2n, 3n]],
    ['["b", "c", "a"].sort()', ['a', 'b', 'c']],
    ['[1, "b"].sort()', { error: 'list elements must have the same type' }],
    ['[[1, 2, 3]].sort()', { error: 'list elements must be comparable' }],
    ['[1, 2, 2, 3, 3, 3].distinct()', [1n, 2n, 3n]],
    ['["b", "b", "c", "a", "c"].distinct()', ['b', 'c', 'a']],
    ['[1, "b", 2, "b"].distinct()', [1n, 'b', 2n]],
    ['[5, 3, 1, 2].reverse()', [2n, 1n, 3n, 5n]],
    ['lists.range(5)', [0n, 1n, 2n, 3n, 4n]],
  ]);
});

test('cel-go\'s sets extension: contains, equivalent, intersects by CEL equality', () => {
  expectCases([
    ['sets.contains([], [])', true],
    ['sets.contains([1, 2, 3, 4], [2, 3])', true],
    ['sets.contains([1, 2, 3], [4])', false],
    ['sets.contains([1, 2.0, 3u], [1.0, 2u, 3])', true],
    ['sets.contains([[1], [2, 3]], [[2, 3.0]])', true],
    ['sets.equivalent([1, 2, 3], [3u, 2.0, 1])', true],
    ['sets.equivalent([1, 2], [2, 2, 1])', true],
    ['sets.equivalent([1, 2], [1, 2, 3])', false],
    ['sets.intersects([1], [1, 2])', true],
    ['sets.intersects([1, 2], [3])', false],
    ['sets.intersects([], [])', false],
  ]);
});

test('sortBy(e, key) sorts by each element\'s key, as cel-go\'s lists macro expands it', () => {
  expectCases([
    ['[3, 1, 2].sortBy(x, -x)', [3n, 2n, 1n]],
    ['[{"n": "b", "p": 2}, {"n": "a", "p": 1}].sortBy(e, e.p).map(e, e.n)', ['a', 'b']],
    ['["bb", "a", "ccc"].sortBy(s, size(s))', ['a', 'bb', 'ccc']],
    ['[].sortBy(x, x)', []],
    // The list is evaluated once; keys of kinds that do not compare are an error.
    ['[1, 2].sortBy(x, x == 1 ? "a" : 1)', { error: expect.any(String) }],
  ]);
});

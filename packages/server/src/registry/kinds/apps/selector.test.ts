import { labelSelectorConvertible, labelSelectorIsEmpty, labelSelectorJSON, selectorHasInvalidLabelValue, sortedMap } from './selector.js';

describe('workload selectors', () => {
  test('what LabelSelectorAsSelector refuses', () => {
    expect(labelSelectorConvertible(undefined)).toBe(true);
    expect(labelSelectorConvertible({})).toBe(true);
    expect(labelSelectorConvertible({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'Exists' }] })).toBe(true);
    expect(labelSelectorConvertible({ matchLabels: { 'bad key!': 'web' } })).toBe(false);
    expect(labelSelectorConvertible({ matchLabels: { app: 'bad value' } })).toBe(false);
    expect(labelSelectorConvertible({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] })).toBe(false);
    expect(labelSelectorConvertible({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] })).toBe(false);
    expect(labelSelectorConvertible({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] })).toBe(false);
  });

  test('JSON as encoding/json prints a *metav1.LabelSelector and a map', () => {
    expect(labelSelectorJSON(null)).toBeNull();
    expect(labelSelectorJSON({ matchLabels: {}, matchExpressions: [] })).toEqual({});
    expect(JSON.stringify(labelSelectorJSON({ matchExpressions: [{ operator: 'Exists', key: 'a', values: [] }], matchLabels: { b: '1', a: '2' } })))
      .toBe('{"matchLabels":{"a":"2","b":"1"},"matchExpressions":[{"key":"a","operator":"Exists"}]}');
    expect(JSON.stringify(sortedMap({ z: '1', a: '2' }))).toBe('{"a":"2","z":"1"}');
    expect(sortedMap(undefined)).toBeNull();
  });

  test('emptiness and invalid expression values', () => {
    expect(labelSelectorIsEmpty({ matchLabels: {} })).toBe(true);
    expect(labelSelectorIsEmpty({ matchLabels: { a: 'b' } })).toBe(false);
    expect(selectorHasInvalidLabelValue({ matchLabels: { a: 'b c' } })).toBe(false);
    expect(selectorHasInvalidLabelValue({ matchExpressions: [{ key: 'a', operator: 'In', values: ['b c'] }] })).toBe(true);
  });
});

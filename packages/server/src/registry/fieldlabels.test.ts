import { parseFieldSelector, parseLabelSelector } from '@windlass/machinery';
import { fieldLabelConversion } from './fieldlabels.js';
import { builtinDefinitions } from './builtins.js';
import { objectAttrs, objectMatcher } from './matcher.js';
import type { ResourceDefinition } from './types.js';

const def = (group: string, version: string, kind: string, extra: Partial<ResourceDefinition> = {}) => ({ group, version, kind, namespaced: true, ...extra }) as ResourceDefinition;

describe('field label conversion per served kind (kube 1.35 conversion funcs)', () => {
  test('kinds without a conversion func accept metadata only, with the default message', () => {
    const convert = fieldLabelConversion(def('apps', 'v1', 'ReplicaSet'));
    expect(convert('metadata.name')).toBe('metadata.name');
    expect(convert('status.replicas')).toEqual({ error: '"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"' });
  });

  test('events.k8s.io/v1 takes its own field names and maps them onto the stored core fields', () => {
    const convert = fieldLabelConversion(def('events.k8s.io', 'v1', 'Event'));
    expect(convert('regarding.name')).toBe('involvedObject.name');
    expect(convert('reportingController')).toBe('reportingComponent');
    expect(convert('involvedObject.name')).toEqual({ error: 'field label not supported: involvedObject.name' });
  });

  test('resource.k8s.io/v1 ResourceSlice names its kind in the refusal', () => {
    expect(fieldLabelConversion(def('resource.k8s.io', 'v1', 'ResourceSlice'))('spec.pool')).toEqual({ error: 'field label not supported for resource.k8s.io/v1, Kind=ResourceSlice: spec.pool' });
  });

  test('custom resources accept their selectableFields; a cluster-scoped one no namespace', () => {
    const convert = fieldLabelConversion(def('example.com', 'v1', 'Widget', { namespaced: false, selectableFields: { 'spec.color': () => '' } }));
    expect(convert('spec.color')).toBe('spec.color');
    expect(convert('metadata.namespace')).toEqual({ error: 'field label not supported: metadata.namespace' });
  });

  test('the matcher applies the served version\'s conversion to the stored attributes', () => {
    const core = def('', 'v1', 'Event');
    const m = objectMatcher(core, parseLabelSelector(''), parseFieldSelector('regarding.name=p,type!=Warning'), def('events.k8s.io', 'v1', 'Event'));
    expect(m.matches({ labels: {}, fields: { 'involvedObject.name': 'p', type: 'Normal' } })).toBe(true);
    expect(m.matches({ labels: {}, fields: { 'involvedObject.name': 'q', type: 'Normal' } })).toBe(false);
    expect(() => objectMatcher(core, parseLabelSelector(''), parseFieldSelector('regarding.name=p'))).toThrow('field label not supported: regarding.name');
  });
});

test('every field label a built-in kind\'s conversion accepts is one its objects carry (else a selector on it matches nothing)', () => {
  const missing: string[] = [];
  for (const d of builtinDefinitions()) {
    for (const label of fieldLabelConversion(d).labels ?? []) {
      if (label === 'metadata.name' || label === 'metadata.namespace') continue;
      // kube's pod conversion accepts status.podIPs but ToSelectableFields never sets it: it matches "" only.
      if (d.kind === 'Pod' && label === 'status.podIPs') continue;
      // events.k8s.io/v1's labels name the stored core/v1 Event's fields.
      const stored = d.group === 'events.k8s.io' ? builtinDefinitions().find((x) => x.group === '' && x.kind === 'Event')! : d;
      if (!stored.selectableFields?.[label]) missing.push(`${d.group}/${d.version}/${d.kind} ${label}`);
    }
  }
  expect(missing).toEqual([]);
});

test('Services select on spec.type and spec.clusterIP, Secrets on type (kube\'s SelectableFields)', () => {
  const byKind = (kind: string) => builtinDefinitions().find((x) => x.group === '' && x.kind === kind)!;
  const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'a', namespace: 'n' }, spec: { type: 'NodePort', clusterIP: '10.96.0.9' } };
  const attrs = objectAttrs(byKind('Service'))(svc as never);
  expect(objectMatcher(byKind('Service'), parseLabelSelector(''), parseFieldSelector('spec.type=NodePort,spec.clusterIP=10.96.0.9')).matches(attrs)).toBe(true);
  expect(objectMatcher(byKind('Service'), parseLabelSelector(''), parseFieldSelector('spec.type=ClusterIP')).matches(attrs)).toBe(false);
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'n' }, type: 'kubernetes.io/tls' };
  expect(objectMatcher(byKind('Secret'), parseLabelSelector(''), parseFieldSelector('type=kubernetes.io/tls')).matches(objectAttrs(byKind('Secret'))(secret as never))).toBe(true);
});

/**
 * Strategic merge patches exactly as kubectl 1.32 sends them (bodies captured from
 * `kubectl apply`, `kubectl patch`) for ConfigMap, Namespace and Secret, applied to
 * the live objects kubectl had read.
 */
import type { PatchMetaLookup } from '@windlass/machinery';
import { applyStrategicMergePatch } from './index.js';

// The ObjectMeta markers of the Kubernetes schema (the schemas package derives the same).
const coreLookup: PatchMetaLookup = (path) => {
  switch (path.join('.')) {
    case 'metadata.finalizers':
      return { patchStrategy: 'merge' };
    case 'metadata.ownerReferences':
      return { patchStrategy: 'merge', patchMergeKey: 'uid' };
    default:
      return {};
  }
};

const smp = (live: object, body: string) => applyStrategicMergePatch(live, Buffer.from(body), coreLookup);

const lastApplied = (o: object) => `${JSON.stringify(o)}\n`;

describe('kubectl apply (client-side) on a ConfigMap', () => {
  const applied1 = {
    apiVersion: 'v1',
    data: { a: '1', b: '2' },
    kind: 'ConfigMap',
    metadata: { annotations: {}, finalizers: ['example.com/a', 'example.com/b'], labels: { app: 'web', tier: 'a' }, name: 'demo', namespace: 'default' },
  };
  const applied2 = {
    apiVersion: 'v1',
    data: { a: '1', c: '3' },
    kind: 'ConfigMap',
    metadata: { annotations: {}, finalizers: ['example.com/c', 'example.com/a'], labels: { app: 'web2' }, name: 'demo', namespace: 'default' },
  };
  const live = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'demo',
      namespace: 'default',
      uid: 'uid-1',
      resourceVersion: '2',
      creationTimestamp: '2024-01-01T00:00:00Z',
      labels: { app: 'web', tier: 'a', 'added-by': 'controller' },
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied(applied1), other: 'kept' },
      finalizers: ['example.com/a', 'example.com/server', 'example.com/b'],
    },
    data: { a: '1', b: '2' },
  };
  // What kubectl 1.32 sent for `kubectl apply -f` of applied2 over applied1.
  const body = JSON.stringify({
    data: { b: null, c: '3' },
    metadata: {
      '$deleteFromPrimitiveList/finalizers': ['example.com/b'],
      '$setElementOrder/finalizers': ['example.com/c', 'example.com/a'],
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied(applied2) },
      finalizers: ['example.com/c'],
      labels: { app: 'web2', tier: null },
    },
  });

  test('merges data, labels, annotations and the finalizer list as kube does', () => {
    expect(smp(live, body)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'demo',
        namespace: 'default',
        uid: 'uid-1',
        resourceVersion: '2',
        creationTimestamp: '2024-01-01T00:00:00Z',
        labels: { app: 'web2', 'added-by': 'controller' },
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied(applied2), other: 'kept' },
        // Applied items follow $setElementOrder; the server-only finalizer keeps its place after its live predecessor.
        finalizers: ['example.com/c', 'example.com/a', 'example.com/server'],
      },
      data: { a: '1', c: '3' },
    });
  });

  test('leaves the live object untouched', () => {
    const before = JSON.stringify(live);
    smp(live, body);
    expect(JSON.stringify(live)).toBe(before);
  });

  test('an unchanged re-apply patch only rewrites the annotation', () => {
    const out = smp(live, JSON.stringify({ metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied(applied1) } } }));
    expect(out).toEqual(live);
  });
});

describe('kubectl apply with ownerReferences (merge key uid)', () => {
  const live = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'owned',
      namespace: 'default',
      ownerReferences: [
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'demo', uid: 'uid-1' },
        { apiVersion: 'v1', kind: 'Secret', name: 's1', uid: 'uid-9', controller: true },
      ],
    },
    data: { k: 'v' },
  };
  const body = JSON.stringify({
    metadata: {
      '$setElementOrder/ownerReferences': [{ uid: 'uid-9' }, { uid: 'uid-7' }],
      ownerReferences: [
        { controller: false, uid: 'uid-9' },
        { apiVersion: 'v1', kind: 'Namespace', name: 'default', uid: 'uid-7' },
        { $patch: 'delete', uid: 'uid-1' },
      ],
    },
  });

  test('deletes by uid, merges the changed entry and appends the new one in order', () => {
    expect((smp(live, body) as typeof live).metadata.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Secret', name: 's1', uid: 'uid-9', controller: false },
      { apiVersion: 'v1', kind: 'Namespace', name: 'default', uid: 'uid-7' },
    ]);
  });
});

describe('kubectl apply on a Namespace and a Secret', () => {
  test('null removes a whole field (spec) and a map entry (stringData)', () => {
    const ns = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team-a', labels: { team: 'a' }, annotations: { 'kubectl.kubernetes.io/last-applied-configuration': 'old\n' } },
      spec: { finalizers: ['kubernetes'] },
    };
    const out = smp(ns, JSON.stringify({
      metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': 'new\n', owner: 'me' }, labels: { env: 'prod' } },
      spec: null,
    }));
    expect(out).toEqual({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team-a', labels: { team: 'a', env: 'prod' }, annotations: { 'kubectl.kubernetes.io/last-applied-configuration': 'new\n', owner: 'me' } },
    });

    const secret = { apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { name: 's1' }, data: { pass: 'cGFzcw==', user: 'YWRtaW4=' } };
    expect(smp(secret, JSON.stringify({ data: { pass: 'bmV3', user: null }, stringData: null }))).toEqual({
      apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { name: 's1' }, data: { pass: 'bmV3' },
    });
  });
});

describe('kubectl patch --type strategic', () => {
  const live = { metadata: { name: 'demo', finalizers: ['a', 'b'], labels: { x: '1' } }, data: { a: '1' } };

  test('an empty list does not clear a merge list, null does', () => {
    expect(smp(live, '{"metadata":{"finalizers":[]}}')).toEqual(live);
    expect(smp(live, '{"metadata":{"finalizers":null}}')).toEqual({ metadata: { name: 'demo', labels: { x: '1' } }, data: { a: '1' } });
  });

  test('a primitive merge list is a union; without $setElementOrder new items go first', () => {
    expect((smp(live, '{"metadata":{"finalizers":["c","a"]}}') as typeof live).metadata.finalizers).toEqual(['c', 'a', 'b']);
    expect((smp(live, '{"metadata":{"finalizers":["c"]}}') as typeof live).metadata.finalizers).toEqual(['c', 'a', 'b']);
    expect((smp(live, '{"metadata":{"finalizers":["b","b"]}}') as typeof live).metadata.finalizers).toEqual(['a', 'b']);
  });

  test('$patch: replace and delete on maps', () => {
    expect(smp(live, '{"metadata":{"labels":{"$patch":"replace","y":"2"}}}')).toEqual({ ...live, metadata: { ...live.metadata, labels: { y: '2' } } });
    expect(smp(live, '{"data":{"$patch":"delete"}}')).toEqual({ ...live, data: {} });
  });
});

/** Objects the apps tests start from: what a client sends, plus a pod template kube would accept once defaulted. */
import type { KubeObject } from '../../types.js';

/** A template whose pod spec already carries kube's defaults, so it is valid with or without them applied. */
export function podTemplate(labels: Record<string, string> = { app: 'web' }): Record<string, unknown> {
  return {
    metadata: { labels },
    spec: {
      containers: [{ name: 'app', image: 'registry.example.com/team/app:1.4.2', imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' }],
      restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler', terminationGracePeriodSeconds: 30, securityContext: {},
    },
  };
}

export function workload(kind: string, name: string, spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'apps/v1', kind,
    metadata: { name, namespace: 'ns', uid: 'u1', resourceVersion: '5', generation: 1, creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { selector: { matchLabels: { app: 'web' } }, template: podTemplate(), ...spec },
  };
}

/** A deep copy, as a client's next write would start from the stored object. */
export const clone = <T>(v: T): T => structuredClone(v);

/** `path: detail` of each error, the way kube's message joins them. */
export const rendered = (errs: Array<{ field: string; detail: string }>): string[] => errs.map((e) => `${e.field}: ${e.detail}`);

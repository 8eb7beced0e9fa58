import type { KubeObject } from '../../types.js';
import { validateEventCreate } from '../core/events.js';
import { eventFromStorage, eventsAPIEvents, eventToStorage } from './events.js';

const v1 = {
  apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'web.1', namespace: 'ns' },
  eventTime: '2026-01-02T03:04:05.000000Z', reportingController: 'example.com/operator', reportingInstance: 'op-1', action: 'Reconcile', reason: 'Synced',
  type: 'Normal', note: 'synced', regarding: { kind: 'Deployment', name: 'web', namespace: 'ns', apiVersion: 'apps/v1' }, related: { kind: 'Pod', name: 'p' },
  series: { count: 2, lastObservedTime: '2026-01-02T03:05:05.000000Z' },
  deprecatedSource: { component: 'c' }, deprecatedFirstTimestamp: '2026-01-01T00:00:00Z', deprecatedLastTimestamp: null, deprecatedCount: 3,
} as unknown as KubeObject;

describe('events.k8s.io/v1 ⇄ core/v1', () => {
  test('to the stored core form and back', () => {
    const core = eventToStorage(structuredClone(v1));
    expect(core).toEqual({
      apiVersion: 'v1', kind: 'Event', metadata: v1.metadata, eventTime: v1.eventTime, reportingComponent: 'example.com/operator', reportingInstance: 'op-1',
      action: 'Reconcile', reason: 'Synced', type: 'Normal', message: 'synced', involvedObject: v1.regarding, related: v1.related, series: v1.series,
      source: { component: 'c' }, firstTimestamp: '2026-01-01T00:00:00Z', lastTimestamp: null, count: 3,
    });
    expect(eventFromStorage(core)).toEqual(v1);
  });

  test('a stored core event shows the events API\'s zero values, not core\'s', () => {
    const stored = {
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', namespace: 'ns' }, involvedObject: {}, source: {}, firstTimestamp: null, lastTimestamp: null,
      eventTime: null, reportingComponent: '', reportingInstance: '', reason: 'Started',
    } as unknown as KubeObject;
    expect(eventFromStorage(stored)).toEqual({
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e', namespace: 'ns' }, regarding: {}, deprecatedSource: {},
      deprecatedFirstTimestamp: null, deprecatedLastTimestamp: null, eventTime: null, reason: 'Started',
    });
  });

  test('writes through events.k8s.io are validated strictly, with its field names', () => {
    const { action: _a, ...noAction } = v1 as Record<string, unknown>;
    const core = eventToStorage(structuredClone(noAction) as KubeObject);
    expect(validateEventCreate(core).map((e) => e.field)).toEqual(['action', 'firstTimestamp', 'count', 'source']);
  });

  test('the table prints the object and message from regarding and note, as kube prints the internal event', () => {
    const cells = eventsAPIEvents.table!.cells(eventFromStorage(eventToStorage(structuredClone(v1))));
    expect(cells).toContain('deployment/web');
    expect(cells).toContain('synced');
    expect(cells).toContain('c, op-1');
    expect(cells.at(-1)).toBe('web.1');
  });
});

/**
 * events.k8s.io/v1 Events: the core/v1 Events served in the events API's shape. One stored
 * object (core/v1, kube's storage version) is converted both ways with the field mapping of
 * pkg/apis/events/v1's conversion; writes through this version are validated strictly.
 */
import type { KindDefinition, KubeObject } from '../../types.js';
import { eventTable, markEventsAPIWrite, type CoreEvent } from '../core/events.js';

/** Fields of events.k8s.io/v1 Event and the core/v1 fields they are stored in. */
const renamed: Array<[string, string]> = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];
const shared = ['metadata', 'eventTime', 'series', 'reportingInstance', 'action', 'reason', 'related', 'type'];

/** Convert_v1_Event_To_core_Event. */
function eventToCore(obj: KubeObject): KubeObject {
  const src = obj as Record<string, unknown>;
  const out: Record<string, unknown> = { apiVersion: 'v1', kind: 'Event' };
  for (const f of shared) if (src[f] !== undefined) out[f] = src[f];
  for (const [events, core] of renamed) if (src[events] !== undefined) out[core] = src[events];
  return out as KubeObject;
}

/** A body of this version in the stored (core/v1) form, validated as the events API validates. */
export function eventToStorage(obj: KubeObject): KubeObject {
  return markEventsAPIWrite(eventToCore(obj));
}

/** Values Go leaves out of this version's JSON (omitempty strings and numbers). */
const omitEmpty = new Set(['reportingController', 'reportingInstance', 'action', 'reason', 'note', 'type', 'deprecatedCount']);

/** Convert_core_Event_To_v1_Event: a stored event as this version shows it. */
export function eventFromStorage(obj: KubeObject): KubeObject {
  const src = obj as CoreEvent as Record<string, unknown>;
  const out: Record<string, unknown> = { apiVersion: 'events.k8s.io/v1', kind: 'Event' };
  for (const f of shared) if (src[f] !== undefined) out[f] = src[f];
  for (const [events, core] of renamed) if (src[core] !== undefined) out[events] = src[core];
  for (const f of omitEmpty) if (out[f] === '' || out[f] === 0) delete out[f];
  return out as KubeObject;
}

const conversion = { storageVersion: 'v1', storageGroup: '', toStorage: eventToStorage, fromStorage: eventFromStorage };

export const eventsAPIEvents: KindDefinition = {
  group: 'events.k8s.io', version: 'v1', resource: 'events',
  // The stored form is core/v1's (group ''), whose definition validates both versions' writes.
  conversion,
  // kube prints the internal (core-shaped) event whichever version is served: OBJECT and
  // MESSAGE come from regarding and note here.
  table: { ...eventTable, cells: (obj) => eventTable.cells(eventToCore(obj)) },
};

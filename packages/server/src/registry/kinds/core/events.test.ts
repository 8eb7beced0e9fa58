import type { KubeObject } from '../../types.js';
import { eventTable, events, markEventsAPIWrite, validateEventCreate, validateEventUpdate } from './events.js';

const messages = (errs: Array<{ field: string; detail: string }>) => errs.map((e) => `${e.field}: ${e.detail}`);
const event = (fields: Record<string, unknown>, name = 'web.1'): KubeObject => ({ apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: 'ns' }, ...fields });
const involved = { kind: 'Pod', name: 'web', namespace: 'ns' };

describe('core/v1 Event validation (legacy rules)', () => {
  test('any name, any type; the involved object must be in the event\'s namespace', () => {
    expect(events.strategy!.nameValidator!('Bad_Name', false)).toEqual([]);
    expect(validateEventCreate(event({ involvedObject: involved, reason: 'Started', type: 'Info' }))).toEqual([]);
    expect(messages(validateEventCreate(event({ involvedObject: { ...involved, namespace: 'kube-public' } })))).toEqual(['involvedObject.namespace: Invalid value: "kube-public": does not match event.namespace']);
  });

  test('an eventTime makes it a new-style event: reporting fields and action required, named as core/v1 names them', () => {
    expect(messages(validateEventCreate(event({ involvedObject: involved, reason: 'Started', eventTime: '2026-01-02T03:04:05.000000Z' })))).toEqual([
      'reportingComponent: Required value',
      'reportingComponent: Invalid value: "": name part must be non-empty',
      "reportingComponent: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      'reportingInstance: Required value',
      'action: Required value',
    ]);
  });
});

describe('events.k8s.io/v1 writes (strict rules)', () => {
  const strict = (fields: Record<string, unknown>, name?: string) => markEventsAPIWrite(event(fields, name));
  const valid = { involvedObject: involved, eventTime: '2026-01-02T03:04:05.000000Z', reportingComponent: 'example.com/operator', reportingInstance: 'op-1', action: 'Reconcile', reason: 'Synced', type: 'Normal' };

  test('kube\'s messages', () => {
    expect(validateEventCreate(strict(valid))).toEqual([]);
    const { eventTime: _t, ...noTime } = valid;
    expect(messages(validateEventCreate(strict(noTime)))).toEqual(['eventTime: Required value']);
    expect(messages(validateEventCreate(strict({ ...valid, type: 'Info' })))).toEqual(['type: Invalid value: "": has invalid value: Info']);
    expect(messages(validateEventCreate(strict({ ...valid, reportingComponent: '' })))[0]).toBe('reportingController: Required value');
    expect(messages(validateEventCreate(strict(valid, 'Bad_Name')))[0]).toMatch(/^metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
    expect(messages(validateEventCreate(strict({ ...valid, series: { count: 1 }, count: 3, firstTimestamp: '2026-01-01T00:00:00Z' })))).toEqual([
      'series.count: Invalid value: "": should be at least 2', 'series.lastObservedTime: Required value',
      'firstTimestamp: Invalid value: "": needs to be unset', 'count: Invalid value: "": needs to be unset',
    ]);
    expect(messages(validateEventUpdate(strict({ ...valid, reason: 'Other' }), event(valid)))).toEqual(['reason: Invalid value: "Other": field is immutable', 'reason: Invalid value: "Other": field is immutable']);
  });
});

describe('Event field selectors and table', () => {
  test('selectable fields', () => {
    const e = event({ involvedObject: { ...involved, uid: 'u1', fieldPath: 'spec.containers{app}' }, reason: 'Started', type: 'Warning', reportingComponent: 'kubelet' });
    const f = Object.fromEntries(Object.entries(events.selectableFields!).map(([k, fn]) => [k, fn(e)]));
    expect(f).toEqual({
      'involvedObject.kind': 'Pod', 'involvedObject.namespace': 'ns', 'involvedObject.name': 'web', 'involvedObject.uid': 'u1', 'involvedObject.apiVersion': '',
      'involvedObject.resourceVersion': '', 'involvedObject.fieldPath': 'spec.containers{app}', reason: 'Started', reportingComponent: 'kubelet', source: 'kubelet', type: 'Warning',
    });
  });

  test('table cells: last seen, type, reason, object, subobject, source, message, first seen, count, and the name last', () => {
    expect(eventTable.ownNameColumn).toBe(true);
    expect(eventTable.columns.map((c) => `${c.name}/${c.priority}`)).toEqual(['Last Seen/0', 'Type/0', 'Reason/0', 'Object/0', 'Subobject/1', 'Source/1', 'Message/0', 'First Seen/1', 'Count/1', 'Name/1']);
    const e = event({ involvedObject: involved, reason: 'Started', type: 'Normal', message: ' hi ', source: { component: 'kubelet', host: 'node-a' } });
    expect(eventTable.cells(e)).toEqual(['<unknown>', 'Normal', 'Started', 'pod/web', '', 'kubelet, node-a', 'hi', '<unknown>', 1, e.metadata.name]);
    const series = event({ involvedObject: { kind: 'Node' }, series: { count: 4, lastObservedTime: new Date().toISOString() }, eventTime: new Date().toISOString() });
    expect(eventTable.cells(series)).toEqual(['0s', '', '', 'node', '', '', '', '0s', 4, series.metadata.name]);
  });
});

/**
 * core/v1 Events, the storage form of events.k8s.io/v1 Events too: kube's
 * ValidateEventCreate / ValidateEventUpdate (legacy rules for core/v1 writes, the strict
 * ones for events.k8s.io/v1 writes), the event field selectors and the event printer.
 */
import { fieldErr, isDNS1123Subdomain, isQualifiedName, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject, TableConvertor } from '../../types.js';
import { column, nameColumn } from '../common.js';
import { humanDuration } from '../../age.js';
import { nameIsDNSSubdomain } from '../../names.js';

export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

export type CoreEvent = KubeObject & {
  involvedObject?: ObjectReference;
  reason?: string;
  message?: string;
  source?: { component?: string; host?: string };
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  count?: number;
  type?: string;
  eventTime?: string | null;
  series?: { count?: number; lastObservedTime?: string | null } | null;
  action?: string;
  related?: ObjectReference | null;
  reportingComponent?: string;
  reportingInstance?: string;
};

/**
 * Events written through events.k8s.io/v1 (converted to this form by that version's
 * conversion): kube validates them strictly, core/v1 writes only by the legacy rules.
 */
const strictEvents = new WeakSet<object>();

export function markEventsAPIWrite(obj: KubeObject): KubeObject {
  strictEvents.add(obj);
  return obj;
}

const reportingInstanceLengthLimit = 128;
const actionLengthLimit = 128;
const reasonLengthLimit = 128;
const noteLengthLimit = 1024;

const isZeroTime = (t: unknown) => t === undefined || t === null || t === '';

/** legacyValidateEvent; the reporting controller's field is named as the request's version names it. */
function legacyValidateEvent(e: CoreEvent, strict: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ns = e.metadata.namespace ?? '';
  const involvedNs = e.involvedObject?.namespace ?? '';
  const controller = strict ? 'reportingController' : 'reportingComponent';
  if (isZeroTime(e.eventTime)) {
    if (involvedNs === '') {
      if (ns !== '' && ns !== 'default') errs.push(fieldErr.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
    } else if (ns !== involvedNs) {
      errs.push(fieldErr.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
    }
  } else {
    if (involvedNs === '' && ns !== 'default' && ns !== 'kube-system') errs.push(fieldErr.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
    const rc = e.reportingComponent ?? '';
    if (rc === '') errs.push(fieldErr.required(controller));
    for (const msg of isQualifiedName(rc)) errs.push(fieldErr.invalid(controller, rc, msg));
    const ri = e.reportingInstance ?? '';
    if (ri === '') errs.push(fieldErr.required('reportingInstance'));
    if (ri.length > reportingInstanceLengthLimit) errs.push(fieldErr.invalid('reportingInstance', '', `can have at most ${reportingInstanceLengthLimit} characters`));
    const action = e.action ?? '';
    if (action === '') errs.push(fieldErr.required('action'));
    if (action.length > actionLengthLimit) errs.push(fieldErr.invalid('action', '', `can have at most ${actionLengthLimit} characters`));
    const reason = e.reason ?? '';
    if (reason === '') errs.push(fieldErr.required('reason'));
    if (reason.length > reasonLengthLimit) errs.push(fieldErr.invalid('reason', '', `can have at most ${reasonLengthLimit} characters`));
    if ((e.message ?? '').length > noteLengthLimit) errs.push(fieldErr.invalid('message', '', `can have at most ${noteLengthLimit} characters`));
  }
  for (const msg of isDNS1123Subdomain(ns)) errs.push(fieldErr.invalid('namespace', ns, msg));
  return errs;
}

function validateSeries(e: CoreEvent): FieldError[] {
  if (!e.series) return [];
  const errs: FieldError[] = [];
  if ((e.series.count ?? 0) < 2) errs.push(fieldErr.invalid('series.count', '', 'should be at least 2'));
  if (isZeroTime(e.series.lastObservedTime)) errs.push(fieldErr.required('series.lastObservedTime'));
  return errs;
}

/** The name rule kube applies to events.k8s.io/v1 writes (core/v1 accepts any name). */
function strictNameErrors(e: CoreEvent): FieldError[] {
  const name = e.metadata.name ?? '';
  if (name === '') return [];
  return nameIsDNSSubdomain(name, false).map((msg) => fieldErr.invalid('metadata.name', name, msg));
}

/** ValidateEventCreate (without the metadata checks every kind gets from the Store). */
export function validateEventCreate(obj: KubeObject): FieldError[] {
  const e = obj as CoreEvent;
  const strict = strictEvents.has(obj);
  const errs = legacyValidateEvent(e, strict);
  if (!strict) return errs;
  errs.push(...strictNameErrors(e), ...validateSeries(e));
  if (isZeroTime(e.eventTime)) errs.push(fieldErr.required('eventTime'));
  if (e.type !== 'Normal' && e.type !== 'Warning') errs.push(fieldErr.invalid('type', '', `has invalid value: ${e.type ?? ''}`));
  if (!isZeroTime(e.firstTimestamp)) errs.push(fieldErr.invalid('firstTimestamp', '', 'needs to be unset'));
  if (!isZeroTime(e.lastTimestamp)) errs.push(fieldErr.invalid('lastTimestamp', '', 'needs to be unset'));
  if ((e.count ?? 0) !== 0) errs.push(fieldErr.invalid('count', '', 'needs to be unset'));
  if (e.source?.component || e.source?.host) errs.push(fieldErr.invalid('source', '', 'needs to be unset'));
  return errs;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** ValidateEventUpdate (without the metadata checks every kind gets from the Store). */
export function validateEventUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const e = obj as CoreEvent, o = old as CoreEvent;
  const strict = strictEvents.has(obj);
  const errs = legacyValidateEvent(e, strict);
  if (!strict) return errs;
  if (!same(e.series, o.series)) errs.push(...validateSeries(e));
  const immutable: Array<[keyof CoreEvent, string]> = [
    ['involvedObject', 'involvedObject'], ['reason', 'reason'], ['message', 'message'], ['source', 'source'],
    ['firstTimestamp', 'firstTimestamp'], ['lastTimestamp', 'lastTimestamp'], ['count', 'count'], ['reason', 'reason'],
    ['type', 'type'], ['eventTime', 'eventTime'], ['action', 'action'], ['related', 'related'],
    ['reportingComponent', 'reportingController'], ['reportingInstance', 'reportingInstance'],
  ];
  for (const [field, path] of immutable) {
    if (!same(e[field], o[field])) errs.push(fieldErr.invalid(path, e[field] ?? '', 'field is immutable'));
  }
  return errs;
}

/** The source a field selector and the printer show: the legacy source, else the reporting controller. */
function eventSource(e: CoreEvent): string {
  return e.source?.component || e.reportingComponent || '';
}

/** ToSelectableFields of core events (also what events.k8s.io/v1 lists and watches select on). */
export const eventSelectableFields: Record<string, (obj: KubeObject) => string | undefined> = {
  'involvedObject.kind': (o) => (o as CoreEvent).involvedObject?.kind ?? '',
  'involvedObject.namespace': (o) => (o as CoreEvent).involvedObject?.namespace ?? '',
  'involvedObject.name': (o) => (o as CoreEvent).involvedObject?.name ?? '',
  'involvedObject.uid': (o) => (o as CoreEvent).involvedObject?.uid ?? '',
  'involvedObject.apiVersion': (o) => (o as CoreEvent).involvedObject?.apiVersion ?? '',
  'involvedObject.resourceVersion': (o) => (o as CoreEvent).involvedObject?.resourceVersion ?? '',
  'involvedObject.fieldPath': (o) => (o as CoreEvent).involvedObject?.fieldPath ?? '',
  reason: (o) => (o as CoreEvent).reason ?? '',
  reportingComponent: (o) => (o as CoreEvent).reportingComponent ?? '',
  source: (o) => eventSource(o as CoreEvent),
  type: (o) => (o as CoreEvent).type ?? '',
};

function since(t: string | null | undefined, now: number): string {
  if (isZeroTime(t)) return '<unknown>';
  return humanDuration(now - Date.parse(t!));
}

/**
 * printEvent (wide, as the server prints). kube's event table has no leading Name column:
 * Name is its last, priority-1 column, so `kubectl get events` shows LAST SEEN first and
 * no NAME unless -o wide.
 */
export const eventTable: TableConvertor = {
  ownNameColumn: true,
  columns: [
    column('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.'),
    column('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future'),
    column('Reason', 'string', "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
    column('Object', 'string', 'The object that this event is about.'),
    column('Subobject', 'string', 'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.', 1),
    column('Source', 'string', 'The component reporting this event. Should be a short machine understandable string.', 1),
    column('Message', 'string', 'A human-readable description of the status of this operation.'),
    column('First Seen', 'string', 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)', 1),
    column('Count', 'string', 'The number of times this event has occurred.', 1),
    { ...nameColumn, priority: 1 },
  ],
  cells(obj) {
    const e = obj as CoreEvent;
    const now = Date.now();
    const first = isZeroTime(e.firstTimestamp) ? since(e.eventTime, now) : since(e.firstTimestamp, now);
    let last = isZeroTime(e.lastTimestamp) ? first : since(e.lastTimestamp, now);
    let count = e.count ?? 0;
    if (e.series) {
      last = since(e.series.lastObservedTime, now);
      count = e.series.count ?? 0;
    } else if (count === 0) count = 1;
    const ref = e.involvedObject ?? {};
    const target = ref.name ? `${(ref.kind ?? '').toLowerCase()}/${ref.name}` : (ref.kind ?? '').toLowerCase();
    const component = e.source?.component || e.reportingComponent || '';
    const instance = e.source?.host || e.reportingInstance || '';
    const source = instance ? `${component}, ${instance}` : component;
    return [last, e.type ?? '', e.reason ?? '', target, ref.fieldPath ?? '', source, (e.message ?? '').trim(), first, count, e.metadata.name ?? ''];
  },
};

export const events: KindDefinition = {
  group: '', version: 'v1', resource: 'events',
  strategy: {
    // core/v1 events are not held to a name rule; events.k8s.io/v1 ones are (validateEventCreate).
    nameValidator: () => [],
    validate: validateEventCreate,
    validateUpdate: validateEventUpdate,
  },
  selectableFields: eventSelectableFields,
  table: eventTable,
};

/**
 * The watch checker itself: a correct stream passes, and every kind of wrong stream a server
 * could produce (gap, duplicate, reordering, wrong type at a selector boundary, wrong start)
 * is reported. Pure logic, no server.
 */
import type { ObjectState } from './kubehttp.js';
import { History, type Ev, type Segment } from './watchcheck.js';

const obj = (name: string, rv: string, labels: Record<string, string> = {}, data: Record<string, string> = {}, namespace = 'ns'): ObjectState =>
  ({ namespace, name, uid: `uid-${namespace}-${name}`, resourceVersion: rv, labels, data });

const initial = [obj('a', '5', { color: 'red' }, { v: '0' })];
const events: Ev[] = [
  { type: 'ADDED', obj: obj('b', '11', { color: 'blue' }, { v: '1' }) },
  { type: 'MODIFIED', obj: obj('a', '12', { color: 'blue' }, { v: '2' }) }, // a leaves color=red
  { type: 'MODIFIED', obj: obj('b', '13', { color: 'red' }, { v: '3' }) }, // b enters color=red
  { type: 'DELETED', obj: obj('a', '14', { color: 'blue' }, { v: '2' }) },
  { type: 'ADDED', obj: obj('c', '15', { color: 'red' }, { v: '4' }, 'other') },
  { type: 'MODIFIED', obj: obj('b', '16', { color: 'red' }, { v: '5' }) },
];
const history = new History(initial, '10', events);
const red = { labelSelector: 'color=red' };
const seg = (events: Ev[], start: Segment['start'] = { kind: 'rv', rv: '10' }): Segment => ({ start, events });

test('a consistent history has no problems and filters as kube does', () => {
  expect(history.problems).toEqual([]);
  expect(history.expectedAfter(red, -1).map((e) => `${e.type} ${e.obj.name}@${e.obj.resourceVersion}`)).toEqual([
    'DELETED a@12', 'ADDED b@13', 'ADDED c@15', 'MODIFIED b@16',
  ]);
  // The DELETED for leaving the selection carries the previous content.
  expect(history.expectedAfter(red, -1)[0].obj.labels).toEqual({ color: 'red' });
  expect(history.expectedAfter({ namespace: 'ns', labelSelector: 'color in (blue)' }, 2).map((e) => e.type)).toEqual(['DELETED']);
  expect(history.expectedAfter({ labelSelector: '!color' }, -1)).toEqual([]);
  expect(history.expectedAfter({ fieldSelector: 'metadata.name=a' }, -1).map((e) => e.type)).toEqual(['MODIFIED', 'DELETED']);
});

test('correct streams pass: full, cut prefix, exact start, after a list, initial state', () => {
  const all = history.expectedAfter(red, -1);
  expect(history.checkWatcher(red, [seg(all)], true)).toEqual([]);
  expect(history.checkWatcher(red, [{ ...seg(all.slice(0, 2)), end: 'closed' }, seg(all.slice(2), { kind: 'rv', rv: '13' })], true)).toEqual([]);
  expect(history.checkWatcher({}, [seg(events.slice(3), { kind: 'rv', rv: '13' })], true)).toEqual([]);
  const listed = [...history.stateAt(2).values()];
  expect(history.checkWatcher({}, [seg(events.slice(3), { kind: 'list', rv: '13', items: listed })], true)).toEqual([]);
  const initialEvents: Ev[] = [...history.stateAt(1).values()].map((o) => ({ type: 'ADDED', obj: o }));
  expect(history.checkWatcher({}, [seg([...initialEvents.reverse(), ...events.slice(2)], { kind: 'initial', rv: '' })], true)).toEqual([]);
});

test('wrong streams are reported', () => {
  const all = history.expectedAfter(red, -1);
  const check = (evs: Ev[], start: Segment['start'] = { kind: 'rv', rv: '10' }) => history.checkWatcher(red, [seg(evs, start)], true).join('\n');
  expect(check([all[0], all[2], all[3]])).toMatch(/gap or reordering/);
  expect(check([all[0], all[1], all[1], all[2], all[3]])).toMatch(/duplicate/);
  expect(check([all[1], all[0], all[2], all[3]])).toMatch(/gap or reordering/);
  expect(check([...all, all[3]])).toMatch(/extra \(a duplicate\)/);
  expect(check(all.slice(0, 3))).toMatch(/missing 1 events/);
  // A MODIFIED where the object left the selection (kube: DELETED), or entered it (kube: ADDED).
  expect(check([{ ...all[0], type: 'MODIFIED' }, ...all.slice(1)])).toMatch(/expected DELETED ns\/a@12/);
  expect(check([all[0], { ...all[1], type: 'MODIFIED' }, ...all.slice(2)])).toMatch(/expected ADDED ns\/b@13/);
  // The leaving object's new content instead of its previous content.
  expect(check([{ type: 'DELETED', obj: events[1].obj }, ...all.slice(1)])).toMatch(/expected DELETED/);
  // Started from an unknown version, or from a list that never was the state.
  expect(check(all, { kind: 'rv', rv: '99' })).toMatch(/no event of the history carries/);
  expect(check(all, { kind: 'list', rv: '13', items: [obj('zz', '1')] })).toMatch(/matches no state/);
  // Initial state that never existed.
  expect(check([{ type: 'ADDED', obj: obj('b', '11', { color: 'red' }) }], { kind: 'initial', rv: '0' })).toMatch(/initial event 0/);
});

test('an inconsistent history is reported', () => {
  const bad = new History(initial, '10', [events[0], events[0], { type: 'MODIFIED', obj: obj('zz', '20') }, { type: 'DELETED', obj: obj('a', '21', { color: 'red' }, { v: 'other' }) }]);
  expect(bad.problems.join('\n')).toMatch(/ADDED for an object that exists/);
  expect(bad.problems.join('\n')).toMatch(/repeats the resourceVersion/);
  expect(bad.problems.join('\n')).toMatch(/MODIFIED for an object that does not exist/);
  expect(bad.problems.join('\n')).toMatch(/DELETED object differs/);
});

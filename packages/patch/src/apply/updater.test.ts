// Scenarios from structured-merge-diff's merge/leaf_test.go and multiple_appliers_test.go
// (v6, HEAD of 2026-07), run the way its internal/fixture runs them: the live object
// starts as null, Apply keeps the live object when the result is undefined (a no-op).
import { Conflicts } from './conflict.js';
import { FieldSet, PathElement, makePath, type Path } from './fieldpath.js';
import { fieldSetToJSON } from './serialize.js';
import { list, scalar, struct } from './testschemas.js';
import type { JsonValue, SmdType } from './types.js';
import { MissingVersionError, Updater, type ManagedFields, type UpdaterOptions } from './updater.js';

const K = PathElement.keyByFields;
const P = makePath;
const S = (...paths: Path[]) => FieldSet.of(...paths);

const leafFields = struct({ numeric: scalar, string: scalar, bool: scalar });
const associativeList = struct({ list: list(struct({ name: scalar, value: scalar }), ['name']) });

type Op =
  | { apply: string; version: string; object: JsonValue; force?: boolean; conflicts?: [string, Path][] }
  | { update: string; version: string; object: JsonValue };

function run(type: SmdType, ops: Op[], opts: Partial<UpdaterOptions> = {}) {
  const u = new Updater({ type, ...opts });
  let live: JsonValue = null;
  let managers: ManagedFields = new Map();
  for (const op of ops) {
    if ('update' in op) {
      const r = u.Update(live, op.object, op.version, managers, op.update);
      live = r.object!;
      managers = r.managers;
      continue;
    }
    try {
      const r = u.Apply(live, op.object, op.version, managers, op.apply, op.force ?? false);
      if (op.conflicts) throw new Error('expected conflicts');
      if (r.object !== undefined) live = r.object;
      managers = r.managers;
    } catch (e) {
      if (!op.conflicts || !(e instanceof Conflicts)) throw e;
      expect(e.conflicts.map((c) => [c.manager, c.path.map(String).join('')])).toEqual(op.conflicts.map(([m, p]) => [m, p.map(String).join('')]));
    }
  }
  return { live, managers };
}

/** ManagedFields.Difference is empty: same managers, versions and sets (applied is not compared). */
function expectManaged(got: ManagedFields, want: Record<string, [FieldSet, string]>) {
  const flat = (m: Map<string, { set: FieldSet; apiVersion: string }>) =>
    Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, [fieldSetToJSON(v.set), v.apiVersion]]));
  expect(flat(got)).toEqual(flat(new Map(Object.entries(want).map(([k, [set, apiVersion]]) => [k, { set, apiVersion }]))));
  for (const vs of got.values()) expect(vs.set.empty()).toBe(false);
}

describe('Updater: leaf fields', () => {
  test('apply_twice', () => {
    const { live, managers } = run(leafFields, [
      { apply: 'default', version: 'v1', object: { numeric: 1, string: 'string' } },
      { apply: 'default', version: 'v1', object: { numeric: 2, string: 'string', bool: false } },
    ]);
    expect(live).toEqual({ numeric: 2, string: 'string', bool: false });
    expectManaged(managers, { default: [S(P('numeric'), P('string'), P('bool')), 'v1'] });
    expect(managers.get('default')!.applied).toBe(true);
  });

  test('apply_twice_different_versions', () => {
    const { managers } = run(leafFields, [
      { apply: 'default', version: 'v1', object: { numeric: 1, string: 'string' } },
      { apply: 'default', version: 'v2', object: { numeric: 2, string: 'string', bool: false } },
    ]);
    expectManaged(managers, { default: [S(P('numeric'), P('string'), P('bool')), 'v2'] });
  });

  test.each(['v1', 'v2'])('apply_update_apply_no_conflict (controller at %s)', (cv) => {
    const { live, managers } = run(leafFields, [
      { apply: 'default', version: 'v1', object: { numeric: 1, string: 'string' } },
      { update: 'controller', version: cv, object: { numeric: 1, string: 'string', bool: true } },
      { apply: 'default', version: 'v1', object: { numeric: 2, string: 'string' } },
    ]);
    expect(live).toEqual({ numeric: 2, string: 'string', bool: true });
    expectManaged(managers, { default: [S(P('numeric'), P('string')), 'v1'], controller: [S(P('bool')), cv] });
    expect(managers.get('controller')!.applied).toBe(false);
  });

  test.each(['v1', 'v2'])('apply_update_apply_with_conflict (controller at %s), then force', (cv) => {
    const { live, managers } = run(leafFields, [
      { apply: 'default', version: 'v1', object: { numeric: 1, string: 'string' } },
      { update: 'controller', version: cv, object: { numeric: 1, string: 'controller string', bool: true } },
      { apply: 'default', version: 'v1', object: { numeric: 2, string: 'user string' }, conflicts: [['controller', P('string')]] },
      { apply: 'default', version: 'v1', object: { numeric: 2, string: 'user string' }, force: true },
    ]);
    expect(live).toEqual({ numeric: 2, string: 'user string', bool: true });
    expectManaged(managers, { default: [S(P('numeric'), P('string')), 'v1'], controller: [S(P('bool')), cv] });
  });

  test.each(['v1', 'v2'])('apply_twice_remove (second apply at %s)', (v) => {
    const { live, managers } = run(leafFields, [
      { apply: 'default', version: 'v1', object: { numeric: 1, string: 'string', bool: false } },
      { apply: 'default', version: v, object: { string: 'new string' } },
    ]);
    expect(live).toEqual({ string: 'new string' });
    expectManaged(managers, { default: [S(P('string')), v] });
  });

  test('update_apply_omits', () => {
    const { live, managers } = run(leafFields, [
      { apply: 'default', version: 'v1', object: { numeric: 2 } },
      { update: 'controller', version: 'v1', object: { numeric: 1 } },
      { apply: 'default', version: 'v1', object: null },
    ]);
    expect(live).toEqual({ numeric: 1 });
    expectManaged(managers, { controller: [S(P('numeric')), 'v1'] });
  });

  test('update_remove_empty_set', () => {
    const { live, managers } = run(leafFields, [
      { apply: 'default', version: 'v1', object: { string: 'string' } },
      { update: 'controller', version: 'v1', object: { string: 'new string' } },
    ]);
    expect(live).toEqual({ string: 'new string' });
    expectManaged(managers, { controller: [S(P('string')), 'v1'] });
  });

  test('apply_remove_empty_set', () => {
    const { live, managers } = run(leafFields, [
      { apply: 'default', version: 'v1', object: { string: 'string' } },
      { apply: 'default', version: 'v1', object: null },
    ]);
    expect(live).toBeNull();
    expectManaged(managers, {});
  });
});

describe('Updater: multiple appliers of a map-list', () => {
  const a = K('name', 'a');
  const c = K('name', 'c');
  const d = K('name', 'd');

  test('remove_one', () => {
    const { live, managers } = run(associativeList, [
      { apply: 'apply-one', version: 'v1', object: { list: [{ name: 'a' }, { name: 'b' }] } },
      { apply: 'apply-two', version: 'v2', object: { list: [{ name: 'c' }] } },
      { apply: 'apply-one', version: 'v3', object: { list: [{ name: 'a' }] } },
    ]);
    expect(live).toEqual({ list: [{ name: 'a' }, { name: 'c' }] });
    expectManaged(managers, {
      'apply-one': [S(P('list', a), P('list', a, 'name')), 'v3'],
      'apply-two': [S(P('list', c), P('list', c, 'name')), 'v2'],
    });
  });

  test('same_value_no_conflict', () => {
    const { managers } = run(associativeList, [
      { apply: 'apply-one', version: 'v1', object: { list: [{ name: 'a', value: 0 }] } },
      { apply: 'apply-two', version: 'v2', object: { list: [{ name: 'a', value: 0 }] } },
    ]);
    const owned = S(P('list', a), P('list', a, 'name'), P('list', a, 'value'));
    expectManaged(managers, { 'apply-one': [owned, 'v1'], 'apply-two': [owned, 'v2'] });
  });

  test('change_value_yes_conflict', () => {
    const { live, managers } = run(associativeList, [
      { apply: 'apply-one', version: 'v1', object: { list: [{ name: 'a', value: 0 }] } },
      { apply: 'apply-two', version: 'v2', object: { list: [{ name: 'a', value: 1 }] }, conflicts: [['apply-one', P('list', a, 'value')]] },
    ]);
    expect(live).toEqual({ list: [{ name: 'a', value: 0 }] });
    expectManaged(managers, { 'apply-one': [S(P('list', a), P('list', a, 'name'), P('list', a, 'value')), 'v1'] });
  });

  test('remove_one_keep_one', () => {
    const { live, managers } = run(associativeList, [
      { apply: 'apply-one', version: 'v1', object: { list: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } },
      { apply: 'apply-two', version: 'v2', object: { list: [{ name: 'c' }, { name: 'd' }] } },
      { apply: 'apply-one', version: 'v3', object: { list: [{ name: 'a' }] } },
    ]);
    expect(live).toEqual({ list: [{ name: 'a' }, { name: 'c' }, { name: 'd' }] });
    expectManaged(managers, {
      'apply-one': [S(P('list', a), P('list', a, 'name')), 'v3'],
      'apply-two': [S(P('list', c), P('list', d), P('list', c, 'name'), P('list', d, 'name')), 'v2'],
    });
  });
});

describe('Updater: details', () => {
  test('Conflicts message: one alone, several grouped by sorted manager', () => {
    const one = new Conflicts([{ manager: 'kubectl', path: P('spec', 'replicas') }]);
    expect(one.message).toBe('conflict with "kubectl": .spec.replicas');
    const many = new Conflicts([
      { manager: 'z', path: P('a') },
      { manager: 'b', path: P('list', K('name', 'x'), 'value') },
      { manager: 'z', path: P('c') },
    ]);
    expect(many.message).toBe(['conflicts with "b":', '- .list[name="x"].value', 'conflicts with "z":', '- .a', '- .c'].join('\n'));
  });

  // merge/key_test.go
  test('removing_obsolete_applied_structs', () => {
    const { live, managers } = run(associativeList, [
      { apply: 'default', version: 'v1', object: { list: [{ name: 'a', value: 1 }] } },
      { apply: 'default', version: 'v1', object: { list: [{ name: 'b', value: 2 }] } },
    ]);
    expect(live).toEqual({ list: [{ name: 'b', value: 2 }] });
    const b = K('name', 'b');
    expectManaged(managers, { default: [S(P('list', b), P('list', b, 'name'), P('list', b, 'value')), 'v1'] });
  });

  test('an apply that changes nothing returns no object', () => {
    const u = new Updater({ type: leafFields });
    const first = u.Apply(null, { numeric: 1 }, 'v1', new Map(), 'm', false);
    const again = u.Apply(first.object!, { numeric: 1 }, 'v1', first.managers, 'm', false);
    expect(again.object).toBeUndefined();
    expect(new Updater({ type: leafFields, returnInputOnNoop: true }).Apply(first.object!, { numeric: 1 }, 'v1', first.managers, 'm', false).object).toEqual({ numeric: 1 });
  });

  test('ignored fields are never owned', () => {
    const u = new Updater({ type: leafFields, ignoredFields: new Map([['v1', S(P('bool'))]]) });
    const r = u.Update(null, { numeric: 1, bool: true }, 'v1', new Map(), 'm');
    expect(fieldSetToJSON(r.managers.get('m')!.set)).toBe('{"f:numeric":{}}');
  });

  test('entries of an apiVersion the converter no longer serves are dropped', () => {
    const convert = (v: JsonValue, to: string) => {
      if (to === 'v0') throw new MissingVersionError('no v0');
      return v;
    };
    const managers: ManagedFields = new Map([['old', { set: S(P('numeric')), apiVersion: 'v0', applied: false }]]);
    const r = new Updater({ type: leafFields, convert }).Update({ numeric: 1 }, { numeric: 2 }, 'v1', managers, 'new');
    expect([...r.managers.keys()]).toEqual(['new']);
    expect(managers.has('old')).toBe(true);
  });

  test('a field that became atomic is owned whole after reconciling with the schema', () => {
    const atomicList = struct({ list: list(struct({ name: scalar, value: scalar }), 'atomic') });
    const managers: ManagedFields = new Map([['m', { set: S(P('list', K('name', 'a')), P('list', K('name', 'a'), 'name')), apiVersion: 'v1', applied: false }]]);
    const r = new Updater({ type: atomicList }).Update({ list: [{ name: 'a' }] }, { list: [{ name: 'a' }] }, 'v1', managers, 'other');
    expect(fieldSetToJSON(r.managers.get('m')!.set)).toBe('{"f:list":{}}');
  });
});

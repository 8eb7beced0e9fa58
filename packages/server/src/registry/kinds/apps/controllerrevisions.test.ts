import type { KubeObject } from '../../types.js';
import { controllerName, controllerRevisions, validateControllerRevision, validateControllerRevisionUpdate } from './controllerrevisions.js';
import { rendered } from './testobjects.js';

function revision(extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'web-7d4b9c8f6', namespace: 'ns' }, data: { spec: {} }, revision: 1, ...extra };
}

describe('ControllerRevision', () => {
  test('data is mandatory and the revision not negative', () => {
    expect(validateControllerRevision(revision())).toEqual([]);
    const r = revision({ revision: -1 });
    delete r.data;
    expect(rendered(validateControllerRevision(r))).toEqual([
      'data: Required value: data is mandatory',
      'revision: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });

  test('data is immutable, printed as the JSON it holds', () => {
    expect(validateControllerRevisionUpdate(revision(), revision())).toEqual([]);
    expect(rendered(validateControllerRevisionUpdate(revision({ data: { changed: true } }), revision()))).toEqual(['data: Invalid value: {"changed":true}: field is immutable']);
  });

  test('table: CONTROLLER REVISION AGE', () => {
    const r = revision({ revision: 3 });
    expect(controllerName(r)).toBe('<none>');
    r.metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'u', controller: true }];
    expect(controllerRevisions.table!.columns.map((c) => c.name)).toEqual(['Controller', 'Revision', 'Age']);
    expect(controllerRevisions.table!.cells(r).slice(0, 2)).toEqual(['statefulset.apps/web', 3]);
    r.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'ReplicationController', name: 'rc', uid: 'u', controller: true }];
    expect(controllerName(r)).toBe('replicationcontroller/rc');
  });
});

/**
 * apps/v1 ControllerRevision: an immutable snapshot the StatefulSet and DaemonSet controllers
 * write. kube's validation requires data, a non-negative revision, and refuses any change of
 * data; the printer names the owning controller.
 */
import { fieldErr, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { validateNonnegativeField } from '../../validation/intorpercent.js';
import { invalidJSON, isNil, isObject, num, str } from './common.js';

/** ValidateControllerRevision (object metadata is checked by the Store). */
export function validateControllerRevision(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (isNil(obj.data)) errs.push(fieldErr.required('data', 'data is mandatory'));
  errs.push(...validateNonnegativeField(num(obj.revision), 'revision'));
  return errs;
}

/**
 * ValidateControllerRevisionUpdate: the revision again, and data compared as kube compares the
 * raw bytes it decoded (key order counts); the value prints as the JSON it holds.
 */
export function validateControllerRevisionUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateControllerRevision(obj);
  if (JSON.stringify(obj.data ?? null) !== JSON.stringify(old.data ?? null)) errs.push(invalidJSON('data', obj.data ?? null, 'field is immutable'));
  return errs;
}

/** formatResourceName of the controller owner reference: `statefulset.apps/web`, `<none>` without one. */
export function controllerName(obj: KubeObject): string {
  const refs = Array.isArray(obj.metadata.ownerReferences) ? obj.metadata.ownerReferences : [];
  const ref = refs.find((r): r is Record<string, unknown> => isObject(r) && r.controller === true);
  if (!ref) return '<none>';
  const apiVersion = str(ref.apiVersion);
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const kind = str(ref.kind);
  if (!kind && !group) return str(ref.name);
  return `${(group ? `${kind}.${group}` : kind).toLowerCase()}/${str(ref.name)}`;
}

export const controllerRevisions: KindDefinition = {
  group: 'apps', version: 'v1', resource: 'controllerrevisions',
  strategy: {
    validate: validateControllerRevision,
    validateUpdate: validateControllerRevisionUpdate,
  },
  table: {
    columns: [
      column('Controller', 'string', 'Controller of the object'),
      column('Revision', 'string', 'Revision indicates the revision of the state represented by Data.'),
      ageColumn,
    ],
    cells: (obj) => [controllerName(obj), num(obj.revision), ageOf(obj.metadata.creationTimestamp)],
  },
};

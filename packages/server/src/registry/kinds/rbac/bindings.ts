/**
 * rbac.authorization.k8s.io/v1 RoleBinding and ClusterRoleBinding: the v1 defaults of role
 * references and subjects, kube's validation (subjects, an immutable roleRef) and printers.
 */
import { fieldErr, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { nameIsDNSSubdomain, nameIsPathSegment } from '../../names.js';
import { arr, isObj, obj, str, type Json } from '../networking/util.js';
import { group } from './rules.js';
import { clusterRoleBindingsGuard, roleBindingsGuard } from './policybased.js';

/** SetDefaults_RoleBinding / ClusterRoleBinding and SetDefaults_Subject. */
function defaultBinding(o: KubeObject): void {
  if (isObj(o.roleRef) && !str(o.roleRef.apiGroup)) o.roleRef.apiGroup = group;
  for (const s of arr(o.subjects)) {
    if (!isObj(s) || str(s.apiGroup)) continue;
    if (s.kind === 'ServiceAccount') s.apiGroup = '';
    else if (s.kind === 'User' || s.kind === 'Group') s.apiGroup = group;
  }
}

function validateSubject(s: Json, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(s.name), apiGroup = str(s.apiGroup);
  if (name.length === 0) errs.push(fieldErr.required(`${path}.name`));
  switch (s.kind) {
    case 'ServiceAccount':
      if (name.length > 0) for (const msg of nameIsDNSSubdomain(name, false)) errs.push(fieldErr.invalid(`${path}.name`, name, msg));
      if (apiGroup.length > 0) errs.push(fieldErr.notSupported(`${path}.apiGroup`, apiGroup, ['']));
      if (!namespaced && str(s.namespace).length === 0) errs.push(fieldErr.required(`${path}.namespace`));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== group) errs.push(fieldErr.notSupported(`${path}.apiGroup`, apiGroup, [group]));
      break;
    default:
      errs.push(fieldErr.notSupported(`${path}.kind`, str(s.kind), ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

function validateBinding(o: KubeObject, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref = obj(o.roleRef);
  if (str(ref.apiGroup) !== group) errs.push(fieldErr.notSupported('roleRef.apiGroup', str(ref.apiGroup), [group]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(str(ref.kind))) errs.push(fieldErr.notSupported('roleRef.kind', str(ref.kind), kinds));
  const name = str(ref.name);
  if (name.length === 0) errs.push(fieldErr.required('roleRef.name'));
  else for (const msg of nameIsPathSegment(name, false)) errs.push(fieldErr.invalid('roleRef.name', name, msg));
  arr(o.subjects).forEach((s, i) => errs.push(...validateSubject(obj(s), namespaced, `subjects[${i}]`)));
  return errs;
}

/** The internal rbac.RoleRef as encoding/json prints it (no json tags on internal types). */
function goRoleRef(ref: Json): Record<string, string> {
  return { APIGroup: str(ref.apiGroup), Kind: str(ref.kind), Name: str(ref.name) };
}

function validateBindingUpdate(o: KubeObject, old: KubeObject, namespaced: boolean): FieldError[] {
  const errs = validateBinding(o, namespaced);
  const now = goRoleRef(obj(o.roleRef)), before = goRoleRef(obj(old.roleRef));
  if (JSON.stringify(now) !== JSON.stringify(before)) errs.push(fieldErr.invalid('roleRef', now, 'cannot change roleRef'));
  return errs;
}

/** rbac.SubjectsStrings: users, groups and service accounts (namespace/name) of a binding. */
function subjectsStrings(subjects: unknown[]): [string, string, string] {
  const users: string[] = [], groups: string[] = [], sas: string[] = [];
  for (const raw of subjects) {
    const s = obj(raw);
    if (s.kind === 'ServiceAccount') sas.push(`${str(s.namespace)}/${str(s.name)}`);
    else if (s.kind === 'User') users.push(str(s.name));
    else if (s.kind === 'Group') groups.push(str(s.name));
  }
  return [users.join(', '), groups.join(', '), sas.join(', ')];
}

function bindingTable(what: 'roleBinding' | 'clusterRoleBinding', roleRefDescription: string): KindDefinition['table'] {
  return {
    columns: [
      column('Role', 'string', roleRefDescription),
      ageColumn,
      column('Users', 'string', `Users in the ${what}`, 1),
      column('Groups', 'string', `Groups in the ${what}`, 1),
      column('ServiceAccounts', 'string', `ServiceAccounts in the ${what}`, 1),
    ],
    cells: (o) => {
      const ref = obj(o.roleRef);
      return [`${str(ref.kind)}/${str(ref.name)}`, ageOf(o.metadata.creationTimestamp), ...subjectsStrings(arr(o.subjects))];
    },
  };
}

export const roleBindings: KindDefinition = {
  group, version: 'v1', resource: 'rolebindings',
  strategy: { defaults: defaultBinding, validate: (o) => validateBinding(o, true), validateUpdate: (o, old) => validateBindingUpdate(o, old, true) },
  table: bindingTable('roleBinding', 'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.'),
  admission: [roleBindingsGuard],
};

export const clusterRoleBindings: KindDefinition = {
  group, version: 'v1', resource: 'clusterrolebindings',
  strategy: { defaults: defaultBinding, validate: (o) => validateBinding(o, false), validateUpdate: (o, old) => validateBindingUpdate(o, old, false) },
  table: bindingTable('clusterRoleBinding', 'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.'),
  admission: [clusterRoleBindingsGuard],
};


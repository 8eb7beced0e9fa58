/** rbac.authorization.k8s.io/v1 Role: namespaced rules (no non-resource URLs); kube has no printer for it. */
import type { KindDefinition } from '../../types.js';
import { group, validateRules } from './rules.js';
import { rolesGuard } from './policybased.js';

export const roles: KindDefinition = {
  group, version: 'v1', resource: 'roles',
  strategy: { validate: (o) => validateRules(o, true), validateUpdate: (o) => validateRules(o, true) },
  admission: [rolesGuard],
};


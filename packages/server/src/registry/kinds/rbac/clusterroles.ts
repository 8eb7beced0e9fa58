/** rbac.authorization.k8s.io/v1 ClusterRole: rules and the aggregation rule's selectors; kube has no printer for it. */
import type { KindDefinition } from '../../types.js';
import { validateLabelSelector } from '../../validation/labelselector.js';
import { arr, obj } from '../networking/util.js';
import { group, validateClusterRole } from './rules.js';
import { clusterRolesGuard } from './policybased.js';

export const clusterRoles: KindDefinition = {
  group, version: 'v1', resource: 'clusterroles',
  strategy: {
    validate: (o) => validateClusterRole(o, false),
    validateUpdate(o, old) {
      const stored = arr(obj(old.aggregationRule).clusterRoleSelectors);
      return validateClusterRole(o, stored.some((s) => validateLabelSelector(obj(s), {}, '').length > 0));
    },
  },
  admission: [clusterRolesGuard],
};


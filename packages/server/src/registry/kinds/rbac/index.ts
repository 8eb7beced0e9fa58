/**
 * rbac.authorization.k8s.io/v1 objects as kube stores and validates them, with kube's
 * escalation prevention on writes (policybased.ts); the authorizer reading them is ../../../rbac.
 */
import type { KindDefinition } from '../../types.js';
import { roles } from './roles.js';
import { clusterRoles } from './clusterroles.js';
import { clusterRoleBindings, roleBindings } from './bindings.js';

export const definitions: KindDefinition[] = [roles, clusterRoles, roleBindings, clusterRoleBindings];

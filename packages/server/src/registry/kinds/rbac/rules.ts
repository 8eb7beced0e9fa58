/** PolicyRule validation shared by Roles and ClusterRoles (kube's ValidatePolicyRule). */
import { fieldErr, type FieldError } from '@windlass/machinery';
import type { KubeObject } from '../../types.js';
import { validateLabelSelector } from '../../validation/labelselector.js';
import { arr, isObj, obj, type Json } from '../networking/util.js';

export const group = 'rbac.authorization.k8s.io';

export function validatePolicyRule(rule: Json, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (arr(rule.verbs).length === 0) errs.push(fieldErr.required(`${path}.verbs`, 'verbs must contain at least one value'));
  const urls = arr(rule.nonResourceURLs);
  if (urls.length > 0) {
    if (namespaced) errs.push(fieldErr.invalid(`${path}.nonResourceURLs`, urls, 'namespaced rules cannot apply to non-resource URLs'));
    if (arr(rule.apiGroups).length > 0 || arr(rule.resources).length > 0 || arr(rule.resourceNames).length > 0) {
      errs.push(fieldErr.invalid(`${path}.nonResourceURLs`, urls, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (arr(rule.apiGroups).length === 0) errs.push(fieldErr.required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  if (arr(rule.resources).length === 0) errs.push(fieldErr.required(`${path}.resources`, 'resource rules must supply at least one resource'));
  return errs;
}

export function validateRules(o: KubeObject, namespaced: boolean): FieldError[] {
  return arr(o.rules).flatMap((r, i) => validatePolicyRule(obj(r), namespaced, `rules[${i}]`));
}

export function validateClusterRole(o: KubeObject, allowInvalidLabelValueInSelector: boolean): FieldError[] {
  const errs = validateRules(o, false);
  if (isObj(o.aggregationRule)) {
    const selectors = arr(o.aggregationRule.clusterRoleSelectors);
    if (selectors.length === 0) {
      errs.push(fieldErr.required('aggregationRule.clusterRoleSelectors', 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
    }
    selectors.forEach((sel, i) => errs.push(...validateLabelSelector(obj(sel), { allowInvalidLabelValueInSelector }, `aggregationRule.clusterRoleSelectors[${i}]`)));
  }
  return errs;
}


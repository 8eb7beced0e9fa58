/**
 * ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding (admissionregistration.k8s.io/v1):
 * kube's v1 defaults, the structural validation of ValidateValidatingAdmissionPolicy and its
 * binding (CEL expressions compiled as kube's admission compiler does, ../../../cel/admissioncompile.ts),
 * status validation, printers.
 */
import { fieldErr, isQualifiedName, type FieldError } from '@windlass/machinery';
import { compileAdmissionExpression, type AdmissionDeclarations, type ReturnTypes } from '../../../cel/admissioncompile.js';
import type { CelT } from '../../../cel/checktypes.js';
import type { KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { nameIsDNSSubdomain } from '../../names.js';
import { pathSegmentErrors } from '../networking/util.js';
import { validateLabelSelector } from '../../validation/labelselector.js';
import {
  arr, isObj, obj, str, supportedFailurePolicies, validateMatchConditions, validateMatchResources, validateMetaConditions, validateParamKind, type Json,
} from './validation.js';

/** SetDefaults_MatchResources and the rules it nests. */
function defaultMatchResources(mr: unknown): void {
  if (!isObj(mr)) return;
  mr.matchPolicy ??= 'Equivalent';
  mr.namespaceSelector ??= {};
  mr.objectSelector ??= {};
  for (const rule of [...arr(mr.resourceRules), ...arr(mr.excludeResourceRules)]) if (isObj(rule)) rule.scope ??= '*';
}

const validationReasons = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const celIdentifier = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const celReserved = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);
const maxAuditAnnotations = 20;
const maxAuditAnnotationValueExpressionLength = 5 * 1024;

function duplicate(field: string, value: unknown): FieldError {
  return { type: 'FieldValueDuplicate', field, detail: `Duplicate value: ${JSON.stringify(value)}` };
}

/** kube's compile of one expression of a policy, refused at `path` with the expression as its value. */
function compiled(expression: string, decls: AdmissionDeclarations, returns: ReturnTypes, path: string, errs: FieldError[]): CelT {
  const { type, error } = compileAdmissionExpression(expression, decls, returns);
  if (error) errs.push(fieldErr.invalid(path, expression, error));
  return type;
}

function validateValidation(v: Json, path: string, decls: AdmissionDeclarations): FieldError[] {
  const errs: FieldError[] = [];
  const expression = str(v.expression);
  if (expression.trim().length === 0) errs.push(fieldErr.required(`${path}.expression`, 'expression is not specified'));
  else compiled(expression, decls, 'bool', `${path}.expression`, errs);
  const messageExpression = str(v.messageExpression);
  if (messageExpression.length > 0 && messageExpression.trim().length === 0) errs.push(fieldErr.invalid(`${path}.messageExpression`, messageExpression, 'must be non-empty if specified'));
  // kube's messageExpression has no authorizer.
  else if (messageExpression.trim().length > 0) compiled(messageExpression, { ...decls, hasAuthorizer: false }, 'string', `${path}.messageExpression`, errs);
  const message = str(v.message);
  const trimmed = message.trim();
  if (message.length > 0 && trimmed.length === 0) errs.push(fieldErr.invalid(`${path}.message`, message, 'message must be non-empty if specified'));
  else if (/[\n\r]+/.test(trimmed)) errs.push(fieldErr.invalid(`${path}.message`, message, 'message must not contain line breaks'));
  if (typeof v.reason === 'string' && !validationReasons.includes(v.reason)) errs.push(fieldErr.notSupported(`${path}.reason`, v.reason, validationReasons));
  return errs;
}

function validateAuditAnnotation(a: Json, policyName: string, path: string, decls: AdmissionDeclarations): FieldError[] {
  const errs: FieldError[] = [];
  const key = str(a.key);
  if (policyName.length !== 0) {
    for (const msg of isQualifiedName(`${policyName}/${key}`)) errs.push(fieldErr.invalid(`${path}.key`, `${policyName}/${key}`, msg));
  } else {
    errs.push(fieldErr.invalid(`${path}.key`, key, 'requires metadata.name be non-empty'));
  }
  const valueExpression = str(a.valueExpression).trim();
  if (valueExpression.length === 0) errs.push(fieldErr.required(`${path}.valueExpression`, 'valueExpression is not specified'));
  else if (valueExpression.length > maxAuditAnnotationValueExpressionLength) {
    errs.push(fieldErr.required(`${path}.valueExpression`, `must not exceed ${maxAuditAnnotationValueExpressionLength} bytes in length`));
  } else {
    const { error } = compileAdmissionExpression(valueExpression, decls, 'string or null');
    if (error) errs.push(fieldErr.invalid(`${path}.valueExpression`, str(a.valueExpression), error));
  }
  return errs;
}

function validatePolicySpec(policy: KubeObject, ignoreMatchConditions: boolean): FieldError[] {
  const spec = obj(policy.spec);
  const path = 'spec';
  const errs: FieldError[] = [];
  if (typeof spec.failurePolicy !== 'string') errs.push(fieldErr.required(`${path}.failurePolicy`));
  else if (!supportedFailurePolicies.includes(spec.failurePolicy)) errs.push(fieldErr.notSupported(`${path}.failurePolicy`, spec.failurePolicy, supportedFailurePolicies));
  if (isObj(spec.paramKind)) errs.push(...validateParamKind(spec.paramKind, `${path}.paramKind`));
  if (!isObj(spec.matchConstraints)) errs.push(fieldErr.required(`${path}.matchConstraints`));
  else {
    errs.push(...validateMatchResources(spec.matchConstraints, `${path}.matchConstraints`));
    // At least one resource rule gives the expressions their type information.
    if (arr(spec.matchConstraints.resourceRules).length === 0) errs.push(fieldErr.required(`${path}.matchConstraints.resourceRules`));
  }
  const hasParams = isObj(spec.paramKind);
  if (!ignoreMatchConditions) errs.push(...validateMatchConditions(arr(spec.matchConditions), `${path}.matchConditions`, hasParams));
  // Each variable sees those declared before it, of their expressions' types; the other
  // expressions see them all (kube's composited compiler, only for a policy with variables).
  const variables = arr(spec.variables).length > 0 ? new Map<string, CelT>() : undefined;
  const decls: AdmissionDeclarations = { hasParams, hasAuthorizer: true, variables };
  arr(spec.variables).forEach((raw, i) => {
    const v = obj(raw);
    const p = `${path}.variables[${i}]`;
    const name = str(v.name);
    if (name.trim() === '') errs.push(fieldErr.required(`${p}.name`, 'name is not specified'));
    else if (!celIdentifier.test(name) || celReserved.has(name)) errs.push(fieldErr.invalid(`${p}.name`, name, 'name is not a valid CEL identifier'));
    const expression = str(v.expression);
    if (expression.trim() === '') errs.push(fieldErr.required(`${p}.expression`, 'expression is not specified'));
    else variables!.set(name, compiled(expression, decls, 'any', `${p}.expression`, errs));
  });
  const validations = arr(spec.validations), audits = arr(spec.auditAnnotations);
  if (validations.length === 0 && audits.length === 0) {
    errs.push(fieldErr.required(`${path}.validations`, 'validations or auditAnnotations must contain at least one item'));
    errs.push(fieldErr.required(`${path}.auditAnnotations`, 'validations or auditAnnotations must contain at least one item'));
    return errs;
  }
  validations.forEach((v, i) => errs.push(...validateValidation(obj(v), `${path}.validations[${i}]`, decls)));
  if (Array.isArray(spec.auditAnnotations)) {
    if (audits.length > maxAuditAnnotations) errs.push(fieldErr.invalid(`${path}.auditAnnotations`, audits, `must not have more than ${maxAuditAnnotations} auditAnnotations`));
    const keys = new Set<string>();
    audits.forEach((raw, i) => {
      const a = obj(raw);
      errs.push(...validateAuditAnnotation(a, policy.metadata.name ?? '', `${path}.auditAnnotations[${i}]`, decls));
      const key = str(a.key);
      if (keys.has(key)) errs.push(duplicate(`${path}.auditAnnotations[${i}].key`, key));
      keys.add(key);
    });
  }
  return errs;
}

function validatePolicyStatus(status: Json): FieldError[] {
  const errs: FieldError[] = [];
  if (isObj(status.typeChecking)) {
    arr(status.typeChecking.expressionWarnings).forEach((raw, i) => {
      const w = obj(raw);
      const p = `status.typeChecking.expressionWarnings[${i}]`;
      if (str(w.warning) === '') errs.push(fieldErr.required(`${p}.warning`));
      if (str(w.fieldRef).trim() === '') errs.push(fieldErr.required(`${p}.fieldRef`));
    });
  }
  return [...errs, ...validateMetaConditions(arr(status.conditions), 'status.conditions')];
}

export const validatingAdmissionPolicies: KindDefinition = {
  group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicies',
  generation: true,
  strategy: {
    defaults(o) {
      const spec = o.spec;
      if (!isObj(spec)) return;
      spec.failurePolicy ??= 'Fail';
      defaultMatchResources(spec.matchConstraints);
    },
    validate: (o) => validatePolicySpec(o, false),
    validateUpdate(o, old) {
      // Unchanged match conditions (with the same param kind) are not checked again.
      const n = obj(o.spec), p = obj(old.spec);
      const ignore = JSON.stringify(n.paramKind ?? null) === JSON.stringify(p.paramKind ?? null) && JSON.stringify(n.matchConditions ?? null) === JSON.stringify(p.matchConditions ?? null);
      return validatePolicySpec(o, ignore);
    },
  },
  subresourceStrategies: { status: { validateUpdate: (o) => validatePolicyStatus(obj(o.status)) } },
  table: {
    columns: [
      column('Validations', 'integer', 'Validations indicates the number of validation rules defined in this configuration'),
      column('ParamKind', 'string', 'ParamKind specifies the kind of resources used to parameterize this policy'),
      ageColumn,
    ],
    cells: (o) => {
      const spec = obj(o.spec);
      const pk = spec.paramKind;
      return [arr(spec.validations).length, isObj(pk) ? `${str(pk.apiVersion)}/${str(pk.kind)}` : '<unset>', ageOf(o.metadata.creationTimestamp)];
    },
  },
};

function validateParamRef(pr: unknown, path: string): FieldError[] {
  if (!isObj(pr)) return [];
  const errs: FieldError[] = [];
  const name = str(pr.name);
  const hasSelector = isObj(pr.selector);
  if (name.length > 0) {
    for (const msg of pathSegmentErrors(name)) errs.push(fieldErr.invalid(`${path}.name`, name, msg));
    if (hasSelector) errs.push(fieldErr.forbidden(`${path}.name`, 'name and selector are mutually exclusive'));
  }
  if (hasSelector) {
    errs.push(...validateLabelSelector(pr.selector, {}, `${path}.selector`));
    if (name.length > 0) errs.push(fieldErr.forbidden(`${path}.selector`, 'name and selector are mutually exclusive'));
  }
  if (name.length === 0 && !hasSelector) errs.push(fieldErr.required(path, 'one of name or selector must be specified'));
  const action = str(pr.parameterNotFoundAction);
  if (action.length === 0) errs.push(fieldErr.required(`${path}.parameterNotFoundAction`));
  else if (action !== 'Deny' && action !== 'Allow') errs.push(fieldErr.notSupported(`${path}.parameterNotFoundAction`, action, ['Deny', 'Allow']));
  return errs;
}

/** The generated String() of a metav1.LabelSelector, which kube's binding printer shows. */
export function goLabelSelectorString(sel: Json): string {
  const labels = obj(sel.matchLabels);
  const map = Object.keys(labels).sort().map((k) => `${k}: ${str(labels[k])},`).join('');
  const exprs = arr(sel.matchExpressions).map((raw) => {
    const e = obj(raw);
    return `LabelSelectorRequirement{Key:${str(e.key)},Operator:${str(e.operator)},Values:[${arr(e.values).map(str).join(' ')}],},`;
  }).join('');
  return `&LabelSelector{MatchLabels:map[string]string{${map}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}

const validationActions = ['Audit', 'Deny', 'Warn'];

function validateValidationActions(actions: unknown[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  actions.forEach((raw, i) => {
    const a = str(raw);
    if (!validationActions.includes(a)) errs.push(fieldErr.notSupported(`${path}[${i}]`, a, validationActions));
    if (seen.has(a)) errs.push(duplicate(`${path}[${i}]`, a));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push(fieldErr.invalid(path, actions, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  }
  if (seen.size === 0) errs.push(fieldErr.required(path, 'at least one validation action is required'));
  return errs;
}

function validateBinding(o: KubeObject): FieldError[] {
  const spec = obj(o.spec);
  const errs: FieldError[] = [];
  const policyName = str(spec.policyName);
  if (policyName.length === 0) errs.push(fieldErr.required('spec.policyName'));
  else for (const msg of nameIsDNSSubdomain(policyName, false)) errs.push(fieldErr.invalid('spec.policyName', policyName, msg));
  errs.push(...validateParamRef(spec.paramRef, 'spec.paramRef'));
  // kube's field path carries this misspelling.
  errs.push(...validateMatchResources(spec.matchResources, 'spec.matchResouces'));
  errs.push(...validateValidationActions(arr(spec.validationActions), 'spec.validationActions'));
  return errs;
}

export const validatingAdmissionPolicyBindings: KindDefinition = {
  group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicybindings',
  generation: true,
  strategy: {
    defaults: (o) => defaultMatchResources(obj(o.spec).matchResources),
    validate: validateBinding,
    validateUpdate: (o) => validateBinding(o),
  },
  table: {
    columns: [
      column('PolicyName', 'string', 'PolicyName indicates the policy definition which the policy binding binded to'),
      column('ParamRef', 'string', 'ParamRef indicates the param resource which sets the configration param'),
      ageColumn,
    ],
    cells: (o) => {
      const spec = obj(o.spec);
      let param = '<unset>';
      if (isObj(spec.paramRef)) {
        const pr = spec.paramRef;
        if (str(pr.name)) param = str(pr.namespace) ? `${str(pr.namespace)}/${str(pr.name)}` : `*/${str(pr.name)}`;
        else if (isObj(pr.selector)) param = goLabelSelectorString(pr.selector);
      }
      return [str(spec.policyName), param, ageOf(o.metadata.creationTimestamp)];
    },
  },
};

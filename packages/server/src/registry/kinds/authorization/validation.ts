/**
 * kube's pkg/apis/authorization/validation: exactly one of resourceAttributes and
 * nonResourceAttributes, a user or a group for SubjectAccessReviews, empty metadata, a local
 * review confined to its namespace, and well-formed field and label selector attributes.
 */
import { fieldErr, isQualifiedName, isValidLabelValue, type FieldError } from '@windlass/machinery';
import type { ObjectMeta } from '../../types.js';
import { goNil, goObjectMeta, goString, invalidRendered, metaIsEmpty } from './review.js';

export interface SelectorRequirement {
  key?: string;
  operator?: string;
  values?: string[] | null;
}

export interface SelectorAttributes {
  rawSelector?: string;
  requirements?: SelectorRequirement[] | null;
}

export interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  fieldSelector?: SelectorAttributes | null;
  labelSelector?: SelectorAttributes | null;
}

export interface NonResourceAttributes {
  path?: string;
  verb?: string;
}

export interface AccessReviewSpec {
  resourceAttributes?: ResourceAttributes | null;
  nonResourceAttributes?: NonResourceAttributes | null;
  user?: string;
  groups?: string[] | null;
  extra?: Record<string, string[] | null> | null;
  uid?: string;
}

const present = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;

/** `%#v` of the internal NonResourceAttributes, or "null" for none. */
function goNonResource(a: NonResourceAttributes | null | undefined): string {
  if (!present(a)) return goNil;
  return `authorization.NonResourceAttributes{Path:${goString(a.path)}, Verb:${goString(a.verb)}}`;
}

function attributesChoice(spec: AccessReviewSpec): FieldError[] {
  const errs: FieldError[] = [];
  if (present(spec.resourceAttributes) && present(spec.nonResourceAttributes)) {
    errs.push(invalidRendered('spec.nonResourceAttributes', goNonResource(spec.nonResourceAttributes), 'cannot be specified in combination with resourceAttributes'));
  }
  if (!present(spec.resourceAttributes) && !present(spec.nonResourceAttributes)) {
    errs.push(invalidRendered('spec.resourceAttributes', goNil, 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  }
  return errs;
}

function fieldRequirement(r: SelectorRequirement, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!r.key) errs.push(fieldErr.required(`${path}.key`, 'must be specified'));
  const values = r.values ?? [];
  if (r.operator === 'In' || r.operator === 'NotIn') {
    if (values.length !== 1) errs.push(fieldErr.required(`${path}.values`, "must have one element when `operator` is 'In' or 'NotIn'"));
  } else if (r.operator === 'Exists' || r.operator === 'DoesNotExist') {
    if (values.length > 0) errs.push(fieldErr.forbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
  }
  // Unknown operators pass: newer clients may know operators this server does not.
  return errs;
}

function labelRequirement(r: SelectorRequirement, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const values = r.values ?? [];
  if (r.operator === 'In' || r.operator === 'NotIn') {
    if (values.length === 0) errs.push(fieldErr.required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
  } else if (r.operator === 'Exists' || r.operator === 'DoesNotExist') {
    if (values.length > 0) errs.push(fieldErr.forbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
  }
  for (const msg of isQualifiedName(r.key ?? '')) errs.push(invalidRendered(`${path}.key`, goString(r.key), msg));
  values.forEach((v, i) => {
    for (const msg of isValidLabelValue(v)) errs.push(invalidRendered(`${path}.values[${i}]`, goString(v), msg));
  });
  return errs;
}

function selectorAttributes(sel: SelectorAttributes | null | undefined, path: string, requirement: (r: SelectorRequirement, p: string) => FieldError[]): FieldError[] {
  if (!present(sel)) return [];
  const errs: FieldError[] = [];
  const reqs = sel.requirements ?? [];
  if (sel.rawSelector && reqs.length > 0) errs.push(invalidRendered(`${path}.rawSelector`, goString(sel.rawSelector), 'may not specified at the same time as requirements'));
  if (!sel.rawSelector && reqs.length === 0) errs.push(fieldErr.required(`${path}.requirements`, `when ${path} is specified, requirements or rawSelector is required`));
  reqs.forEach((r, i) => errs.push(...requirement(r ?? {}, `${path}.requirements[${i}]`)));
  return errs;
}

function resourceAttributes(a: ResourceAttributes | null | undefined): FieldError[] {
  if (!present(a)) return [];
  const path = 'spec.resourceAttributes';
  return [
    ...selectorAttributes(a.fieldSelector, `${path}.fieldSelector`, fieldRequirement),
    ...selectorAttributes(a.labelSelector, `${path}.labelSelector`, labelRequirement),
  ];
}

export function validateSubjectAccessReviewSpec(spec: AccessReviewSpec): FieldError[] {
  const errs = attributesChoice(spec);
  if (!spec.user && (spec.groups ?? []).length === 0) errs.push(invalidRendered('spec.user', goString(spec.user), 'at least one of user or group must be specified'));
  errs.push(...resourceAttributes(spec.resourceAttributes));
  return errs;
}

export function validateSelfSubjectAccessReviewSpec(spec: AccessReviewSpec): FieldError[] {
  return [...attributesChoice(spec), ...resourceAttributes(spec.resourceAttributes)];
}

function emptyMeta(meta: ObjectMeta | undefined, except: string[], msg: string): FieldError[] {
  return metaIsEmpty(meta, except) ? [] : [invalidRendered('metadata', goObjectMeta(meta), msg)];
}

export function validateSubjectAccessReview(spec: AccessReviewSpec, meta: ObjectMeta | undefined): FieldError[] {
  return [...validateSubjectAccessReviewSpec(spec), ...emptyMeta(meta, [], 'must be empty')];
}

export function validateSelfSubjectAccessReview(spec: AccessReviewSpec, meta: ObjectMeta | undefined): FieldError[] {
  return [...validateSelfSubjectAccessReviewSpec(spec), ...emptyMeta(meta, [], 'must be empty')];
}

export function validateLocalSubjectAccessReview(spec: AccessReviewSpec, meta: ObjectMeta | undefined): FieldError[] {
  const errs = [...validateSubjectAccessReviewSpec(spec), ...emptyMeta(meta, ['namespace'], 'must be empty except for namespace')];
  const ns = meta?.namespace ?? '';
  if (present(spec.resourceAttributes) && (spec.resourceAttributes.namespace ?? '') !== ns) {
    errs.push(invalidRendered('spec.resourceAttributes.namespace', goString(spec.resourceAttributes.namespace), 'must match metadata.namespace'));
  }
  if (present(spec.nonResourceAttributes)) {
    errs.push(invalidRendered('spec.nonResourceAttributes', goNonResource(spec.nonResourceAttributes), 'disallowed on this kind of request'));
  }
  return errs;
}

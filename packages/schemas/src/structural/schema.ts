/**
 * A CRD version's `openAPIV3Schema` as the apiextensions-apiserver reads it: the structural
 * schema (pkg/apiserver/schema/structural.go) is the same JSON with its value validations
 * beside the structure, so the walkers here read the JSONSchemaProps object as sent.
 */

export interface StructuralSchema {
  type?: string;
  format?: string;
  description?: string;
  nullable?: boolean;
  default?: unknown;
  properties?: Record<string, StructuralSchema>;
  additionalProperties?: StructuralSchema | boolean;
  items?: StructuralSchema;
  required?: string[];
  enum?: unknown[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  allOf?: StructuralSchema[];
  anyOf?: StructuralSchema[];
  oneOf?: StructuralSchema[];
  not?: StructuralSchema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: unknown[];
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A field path as kube's field.Path prints it: `spec.ports[0].name`. */
export function child(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

export function index(path: string, i: number): string {
  return `${path}[${i}]`;
}

/** The fields of metav1.ObjectMeta, which a custom resource's (and embedded resource's) metadata keeps. */
export const objectMetaFields = new Set([
  'name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp',
  'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields',
]);

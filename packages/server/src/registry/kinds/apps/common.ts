/**
 * What the apps/v1 workloads share: the pod template checked against the selector (kube's
 * ValidatePodTemplateSpecForReplicaSet and friends), semantic equality for generation bumps
 * and immutability, field errors whose value kube 1.35 prints as JSON (internal structs by Go
 * field name), the status-write rule, and the table cells of pkg/printers.
 */
import { fieldErr, labelSelectorFromObject, type FieldError, type LabelSelectorObject } from '@windlass/machinery';
import type { KubeObject, ScaleDefinition } from '../../types.js';
import { labelSelectorConvertible, labelSelectorIsEmpty, labelSelectorJSON, sortedMap } from './selector.js';
import { validatePodTemplateSpec, validatePodTemplateSpecUpdate } from '../core/podspec/index.js';
import { semanticEqual } from '../../semanticequal.js';

export { semanticEqual };

export type JsonObject = Record<string, unknown>;

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The object at `key`, created when missing (Go structs held by value are always there). */
export function child(parent: JsonObject, key: string): JsonObject {
  const v = parent[key];
  if (isObject(v)) return v;
  const created: JsonObject = {};
  parent[key] = created;
  return created;
}

export const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
/** A pointer field: null and a missing key are both nil. */
export const isNil = (v: unknown): boolean => v === undefined || v === null;

export function specOf(obj: KubeObject): JsonObject {
  return isObject(obj.spec) ? obj.spec : {};
}

export function statusOf(obj: KubeObject): JsonObject {
  return isObject(obj.status) ? obj.status : {};
}

export function templateOf(spec: JsonObject): JsonObject {
  return isObject(spec.template) ? spec.template : {};
}

export function templateMeta(template: JsonObject): JsonObject {
  return isObject(template.metadata) ? template.metadata : {};
}

export function templatePodSpec(template: JsonObject): JsonObject {
  return isObject(template.spec) ? template.spec : {};
}

const goEscapes: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/** encoding/json's output for a value already shaped as Go would marshal it (HTML characters escaped as Go does). */
export function goJSON(v: unknown): string {
  return (JSON.stringify(v) ?? 'null').replace(/[<>&\u2028\u2029]/g, (c) => goEscapes[c]);
}

/** field.Invalid with a complex value: kube 1.35 prints it as JSON. An empty detail prints no trailing colon. */
export function invalidJSON(field: string, value: unknown, detail: string): FieldError {
  const body = `Invalid value: ${goJSON(value)}`;
  return { type: 'FieldValueInvalid', field, detail: detail ? `${body}: ${detail}` : body };
}

/** field.NotSupported with a complex (struct) value. */
export function notSupportedJSON(field: string, value: unknown, supported: string[]): FieldError {
  return { type: 'FieldValueNotSupported', field, detail: `Unsupported value: ${goJSON(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}` };
}

/** ValidateImmutableField for a *metav1.LabelSelector. */
export function validateImmutableSelector(sel: unknown, oldSel: unknown, path: string): FieldError[] {
  if (semanticEqual(sel, oldSel)) return [];
  return [invalidJSON(path, labelSelectorJSON(sel), 'field is immutable')];
}

/** Go's strconv.ParseInt(s, 10, 64), or the error conversion reports. */
export function parseInt64(s: string): { value: number } | { error: string } {
  if (!/^[+-]?[0-9]+$/.test(s)) return { error: `strconv.ParseInt: parsing ${JSON.stringify(s)}: invalid syntax` };
  const n = BigInt(s);
  if (n > 9223372036854775807n || n < -9223372036854775808n) return { error: `strconv.ParseInt: parsing ${JSON.stringify(s)}: value out of range` };
  return { value: Number(n) };
}

/** An intstr.IntOrString as encoding/json writes it (the zero value is the integer 0). */
export const intOrString = (v: unknown): unknown => (typeof v === 'number' || typeof v === 'string' ? v : 0);

/** How a selector treats the template labels: kube's nil selector matches nothing, an empty one everything. */
export interface TemplateSelector {
  empty: boolean;
  matches(labels: Record<string, string>): boolean;
}

/** LabelSelectorAsSelector, or undefined where kube's conversion fails. */
export function selectorOf(sel: unknown): TemplateSelector | undefined {
  if (!labelSelectorConvertible(sel)) return undefined;
  const parsed = labelSelectorFromObject(isObject(sel) ? (sel as LabelSelectorObject) : undefined);
  if (!parsed) return { empty: false, matches: () => false };
  return { empty: parsed.empty, matches: (labels) => parsed.matches(labels) };
}

function labelsOf(template: JsonObject): Record<string, string> {
  const labels = templateMeta(template).labels;
  return isObject(labels) ? (labels as Record<string, string>) : {};
}

/** The selector-vs-template-labels check every workload makes, at `<templatePath>.metadata.labels`. */
export function templateLabelsMismatch(template: JsonObject, selector: TemplateSelector, templatePath: string): FieldError[] {
  if (selector.matches(labelsOf(template))) return [];
  return [invalidJSON(`${templatePath}.metadata.labels`, sortedMap(templateMeta(template).labels), '`selector` does not match template `labels`')];
}

/** Workload pods restart: a template's restartPolicy must be Always, and activeDeadlineSeconds is refused. */
export function workloadPodRules(template: JsonObject, templatePath: string, kind: string): FieldError[] {
  const errs: FieldError[] = [];
  const pod = templatePodSpec(template);
  const policy = str(pod.restartPolicy);
  if (policy !== 'Always') errs.push(fieldErr.notSupported(`${templatePath}.spec.restartPolicy`, policy, ['Always']));
  if (!isNil(pod.activeDeadlineSeconds)) errs.push(fieldErr.forbidden(`${templatePath}.spec.activeDeadlineSeconds`, `activeDeadlineSeconds in ${kind} is not Supported`));
  return errs;
}

/**
 * ValidatePodTemplateSpec, on update with the relaxations kube derives from the old template
 * (GetValidationOptionsFromPodTemplate): what the stored template already used stays allowed.
 */
export function validateTemplate(template: JsonObject, oldTemplate: JsonObject | undefined, templatePath: string): FieldError[] {
  return oldTemplate ? validatePodTemplateSpecUpdate(template, oldTemplate, templatePath) : validatePodTemplateSpec(template, templatePath);
}

/** ValidatePodTemplateSpecForReplicaSet (Deployments use it too, with its ReplicaSet wording). */
export function validateTemplateForReplicaSet(template: JsonObject, selector: TemplateSelector, templatePath: string, oldTemplate?: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!selector.empty) errs.push(...templateLabelsMismatch(template, selector, templatePath));
  errs.push(...validateTemplate(template, oldTemplate, templatePath));
  errs.push(...workloadPodRules(template, templatePath, 'ReplicaSet'));
  return errs;
}

/** The spec.selector checks of Deployments, ReplicaSets and StatefulSets: required, valid, not empty. */
export function validateRequiredSelector(sel: unknown, path: string, emptyMessage: string, validate: (sel: unknown, path: string) => FieldError[]): FieldError[] {
  if (isNil(sel)) return [fieldErr.required(path)];
  const errs = validate(sel, path);
  if (labelSelectorIsEmpty(sel)) errs.push(invalidJSON(path, labelSelectorJSON(sel), emptyMessage));
  return errs;
}

/**
 * The generic status-write rule (every top-level field but status and metadata comes from the
 * stored object), for kinds whose status strategy keeps more.
 */
export function keepAllButStatus(obj: KubeObject, old: KubeObject): void {
  const fixed = new Set(['status', 'metadata', 'apiVersion', 'kind']);
  for (const key of Object.keys(obj)) if (!fixed.has(key) && !(key in old)) delete obj[key];
  for (const key of Object.keys(old)) if (!fixed.has(key)) obj[key] = old[key];
}

/** Sets or removes an annotation as the stored object had it. */
export function keepAnnotation(obj: KubeObject, old: KubeObject, key: string): void {
  const value = old.metadata.annotations?.[key];
  if (value === undefined) {
    if (obj.metadata.annotations) delete obj.metadata.annotations[key];
    return;
  }
  obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [key]: value };
}

/** Generation moves when the spec changes semantically (kube's PrepareForUpdate of each workload). */
export function bumpGenerationIf(obj: KubeObject, old: KubeObject, changed: boolean): void {
  const oldGeneration = typeof old.metadata.generation === 'number' ? old.metadata.generation : 0;
  obj.metadata.generation = changed ? oldGeneration + 1 : oldGeneration;
}

/** ValidateNonnegativeField for each named status counter (absent counters are 0). */
export function nonnegativeCounters(status: JsonObject, names: string[], path = 'status'): FieldError[] {
  const errs: FieldError[] = [];
  for (const name of names) {
    const v = status[name];
    if (typeof v === 'number' && v < 0) errs.push(fieldErr.invalid(`${path}.${name}`, v, 'must be greater than or equal to 0'));
  }
  return errs;
}

/** `cannot be decremented` for status.collisionCount (a nil new count counts as 0 against a set old one). */
export function collisionCountDecremented(status: JsonObject, oldStatus: JsonObject): FieldError[] {
  const old = oldStatus.collisionCount;
  if (typeof old !== 'number') return [];
  const cur = typeof status.collisionCount === 'number' ? status.collisionCount : undefined;
  if (cur !== undefined && cur >= old) return [];
  return [fieldErr.invalid('status.collisionCount', cur ?? 0, 'cannot be decremented')];
}

/** `<field> cannot be greater than <bound>` comparisons of status counters. */
export function notGreaterThan(status: JsonObject, name: string, bound: string, message: string): FieldError[] {
  const v = num(status[name]);
  return v > num(status[bound]) ? [fieldErr.invalid(`status.${name}`, v, message)] : [];
}

/** The /scale view of a workload: spec.replicas, status.replicas and its selector as a string. */
export const workloadScale: ScaleDefinition = {
  specReplicas: (obj) => num(specOf(obj).replicas),
  statusReplicas: (obj) => num(statusOf(obj).replicas),
  selector: (obj) => selectorString(specOf(obj).selector),
  setSpecReplicas: (obj, replicas) => {
    child(obj as JsonObject, 'spec').replicas = replicas;
  },
};

// --- table cells (pkg/printers/internalversion) ---

/** LabelSelectorAsSelector(...).String(): '' for nil (selects nothing) or an empty selector. */
export function selectorString(sel: unknown): string {
  if (!labelSelectorConvertible(sel)) return '';
  return labelSelectorFromObject(isObject(sel) ? (sel as LabelSelectorObject) : undefined)?.toString() ?? '';
}

/** metav1.FormatLabelSelector: `<error>` for an unconvertible selector, `<none>` for one without requirements. */
export function formatLabelSelector(sel: unknown): string {
  if (!labelSelectorConvertible(sel)) return '<error>';
  return selectorString(sel) || '<none>';
}

/** labels.FormatLabels: sorted `k=v` pairs, `<none>` for none. */
export function formatLabels(m: unknown): string {
  if (!isObject(m) || Object.keys(m).length === 0) return '<none>';
  return Object.keys(m).sort().map((k) => `${k}=${String(m[k])}`).join(',');
}

/** layoutContainerCells: container names and images joined by commas. */
export function containerCells(template: JsonObject): [string, string] {
  const containers = templatePodSpec(template).containers;
  const list = Array.isArray(containers) ? containers.filter(isObject) : [];
  return [list.map((c) => str(c.name)).join(','), list.map((c) => str(c.image)).join(',')];
}

export const containersColumnDescription = 'Names of each container in the template.';
export const imagesColumnDescription = 'Images referenced by each container in the template.';

/**
 * x-kubernetes-validations: the CEL rules of a custom resource's schema, evaluated as kube's
 * pkg/apiserver/schema/cel validator does, with @bufbuild/cel (standard CEL and its strings
 * extension; RE2 for matches()). Each rule sees `self` (and `oldSelf` on updates, where
 * transition rules apply) typed by the schema: integers are CEL ints, objects and maps CEL
 * maps. A false rule is kube's error: its message (or messageExpression, or `failed rule:
 * <rule>`), at its fieldPath, of its reason's type. Unchanged values ratchet as in kube 1.35.
 *
 * The environment is kube 1.35's (../cel: its lists, regex, url, quantity, ip, cidr, format and
 * semver libraries, cel-go's sets and lists extensions). Rules are type-checked against the
 * schema when the CRD is written (./celcompile.ts); a rule stored before that
 * which does not evaluate (a function that is not bound, arguments of the wrong type) is skipped
 * rather than failing every object.
 */
import { celList, celMap, isCelError, plan, type CelInput, type CelValue } from '@bufbuild/cel';
import type { FieldError } from '@windlass/machinery';
import { structural } from '@windlass/schemas';
import { kubeCelEnv, parseKube } from '../cel/index.js';
import { none, some } from '../cel/optional.js';
import { toCel } from './celvalues.js';

type Schema = structural.StructuralSchema;

export interface Rule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

const env = kubeCelEnv();
export type Program = (bindings: Record<string, CelInput>) => unknown;
const programs = new Map<string, Program | Error>();

/**
 * An expression compiled once (standard CEL and kube's libraries), or why it does not compile.
 * With `optionalOldSelf`, `oldSelf` is an optional, and a field of it an optional select.
 */
export function compileCel(expr: string, optionalOldSelf = false): Program | Error {
  const key = optionalOldSelf ? `?${expr}` : expr;
  let p = programs.get(key);
  if (p === undefined) {
    try {
      const planned = plan(env, parseKube(expr, optionalOldSelf ? ['oldSelf'] : []));
      p = (bindings) => planned(bindings as never);
    } catch (err) {
      p = err instanceof Error ? err : new Error(String(err));
    }
    programs.set(key, p);
  }
  return p;
}

function program(expr: string, optionalOldSelf: boolean): Program | null {
  const p = compileCel(expr, optionalOldSelf);
  return p instanceof Error ? null : p;
}

/**
 * kube's ValidFieldPath: a rule's fieldPath (`.spec.x`, `['a.b']`) walked through the schema, a
 * step into a map (additionalProperties) printed as a key (`parameters[log_directory]`).
 */
function ruleFieldPath(path: string, fieldPath: string | undefined, s: Schema): string {
  if (!fieldPath) return path;
  let tail = '';
  let at: Schema | undefined = s;
  for (const m of fieldPath.matchAll(/\.([^.[\]]+)|\['((?:[^'\\]|\\.)*)'\]/g)) {
    const name = m[1] ?? m[2].replace(/\\(.)/g, '$1');
    if (at?.properties) {
      tail += `.${name}`;
      at = at.properties[name];
    } else {
      tail += `[${name}]`;
      at = structural.isObject(at?.additionalProperties) ? (at!.additionalProperties as Schema) : undefined;
    }
  }
  return path ? `${path}${tail}` : tail.replace(/^\./, '');
}

const usesOldSelf = (r: Rule) => /\boldSelf\b/.test(r.rule);

function valueString(v: unknown, s: Schema): string | undefined {
  // kube omits the value of objects and arrays (field.OmitValueType): `Invalid value: <detail>`.
  if (s.type === 'object' || s.type === 'array' || structural.isObject(v) || Array.isArray(v)) return undefined;
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}

function failure(path: string, v: unknown, s: Schema, detail: string, reason: string | undefined): FieldError {
  switch (reason) {
    case 'FieldValueForbidden': return { type: 'FieldValueForbidden', field: path, detail: `Forbidden: ${detail}` };
    case 'FieldValueRequired': return { type: 'FieldValueRequired', field: path, detail: `Required value: ${detail}` };
    case 'FieldValueDuplicate': return { type: 'FieldValueDuplicate', field: path, detail: `Duplicate value: ${valueString(v, s) ?? ''}` };
  }
  const value = valueString(v, s);
  return { type: 'FieldValueInvalid', field: path, detail: value === undefined ? `Invalid value: ${detail}` : `Invalid value: ${value}: ${detail}` };
}

/** A bound value as CEL sees it: an optional holds a CEL value, which the planner does not convert. */
function celValue(v: CelInput): CelValue {
  if (v instanceof Map) return celMap(v as never);
  if (Array.isArray(v)) return celList(v);
  return v as CelValue;
}

/**
 * `unchanged`: whether this value's failures ratchet. kube's CEL ratcheting (shouldRatchetError)
 * asks the value's own correlated old value, or, where it has none (an item of an atomic list or
 * set, a field new in its object), the nearest ancestor that has one: an invalid item persisted
 * in an atomic list ratchets while the list is unchanged. Asked only where a rule needs it: the
 * deep comparison is not made at every node of an update.
 */
function evaluateRules(v: unknown, s: Schema, path: string, old: { value: unknown } | undefined, unchanged: Unchanged, errs: FieldError[]): void {
  const rules = (s['x-kubernetes-validations'] ?? []) as Rule[];
  if (rules.length === 0) return;
  const self = toCel(v, s);
  const oldSelf = old ? toCel(old.value, s) : undefined;
  const bindings: Record<string, CelInput> = oldSelf !== undefined ? { self, oldSelf } : { self };
  // optionalOldSelf rules see oldSelf as an optional: none on create and where no old value correlates.
  const optionalBindings: Record<string, CelInput> = { self, oldSelf: (oldSelf !== undefined ? some(celValue(oldSelf)) : none()) as unknown as CelInput };
  for (const r of rules) {
    if (!r.rule) continue;
    // Transition rules apply only where a comparable old value exists.
    if (usesOldSelf(r) && !old && !r.optionalOldSelf) continue;
    // An unchanged value's failures ratchet (kube warns instead), unless the rule compares with oldSelf.
    if (!usesOldSelf(r) && unchanged()) continue;
    const optional = Boolean(r.optionalOldSelf);
    const p = program(r.rule, optional);
    if (!p) continue;
    const result = p(optional ? optionalBindings : bindings);
    if (result === true) continue;
    if (isCelError(result)) {
      // What kube's type checker would have refused when the CRD was written: the rule is not checked.
      if (/unbound function|no matching overload|unsupported/.test(result.message)) continue;
      // kube names the schema's type, not the value, when a rule fails to evaluate.
      const ruleText = r.message?.trim() || r.rule.trim();
      // A wrong type at run time (int-or-string values are dynamic): kube's overload wording.
      const detail = /^no such overload/.test(result.message)
        ? `'${result.message}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText}`
        : `${result.message.replace(/^field not found: /, 'no such key: ')} evaluating rule: ${ruleText}`;
      errs.push({ type: 'FieldValueInvalid', field: path, detail: `Invalid value: ${JSON.stringify(s.type ?? '')}: ${detail}` });
      continue;
    }
    let detail = r.message?.trim() ? r.message.trim() : `failed rule: ${r.rule.trim()}`;
    if (r.messageExpression) {
      const m = program(r.messageExpression, optional)?.(optional ? optionalBindings : bindings);
      if (typeof m === 'string' && m.trim() !== '' && !m.includes('\n')) detail = m;
    }
    errs.push(failure(ruleFieldPath(path, r.fieldPath, s), v, s, detail, r.reason));
  }
}

/** Whether a value equals its correlated old one (or its nearest correlated ancestor's), computed once if asked. */
type Unchanged = () => boolean;
const never: Unchanged = () => false;

function correlatedUnchanged(v: unknown, old: { value: unknown }): Unchanged {
  let equal: boolean | undefined;
  return () => (equal ??= structural.jsonEqual(old.value, v));
}

function walk(v: unknown, s: Schema | undefined, path: string, old: { value: unknown } | undefined, parentUnchanged: Unchanged, errs: FieldError[]): void {
  if (!s || v === undefined || v === null) return;
  const unchanged = old !== undefined ? correlatedUnchanged(v, old) : parentUnchanged;
  evaluateRules(v, s, path, old, unchanged, errs);
  if (Array.isArray(v)) {
    if (!s.items) return;
    const keys = s['x-kubernetes-list-map-keys'] ?? [];
    v.forEach((item, i) => {
      let o: { value: unknown } | undefined;
      if (old && Array.isArray(old.value) && s['x-kubernetes-list-type'] === 'map' && structural.isObject(item)) {
        const match = old.value.find((x) => structural.isObject(x) && keys.every((k) => structural.jsonEqual(x[k], item[k])));
        if (match !== undefined) o = { value: match };
      }
      walk(item, s.items, `${path}[${i}]`, o, unchanged, errs);
    });
    return;
  }
  if (!structural.isObject(v)) return;
  const additional = structural.isObject(s.additionalProperties) ? (s.additionalProperties as Schema) : undefined;
  for (const [k, x] of Object.entries(v)) {
    const child = s.properties?.[k] ?? additional;
    const o = old && structural.isObject(old.value) && k in old.value ? { value: old.value[k] } : undefined;
    walk(x, child, path ? `${path}.${k}` : k, o, unchanged, errs);
  }
}

/** The CEL rules of `schema` evaluated over a custom resource; `old` on updates. */
export function validateCELRules(obj: Record<string, unknown>, schema: Schema | undefined, old?: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  walk(obj, schema, '', old && { value: old }, never, errs);
  return errs;
}

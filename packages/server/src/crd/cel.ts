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
 * schema when the CRD is written (ruleCompileErrors, ../cel/check.ts); a rule stored before that
 * which does not evaluate (a function that is not bound, arguments of the wrong type) is skipped
 * rather than failing every object.
 */
import { celList, celMap, isCelError, plan, type CelInput, type CelValue } from '@bufbuild/cel';
import { fieldErr, GoValue, type FieldError } from '@windlass/machinery';
import { structural } from '@windlass/schemas';
import { kubeCelEnv, parseKube } from '../cel/index.js';
import { checkCel, formatIssues } from '../cel/check.js';
import { optionalOf, type CelT } from '../cel/checktypes.js';
import { schemaDeclType } from './celtypes.js';
import { none, some } from '../cel/optional.js';
import { toCel } from './celvalues.js';

type Schema = structural.StructuralSchema;

interface Rule {
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

/** Go's %#v of kube's internal ValidationRule, as a field error prints an invalid rule. */
function goRule(r: Rule): string {
  const ptr = (type: string, set: unknown) => (set === undefined ? `(*${type})(nil)` : `(*${type})(0xc000000000)`);
  return `apiextensions.ValidationRule{Rule:${JSON.stringify(r.rule ?? '')}, Message:${JSON.stringify(r.message ?? '')}, MessageExpression:${JSON.stringify(r.messageExpression ?? '')}, `
    + `Reason:${ptr('apiextensions.FieldValueErrorReason', r.reason)}, FieldPath:${JSON.stringify(r.fieldPath ?? '')}, OptionalOldSelf:${ptr('bool', r.optionalOldSelf)}}`;
}

/**
 * What kube's CRD validation says of one schema's rules (pkg/apiserver/schema/cel Compile): a
 * rule that does not parse or type-check against the schema (`compilation failed: …`), that is
 * not a bool, a messageExpression that is not a string, oldSelf where old and new values cannot
 * be correlated (`uncorrelatable`: the path of the list or atomic map that makes it so), and
 * optionalOldSelf on a rule without oldSelf. `path` is the schema's own path; `isResourceRoot`
 * for the root and embedded resources, whose `self` always has apiVersion, kind and metadata's
 * name and generateName. Parse errors are @bufbuild/cel's messages.
 */
export function ruleCompileErrors(s: Schema, path: string, isResourceRoot: boolean, uncorrelatable?: string): FieldError[] {
  const rules = (s['x-kubernetes-validations'] ?? []) as Rule[];
  if (rules.length === 0) return [];
  const selfType = schemaDeclType(s, isResourceRoot, 'selfType0');
  if (!selfType) {
    const why = 'internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations';
    return [fieldErr.internal(`${path}.x-kubernetes-validations`, why)];
  }
  const errs: FieldError[] = [];
  rules.forEach((r, i) => {
    const at = `${path}.x-kubernetes-validations[${i}]`;
    if (!r.rule?.trim()) {
      if (!r.rule) errs.push(fieldErr.required(`${at}.rule`, 'rule is not specified'));
      return;
    }
    const optionalOldSelf = r.optionalOldSelf === true;
    const variables = new Map<string, CelT>([['self', selfType], ['oldSelf', optionalOldSelf ? optionalOf(selfType) : selfType]]);
    const compiled = typeCheck(r.rule, variables, optionalOldSelf, 'bool');
    if (compiled.error !== undefined) {
      errs.push(fieldErr.invalid(`${at}.rule`, new GoValue(goRule(r)), compiled.error === notOfType ? 'cel expression must evaluate to a bool' : `compilation failed: ${compiled.error}`));
    } else if (r.messageExpression) {
      const m = typeCheck(r.messageExpression, variables, optionalOldSelf, 'string');
      if (m.error !== undefined) {
        errs.push(fieldErr.invalid(`${at}.messageExpression`, new GoValue(goRule(r)), m.error === notOfType ? 'messageExpression must evaluate to a string' : `messageExpression compilation failed: ${m.error}`));
      }
    }
    if (compiled.usesOldSelf && uncorrelatable !== undefined) {
      errs.push(fieldErr.invalid(`${at}.rule`, r.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable}`));
    } else if (!compiled.usesOldSelf && r.optionalOldSelf !== undefined && r.optionalOldSelf !== null) {
      errs.push(fieldErr.invalid(`${at}.optionalOldSelf`, r.optionalOldSelf, 'may not be set if oldSelf is not used in rule'));
    }
  });
  return errs;
}

const notOfType = Symbol('not of the expected type');

/** An expression parsed and type-checked; `error` is cel-go's issues, or notOfType for a result of another type. */
function typeCheck(expr: string, variables: ReadonlyMap<string, CelT>, optionalOldSelf: boolean, want: 'bool' | 'string'): { error?: string | typeof notOfType; usesOldSelf?: boolean } {
  const p = compileCel(expr, optionalOldSelf);
  if (p instanceof Error) return { error: `ERROR: ${p.message}` };
  const checked = checkCel(parseKube(expr, optionalOldSelf ? ['oldSelf'] : []), expr, variables);
  if (checked.issues.length > 0) return { error: formatIssues(expr, checked.issues) };
  // Where the checker cannot tell (dyn), the rule is given the benefit of the doubt.
  const t = checked.type;
  if (!(t.k === 'prim' && t.name === want) && !['dyn', 'error', 'param'].includes(t.k)) return { error: notOfType };
  return { usesOldSelf: checked.uses.has('oldSelf') };
}

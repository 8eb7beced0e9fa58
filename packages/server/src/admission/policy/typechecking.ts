/**
 * kube's type checking of ValidatingAdmissionPolicies (k8s.io/apiserver
 * pkg/admission/plugin/policy/validating/typechecking.go): each validation's expression and
 * messageExpression compiled once per kind the policy's resource rules name exactly (at most
 * ten), with `object` and `oldObject` typed by that kind's schema (OpenAPI for built-in kinds,
 * the served version's schema for custom resources) and `params` by the paramKind's. What does
 * not compile is a warning, `apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field
 * 'replicas'…`, which the status controller (../../controllers/vapstatus.ts) writes to
 * `status.typeChecking`; nothing is refused for it.
 *
 * Unlike kube, a paramKind whose schema is unknown leaves `params` dynamic (kube leaves it
 * undeclared, so every use of it warns), and `authorizer.requestResource` is declared (kube's
 * type checker declares only `authorizer`): both only spare warnings kube would give.
 */
import type { Schemas } from '@windlass/schemas';
import { admissionDeclarations, checkAdmissionExpression } from '../../cel/admissioncompile.js';
import { BOOL, BYTES, DOUBLE, DYN, INT, STRING, TIMESTAMP, listOf, mapOf, type CelT } from '../../cel/checktypes.js';
import { schemaDeclType } from '../../crd/celtypes.js';

import { arr, obj, type Json } from '../../registry/kinds/networking/util.js';

export interface GVK { group: string; version: string; kind: string }

export interface TypeResolver {
  /** The kinds a resource of a group version is (kube's RESTMapper KindsFor). */
  kindsFor(group: string, version: string, resource: string): GVK[];
  /** The type `object` has for a kind: its schema's, or undefined when it has none. */
  typeOf(gvk: GVK): CelT | undefined;
}

export interface ExpressionWarning { fieldRef: string; warning: string }

const maxTypesToCheck = 10;

/** GroupVersionKind.String(): `apps/v1, Kind=Deployment` (`/v1, Kind=Pod` for the core group). */
const gvkString = (g: GVK) => `${g.group}/${g.version}, Kind=${g.kind}`;

/** kube's typesToCheck: the kinds named exactly (no wildcards, no subresources) by the resource rules, sorted. */
export function typesToCheck(policy: Json, kindsFor: TypeResolver['kindsFor']): GVK[] {
  const rules = arr(obj(obj(policy.spec).matchConstraints).resourceRules).map(obj);
  const found = new Map<string, GVK>();
  for (const rule of rules) {
    const groups = arr(rule.apiGroups).map(String);
    const versions = arr(rule.apiVersions).map(String);
    const resources = arr(rule.resources).map(String).filter((r) => !/[*/]/.test(r));
    if (groups.some((g) => g.includes('*')) || versions.some((v) => v.includes('*'))) continue;
    let count = 0;
    for (const group of [...groups].sort()) {
      for (const version of [...versions].sort()) {
        for (const resource of [...resources].sort()) {
          for (const gvk of kindsFor(group, version, resource)) {
            found.set(gvkString(gvk), gvk);
            if (++count === maxTypesToCheck) return sortGVKs([...found.values()]);
          }
        }
      }
    }
  }
  return sortGVKs([...found.values()]);
}

function sortGVKs(list: GVK[]): GVK[] {
  return list.sort((a, b) => a.group.localeCompare(b.group) || a.version.localeCompare(b.version) || a.kind.localeCompare(b.kind));
}

/**
 * The CEL type of a built-in kind's OpenAPI (v2) definition, as kube's SchemaDeclType reads it:
 * objects by their properties (a kind's metadata is all of ObjectMeta), maps, lists, date-times
 * as timestamps; what it cannot tell (int-or-string, untyped) is dynamic.
 */
export function openAPIType(schemas: Schemas, s: Json | undefined, name: string): CelT {
  const schema = schemas.deref(s as never) as Json | undefined;
  if (!schema) return DYN;
  if (schema.format === 'int-or-string' || schema['x-kubernetes-int-or-string']) return DYN;
  switch (schema.type) {
    case 'object': {
      const props = obj(schema.properties);
      if (Object.keys(props).length === 0) {
        return schema.additionalProperties && typeof schema.additionalProperties === 'object'
          ? mapOf(STRING, openAPIType(schemas, schema.additionalProperties as Json, `${name}.@elem`))
          : DYN;
      }
      const fields = new Map<string, CelT>();
      return {
        k: 'object', name,
        field(f) {
          if (!(f in props)) return undefined;
          let t = fields.get(f);
          if (!t) fields.set(f, (t = openAPIType(schemas, obj(props[f]), `${name}.${f}`)));
          return t;
        },
      };
    }
    case 'array': return listOf(schema.items ? openAPIType(schemas, obj(schema.items), `${name}.@idx`) : DYN);
    case 'string':
      if (schema.format === 'date-time') return TIMESTAMP;
      return schema.format === 'byte' ? BYTES : STRING;
    case 'integer': return INT;
    case 'number': return DOUBLE;
    case 'boolean': return BOOL;
    default: return DYN;
  }
}

/** A custom resource's type from its CRD's schema for the version, as kube's resolver gives it. */
export function crdType(schema: Json | undefined, kind: string): CelT | undefined {
  return schema ? schemaDeclType(schema as never, true, kind) : undefined;
}

/** kube's TypeChecker.Check: the warnings for each validation's expression and messageExpression. */
export function checkPolicy(policy: Json, types: TypeResolver): ExpressionWarning[] {
  const spec = obj(policy.spec);
  const gvks = typesToCheck(policy, (g, v, r) => types.kindsFor(g, v, r));
  const checked = gvks.map((gvk) => ({ gvk, type: types.typeOf(gvk) })).filter((c): c is { gvk: GVK; type: CelT } => c.type !== undefined);
  if (checked.length === 0) return [];
  const paramKind = obj(spec.paramKind);
  const hasParams = typeof spec.paramKind === 'object' && spec.paramKind !== null;
  const [paramGroup, paramVersion] = String(paramKind.apiVersion ?? '').includes('/') ? String(paramKind.apiVersion).split('/') : ['', String(paramKind.apiVersion ?? '')];
  const paramsType = hasParams ? types.typeOf({ group: paramGroup, version: paramVersion, kind: String(paramKind.kind ?? '') }) ?? DYN : undefined;

  // Each kind's declarations, its variables compiled once against it.
  const kinds = checked.map(({ gvk, type }) => ({ gvk, decls: declarations(type, paramsType, compileVariables(arr(spec.variables).map(obj), type, paramsType)) }));
  const warningsFor = (expression: string): string => {
    const results: string[] = [];
    for (const { gvk, decls } of kinds) {
      const { issues } = checkAdmissionExpression(expression, decls);
      if (issues) results.push(`${gvkString(gvk)}: ${issues}\n`);
    }
    return results.join('\n');
  };
  const warnings: ExpressionWarning[] = [];
  arr(spec.validations).map(obj).forEach((v, i) => {
    const expression = warningsFor(String(v.expression ?? ''));
    if (expression) warnings.push({ fieldRef: `spec.validations[${i}].expression`, warning: expression });
    if (!v.messageExpression) return;
    const message = warningsFor(String(v.messageExpression));
    if (message) warnings.push({ fieldRef: `spec.validations[${i}].messageExpression`, warning: message });
  });
  return warnings;
}

function declarations(object: CelT, params: CelT | undefined, variables: ReadonlyMap<string, CelT> | undefined): Map<string, CelT> {
  const decls = admissionDeclarations({ hasParams: params !== undefined, hasAuthorizer: true, variables });
  decls.set('object', object);
  decls.set('oldObject', object);
  if (params) decls.set('params', params);
  return decls;
}

/** The policy's variables compiled in order against the kind, each of its expression's type (dyn when it does not compile). */
function compileVariables(variables: Json[], object: CelT, params: CelT | undefined): Map<string, CelT> | undefined {
  if (variables.length === 0) return undefined;
  const declared = new Map<string, CelT>();
  // A variable that does not compile is dyn, as kube stores a failed compilation's variable.
  for (const v of variables) declared.set(String(v.name ?? ''), checkAdmissionExpression(String(v.expression ?? ''), declarations(object, params, declared)).type);
  return declared;
}

/**
 * What kube refuses in a ValidatingAdmissionPolicy's or an admission webhook's CEL when the
 * configuration is written (k8s.io/apiserver pkg/admission/plugin/cel CompileCELExpression): an
 * expression that does not parse or type-check in the admission environment, or whose type is not
 * the one its field needs (`must evaluate to bool`).
 *
 * The environment is kube's: `object`, `oldObject` and `params` are dynamic; `request` is
 * kubernetes.AdmissionRequest and `namespaceObject` kubernetes.Namespace, typed field by field;
 * `authorizer` where the field has one; `variables`, in a policy that declares variables, holds
 * each variable declared before, of its expression's type.
 */
import { requestResourceVariable } from './authz.js';
import { checkCel, formatIssues } from './check.js';
import { BOOL, DYN, INT, STRING, TIMESTAMP, listOf, mapOf, opaque, type CelT } from './checktypes.js';
import { parseKube } from './index.js';

function objectType(name: string, fields: Record<string, CelT>): CelT {
  return { k: 'object', name, field: (f) => fields[f] };
}

const gvk = objectType('kubernetes.GroupVersionKind', { group: STRING, version: STRING, kind: STRING });
const gvr = objectType('kubernetes.GroupVersionResource', { group: STRING, version: STRING, resource: STRING });
const strings = listOf(STRING);

/** kube's BuildRequestType. */
const requestType = objectType('kubernetes.AdmissionRequest', {
  kind: gvk, resource: gvr, subResource: STRING, requestKind: gvk, requestResource: gvr, requestSubResource: STRING,
  name: STRING, namespace: STRING, operation: STRING,
  userInfo: objectType('kubernetes.UserInfo', { username: STRING, uid: STRING, groups: strings, extra: mapOf(STRING, strings) }),
  dryRun: BOOL, options: DYN,
});

/** kube's BuildNamespaceType. */
const namespaceType = objectType('kubernetes.Namespace', {
  metadata: objectType('kubernetes.NamespaceMetadata', {
    name: STRING, generateName: STRING, namespace: STRING, labels: mapOf(STRING, STRING), annotations: mapOf(STRING, STRING),
    UID: STRING, creationTimestamp: TIMESTAMP, deletionGracePeriodSeconds: INT, deletionTimestamp: TIMESTAMP, generation: INT,
    resourceVersion: STRING, finalizers: strings,
  }),
  spec: objectType('kubernetes.NamespaceSpec', { finalizers: strings }),
  status: objectType('kubernetes.NamespaceStatus', {
    conditions: listOf(objectType('kubernetes.NamespaceCondition', { status: STRING, type: STRING, lastTransitionTime: TIMESTAMP, message: STRING, reason: STRING })),
    phase: STRING,
  }),
});

export interface AdmissionDeclarations {
  hasParams: boolean;
  hasAuthorizer: boolean;
  /** A policy with variables: those compiled so far and their types. */
  variables?: ReadonlyMap<string, CelT>;
}

/** What an expression must evaluate to: kube's ReturnTypes (`any` for a variable). */
export type ReturnTypes = 'bool' | 'string' | 'string or null' | 'any';

/** The variables an admission expression is compiled with. */
export function admissionDeclarations(d: AdmissionDeclarations): Map<string, CelT> {
  const vars = new Map<string, CelT>([['object', DYN], ['oldObject', DYN], ['request', requestType], ['namespaceObject', namespaceType]]);
  if (d.hasParams) vars.set('params', DYN);
  if (d.hasAuthorizer) {
    vars.set('authorizer', opaque('kubernetes.authorization.Authorizer'));
    vars.set(requestResourceVariable, opaque('kubernetes.authorization.ResourceCheck'));
  }
  if (d.variables) {
    const declared = d.variables;
    vars.set('variables', { k: 'object', name: 'kubernetes.variables', field: (f) => declared.get(f) });
  }
  return vars;
}

/** An expression parsed and type-checked with these variables: its type, or cel-go's issues. */
export function checkAdmissionExpression(expr: string, variables: ReadonlyMap<string, CelT>): { type: CelT; issues?: string } {
  let parsed;
  try {
    parsed = parseKube(expr);
  } catch (err) {
    return { type: DYN, issues: `ERROR: ${err instanceof Error ? err.message : String(err)}` };
  }
  const checked = checkCel(parsed, expr, variables);
  return checked.issues.length > 0 ? { type: DYN, issues: formatIssues(expr, checked.issues) } : { type: checked.type };
}

/**
 * The expression compiled as kube's admission compiler does: its type, or why kube refuses it
 * (`compilation failed: …`, `must evaluate to bool`). Where the checker cannot tell (dyn), the
 * expression's type is given the benefit of the doubt.
 */
export function compileAdmissionExpression(expr: string, d: AdmissionDeclarations, returns: ReturnTypes): { type: CelT; error?: string } {
  const checked = checkAdmissionExpression(expr, admissionDeclarations(d));
  if (checked.issues !== undefined) return { type: DYN, error: `compilation failed: ${checked.issues}` };
  const t = checked.type;
  const unknown = t.k === 'dyn' || t.k === 'error' || t.k === 'param';
  const isPrim = (name: string) => t.k === 'prim' && t.name === name;
  if (returns === 'any' || unknown) return { type: t };
  if (returns === 'bool' && !isPrim('bool')) return { type: t, error: 'must evaluate to bool' };
  if (returns === 'string' && !isPrim('string')) return { type: t, error: 'must evaluate to string' };
  if (returns === 'string or null' && !isPrim('string') && !isPrim('null_type')) return { type: t, error: 'must evaluate to one of [string null_type]' };
  return { type: t };
}

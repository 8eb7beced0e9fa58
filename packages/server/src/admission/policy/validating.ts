/**
 * ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1), as kube-apiserver 1.35's
 * admission/plugin/policy/validating dispatcher runs it: every policy whose matchConstraints
 * match, for every binding of it whose matchResources match, with each of the binding's params,
 * evaluates its matchConditions, variables and validations in CEL. A failed validation is acted
 * on by the binding's validationActions: Deny refuses the request with kube's message and the
 * validation's reason, Warn adds a `Warning` header, Audit has no audit log here to go to.
 * Errors (compilation, evaluation, params) follow the policy's failurePolicy.
 */
import type { CelInput } from '@bufbuild/cel';
import { failure, labelSelectorFromObject, type LabelSelectorObject, type StatusError, type StatusReason } from '@windlass/machinery';
import type { DynamicAdmissionAttributes, KubeObject } from '../../registry/types.js';
import type { AdmissionStage } from '../dynamic.js';
import { admissionRequest, namespaceObject } from './celinput.js';
import { evaluateExpression, toCelValue } from '../../cel/values.js';
import { authorizerBindings, AuthzContext, evaluateWithAuthorizer, requestResourceOf } from '../../cel/authz.js';
import type { Authorizer } from '../../rbac/types.js';
import { evaluateMatchConditions } from '../matchconditions.js';
import type { FollowedObjects } from './followed.js';
import { matchesResources, type GroupVersionResource, type MatchContext, type MatchResources } from './matching.js';

interface Validation { expression: string; message?: string; messageExpression?: string; reason?: string }
interface Named { name: string; expression: string }

interface PolicySpec {
  paramKind?: { apiVersion?: string; kind?: string };
  matchConstraints?: MatchResources;
  validations?: Validation[];
  failurePolicy?: string;
  matchConditions?: Named[];
  variables?: Named[];
}

interface BindingSpec {
  policyName?: string;
  paramRef?: { name?: string; namespace?: string; selector?: LabelSelectorObject; parameterNotFoundAction?: string };
  matchResources?: MatchResources;
  validationActions?: string[];
}

type Policy = KubeObject & { spec?: PolicySpec };
type Binding = KubeObject & { spec?: BindingSpec };

/** The objects of a paramKind, with its scope; undefined for a kind the server does not serve. */
export interface ParamSource {
  namespaced: boolean;
  get(namespace: string, name: string): Promise<KubeObject | undefined>;
  list(namespace: string): Promise<KubeObject[]>;
}

export interface ValidatingPolicyOptions extends MatchContext {
  policies: FollowedObjects<Policy>;
  bindings: FollowedObjects<Binding>;
  params(apiVersion: string, kind: string): ParamSource | undefined;
  namespace(name: string): Promise<KubeObject | undefined>;
  /** The server's authorizer, which the `authorizer` variable asks; undefined when it authorizes nothing. */
  authorizer(): Authorizer | undefined;
}

/** kube keeps the admission configuration itself out of reach of the policies it configures. */
const exempt = new Set(['validatingadmissionpolicies', 'validatingadmissionpolicybindings', 'mutatingadmissionpolicies', 'mutatingadmissionpolicybindings']);

interface Decision {
  deny: boolean;
  message: string;
  reason?: string;
}

/** A binding that cannot be evaluated as configured: acted on by the policy's failurePolicy. */
class ConfigError extends Error {}

export function validatingAdmissionPolicyStage(opts: ValidatingPolicyOptions): AdmissionStage {
  return {
    name: 'ValidatingAdmissionPolicy',
    active: () => opts.bindings.any() && opts.policies.any(),
    validate: (a) => validate(opts, a),
  };
}

async function validate(opts: ValidatingPolicyOptions, a: DynamicAdmissionAttributes): Promise<void> {
  if (a.def.group === 'admissionregistration.k8s.io' && exempt.has(a.def.resource)) return;
  const bindings = opts.bindings.list();
  const denied: Array<{ policy: Policy; binding?: Binding; decision: Decision }> = [];
  for (const policy of opts.policies.list()) {
    const spec = policy.spec ?? {};
    const failPolicy = spec.failurePolicy ?? 'Fail';
    const configError = (err: Error, binding?: Binding) => {
      if (failPolicy === 'Ignore') return;
      const message = `failed to configure ${binding ? 'binding' : 'policy'}: ${err.message}`;
      denied.push({ policy, binding, decision: { deny: true, message } });
    };
    let matched: GroupVersionResource | undefined;
    try {
      matched = await matchesResources(spec.matchConstraints, a, opts);
    } catch (err) {
      configError(err as Error);
      continue;
    }
    if (!matched) continue;
    for (const binding of bindings) {
      const bspec = binding.spec ?? {};
      if (bspec.policyName !== policy.metadata.name) continue;
      try {
        if (bspec.matchResources && !(await matchesResources(bspec.matchResources, a, opts))) continue;
        const params = await collectParams(opts, spec, bspec, a.namespace);
        const ns = a.namespace && !(a.def.group === '' && a.def.resource === 'namespaces') ? await opts.namespace(a.namespace) : undefined;
        for (const param of params) {
          const authz = new AuthzContext(a.user, opts.authorizer());
          for (const decision of await evaluateWithAuthorizer(authz, () => evaluate(spec, failPolicy, a, matched, param, ns, authz))) {
            if (!decision.deny) continue;
            for (const action of bspec.validationActions ?? []) {
              if (action === 'Deny') denied.push({ policy, binding, decision });
              else if (action === 'Warn') a.warn(`Validation failed for ValidatingAdmissionPolicy '${policy.metadata.name}' with binding '${binding.metadata.name}': ${decision.message}`);
            }
          }
        }
      } catch (err) {
        // A binding that cannot be matched or given its params (kube's addConfigError).
        configError(err as Error, binding);
      }
    }
  }
  if (denied.length > 0) throw denial(a, denied[0]);
}

/** kube's admission.NewForbidden, its status then given the validation's reason (Invalid by default) and its code. */
function denial(a: DynamicAdmissionAttributes, d: { policy: Policy; binding?: Binding; decision: Decision }): StatusError {
  const by = d.binding ? `ValidatingAdmissionPolicy '${d.policy.metadata.name}' with binding '${d.binding.metadata.name}'` : `ValidatingAdmissionPolicy '${d.policy.metadata.name}'`;
  const message = `${by} denied request: ${d.decision.message}`;
  const name = a.name || a.obj?.metadata.generateName || 'Unknown';
  const resource = a.def.group ? `${a.def.resource}.${a.def.group}` : a.def.resource;
  const reason = (d.decision.reason || 'Invalid') as StatusReason;
  const details: Record<string, unknown> = { name };
  if (a.def.group) details.group = a.def.group;
  details.kind = a.def.resource;
  details.causes = [{ message }];
  return failure(reasonCodes[reason] ?? 422, reason, `${resource} "${name}" is forbidden: ${message}`, details as never);
}

const reasonCodes: Record<string, number> = { Forbidden: 403, Unauthorized: 401, RequestEntityTooLarge: 413, Invalid: 422 };

/** kube's CollectParams: no paramKind or paramRef is one evaluation without params. */
async function collectParams(opts: ValidatingPolicyOptions, spec: PolicySpec, binding: BindingSpec, namespace: string): Promise<Array<KubeObject | null>> {
  const kind = spec.paramKind;
  const ref = binding.paramRef;
  if (!kind || !ref) return [null];
  const source = opts.params(kind.apiVersion ?? '', kind.kind ?? '');
  if (!source) throw new ConfigError(`paramKind kind \`${kind.apiVersion}, Kind=${kind.kind}\` not known`);
  let ns = '';
  if (source.namespaced) {
    ns = ref.namespace || namespace;
    if (!ns) throw new ConfigError('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
  } else if (ref.namespace) throw new ConfigError('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
  let params: KubeObject[];
  if (ref.name) {
    if (ref.selector) throw new ConfigError('paramRef.name and paramRef.selector are mutually exclusive');
    const p = await source.get(ns, ref.name);
    params = p ? [p] : [];
  } else if (ref.selector) {
    const selector = labelSelectorFromObject(ref.selector)!;
    params = (await source.list(ns)).filter((p) => selector.matches(p.metadata.labels ?? {}));
  } else throw new ConfigError('one of name or selector must be provided');
  if (params.length === 0 && ref.parameterNotFoundAction === 'Deny') throw new ConfigError('no params found for policy binding with `Deny` parameterNotFoundAction');
  return params;
}

/** kube's validator.Validate for one param: the policy's decisions, one per validation. */
function evaluate(spec: PolicySpec, failPolicy: string, a: DynamicAdmissionAttributes, matched: GroupVersionResource, param: KubeObject | null, ns: KubeObject | undefined, authz: AuthzContext): Decision[] {
  const onError = (message: string): Decision[] => [{ deny: failPolicy !== 'Ignore', message }];
  const bindings: Record<string, CelInput> = {
    ...authorizerBindings(authz, requestResourceOf(a)),
    object: toCelValue(a.obj),
    oldObject: toCelValue(a.old),
    request: toCelValue(admissionRequest(a, matched)),
    params: toCelValue(param),
    namespaceObject: toCelValue(namespaceObject(ns)),
  };
  // Variables see the ones before them; one that fails is absent, so what reads it fails.
  const variables = new Map<string, CelInput>();
  bindings.variables = variables as CelInput;
  for (const v of spec.variables ?? []) {
    const value = evaluateExpression(v.expression, bindings);
    if (!(value instanceof Error)) variables.set(v.name, value as CelInput);
  }
  const conditions = evaluateMatchConditions(spec.matchConditions ?? [], bindings, failPolicy);
  if ('error' in conditions) return onError(conditions.error);
  if (!conditions.matches) return [];
  return (spec.validations ?? []).map((v): Decision => {
    const result = evaluateExpression(v.expression, bindings);
    if (result instanceof Error) return { deny: failPolicy !== 'Ignore', message: result.message };
    if (result === true) return { deny: false, message: '' };
    let message = '';
    if (v.messageExpression) {
      const m = evaluateExpression(v.messageExpression, bindings);
      if (typeof m === 'string' && !m.includes('\n')) message = m.trim();
    }
    if (!message && v.message) message = v.message.trim();
    if (!message) message = `failed expression: ${v.expression.trim()}`;
    return { deny: true, message, reason: v.reason };
  });
}

/** Namespace labels for namespaceSelector: a Namespace's own (the new object, else the old), else its namespace's. */
export async function namespaceLabelsFor(a: DynamicAdmissionAttributes, get: (name: string) => Promise<KubeObject | undefined>): Promise<Record<string, string> | undefined | null> {
  if (a.def.group === '' && a.def.resource === 'namespaces') return (a.obj ?? a.old)?.metadata.labels ?? {};
  if (!a.namespace) return undefined;
  const ns = await get(a.namespace);
  if (!ns) throw failure(404, 'NotFound', `namespaces "${a.namespace}" not found`, { name: a.namespace, kind: 'namespaces' });
  return ns.metadata.labels ?? {};
}

/**
 * Which webhooks a request calls (kube's generic.Webhook.ShouldCallHook and its predicates): the
 * namespaceSelector against the namespace's labels, the objectSelector against the new or the
 * old object's labels, then the rules against the request's resource, or, with matchPolicy
 * Equivalent, against the other versions of the same stored resource (the webhook then gets the
 * object in the version its rule names).
 */
import { labelSelectorFromObject, newInternalError, type LabelSelector, type LabelSelectorObject } from '@windlass/machinery';
import type { Authorizer } from '../../rbac/types.js';
import type { DynamicAdmissionAttributes, ResourceDefinition } from '../../registry/types.js';
import type { Rule, WebhookAccessor } from './types.js';

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** A webhook to call and the version it is called with (kube's WebhookInvocation). */
export interface Invocation {
  accessor: WebhookAccessor;
  /** The served version the rule matched: the request's own, or an equivalent one. */
  def: ResourceDefinition;
  resource: GroupVersionResource;
  subresource: string;
}

export const gvrOf = (def: ResourceDefinition): GroupVersionResource => ({ group: def.group, version: def.version, resource: def.resource });

/**
 * The namespace kube's attributes carry: the object's, and for Namespace objects their own name
 * (the namespace of /api/v1/namespaces/<name>), except on create, whose path names none.
 */
export function requestNamespace(a: DynamicAdmissionAttributes): string {
  const def = a.request ?? a.def;
  if (def.group === '' && def.resource === 'namespaces') return a.operation === 'CREATE' ? '' : a.name;
  return a.namespace;
}

const isNamespaceResource = (r: GroupVersionResource) => r.group === '' && r.version === 'v1' && r.resource === 'namespaces';
const exactOrWildcard = (items: string[] | undefined, requested: string) => (items ?? []).some((i) => i === '*' || i === requested);

/** kube's rules.Matcher: scope, operation, group, version, then resource/subresource with wildcards. */
export function ruleMatches(rule: Rule, operation: string, r: GroupVersionResource, subresource: string, namespace: string): boolean {
  const scope = rule.scope ?? '*';
  if (scope === 'Namespaced' && (isNamespaceResource(r) || namespace === '')) return false;
  if (scope === 'Cluster' && !(isNamespaceResource(r) || namespace === '')) return false;
  if (scope !== '*' && scope !== 'Namespaced' && scope !== 'Cluster') return false;
  if (!(rule.operations ?? []).some((op) => op === '*' || op === operation)) return false;
  if (!exactOrWildcard(rule.apiGroups, r.group) || !exactOrWildcard(rule.apiVersions, r.version)) return false;
  return (rule.resources ?? []).some((res) => {
    const slash = res.indexOf('/');
    const [name, sub] = slash < 0 ? [res, ''] : [res.slice(0, slash), res.slice(slash + 1)];
    return (name === '*' || name === r.resource) && (sub === '*' || sub === subresource);
  });
}

/** kube's IsExemptAdmissionConfigurationResource: admission's own configuration never goes to webhooks. */
const exemptKinds = new Set(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding', 'MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding']);
export function isExempt(def: ResourceDefinition): boolean {
  return def.group === 'admissionregistration.k8s.io' && exemptKinds.has(def.kind);
}

const parsedSelectors = new WeakMap<object, LabelSelector | Error>();

/** A webhook's selector, parsed once per stored configuration (an absent one selects everything). */
function selectorOf(sel: LabelSelectorObject | undefined): LabelSelector | Error | undefined {
  if (!sel) return undefined;
  let parsed = parsedSelectors.get(sel);
  if (!parsed) {
    try {
      parsed = labelSelectorFromObject(sel)!;
    } catch (err) {
      parsed = err instanceof Error ? err : new Error(String(err));
    }
    parsedSelectors.set(sel, parsed);
  }
  return parsed;
}

export interface MatchContext {
  /** Every served version stored with the request's resource (kube's EquivalentResourcesFor). */
  equivalents(def: ResourceDefinition): ResourceDefinition[];
  /** The labels of a namespace; throws kube's NotFound when it does not exist. */
  namespaceLabels(name: string): Promise<Record<string, string> | undefined>;
  /** The server's authorizer, which matchConditions' `authorizer` asks; undefined when it authorizes nothing. */
  authorizer?(): Authorizer | undefined;
}

/**
 * kube's namespace.Matcher.MatchNamespaceSelector: cluster-scoped objects other than namespaces
 * always match; a Namespace written is matched by its own new labels.
 */
async function matchesNamespace(sel: LabelSelectorObject | undefined, a: DynamicAdmissionAttributes, ctx: MatchContext): Promise<boolean> {
  const namespace = requestNamespace(a);
  const def = a.request ?? a.def;
  const namespaces = def.group === '' && def.resource === 'namespaces';
  if (namespace === '' && !namespaces) return true;
  const selector = selectorOf(sel);
  if (selector instanceof Error) throw newInternalError(selector);
  if (!selector || selector.empty) return true;
  if (namespaces && !a.subresource && (a.operation === 'CREATE' || a.operation === 'UPDATE')) return selector.matches(a.obj?.metadata.labels ?? {});
  return selector.matches((await ctx.namespaceLabels(namespace)) ?? {});
}

/** kube's object.Matcher: the new or the old object's labels. */
function matchesObject(sel: LabelSelectorObject | undefined, a: DynamicAdmissionAttributes): boolean {
  const selector = selectorOf(sel);
  if (selector instanceof Error) throw newInternalError(selector);
  if (!selector || selector.empty) return true;
  return (a.obj !== undefined && selector.matches(a.obj.metadata?.labels ?? {})) || (a.old !== undefined && selector.matches(a.old.metadata?.labels ?? {}));
}

/** The invocation of a webhook for a request, or undefined when it does not apply (match conditions are checked by the caller, on the versioned object). */
export async function shouldCallHook(accessor: WebhookAccessor, a: DynamicAdmissionAttributes, ctx: MatchContext): Promise<Invocation | undefined> {
  const hook = accessor.webhook;
  // kube evaluates the selectors first but reports their errors only for webhooks whose rules match.
  let selectorError: unknown;
  try {
    if (!(await matchesNamespace(hook.namespaceSelector, a, ctx))) return undefined;
  } catch (err) {
    selectorError = err;
  }
  try {
    if (!matchesObject(hook.objectSelector, a)) return undefined;
  } catch (err) {
    selectorError ??= err;
  }
  const requested = a.request ?? a.def;
  const namespace = requestNamespace(a);
  const rules = hook.rules ?? [];
  let invocation: Invocation | undefined;
  if (rules.some((r) => ruleMatches(r, a.operation, gvrOf(requested), a.subresource, namespace))) {
    invocation = { accessor, def: requested, resource: gvrOf(requested), subresource: a.subresource };
  } else if ((hook.matchPolicy ?? 'Equivalent') === 'Equivalent') {
    const equivalents = ctx.equivalents(requested).filter((d) => d !== requested);
    outer: for (const rule of rules) {
      for (const def of equivalents) {
        if (ruleMatches(rule, a.operation, gvrOf(def), a.subresource, namespace)) {
          invocation = { accessor, def, resource: gvrOf(def), subresource: a.subresource };
          break outer;
        }
      }
    }
  }
  if (!invocation) return undefined;
  if (selectorError !== undefined) throw selectorError;
  return invocation;
}

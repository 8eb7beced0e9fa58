/**
 * Which rules apply to a user in a namespace: kube's DefaultRuleResolver
 * (pkg/registry/rbac/validation/rule.go). Every ClusterRoleBinding naming the user (directly,
 * through a group, or as a service account) contributes its role's rules, then every
 * RoleBinding of the namespace does, a RoleBinding to a ClusterRole granting that role's rules
 * in the binding's namespace only. Each rule comes with the binding that granted it, which is
 * how kube words an RBAC allow reason.
 */
import { goQuote } from '@windlass/machinery';
import { effectiveRules, isAggregated } from './aggregation.js';
import type { ClusterRole, PolicyRule, RBACObjects, RoleBinding, RoleRef, Subject, UserInfo } from './types.js';

/** What granted a rule: `ClusterRoleBinding "x" of ClusterRole "y" to Group "z"` (kube's describers). */
export type RuleSource = () => string;

/** Return false to stop visiting. A rule-less call carries a resolution error. */
export type RuleVisitor = (source: RuleSource | undefined, rule: PolicyRule | undefined, err: Error | undefined) => boolean;

const serviceAccountPrefix = 'system:serviceaccount:';

export function appliesToUser(user: UserInfo, subject: Subject, namespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      // A RoleBinding may name a service account of its own namespace without qualifying it.
      const saNamespace = subject.namespace || namespace;
      if (!saNamespace) return false;
      return user.name === `${serviceAccountPrefix}${saNamespace}:${subject.name}`;
    }
    default:
      return false;
  }
}

/** The index of the first subject that names the user, or -1. */
export function appliesTo(user: UserInfo, subjects: readonly Subject[] | null | undefined, namespace: string): number {
  return (subjects ?? []).findIndex((s) => appliesToUser(user, s, namespace));
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} ${goQuote(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${goQuote(s.name)}`;
}

function describeClusterRoleBinding(b: RoleBinding, s: Subject): string {
  return `ClusterRoleBinding ${goQuote(b.metadata.name)} of ${b.roleRef.kind} ${goQuote(b.roleRef.name)} to ${describeSubject(s, '')}`;
}

function describeRoleBinding(b: RoleBinding, s: Subject): string {
  const ns = b.metadata.namespace ?? '';
  return `RoleBinding ${goQuote(`${b.metadata.name}/${ns}`)} of ${b.roleRef.kind} ${goQuote(b.roleRef.name)} to ${describeSubject(s, ns)}`;
}

/** The lister's NotFound error text: `clusterrole.rbac.authorization.k8s.io "x" not found`. */
function notFound(resource: 'role' | 'clusterrole', name: string): Error {
  return new Error(`${resource}.rbac.authorization.k8s.io ${goQuote(name)} not found`);
}

const aggregatedMemo = new WeakMap<readonly ClusterRole[], Map<ClusterRole, PolicyRule[]>>();

export class RuleResolver {
  constructor(private readonly objects: RBACObjects) {}

  /** The rules a role reference grants; a RoleBinding's Role is looked up in the binding's namespace. */
  async roleReferenceRules(ref: RoleRef, bindingNamespace: string, clusterRoles: () => Promise<ClusterRole[]>): Promise<PolicyRule[]> {
    switch (ref.kind) {
      case 'Role': {
        const role = await this.objects.getRole(bindingNamespace, ref.name);
        if (!role) throw notFound('role', ref.name);
        return role.rules ?? [];
      }
      case 'ClusterRole': {
        const role = await this.objects.getClusterRole(ref.name);
        if (!role) throw notFound('clusterrole', ref.name);
        if (!isAggregated(role)) return role.rules ?? [];
        const all = await clusterRoles();
        // A cached source hands out the same list until a ClusterRole changes: the aggregation is computed once per list.
        let memo = aggregatedMemo.get(all);
        if (!memo) aggregatedMemo.set(all, (memo = new Map()));
        let rules = memo.get(role);
        if (!rules) memo.set(role, (rules = effectiveRules(role, all)));
        return rules;
      }
      default:
        throw new Error(`unsupported role reference kind: ${goQuote(ref.kind)}`);
    }
  }

  async visitRulesFor(user: UserInfo, namespace: string, visitor: RuleVisitor): Promise<void> {
    let all: Promise<ClusterRole[]> | undefined;
    const clusterRoles = () => (all ??= this.objects.listClusterRoles());
    const visitBindings = async (bindings: RoleBinding[], bindingNamespace: string, describe: (b: RoleBinding, s: Subject) => string): Promise<boolean> => {
      for (const binding of bindings) {
        const i = appliesTo(user, binding.subjects, bindingNamespace);
        if (i < 0) continue;
        let rules: PolicyRule[];
        try {
          rules = await this.roleReferenceRules(binding.roleRef, bindingNamespace, clusterRoles);
        } catch (err) {
          if (!visitor(undefined, undefined, err as Error)) return false;
          continue;
        }
        const subject = binding.subjects![i];
        const source = () => describe(binding, subject);
        for (const rule of rules) if (!visitor(source, rule, undefined)) return false;
      }
      return true;
    };

    let clusterBindings: RoleBinding[] | undefined;
    try {
      clusterBindings = await this.objects.listClusterRoleBindings();
    } catch (err) {
      if (!visitor(undefined, undefined, err as Error)) return;
    }
    if (clusterBindings && !(await visitBindings(clusterBindings, '', describeClusterRoleBinding))) return;
    if (!namespace) return;
    let bindings: RoleBinding[] | undefined;
    try {
      bindings = await this.objects.listRoleBindings(namespace);
    } catch (err) {
      if (!visitor(undefined, undefined, err as Error)) return;
    }
    // Each RoleBinding is read in its own namespace, which a listing by namespace already is.
    if (bindings) await visitBindings(bindings, namespace, describeRoleBinding);
  }

  /** Every rule that applies, and the resolution errors met on the way. */
  async rulesFor(user: UserInfo, namespace: string): Promise<{ rules: PolicyRule[]; errors: Error[] }> {
    const rules: PolicyRule[] = [];
    const errors: Error[] = [];
    await this.visitRulesFor(user, namespace, (_source, rule, err) => {
      if (rule) rules.push(rule);
      if (err) errors.push(err);
      return true;
    });
    return { rules, errors };
  }
}

/** utilerrors.NewAggregate(errs).Error(): distinct messages; one alone, several in brackets. */
export function aggregateMessage(errors: readonly Error[]): string {
  const distinct = [...new Set(errors.map((e) => e.message))];
  if (distinct.length <= 1) return distinct[0] ?? '';
  return `[${distinct.join(', ')}]`;
}

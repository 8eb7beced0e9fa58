/**
 * kube-apiserver's authorizers: members of system:masters are allowed everything first (the
 * privileged-group authorizer, no reason), then each --authorization-mode (AlwaysAllow,
 * AlwaysDeny, RBAC — kube's plugin/pkg/auth/authorizer/rbac) in order. An authorizer with no
 * opinion passes to the next; the chain's answer is then NoOpinion (a denial) with their reasons.
 */
import { aggregateMessage, RuleResolver } from './resolver.js';
import { ruleAllows } from './rules.js';
import {
  systemPrivilegedGroup,
  type Attributes, type AuthorizationResult, type Authorizer, type NonResourceRuleInfo, type RBACObjects, type ResourceRuleInfo, type RulesResult, type UserInfo,
} from './types.js';

export class RBACAuthorizer implements Authorizer {
  readonly resolver: RuleResolver;

  constructor(objects: RBACObjects) {
    this.resolver = new RuleResolver(objects);
  }

  async authorize(attrs: Attributes): Promise<AuthorizationResult> {
    let reason = '';
    const errors: Error[] = [];
    await this.resolver.visitRulesFor(attrs.user, attrs.namespace ?? '', (source, rule, err) => {
      if (rule && source && ruleAllows(attrs, rule)) {
        reason = `RBAC: allowed by ${source()}`;
        return false;
      }
      if (err) errors.push(err);
      return true;
    });
    if (reason) return { decision: 'Allow', reason };
    // A binding to a missing role does not fail the request: it only explains the denial.
    return { decision: 'NoOpinion', reason: errors.length > 0 ? `RBAC: ${aggregateMessage(errors)}` : '' };
  }

  async rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> {
    const { errors, ...result } = await this.rulesAndErrors(user, namespace);
    return { ...result, error: errors.length > 0 ? aggregateMessage(errors) : undefined };
  }

  /** The rules plus each resolution error apart, for a chain that aggregates errors of several authorizers. */
  async rulesAndErrors(user: UserInfo, namespace: string): Promise<Omit<RulesResult, 'error'> & { errors: Error[] }> {
    const { rules, errors } = await this.resolver.rulesFor(user, namespace);
    const resourceRules: ResourceRuleInfo[] = [];
    const nonResourceRules: NonResourceRuleInfo[] = [];
    for (const r of rules) {
      if ((r.resources ?? []).length > 0) {
        resourceRules.push({ verbs: r.verbs, apiGroups: r.apiGroups ?? [], resources: r.resources ?? [], resourceNames: r.resourceNames ?? [] });
      }
      if ((r.nonResourceURLs ?? []).length > 0) nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs ?? [] });
    }
    return { resourceRules, nonResourceRules, incomplete: false, errors };
  }
}

/** authorizerfactory.NewPrivilegedGroups(system:masters): allows, without a reason, and lists no rules. */
export class PrivilegedGroupAuthorizer {
  constructor(private readonly groups: readonly string[] = [systemPrivilegedGroup]) {}

  authorize(attrs: Attributes): AuthorizationResult {
    return attrs.user.groups.some((g) => this.groups.includes(g)) ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: '' };
  }
}

/**
 * kube-apiserver's --authorization-mode names Windlass serves. Node (kube's node graph over pods,
 * secrets and volumes) and Webhook (a remote SubjectAccessReview) are refused at start.
 */
export const authorizationModes = ['AlwaysAllow', 'AlwaysDeny', 'RBAC'] as const;
export type AuthorizationMode = (typeof authorizationModes)[number];
/** kube's other mode names, refused with a reason rather than as unknown. */
export const unsupportedAuthorizationModes: Record<string, string> = {
  Node: 'Windlass builds no node graph (pods, secrets and volumes per node) for the Node authorizer; use RBAC',
  Webhook: 'Windlass does not call authorization webhooks; use RBAC',
  ABAC: 'Windlass does not read ABAC policy files; use RBAC',
};

/** authorizerfactory's alwaysAllowAuthorizer: allows everything, and says so in its rules. */
export class AlwaysAllowAuthorizer implements Authorizer {
  async authorize(): Promise<AuthorizationResult> {
    return { decision: 'Allow', reason: '' };
  }

  async rulesFor(): Promise<RulesResult> {
    return {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    };
  }
}

/** authorizerfactory's alwaysDenyAuthorizer: no opinion, with its reason, so a chain may still allow. */
export class AlwaysDenyAuthorizer implements Authorizer {
  async authorize(): Promise<AuthorizationResult> {
    return { decision: 'NoOpinion', reason: 'Everything is forbidden.' };
  }

  async rulesFor(): Promise<RulesResult> {
    return { resourceRules: [], nonResourceRules: [], incomplete: false };
  }
}

/**
 * kube-apiserver's authorizer: system:masters first (the loopback and super-user shortcut of
 * genericapiserver's AuthorizeClientBearerToken), then each --authorization-mode in order, as
 * k8s.io/apiserver's union: the first Allow or Deny answers; after only NoOpinions the answer
 * is NoOpinion with every reason, newline-joined. Rules are the union of every mode's.
 */
export class ChainAuthorizer implements Authorizer {
  private readonly superuser = new PrivilegedGroupAuthorizer();
  /** The RBAC member, when RBAC is one of the modes (escalation checks resolve rules through it). */
  readonly rbac?: RBACAuthorizer;

  constructor(private readonly members: readonly Authorizer[]) {
    this.rbac = members.find((m): m is RBACAuthorizer => m instanceof RBACAuthorizer);
  }

  /** Whether every request is allowed without looking (AlwaysAllow answers before any other mode). */
  get allowsEverything(): boolean {
    return this.members[0] instanceof AlwaysAllowAuthorizer;
  }

  async authorize(attrs: Attributes): Promise<AuthorizationResult> {
    const first = this.superuser.authorize(attrs);
    if (first.decision !== 'NoOpinion') return first;
    const reasons: string[] = [];
    const errors: string[] = [];
    for (const member of this.members) {
      const r = await member.authorize(attrs);
      if (r.decision !== 'NoOpinion') return r;
      if (r.reason) reasons.push(r.reason);
      if (r.error) errors.push(r.error);
    }
    const result: AuthorizationResult = { decision: 'NoOpinion', reason: reasons.join('\n') };
    if (errors.length > 0) result.error = aggregateMessage(errors.map((e) => new Error(e)));
    return result;
  }

  async rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> {
    const errors: Error[] = [];
    const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
    for (const member of this.members) {
      if (member instanceof RBACAuthorizer) {
        const { errors: errs, ...r } = await member.rulesAndErrors(user, namespace);
        errors.push(...errs);
        merge(out, r);
        continue;
      }
      const r = await member.rulesFor(user, namespace);
      if (r.error) errors.push(new Error(r.error));
      merge(out, r);
    }
    if (errors.length > 0) out.error = aggregateMessage(errors);
    return out;
  }
}

function merge(into: RulesResult, r: Omit<RulesResult, 'error'>): void {
  into.resourceRules.push(...r.resourceRules);
  into.nonResourceRules.push(...r.nonResourceRules);
  into.incomplete ||= r.incomplete;
}

/** The chain of the given modes (RBAC alone by default, Windlass's --authorization-mode default) over the stored RBAC objects. */
export function newAuthorizer(objects: RBACObjects, modes: readonly AuthorizationMode[] = ['RBAC']): ChainAuthorizer {
  return new ChainAuthorizer(modes.map((mode): Authorizer => {
    switch (mode) {
      case 'AlwaysAllow': return new AlwaysAllowAuthorizer();
      case 'AlwaysDeny': return new AlwaysDenyAuthorizer();
      case 'RBAC': return new RBACAuthorizer(objects);
    }
  }));
}

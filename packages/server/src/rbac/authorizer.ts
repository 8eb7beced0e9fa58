/**
 * kube-apiserver's authorizer chain for `--authorization-mode=Node,RBAC`: members of
 * system:masters are allowed everything first (the privileged-group authorizer, no reason),
 * then RBAC decides (kube's plugin/pkg/auth/authorizer/rbac). An authorizer with no opinion
 * passes to the next; the chain's answer is then NoOpinion (a denial) with their reasons.
 */
import { aggregateMessage, RuleResolver } from './resolver.js';
import { ruleAllows } from './rules.js';
import {
  nodesGroup, systemPrivilegedGroup,
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

const nodeUserPrefix = 'system:node:';

/** nodeidentifier: a user named system:node:<name> in system:nodes. */
export function nodeIdentity(user: UserInfo): string | undefined {
  if (!user.name.startsWith(nodeUserPrefix) || !user.groups.includes(nodesGroup)) return undefined;
  return user.name.slice(nodeUserPrefix.length);
}

/**
 * The whole chain. The Node authorizer's graph of pods, secrets and volumes per node is not
 * built here: it has no opinion on requests, and, as in kube, says a node's rules cannot be
 * enumerated.
 */
export class ChainAuthorizer implements Authorizer {
  private readonly superuser = new PrivilegedGroupAuthorizer();

  constructor(readonly rbac: RBACAuthorizer) {}

  async authorize(attrs: Attributes): Promise<AuthorizationResult> {
    const results = [this.superuser.authorize(attrs)];
    if (results[0].decision !== 'NoOpinion') return results[0];
    const rbac = await this.rbac.authorize(attrs);
    if (rbac.decision !== 'NoOpinion') return rbac;
    results.push(rbac);
    return { decision: 'NoOpinion', reason: results.map((r) => r.reason).filter((r) => r !== '').join('\n') };
  }

  async rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> {
    const errors: Error[] = [];
    let incomplete = false;
    if (nodeIdentity(user) !== undefined) {
      incomplete = true;
      errors.push(new Error('node authorizer does not support user rule resolution'));
    }
    const rbac = await this.rbac.rulesAndErrors(user, namespace);
    errors.push(...rbac.errors);
    return {
      resourceRules: rbac.resourceRules, nonResourceRules: rbac.nonResourceRules, incomplete: incomplete || rbac.incomplete,
      error: errors.length > 0 ? aggregateMessage(errors) : undefined,
    };
  }
}

export function newAuthorizer(objects: RBACObjects): ChainAuthorizer {
  return new ChainAuthorizer(new RBACAuthorizer(objects));
}

/**
 * kube's authorizer library (k8s.io/apiserver pkg/cel/library/authz.go), which admission
 * policies' expressions reach through the `authorizer` and `authorizer.requestResource`
 * variables: `authorizer.group('apps').resource('deployments').namespace('ns').check('create')
 * .allowed()`, `authorizer.path('/healthz').check('get')`, `authorizer.serviceAccount(ns, name)`
 * to ask for another user, and a decision's `allowed()`, `reason()`, `errored()` and `error()`.
 *
 * Windlass' authorizer answers asynchronously and CEL evaluates synchronously, so a check not yet
 * answered records what it asks and fails the evaluation; the caller (`evaluateWithAuthorizer`)
 * asks the authorizer for every check recorded, then evaluates again, now with the answers. CEL
 * expressions have no side effects, so evaluating again gives the answer one pass would have.
 */
import { celMethod, CelScalar, type CelInput } from '@bufbuild/cel';
import { ALL_SERVICE_ACCOUNTS_GROUP, makeUsername, SERVICE_ACCOUNT_GROUP_PREFIX } from '@windlass/auth';
import type { Attributes, AuthorizationResult, Authorizer, UserInfo } from '../rbac/types.js';
import { opaqueType } from './opaque.js';

const { STRING, BOOL } = CelScalar;

/** What one evaluation's checks are answered from: the user asking and the answers so far. */
export class AuthzContext {
  private readonly answers = new Map<string, AuthorizationResult>();
  private readonly pending = new Map<string, Attributes>();

  /** `authorizer` undefined: the server authorizes nothing (it runs without authentication), so every check is allowed. */
  constructor(readonly user: UserInfo, private readonly authorizer: Authorizer | undefined) {}

  answer(attrs: Attributes): AuthorizationResult {
    const key = JSON.stringify(attrs);
    const known = this.answers.get(key);
    if (known) return known;
    this.pending.set(key, attrs);
    throw new AuthorizationPending();
  }

  /** Whether the last evaluation asked what is not answered yet. */
  get asked(): boolean {
    return this.pending.size > 0;
  }

  /** Asks the authorizer everything the last evaluation recorded. */
  async answerPending(): Promise<void> {
    const asked = [...this.pending];
    this.pending.clear();
    await Promise.all(asked.map(async ([key, attrs]) => {
      let result: AuthorizationResult;
      try {
        result = this.authorizer ? await this.authorizer.authorize(attrs) : { decision: 'Allow', reason: '' };
      } catch (err) {
        result = { decision: 'NoOpinion', reason: '', error: (err as Error).message };
      }
      this.answers.set(key, result);
    }));
  }
}

class AuthorizationPending extends Error {
  constructor() {
    super('authorization check not answered yet');
  }
}

interface AuthorizerValue { ctx: AuthzContext; user: UserInfo }
interface PathCheck { az: AuthorizerValue; path: string }
interface GroupCheck { az: AuthorizerValue; group: string }
interface ResourceCheck { az: AuthorizerValue; group: string; resource: string; subresource: string; namespace: string; name: string }

let unique = 0;
const lost = (what: string) => () => {
  throw new Error(`${what} value lost`);
};
// Checks have no identity CEL compares by; each value is its own.
const AuthorizerType = opaqueType<AuthorizerValue>('kubernetes.authorization.Authorizer', () => `#${++unique}`, lost('authorizer'));
const PathCheckType = opaqueType<PathCheck>('kubernetes.authorization.PathCheck', () => `#${++unique}`, lost('path check'));
const GroupCheckType = opaqueType<GroupCheck>('kubernetes.authorization.GroupCheck', () => `#${++unique}`, lost('group check'));
const ResourceCheckType = opaqueType<ResourceCheck>('kubernetes.authorization.ResourceCheck', () => `#${++unique}`, lost('resource check'));
const DecisionType = opaqueType<AuthorizationResult>('kubernetes.authorization.Decision', (d) => JSON.stringify(d), (k) => JSON.parse(k) as AuthorizationResult);

/** serviceaccount.UserInfo(namespace, name, ""): the service account's user and groups, without system:authenticated. */
function serviceAccountUser(namespace: string, name: string): UserInfo {
  return { name: makeUsername(namespace, name), groups: [ALL_SERVICE_ACCOUNTS_GROUP, SERVICE_ACCOUNT_GROUP_PREFIX + namespace] };
}

function resourceAttributes(c: ResourceCheck, verb: string): Attributes {
  return {
    user: c.az.user, verb, resourceRequest: true, apiGroup: c.group, apiVersion: '*', resource: c.resource,
    subresource: c.subresource, namespace: c.namespace, name: c.name,
  };
}

const withField = (field: 'subresource' | 'namespace' | 'name') => function (this: unknown, v: string) {
  return ResourceCheckType.of({ ...ResourceCheckType.get(this as never), [field]: v });
};

const AZ = AuthorizerType.type;
const PATH = PathCheckType.type;
const GROUP = GroupCheckType.type;
const RESOURCE = ResourceCheckType.type;
const DECISION = DecisionType.type;

export const authzFunctions = [
  celMethod('path', AZ, [STRING], PATH, function (path) { return PathCheckType.of({ az: AuthorizerType.get(this), path }); }),
  celMethod('group', AZ, [STRING], GROUP, function (group) { return GroupCheckType.of({ az: AuthorizerType.get(this), group }); }),
  celMethod('serviceAccount', AZ, [STRING, STRING], AZ, function (namespace, name) {
    return AuthorizerType.of({ ctx: AuthorizerType.get(this).ctx, user: serviceAccountUser(namespace, name) });
  }),
  celMethod('resource', GROUP, [STRING], RESOURCE, function (resource) {
    const g = GroupCheckType.get(this);
    return ResourceCheckType.of({ az: g.az, group: g.group, resource, subresource: '', namespace: '', name: '' });
  }),
  celMethod('subresource', RESOURCE, [STRING], RESOURCE, withField('subresource')),
  celMethod('namespace', RESOURCE, [STRING], RESOURCE, withField('namespace')),
  celMethod('name', RESOURCE, [STRING], RESOURCE, withField('name')),
  celMethod('check', RESOURCE, [STRING], DECISION, function (verb) {
    const c = ResourceCheckType.get(this);
    return DecisionType.of(c.az.ctx.answer(resourceAttributes(c, verb)));
  }),
  celMethod('check', PATH, [STRING], DECISION, function (verb) {
    const p = PathCheckType.get(this);
    return DecisionType.of(p.az.ctx.answer({ user: p.az.user, verb, resourceRequest: false, path: p.path }));
  }),
  celMethod('allowed', DECISION, [], BOOL, function () { return DecisionType.get(this).decision === 'Allow'; }),
  celMethod('reason', DECISION, [], STRING, function () { return DecisionType.get(this).reason; }),
  celMethod('errored', DECISION, [], BOOL, function () { return Boolean(DecisionType.get(this).error); }),
  celMethod('error', DECISION, [], STRING, function () { return DecisionType.get(this).error ?? ''; }),
];

/** The request's resource, as `authorizer.requestResource` names it. */
export interface RequestResource { group: string; resource: string; subresource: string; namespace: string; name: string }

interface AdmittedRequest {
  def: { group: string; resource: string };
  request?: { group: string; resource: string };
  subresource: string;
  namespace: string;
  name: string;
}

/** kube's requestResource check: the group and resource the client wrote through, its subresource, namespace and name. */
export function requestResourceOf(a: AdmittedRequest): RequestResource {
  const { group, resource } = a.request ?? a.def;
  return { group, resource, subresource: a.subresource, namespace: a.namespace, name: a.name };
}

/** The variable `authorizer.requestResource` is bound as (./syntax.ts reads the dotted name as this one). */
export const requestResourceVariable = '__authorizer_requestResource';

/** The bindings of `authorizer` and `authorizer.requestResource` for one evaluation. */
export function authorizerBindings(ctx: AuthzContext, request: RequestResource): Record<string, CelInput> {
  const az: AuthorizerValue = { ctx, user: ctx.user };
  return {
    authorizer: AuthorizerType.of(az) as unknown as CelInput,
    [requestResourceVariable]: ResourceCheckType.of({ az, ...request }) as unknown as CelInput,
  };
}

/**
 * `evaluate` run until every authorizer check it makes is answered (at most a few passes: a
 * check's arguments may depend on an earlier check's answer).
 */
export async function evaluateWithAuthorizer<T>(ctx: AuthzContext, evaluate: () => T): Promise<T> {
  for (let pass = 0; ; pass++) {
    const result = evaluate();
    if (!ctx.asked || pass >= 8) return result;
    await ctx.answerPending();
  }
}

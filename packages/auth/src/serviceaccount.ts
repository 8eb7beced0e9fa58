/**
 * Service account identities and token claims as kube 1.35 makes and checks them
 * (k8s.io/apiserver authentication/serviceaccount, kubernetes pkg/serviceaccount claims.go and
 * legacy.go): the user a token stands for, the claims TokenRequest and the token controller
 * sign, and the validators that hold a token to the objects it names still existing.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { withAuthenticatedGroup, type UserInfo } from './user.js';

export const SERVICE_ACCOUNT_USERNAME_PREFIX = 'system:serviceaccount:';
export const ALL_SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
export const SERVICE_ACCOUNT_GROUP_PREFIX = 'system:serviceaccounts:';
/** The issuer of the token controller's secret-based tokens (kube's LegacyIssuer). */
export const LEGACY_ISSUER = 'kubernetes/serviceaccount';

export const POD_NAME_KEY = 'authentication.kubernetes.io/pod-name';
export const POD_UID_KEY = 'authentication.kubernetes.io/pod-uid';
export const NODE_NAME_KEY = 'authentication.kubernetes.io/node-name';
export const NODE_UID_KEY = 'authentication.kubernetes.io/node-uid';
export const CREDENTIAL_ID_KEY = 'authentication.kubernetes.io/credential-id';

/** Labels kube's legacy token tracking and clean-up put on token Secrets. */
export const LEGACY_TOKEN_LAST_USED_LABEL = 'kubernetes.io/legacy-token-last-used';
export const LEGACY_TOKEN_INVALID_SINCE_LABEL = 'kubernetes.io/legacy-token-invalid-since';

/** jwt.DefaultLeeway: clocks may disagree by a minute either way. */
const LEEWAY_SECONDS = 60;

export const makeUsername = (namespace: string, name: string): string => `${SERVICE_ACCOUNT_USERNAME_PREFIX}${namespace}:${name}`;

/** The namespace and name of a service account user name, or null when it names none (kube's SplitUsername, less the name validation). */
export function splitUsername(username: string): { namespace: string; name: string } | null {
  if (!username.startsWith(SERVICE_ACCOUNT_USERNAME_PREFIX)) return null;
  const parts = username.slice(SERVICE_ACCOUNT_USERNAME_PREFIX.length).split(':');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return null;
  return { namespace: parts[0]!, name: parts[1]! };
}

/** What a validated token says about its service account (kube's ServiceAccountInfo). */
export interface ServiceAccountInfo {
  namespace: string;
  name: string;
  uid: string;
  podName?: string;
  podUID?: string;
  nodeName?: string;
  nodeUID?: string;
  credentialID?: string;
}

/** ServiceAccountInfo.UserInfo, with system:authenticated as the request path adds it. */
export function serviceAccountUser(sa: ServiceAccountInfo): UserInfo {
  const extra: Record<string, string[]> = {};
  if (sa.podName && sa.podUID) {
    extra[POD_NAME_KEY] = [sa.podName];
    extra[POD_UID_KEY] = [sa.podUID];
  }
  if (sa.credentialID) extra[CREDENTIAL_ID_KEY] = [sa.credentialID];
  if (sa.nodeName) {
    extra[NODE_NAME_KEY] = [sa.nodeName];
    if (sa.nodeUID) extra[NODE_UID_KEY] = [sa.nodeUID];
  }
  const user: UserInfo = {
    name: makeUsername(sa.namespace, sa.name), uid: sa.uid,
    groups: [ALL_SERVICE_ACCOUNTS_GROUP, SERVICE_ACCOUNT_GROUP_PREFIX + sa.namespace],
  };
  if (Object.keys(extra).length > 0) user.extra = extra;
  return withAuthenticatedGroup(user);
}

/** The part of an object the validators read. */
export interface ObjectRef {
  metadata: { name?: string; namespace?: string; uid?: string; deletionTimestamp?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  type?: string;
}

export type BoundResource = 'serviceaccounts' | 'secrets' | 'pods' | 'nodes';

/** The objects tokens are checked against: kube's ServiceAccountTokenGetter (a cache, live on a miss). */
export interface ServiceAccountTokenGetter {
  get(resource: BoundResource, namespace: string, name: string): Promise<ObjectRef | undefined>;
  /** Records a legacy token's use on its Secret (kube's legacy-token tracking); optional. */
  markLegacyTokenUsed?(namespace: string, name: string, date: string): Promise<void>;
}

interface Ref {
  name: string;
  uid: string;
}

/** The bound token's `kubernetes.io` claim. */
export interface KubernetesClaims {
  namespace: string;
  serviceaccount: Ref;
  pod?: Ref;
  secret?: Ref;
  node?: { name: string; uid?: string };
  warnafter?: number;
}

export interface BoundTokenRequest {
  serviceAccount: { namespace: string; name: string; uid: string };
  pod?: Ref;
  secret?: Ref;
  /** The pod's node (claimed for information) or the node the token is bound to. */
  node?: { name: string; uid?: string };
  expirationSeconds: number;
  /** Seconds after which use is only warned about (kube's extended pod-bound tokens); 0 for none. */
  warnAfterSeconds: number;
  audiences: string[];
  issuer: string;
  now?: Date;
}

/** claims.go's Claims with the issuer set: every public claim, a fresh jti, and the bindings. */
export function boundTokenClaims(req: BoundTokenRequest): Record<string, unknown> {
  if (req.secret && (req.pod || req.node)) throw new Error('internal error, token can only be bound to one object type');
  const now = Math.floor((req.now ?? new Date()).getTime() / 1000);
  const k8s: KubernetesClaims = {
    namespace: req.serviceAccount.namespace,
    serviceaccount: { name: req.serviceAccount.name, uid: req.serviceAccount.uid },
  };
  if (req.pod) {
    k8s.pod = { name: req.pod.name, uid: req.pod.uid };
    if (req.node) k8s.node = nodeRef(req.node);
  } else if (req.secret) {
    k8s.secret = { name: req.secret.name, uid: req.secret.uid };
  } else if (req.node) {
    k8s.node = nodeRef(req.node);
  }
  if (req.warnAfterSeconds !== 0) k8s.warnafter = now + req.warnAfterSeconds;
  return {
    aud: req.audiences, exp: now + req.expirationSeconds, iat: now, iss: req.issuer, jti: randomUUID(),
    'kubernetes.io': k8s, nbf: now, sub: makeUsername(req.serviceAccount.namespace, req.serviceAccount.name),
  };
}

// A node claimed without a uid (a pod's node that does not exist) has only its name; omitempty drops the uid.
const nodeRef = (node: { name: string; uid?: string }) => (node.uid ? { name: node.name, uid: node.uid } : { name: node.name });

/** legacy.go's LegacyClaims: the token controller's token for a Secret. */
export function legacyTokenClaims(sa: { namespace: string; name: string; uid: string }, secretName: string): Record<string, unknown> {
  return {
    iss: LEGACY_ISSUER,
    'kubernetes.io/serviceaccount/namespace': sa.namespace,
    'kubernetes.io/serviceaccount/secret.name': secretName,
    'kubernetes.io/serviceaccount/service-account.name': sa.name,
    'kubernetes.io/serviceaccount/service-account.uid': sa.uid,
    sub: makeUsername(sa.namespace, sa.name),
  };
}

/** A refusal with kube's message: the token is not authenticated, and TokenReview says why. */
export class TokenError extends Error {}

const notFound = (resource: string, name: string) => new TokenError(`${resource} "${name}" not found`);

function deletedBefore(obj: ObjectRef, cutoffMs: number): boolean {
  const ts = obj.metadata.deletionTimestamp;
  return ts !== undefined && Date.parse(ts) < cutoffMs;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function ref(v: unknown): Ref | undefined {
  if (v === null || typeof v !== 'object') return undefined;
  const r = v as Record<string, unknown>;
  return { name: str(r.name), uid: str(r.uid) };
}

const numeric = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * claims.go's validator: the time claims (a minute's leeway), then the service account, and the
 * secret, pod or node the token is bound to, must still exist with the uids it names and not
 * have been deleted more than the leeway ago.
 */
export async function validateBoundToken(claims: Record<string, unknown>, getter: ServiceAccountTokenGetter, nowMs = Date.now()): Promise<ServiceAccountInfo> {
  const now = nowMs / 1000;
  const nbf = numeric(claims.nbf);
  const exp = numeric(claims.exp);
  const iat = numeric(claims.iat);
  if (nbf !== undefined && now + LEEWAY_SECONDS < nbf) throw new TokenError('service account token is not valid yet');
  if (exp !== undefined && now - LEEWAY_SECONDS > exp) throw new TokenError('service account token has expired');
  if (iat !== undefined && now + LEEWAY_SECONDS < iat) throw new TokenError('service account token is issued in the future');
  const k8s = (claims['kubernetes.io'] ?? {}) as Record<string, unknown>;
  const namespace = str(k8s.namespace);
  const saRef = ref(k8s.serviceaccount) ?? { name: '', uid: '' };
  const podRef = ref(k8s.pod);
  const secretRef = ref(k8s.secret);
  const nodeRefClaim = ref(k8s.node);
  const cutoff = nowMs - LEEWAY_SECONDS * 1000;

  const sa = await getter.get('serviceaccounts', namespace, saRef.name);
  if (!sa) throw notFound('serviceaccounts', saRef.name);
  if (deletedBefore(sa, cutoff)) throw new TokenError(`service account ${namespace}/${saRef.name} has been deleted`);
  if ((sa.metadata.uid ?? '') !== saRef.uid) throw new TokenError(`service account UID (${sa.metadata.uid ?? ''}) does not match claim (${saRef.uid})`);

  if (secretRef) {
    const secret = await getter.get('secrets', namespace, secretRef.name);
    if (!secret || deletedBefore(secret, cutoff)) throw new TokenError('service account token has been invalidated');
    if (secretRef.uid !== (secret.metadata.uid ?? '')) {
      throw new TokenError(`secret UID (${secret.metadata.uid ?? ''}) does not match service account secret ref claim (${secretRef.uid})`);
    }
  }
  const info: ServiceAccountInfo = { namespace, name: saRef.name, uid: saRef.uid };
  if (podRef) {
    const pod = await getter.get('pods', namespace, podRef.name);
    if (!pod || deletedBefore(pod, cutoff)) throw new TokenError('service account token has been invalidated');
    if (podRef.uid !== (pod.metadata.uid ?? '')) {
      throw new TokenError(`pod UID (${pod.metadata.uid ?? ''}) does not match service account pod ref claim (${podRef.uid})`);
    }
    info.podName = podRef.name;
    info.podUID = podRef.uid;
  }
  if (nodeRefClaim) {
    if (!podRef) {
      // Bound to the node itself: it must still be there (a pod's node is only informative).
      const node = await getter.get('nodes', '', nodeRefClaim.name);
      if (!node || deletedBefore(node, cutoff)) throw new TokenError('service account token has been invalidated');
      if (nodeRefClaim.uid !== (node.metadata.uid ?? '')) {
        throw new TokenError(`node UID (${node.metadata.uid ?? ''}) does not match service account node ref claim (${nodeRefClaim.uid})`);
      }
    }
    info.nodeName = nodeRefClaim.name;
    info.nodeUID = nodeRefClaim.uid;
  }
  const jti = str(claims.jti);
  if (jti) info.credentialID = `JTI=${jti}`;
  return info;
}

const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * legacy.go's validator: the claims a secret-based token must carry, then (kube's
 * --service-account-lookup, on by default) the Secret must exist and hold this very token,
 * not be marked invalid by the legacy token cleaner, and the service account must exist with
 * the uid the token names. A use is recorded on the Secret once a day.
 */
export async function validateLegacyToken(token: string, claims: Record<string, unknown>, getter: ServiceAccountTokenGetter, nowMs = Date.now()): Promise<ServiceAccountInfo> {
  const sub = str(claims.sub);
  const namespace = str(claims['kubernetes.io/serviceaccount/namespace']);
  const secretName = str(claims['kubernetes.io/serviceaccount/secret.name']);
  const saName = str(claims['kubernetes.io/serviceaccount/service-account.name']);
  const saUID = str(claims['kubernetes.io/serviceaccount/service-account.uid']);
  if (!sub) throw new TokenError('sub claim is missing');
  if (!namespace) throw new TokenError('namespace claim is missing');
  if (!secretName) throw new TokenError('secretName claim is missing');
  if (!saName) throw new TokenError('serviceAccountName claim is missing');
  if (!saUID) throw new TokenError('serviceAccountUID claim is missing');
  const subject = splitUsername(sub);
  if (!subject || subject.namespace !== namespace || subject.name !== saName) throw new TokenError('sub claim is invalid');

  const secret = await getter.get('secrets', namespace, secretName);
  if (!secret || secret.metadata.deletionTimestamp) throw new TokenError('Token has been invalidated');
  const stored = Buffer.from(secret.data?.token ?? '', 'base64');
  const presented = Buffer.from(token);
  if (stored.length !== presented.length || !timingSafeEqual(stored, presented)) throw new TokenError("Token does not match server's copy");

  const sa = await getter.get('serviceaccounts', namespace, saName);
  if (!sa) throw notFound('serviceaccounts', saName);
  if (sa.metadata.deletionTimestamp) throw new TokenError(`ServiceAccount ${namespace}/${saName} has been deleted`);
  if ((sa.metadata.uid ?? '') !== saUID) throw new TokenError(`ServiceAccount UID (${sa.metadata.uid ?? ''}) does not match claim (${saUID})`);

  const labels = secret.metadata.labels ?? {};
  if (labels[LEGACY_TOKEN_INVALID_SINCE_LABEL]) {
    throw new TokenError(
      `the token in secret ${namespace}/${secretName} for service account ${namespace}/${saName} has been marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the '${LEGACY_TOKEN_INVALID_SINCE_LABEL}' label from the secret to temporarily allow use of this token`,
    );
  }
  const today = utcDate(nowMs);
  if (labels[LEGACY_TOKEN_LAST_USED_LABEL] !== today && getter.markLegacyTokenUsed) {
    // Tracking must never fail the request it observes.
    getter.markLegacyTokenUsed(namespace, secretName, today).catch(() => undefined);
  }
  return { namespace, name: saName, uid: saUID };
}

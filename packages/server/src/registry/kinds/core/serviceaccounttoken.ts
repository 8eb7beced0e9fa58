/**
 * The `serviceaccounts/token` subresource as kube 1.35's TokenREST serves it
 * (pkg/registry/core/serviceaccount/storage/token.go): a TokenRequest for an existing service
 * account, optionally bound to a pod, secret or node of the same namespace, answered with a
 * signed token of kube's claims and its expiry. `kubectl create token` calls it.
 */
import { failure, fieldErr, newBadRequest, newConflict, newInvalid, newNotFound } from '@windlass/machinery';
import {
  WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS, boundTokenClaims, type ServiceAccountTokens,
} from '@windlass/auth';
import type { KubeObject, ResourceDefinition } from '../../types.js';
import type { RequestScope } from '../../../handlers/scope.js';
import { decodeObjectBody } from '../../../handlers/body.js';
import { addWarnings, decodeTyped, typedDecoder } from '../../../handlers/typed.js';
import { parseModifyOptions } from '../../../handlers/options.js';
import { writeObject } from '../../../respond.js';
import { nowTimestamp } from '../../objectmeta.js';
import { ensureRequestNamespace } from '../authorization/review.js';

const tokenRequestDef = {
  group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest', listKind: 'TokenRequestList', resource: 'tokenrequests',
  singularName: 'tokenrequest', namespaced: true, verbs: ['create'], strategy: { nameValidator: () => [] }, table: { columns: [], cells: () => [] },
} as unknown as ResourceDefinition;

const tokenRequestKind = { group: 'authentication.k8s.io', kind: 'TokenRequest' };
/** SetDefaults_TokenRequestSpec: an hour. */
const DEFAULT_EXPIRATION_SECONDS = 60 * 60;
/** ValidateTokenRequest's bounds. */
const MIN_EXPIRATION_SECONDS = 10 * 60;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

interface TokenRequestSpec {
  audiences?: string[] | null;
  expirationSeconds?: number | null;
  boundObjectRef?: { kind?: string; apiVersion?: string; name?: string; uid?: string } | null;
}

export function servesServiceAccountToken(def: ResourceDefinition, subresource: string, verb: string): boolean {
  return def.group === '' && def.resource === 'serviceaccounts' && subresource === 'token' && verb === 'create';
}

/** schema.FromAPIVersionAndKind, printed as GroupVersionKind.String() does. */
function gvkOf(apiVersion: string, kind: string): { group: string; version: string; kind: string; text: string } {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  return { group, version, kind, text: `${group}/${version}, Kind=${kind}` };
}

const uidOf = (o: KubeObject) => o.metadata.uid ?? '';

/**
 * Serves POST .../serviceaccounts/<name>/token. Without a signing key kube registers no token
 * subresource, hence the 404.
 */
export async function serveServiceAccountToken(s: RequestScope, tokens: ServiceAccountTokens | undefined): Promise<void> {
  if (!tokens?.canSign) throw failure(404, 'NotFound', 'the server could not find the requested resource', {});
  const opts = parseModifyOptions(s.query, 'CreateOptions');
  const req = decodeObjectBody(s.body, s.req.headers['content-type'], tokenRequestDef);
  decodeTyped(await typedDecoder(tokenRequestDef), req, tokenRequestDef, opts.fieldValidation, s.res);
  const namespace = s.info.namespace;
  const name = s.info.name;
  // The create handler's rule, before TokenREST sees the object.
  ensureRequestNamespace(req, namespace, true);
  if (req.metadata.name && req.metadata.name !== name) {
    throw newInvalid(tokenRequestKind, name, [fieldErr.invalid('metadata.name', req.metadata.name, 'must match the service account name if specified')]);
  }
  const sa = (await s.store.get(namespace, name)).object;
  if (req.metadata.uid && req.metadata.uid !== uidOf(sa)) {
    throw newConflict({ group: 'authentication.k8s.io', resource: 'TokenRequest' }, name, `the UID in the token request (${req.metadata.uid}) does not match the UID of the service account (${uidOf(sa)})`);
  }
  const spec = ((req.spec ??= {}) as TokenRequestSpec);
  if (!spec.audiences || spec.audiences.length === 0) spec.audiences = [...tokens.apiAudiences];
  spec.expirationSeconds ??= DEFAULT_EXPIRATION_SECONDS;
  const now = new Date();
  req.metadata = { name: sa.metadata.name, namespace, uid: uidOf(sa), creationTimestamp: nowTimestamp(now) };

  const exp = spec.expirationSeconds;
  const errs = [];
  if (exp < MIN_EXPIRATION_SECONDS) errs.push(fieldErr.invalid('spec.expirationSeconds', exp, 'may not specify a duration less than 10 minutes'));
  if (exp > MAX_EXPIRATION_SECONDS) errs.push(fieldErr.invalid('spec.expirationSeconds', exp, 'may not specify a duration larger than 2^32 seconds'));
  if (errs.length > 0) throw newInvalid(tokenRequestKind, '', errs);

  let pod: KubeObject | undefined;
  let secret: KubeObject | undefined;
  let node: { name: string; uid?: string } | undefined;
  const ref = spec.boundObjectRef;
  if (ref) {
    const gvk = gvkOf(ref.apiVersion ?? '', ref.kind ?? '');
    const refName = ref.name ?? '';
    const get = async (resource: string, ns: string) => {
      const found = await s.store.ctx?.lookup('', resource)?.get(ns, refName);
      if (!found) throw newNotFound({ group: '', resource }, refName);
      return found;
    };
    let uid: string;
    if (gvk.group === '' && gvk.kind === 'Pod') {
      pod = await get('pods', namespace);
      const podSA = (pod.spec as { serviceAccountName?: string } | undefined)?.serviceAccountName ?? '';
      if (podSA !== name) throw newBadRequest(`cannot bind token for serviceaccount "${name}" to pod running with different serviceaccount name.`);
      uid = uidOf(pod);
      const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
      if (nodeName) {
        // A pod's node that does not exist is still named, so the token tells where the pod was placed.
        const found = await s.store.ctx?.lookup('', 'nodes')?.get('', nodeName);
        node = found ? { name: nodeName, uid: uidOf(found) } : { name: nodeName };
      }
    } else if (gvk.group === '' && gvk.kind === 'Node') {
      const found = await get('nodes', '');
      node = { name: refName, uid: uidOf(found) };
      uid = uidOf(found);
    } else if (gvk.group === '' && gvk.kind === 'Secret') {
      secret = await get('secrets', namespace);
      uid = uidOf(secret);
    } else {
      throw newBadRequest(`cannot bind token to object of type ${gvk.text}`);
    }
    if (ref.uid && ref.uid !== uid) {
      throw newConflict({ group: gvk.group, resource: gvk.kind }, refName, `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
    }
  }

  if (tokens.maxExpirationSeconds > 0 && spec.expirationSeconds > tokens.maxExpirationSeconds) {
    addWarnings(s.res, [`requested expiration of ${spec.expirationSeconds} seconds shortened to ${tokens.maxExpirationSeconds} seconds`]);
    spec.expirationSeconds = tokens.maxExpirationSeconds;
  }
  // The kubelet's pod-bound tokens of 3607 s for the API server only last a year and are
  // merely warned about after the hour, so clients that never refresh keep working.
  let lifetime = spec.expirationSeconds;
  let warnAfter = 0;
  const kubeAudiences = spec.audiences.every((a) => tokens.apiAudiences.includes(a));
  if (tokens.extendExpiration && pod && lifetime === WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS && kubeAudiences) {
    warnAfter = lifetime;
    lifetime = tokens.maxExtendedExpirationSeconds;
  }

  const token = tokens.sign(boundTokenClaims({
    serviceAccount: { namespace, name, uid: uidOf(sa) },
    pod: pod && { name: pod.metadata.name ?? '', uid: uidOf(pod) },
    secret: secret && { name: secret.metadata.name ?? '', uid: uidOf(secret) },
    node, expirationSeconds: lifetime, warnAfterSeconds: warnAfter, audiences: spec.audiences, issuer: tokens.issuer, now,
  }));
  const answer: KubeObject = {
    kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1', metadata: req.metadata,
    // TokenRequestSpec's fields have no omitempty: an unbound request says boundObjectRef: null.
    spec: { audiences: spec.audiences, expirationSeconds: spec.expirationSeconds, boundObjectRef: ref ?? null },
    status: { token, expirationTimestamp: nowTimestamp(new Date(now.getTime() + spec.expirationSeconds * 1000)) },
  };
  writeObject(s.res, 201, answer, s.negotiated);
}

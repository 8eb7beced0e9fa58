import { generateKeyPairSync } from 'node:crypto';
import { signJWT } from './jose.js';
import { ServiceAccountTokens, type ServiceAccountTokenConfig, type TokenAnswer } from './satokens.js';
import { boundTokenClaims, legacyTokenClaims, type ObjectRef, type ServiceAccountTokenGetter } from './serviceaccount.js';

const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const key = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pem = (k: import('node:crypto').KeyObject) => k.export({ type: 'pkcs8', format: 'pem' }) as string;

function tokens(over: Partial<ServiceAccountTokenConfig> = {}): ServiceAccountTokens {
  return new ServiceAccountTokens({ issuers: [ISSUER], signingKeyPem: pem(key.privateKey), publicKeyPems: [], apiAudiences: [], maxExpirationSeconds: 0, extendExpiration: true, ...over });
}

/** Objects by `resource/namespace/name`. */
function getter(objects: Record<string, ObjectRef>, used: string[] = []): ServiceAccountTokenGetter {
  return {
    get: async (resource, namespace, name) => objects[`${resource}/${namespace}/${name}`],
    markLegacyTokenUsed: async (namespace, name, date) => void used.push(`${namespace}/${name}@${date}`),
  };
}

const sa = { metadata: { name: 'robot', namespace: 'ns', uid: 'sa-uid' } };
const pod = { metadata: { name: 'p', namespace: 'ns', uid: 'pod-uid' } };
const node = { metadata: { name: 'n1', uid: 'node-uid' } };
const world = { 'serviceaccounts/ns/robot': sa, 'pods/ns/p': pod, 'nodes//n1': node };

function issue(t: ServiceAccountTokens, over: Partial<Parameters<typeof boundTokenClaims>[0]> = {}): string {
  return t.sign(boundTokenClaims({
    serviceAccount: { namespace: 'ns', name: 'robot', uid: 'sa-uid' }, expirationSeconds: 3600, warnAfterSeconds: 0,
    audiences: [ISSUER], issuer: ISSUER, ...over,
  }));
}

async function authn(t: ServiceAccountTokens, token: string, objects: Record<string, ObjectRef> = world, audiences?: string[]): Promise<TokenAnswer | null> {
  return (await t.authenticateToken(token, getter(objects), audiences)) ?? null;
}

describe('bound tokens (TokenRequest)', () => {
  it('carry kube\'s claims: sorted, an array audience, a jti, the service account and its bindings', () => {
    const now = new Date('2026-11-25T00:00:00Z');
    const claims = boundTokenClaims({
      serviceAccount: { namespace: 'ns', name: 'robot', uid: 'sa-uid' }, pod: { name: 'p', uid: 'pod-uid' }, node: { name: 'n1', uid: 'node-uid' },
      expirationSeconds: 600, warnAfterSeconds: 0, audiences: ['a'], issuer: ISSUER, now,
    });
    const t = 1795564800;
    expect(claims).toEqual({
      aud: ['a'], exp: t + 600, iat: t, iss: ISSUER, jti: expect.stringMatching(/^[0-9a-f-]{36}$/), nbf: t, sub: 'system:serviceaccount:ns:robot',
      'kubernetes.io': { namespace: 'ns', serviceaccount: { name: 'robot', uid: 'sa-uid' }, pod: { name: 'p', uid: 'pod-uid' }, node: { name: 'n1', uid: 'node-uid' } },
    });
    expect(() => boundTokenClaims({ serviceAccount: sa.metadata as never, secret: { name: 's', uid: 'u' }, pod: { name: 'p', uid: 'u' }, expirationSeconds: 1, warnAfterSeconds: 0, audiences: [], issuer: ISSUER }))
      .toThrow('token can only be bound to one object type');
  });

  it('authenticate as the service account, with the credential id and the pod and node it runs on', async () => {
    const t = tokens();
    const token = issue(t, { pod: { name: 'p', uid: 'pod-uid' }, node: { name: 'n1', uid: 'node-uid' } });
    const answer = await authn(t, token);
    expect(answer).toEqual({
      audiences: [ISSUER],
      user: {
        name: 'system:serviceaccount:ns:robot', uid: 'sa-uid', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns', 'system:authenticated'],
        extra: {
          'authentication.kubernetes.io/pod-name': ['p'], 'authentication.kubernetes.io/pod-uid': ['pod-uid'],
          'authentication.kubernetes.io/credential-id': [`JTI=${JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).jti}`],
          'authentication.kubernetes.io/node-name': ['n1'], 'authentication.kubernetes.io/node-uid': ['node-uid'],
        },
      },
    });
  });

  it.each<[string, Record<string, ObjectRef>, string]>([
    ['the service account is gone', {}, 'serviceaccounts "robot" not found'],
    ['the service account was recreated', { 'serviceaccounts/ns/robot': { metadata: { uid: 'new' } } }, 'service account UID (new) does not match claim (sa-uid)'],
    ['the service account was deleted over a minute ago', { 'serviceaccounts/ns/robot': { metadata: { uid: 'sa-uid', deletionTimestamp: '2020-01-01T00:00:00Z' } } }, 'service account ns/robot has been deleted'],
  ])('are refused when %s', async (_what, objects, error) => {
    const t = tokens();
    expect(await authn(t, issue(t), objects)).toEqual({ error });
  });

  it('are refused once the pod, secret or node they are bound to is gone or replaced', async () => {
    const t = tokens();
    const podToken = issue(t, { pod: { name: 'p', uid: 'pod-uid' } });
    expect(await authn(t, podToken, { 'serviceaccounts/ns/robot': sa })).toEqual({ error: 'service account token has been invalidated' });
    expect(await authn(t, podToken, { ...world, 'pods/ns/p': { metadata: { uid: 'other' } } })).toEqual({ error: 'pod UID (other) does not match service account pod ref claim (pod-uid)' });
    const secretToken = issue(t, { secret: { name: 's', uid: 's-uid' } });
    expect(await authn(t, secretToken)).toEqual({ error: 'service account token has been invalidated' });
    expect(await authn(t, secretToken, { ...world, 'secrets/ns/s': { metadata: { uid: 'x' } } })).toEqual({ error: 'secret UID (x) does not match service account secret ref claim (s-uid)' });
    expect(await authn(t, secretToken, { ...world, 'secrets/ns/s': { metadata: { uid: 's-uid' } } })).toMatchObject({ user: { name: 'system:serviceaccount:ns:robot' } });
    const nodeToken = issue(t, { node: { name: 'n1', uid: 'node-uid' } });
    expect(await authn(t, nodeToken)).toMatchObject({ user: { extra: { 'authentication.kubernetes.io/node-name': ['n1'] } } });
    expect(await authn(t, nodeToken, { 'serviceaccounts/ns/robot': sa })).toEqual({ error: 'service account token has been invalidated' });
    // A pod's node only informs: the token stands while the pod does, whatever became of the node.
    expect(await authn(t, issue(t, { pod: { name: 'p', uid: 'pod-uid' }, node: { name: 'gone' } }), { 'serviceaccounts/ns/robot': sa, 'pods/ns/p': pod }))
      .toMatchObject({ user: { extra: { 'authentication.kubernetes.io/node-name': ['gone'] } } });
  });

  it('hold to their times with a minute of leeway', async () => {
    const t = tokens();
    const at = (seconds: number) => new Date(Date.now() + seconds * 1000);
    expect(await authn(t, issue(t, { expirationSeconds: 600, now: at(-630) }))).toMatchObject({ user: {} });
    expect(await authn(t, issue(t, { expirationSeconds: 600, now: at(-700) }))).toEqual({ error: 'service account token has expired' });
    expect(await authn(t, issue(t, { now: at(50) }))).toMatchObject({ user: {} });
    expect(await authn(t, issue(t, { now: at(120) }))).toEqual({ error: 'service account token is not valid yet' });
  });

  it('answer only for audiences they carry', async () => {
    const t = tokens({ apiAudiences: ['api', 'other-api'] });
    const token = issue(t, { audiences: ['vault', 'api'] });
    expect(await authn(t, token)).toMatchObject({ audiences: ['api'] });
    expect(await authn(t, token, world, ['vault'])).toMatchObject({ audiences: ['vault'] });
    expect(await authn(t, token, world, ['elsewhere'])).toEqual({ error: 'token audiences ["vault" "api"] is invalid for the target audiences ["elsewhere"]' });
    expect(await authn(t, issue(t, { audiences: ['vault'] }))).toEqual({ error: 'token audiences ["vault"] is invalid for the target audiences ["api" "other-api"]' });
  });

  it('are left to other authenticators when not a JWT of a known issuer', () => {
    const t = tokens();
    expect(t.authenticateToken('static-token', getter(world))).toBeNull();
    expect(t.authenticateToken(issue(t, { issuer: 'https://elsewhere' }), getter(world))).toBeNull();
  });

  it('need a signature by a verification key: another key, or an unknown key id, fails', async () => {
    const t = tokens();
    const foreign = signJWT(boundTokenClaims({ serviceAccount: { namespace: 'ns', name: 'robot', uid: 'sa-uid' }, expirationSeconds: 600, warnAfterSeconds: 0, audiences: [ISSUER], issuer: ISSUER }), other.privateKey);
    expect(await authn(t, foreign)).toEqual({ error: 'invalid signature, no keys found' });
    const [, payload, sig] = foreign.split('.');
    const noKid = `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.${payload}.${sig}`;
    expect(await authn(t, noKid)).toEqual({ error: 'go-jose/go-jose: error in cryptographic primitive' });
    // Trusting the other key (--service-account-key-file) accepts its tokens; the signing key is then not trusted unless listed.
    const both = tokens({ publicKeyPems: [pem(other.privateKey), other.publicKey.export({ type: 'spki', format: 'pem' }) as string] });
    expect(await authn(both, foreign)).toMatchObject({ user: { name: 'system:serviceaccount:ns:robot' } });
    expect(await authn(both, issue(both))).toEqual({ error: 'invalid signature, no keys found' });
  });

  it('of every configured issuer are accepted; the first signs', async () => {
    const t = tokens({ issuers: ['https://new', ISSUER] });
    expect(t.issuer).toBe('https://new');
    expect(t.apiAudiences).toEqual(['https://new', ISSUER]);
    expect(await authn(t, issue(t, { issuer: ISSUER }))).toMatchObject({ user: {} });
  });
});

describe('legacy tokens (token Secrets)', () => {
  const secretWith = (token: string, labels?: Record<string, string>) => ({ metadata: { name: 'robot-token', uid: 's', labels }, data: { token: Buffer.from(token).toString('base64') } });
  const legacy = (t: ServiceAccountTokens) => t.sign(legacyTokenClaims({ namespace: 'ns', name: 'robot', uid: 'sa-uid' }, 'robot-token'));

  it('carry the legacy claims and authenticate while their Secret holds them, recording the use once a day', async () => {
    const t = tokens();
    const token = legacy(t);
    expect(JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString())).toEqual({
      iss: 'kubernetes/serviceaccount', 'kubernetes.io/serviceaccount/namespace': 'ns', 'kubernetes.io/serviceaccount/secret.name': 'robot-token',
      'kubernetes.io/serviceaccount/service-account.name': 'robot', 'kubernetes.io/serviceaccount/service-account.uid': 'sa-uid', sub: 'system:serviceaccount:ns:robot',
    });
    const used: string[] = [];
    const answer = await t.authenticateToken(token, getter({ ...world, 'secrets/ns/robot-token': secretWith(token) }, used));
    expect(answer).toEqual({ audiences: [ISSUER], user: { name: 'system:serviceaccount:ns:robot', uid: 'sa-uid', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns', 'system:authenticated'] } });
    const today = new Date().toISOString().slice(0, 10);
    expect(used).toEqual([`ns/robot-token@${today}`]);
    await t.authenticateToken(token, getter({ ...world, 'secrets/ns/robot-token': secretWith(token, { 'kubernetes.io/legacy-token-last-used': today }) }, used));
    expect(used).toHaveLength(1);
  });

  it('are refused without their Secret, with another copy, when marked invalid, or when the account changed', async () => {
    const t = tokens();
    const token = legacy(t);
    expect(await authn(t, token)).toEqual({ error: 'Token has been invalidated' });
    expect(await authn(t, token, { ...world, 'secrets/ns/robot-token': secretWith(legacy(t)) })).toEqual({ error: "Token does not match server's copy" });
    expect(await authn(t, token, { ...world, 'secrets/ns/robot-token': secretWith(token, { 'kubernetes.io/legacy-token-invalid-since': '2026-01-01' }) }))
      .toEqual({ error: expect.stringContaining('the token in secret ns/robot-token for service account ns/robot has been marked invalid') });
    expect(await authn(t, token, { 'serviceaccounts/ns/robot': { metadata: { uid: 'new' } }, 'secrets/ns/robot-token': secretWith(token) }))
      .toEqual({ error: 'ServiceAccount UID (new) does not match claim (sa-uid)' });
  });
});

describe('issuer discovery', () => {
  it('publishes the issuer, the key set and its algorithms', () => {
    const t = tokens({ publicKeyPems: [key.publicKey.export({ type: 'spki', format: 'pem' }) as string, other.publicKey.export({ type: 'spki', format: 'pem' }) as string] });
    const config = t.openIDConfiguration('127.0.0.1:6443');
    expect('document' in config && JSON.parse(config.document)).toEqual({
      issuer: ISSUER, jwks_uri: 'https://127.0.0.1:6443/openid/v1/jwks', response_types_supported: ['id_token'], subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256', 'RS256'],
    });
    expect(JSON.parse(t.jwks()).keys.map((k: { kty: string }) => k.kty)).toEqual(['EC', 'RSA']);
    const custom = tokens({ jwksURI: 'https://issuer.example/keys' }).openIDConfiguration('x');
    expect('document' in custom && JSON.parse(custom.document).jwks_uri).toBe('https://issuer.example/keys');
  });

  it('is not served for an issuer that is not an https URL', () => {
    expect(tokens({ issuers: ['api'] }).openIDConfiguration('h')).toEqual({ error: expect.stringContaining('issuer URL must be a valid URL') });
    expect(tokens({ issuers: ['http://x'] }).openIDConfiguration('h')).toEqual({ error: 'issuer URL must use https scheme, got: http://x' });
  });
});

import { createPrivateKey, generateKeyPairSync, webcrypto } from 'node:crypto';
import { request, type Server } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { adminTokenEntry } from './admintoken.js';
import { Authentication, type RequestAuthentication } from './authentication.js';
import { generateCa, issueServingCert, loadX509, type KeyPairPem } from './certgen.js';
import { issueClientCert } from './clientcert.js';
import { boundTokenClaims } from './serviceaccount.js';
import { ensureServingCredentials, type ServingCredentials } from './serving.js';
import { listenTLS, tempDirs } from './testutil.js';
import { X509_UID_OID } from './x509.js';

const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const ADMIN = 'admin-token-0123456789';
const dirs = tempDirs();
const saKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
let creds: ServingCredentials;
let clientCA: KeyPairPem;
let otherCA: KeyPairPem;
let authn: Authentication;
let server: Server;
let port: number;

beforeAll(async () => {
  creds = await ensureServingCredentials(await dirs.make(), { hosts: ['127.0.0.1'] });
  [clientCA, otherCA] = await Promise.all([generateCa(), generateCa()]);
  authn = new Authentication({
    tokens: [adminTokenEntry(ADMIN)], clientCA: clientCA.certPem,
    serviceAccounts: { issuers: [ISSUER], signingKeyPem: saKey, publicKeyPems: [], apiAudiences: [], maxExpirationSeconds: 0, extendExpiration: true },
  });
  authn.useObjects({ get: async (resource, ns, name) => (resource === 'serviceaccounts' && ns === 'ns' && name === 'robot' ? { metadata: { uid: 'sa-uid' } } : undefined) });
  // As the API server listens: client certificates asked for, not required.
  ({ server, port } = await listenTLS({ cert: creds.certPem, key: creds.keyPem, ca: clientCA.certPem, requestCert: true, rejectUnauthorized: false }, (req: IncomingMessage, res) => {
    void Promise.resolve(authn.authenticateRequest(req)).then((u: RequestAuthentication) => res.end(JSON.stringify(u === undefined ? 'none' : u)));
  }));
});

afterAll(async () => {
  server.close();
  await dirs.cleanup();
});

/** Who the server's authenticator says the request is: a user, null (401), or 'none' (anonymous). */
function who(opts: { cert?: KeyPairPem; token?: string }): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = opts.token ? { authorization: `Bearer ${opts.token}` } : {};
    const req = request({ host: '127.0.0.1', port, path: '/', ca: creds.caCertPem, agent: false, headers, cert: opts.cert?.certPem, key: opts.cert?.keyPem }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve(JSON.parse(body)));
    });
    req.on('error', reject);
    req.end();
  });
}

const saToken = () => authn.serviceAccounts!.sign(boundTokenClaims({
  serviceAccount: { namespace: 'ns', name: 'robot', uid: 'sa-uid' }, expirationSeconds: 3600, warnAfterSeconds: 0, audiences: [ISSUER], issuer: ISSUER,
}));

describe('client certificates (kube x509 authenticator)', () => {
  it('authenticate as the subject: CommonName the user, Organizations the groups, the certificate digest its credential id', async () => {
    const cert = await issueClientCert(clientCA, { commonName: 'alice', organizations: ['dev', 'ops, inc'] });
    const user = (await who({ cert })) as { name: string; groups: string[]; extra: Record<string, string[]> };
    expect(user).toEqual({
      name: 'alice', uid: '', groups: ['dev', 'ops, inc', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': [expect.stringMatching(/^X509SHA256=[0-9a-f]{64}$/)] },
    });
  });

  it('take the uid from the Kubernetes UID attribute', async () => {
    const x509 = await loadX509();
    const caCert = new x509.X509Certificate(clientCA.certPem);
    const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
    const caKey = await webcrypto.subtle.importKey('pkcs8', createPrivateKey(clientCA.keyPem).export({ type: 'pkcs8', format: 'der' }), alg, false, ['sign']);
    const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
    const cert = await x509.X509CertificateGenerator.create({
      subject: `CN=bob, O=team, ${X509_UID_OID}=bob-uid-1`, issuer: caCert.subjectName, notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 3_600_000),
      signingAlgorithm: alg, publicKey: keys.publicKey, signingKey: caKey,
      extensions: [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth])],
    });
    const keyPem = createPrivateKey({ key: Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)), format: 'der', type: 'pkcs8' }).export({ type: 'pkcs8', format: 'pem' }) as string;
    expect(await who({ cert: { certPem: cert.toString('pem'), keyPem } })).toMatchObject({ name: 'bob', uid: 'bob-uid-1', groups: ['team', 'system:authenticated'] });
  });

  it('win over a bearer token, as kube asks the x509 authenticator first', async () => {
    const cert = await issueClientCert(clientCA, { commonName: 'alice' });
    expect(await who({ cert, token: ADMIN })).toMatchObject({ name: 'alice' });
  });

  it('from another CA fail the request (401) unless a token authenticates it', async () => {
    // Node's client sends its certificate whatever CAs the server names, unlike Go's; the server must refuse it.
    const cert = await issueClientCert(otherCA, { commonName: 'mallory', organizations: ['system:masters'] });
    expect(await who({ cert })).toBeNull();
    expect(await who({ cert, token: ADMIN })).toMatchObject({ name: 'windlass-admin' });
  });

  it('without client authentication usage are refused, as Go verifies ExtKeyUsageClientAuth', async () => {
    const serverOnly = await issueServingCert(clientCA, [{ type: 'ip', value: '127.0.0.1' }]);
    expect(await who({ cert: serverOnly })).toBeNull();
  });

  it('expired are refused', async () => {
    const cert = await issueClientCert(clientCA, { commonName: 'late' }, new Date(Date.now() - 3 * 24 * 3600_000), 1);
    expect(await who({ cert })).toBeNull();
  });

  it('without a CommonName name no one: the request is anonymous', async () => {
    const cert = await issueClientCert(clientCA, { commonName: '' });
    expect(await who({ cert })).toBe('none');
  });
});

describe('bearer tokens', () => {
  it('static tokens, then service account tokens; none is anonymous, an unknown one 401', async () => {
    expect(await who({ token: ADMIN })).toMatchObject({ name: 'windlass-admin', groups: ['system:masters', 'system:authenticated'] });
    expect(await who({ token: saToken() })).toMatchObject({ name: 'system:serviceaccount:ns:robot', uid: 'sa-uid' });
    expect(await who({})).toBe('none');
    expect(await who({ token: 'unknown' })).toBeNull();
  });

  it('TokenReview: static tokens vouch only for the API audiences; service account tokens say why they fail', async () => {
    expect(await authn.reviewToken(ADMIN, [])).toMatchObject({ user: { name: 'windlass-admin' }, audiences: [ISSUER] });
    expect(await authn.reviewToken(ADMIN, ['vault'])).toEqual({ error: 'invalid bearer token' });
    expect(await authn.reviewToken(saToken(), [])).toMatchObject({ user: { name: 'system:serviceaccount:ns:robot' }, audiences: [ISSUER] });
    expect(await authn.reviewToken(saToken(), ['vault'])).toEqual({ error: `token audiences ["${ISSUER}"] is invalid for the target audiences ["vault"]` });
    expect(await authn.reviewToken('nope', [])).toEqual({ error: 'invalid bearer token' });
  });
});

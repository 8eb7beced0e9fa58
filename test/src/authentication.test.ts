/**
 * Authentication as kube-apiserver 1.35 does it, driven by the real kubectl, the Python client
 * and @kubernetes/client-node on both backends: `kubectl create token` issues service account
 * tokens with kube's claims and errors, those tokens are the service account to RBAC (refused
 * with kube's message until bound), and stop working once their service account (or the pod they
 * are bound to) is gone, even when a namespace-mate of the same name replaces it; the token
 * controller fills a kubernetes.io/service-account-token Secret whose token authenticates while
 * the Secret exists; issuer discovery publishes the key that verifies them; client certificates
 * signed by --client-ca-file (made with openssl) are their CommonName in their Organizations
 * (another CA's are 401); and `start` without one writes a system:masters certificate
 * kubeconfig, as kubeadm does.
 */
import { spawnSync } from 'node:child_process';
import { createPublicKey, verify } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { startEtcd, type EtcdServer } from '@windlass/storage/testing';
import { eventually, httpsCall, kubectl, kubectlOk, removeDir, startWindlass, tempDir, type RunningServer } from './harness.js';

const python = '/usr/bin/python3';

function openssl(dir: string, ...args: string[]): void {
  const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
}

/** A CA and client certificates signed by it, made with openssl as an operator would. */
function clientPKI(dir: string): { caFile: string; issue(name: string, subject: string): { cert: string; key: string } } {
  openssl(dir, 'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-subj', '/CN=e2e-client-ca', '-days', '2');
  writeFileSync(join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
  return {
    caFile: join(dir, 'ca.crt'),
    issue(name, subject) {
      openssl(dir, 'req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject);
      openssl(dir, 'x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', '1', '-extfile', 'client.ext');
      return { cert: readFileSync(join(dir, `${name}.crt`), 'utf8'), key: readFileSync(join(dir, `${name}.key`), 'utf8') };
    },
  };
}

/** A kubeconfig as kubectl reads it, credentials included. */
const rawKubeconfig = (path: string) => JSON.parse(kubectlOk(path, ['config', 'view', '--raw', '-o', 'json'])) as { users: { user: Record<string, string> }[] };

/** The server's kubeconfig with another user: a client certificate instead of the admin token. */
function certKubeconfig(s: RunningServer, dir: string, name: string, pair: { cert: string; key: string }): string {
  const cfg = rawKubeconfig(s.kubeconfig);
  cfg.users[0]!.user = { 'client-certificate-data': Buffer.from(pair.cert).toString('base64'), 'client-key-data': Buffer.from(pair.key).toString('base64') };
  const path = join(dir, `${name}.kubeconfig`);
  // JSON is YAML: kubectl reads it as written.
  writeFileSync(path, JSON.stringify(cfg));
  return path;
}

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, any>;

describe.each(['embedded', 'etcd'])('authentication on %s', (backend) => {
  let etcd: EtcdServer | undefined;
  let s: RunningServer;
  let pkiDir: string;
  let pki: ReturnType<typeof clientPKI>;
  const admin = (...args: string[]) => kubectlOk(s.kubeconfig, args);
  /** kubectl with a bearer token in place of the admin's. */
  const withToken = (token: string, ...args: string[]) => kubectl(s.kubeconfig, ['--token', token, ...args]);
  const whoami = (token: string) => JSON.parse(withToken(token, 'auth', 'whoami', '-o', 'json').stdout).status.userInfo;
  const refused = (token: string) => withToken(token, 'auth', 'whoami').stderr === 'error: You must be logged in to the server (Unauthorized)\n';

  beforeAll(async () => {
    if (backend === 'etcd') etcd = await startEtcd();
    pkiDir = tempDir('windlass-e2e-pki-');
    pki = clientPKI(pkiDir);
    s = await startWindlass(['--client-ca-file', pki.caFile, ...(etcd ? ['--storage', 'etcd', '--etcd-servers', etcd.endpoints.join(',')] : [])]);
    admin('create', 'namespace', 'apps');
    admin('create', 'serviceaccount', 'robot', '-n', 'apps');
    admin('create', 'serviceaccount', 'idle', '-n', 'apps');
    admin('create', 'configmap', 'settings', '-n', 'apps', '--from-literal=a=1');
    admin('create', 'rolebinding', 'robot-view', '--clusterrole=view', '--serviceaccount=apps:robot', '-n', 'apps');
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
    await etcd?.stop();
    if (s) removeDir(s.dataDir);
    if (pkiDir) removeDir(pkiDir);
  });

  test('kubectl create token: kube\'s claims, default and chosen lifetimes and audiences, kube\'s errors', () => {
    const sa = JSON.parse(admin('get', 'serviceaccount', 'robot', '-n', 'apps', '-o', 'json'));
    const token = admin('create', 'token', 'robot', '-n', 'apps').trim();
    const claims = claimsOf(token);
    expect(Object.keys(claims)).toEqual(['aud', 'exp', 'iat', 'iss', 'jti', 'kubernetes.io', 'nbf', 'sub']);
    expect(claims).toMatchObject({
      aud: ['https://kubernetes.default.svc.cluster.local'], iss: 'https://kubernetes.default.svc.cluster.local', sub: 'system:serviceaccount:apps:robot',
      'kubernetes.io': { namespace: 'apps', serviceaccount: { name: 'robot', uid: sa.metadata.uid } },
    });
    expect([claims.exp - claims.iat, claims.nbf]).toEqual([3600, claims.iat]);
    expect(Math.abs(claims.iat - Date.now() / 1000)).toBeLessThan(60);
    const long = claimsOf(admin('create', 'token', 'robot', '-n', 'apps', '--duration=2h', '--audience=vault', '--audience=api').trim());
    expect([long.exp - long.iat, long.aud]).toEqual([7200, ['vault', 'api']]);

    expect(kubectl(s.kubeconfig, ['create', 'token', 'robot', '-n', 'apps', '--duration=5m']).stderr)
      .toBe('error: failed to create token: TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes\n');
    expect(kubectl(s.kubeconfig, ['create', 'token', 'ghost', '-n', 'apps']).stderr).toBe('error: failed to create token: serviceaccounts "ghost" not found\n');
    expect(kubectl(s.kubeconfig, ['create', 'token', 'robot', '-n', 'apps', '--bound-object-kind=Secret', '--bound-object-name=nope']).stderr)
      .toBe('error: failed to create token: secrets "nope" not found\n');
  });

  test('a token is its service account: whoami, RBAC refusals naming it, access once bound; other audiences are not accepted', async () => {
    const sa = JSON.parse(admin('get', 'serviceaccount', 'robot', '-n', 'apps', '-o', 'json'));
    const token = admin('create', 'token', 'robot', '-n', 'apps').trim();
    expect(whoami(token)).toEqual({
      username: 'system:serviceaccount:apps:robot', uid: sa.metadata.uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:apps', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${claimsOf(token).jti}`] },
    });
    expect(await eventually(() => withToken(token, 'get', 'configmaps', '-n', 'apps', '-o', 'name').stdout === 'configmap/settings\n', 10_000, 50)).toBe(true);
    expect(withToken(token, 'get', 'configmaps', '-n', 'default').stderr)
      .toBe('Error from server (Forbidden): configmaps is forbidden: User "system:serviceaccount:apps:robot" cannot list resource "configmaps" in API group "" in the namespace "default"\n');

    admin('create', 'serviceaccount', 'late', '-n', 'apps');
    const late = admin('create', 'token', 'late', '-n', 'apps').trim();
    expect(withToken(late, 'get', 'configmaps', '-n', 'apps')).toMatchObject({
      code: 1, stderr: 'Error from server (Forbidden): configmaps is forbidden: User "system:serviceaccount:apps:late" cannot list resource "configmaps" in API group "" in the namespace "apps"\n',
    });
    expect(withToken(late, 'auth', 'can-i', 'list', 'configmaps', '-n', 'apps').stdout).toBe('no\n');
    admin('create', 'rolebinding', 'late-view', '--clusterrole=view', '--serviceaccount=apps:late', '-n', 'apps');
    expect(await eventually(() => withToken(late, 'get', 'configmaps', '-n', 'apps', '-o', 'name').stdout === 'configmap/settings\n', 10_000, 50)).toBe(true);
    // The same binding does nothing for another account of the namespace.
    const idle = admin('create', 'token', 'idle', '-n', 'apps').trim();
    expect(withToken(idle, 'get', 'configmaps', '-n', 'apps').stderr).toContain('User "system:serviceaccount:apps:idle" cannot list resource "configmaps"');
    // A token for another audience does not reach the API at all.
    expect(refused(admin('create', 'token', 'robot', '-n', 'apps', '--audience=vault').trim())).toBe(true);
  });

  test('the Python client and @kubernetes/client-node work with a service account token', async () => {
    const token = admin('create', 'token', 'robot', '-n', 'apps').trim();
    await eventually(() => withToken(token, 'get', 'configmaps', '-n', 'apps').code === 0, 10_000, 50);
    const ca = join(s.dataDir, 'pki', 'ca.crt');
    const py = spawnSync(python, ['-c', [
      'import sys, kubernetes',
      'c = kubernetes.client.Configuration()',
      'c.host, c.ssl_ca_cert = sys.argv[1], sys.argv[2]',
      'c.api_key = {"authorization": "Bearer " + sys.argv[3]}',
      'v1 = kubernetes.client.CoreV1Api(kubernetes.client.ApiClient(c))',
      'print(" ".join(i.metadata.name for i in v1.list_namespaced_config_map("apps").items))',
      'try:\n  v1.list_namespaced_secret("apps")\nexcept kubernetes.client.exceptions.ApiException as e:\n  print(e.status)',
    ].join('\n'), s.url.replace('127.0.0.1', 'localhost'), ca, token], { encoding: 'utf8' });
    expect([py.stderr, py.stdout]).toEqual(['', 'settings\n403\n']);

    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'w', server: s.url.replace('127.0.0.1', 'localhost'), caFile: ca }], users: [{ name: 'robot', token }],
      contexts: [{ name: 'w', cluster: 'w', user: 'robot' }], currentContext: 'w',
    });
    const core = kc.makeApiClient(k8s.CoreV1Api);
    expect((await core.listNamespacedConfigMap({ namespace: 'apps' })).items.map((c) => c.metadata?.name)).toEqual(['settings']);
    await expect(core.listNamespacedSecret({ namespace: 'apps' })).rejects.toMatchObject({ code: 403 });
  });

  test('a token stops working when its service account is deleted, and stays refused after one of the same name is created', async () => {
    admin('create', 'serviceaccount', 'temp', '-n', 'apps');
    const token = admin('create', 'token', 'temp', '-n', 'apps').trim();
    expect(whoami(token).username).toBe('system:serviceaccount:apps:temp');
    const oldUID = claimsOf(token)['kubernetes.io'].serviceaccount.uid;
    admin('delete', 'serviceaccount', 'temp', '-n', 'apps');
    expect(await eventually(() => refused(token), 10_000, 50)).toBe(true);
    admin('create', 'serviceaccount', 'temp', '-n', 'apps');
    const newUID = JSON.parse(admin('get', 'serviceaccount', 'temp', '-n', 'apps', '-o', 'json')).metadata.uid;
    expect(newUID).not.toBe(oldUID);
    expect(await eventually(() => refused(token), 10_000, 50)).toBe(true);
    // TokenReview says why, as kube's validator words it; a fresh token of the new account works.
    const review = JSON.parse(kubectlOk(s.kubeconfig, ['create', '-o', 'json', '-f', '-'], JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } })));
    expect(review.status).toEqual({ user: {}, error: `service account UID (${newUID}) does not match claim (${oldUID})` });
    expect(whoami(admin('create', 'token', 'temp', '-n', 'apps').trim()).uid).toBe(newUID);
  });

  test('a token bound to a pod carries the pod and its node, is refused for a pod of another account, and dies with the pod', async () => {
    kubectlOk(s.kubeconfig, ['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' } }));
    const pod = (name: string, sa: string) => JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'apps' },
      spec: { serviceAccountName: sa, nodeName: 'node-a', containers: [{ name: 'c', image: 'busybox' }] },
    });
    kubectlOk(s.kubeconfig, ['create', '-f', '-'], pod('web', 'robot'));
    kubectlOk(s.kubeconfig, ['create', '-f', '-'], pod('other', 'idle'));
    const podUID = JSON.parse(admin('get', 'pod', 'web', '-n', 'apps', '-o', 'json')).metadata.uid;
    const nodeUID = JSON.parse(admin('get', 'node', 'node-a', '-o', 'json')).metadata.uid;
    const token = admin('create', 'token', 'robot', '-n', 'apps', '--bound-object-kind=Pod', '--bound-object-name=web', `--bound-object-uid=${podUID}`).trim();
    expect(claimsOf(token)['kubernetes.io']).toMatchObject({ pod: { name: 'web', uid: podUID }, node: { name: 'node-a', uid: nodeUID } });
    expect(whoami(token).extra).toEqual({
      'authentication.kubernetes.io/pod-name': ['web'], 'authentication.kubernetes.io/pod-uid': [podUID],
      'authentication.kubernetes.io/node-name': ['node-a'], 'authentication.kubernetes.io/node-uid': [nodeUID],
      'authentication.kubernetes.io/credential-id': [`JTI=${claimsOf(token).jti}`],
    });
    expect(kubectl(s.kubeconfig, ['create', 'token', 'robot', '-n', 'apps', '--bound-object-kind=Pod', '--bound-object-name=other']).stderr)
      .toBe('error: failed to create token: cannot bind token for serviceaccount "robot" to pod running with different serviceaccount name.\n');
    expect(kubectl(s.kubeconfig, ['create', 'token', 'robot', '-n', 'apps', '--bound-object-kind=Pod', '--bound-object-name=web', '--bound-object-uid=0000']).stderr)
      .toBe('error: failed to create token: Operation cannot be fulfilled on Pod "web": the UID in the bound object reference (0000) does not match the UID in record. The object might have been deleted and then recreated\n');
    admin('delete', 'pod', 'web', '-n', 'apps', '--grace-period=0', '--force');
    expect(await eventually(() => refused(token), 10_000, 50)).toBe(true);
  });

  test('the token controller fills a service account token Secret, whose token works while the Secret exists', async () => {
    admin('create', 'serviceaccount', 'legacy', '-n', 'apps');
    const sa = JSON.parse(admin('get', 'serviceaccount', 'legacy', '-n', 'apps', '-o', 'json'));
    kubectlOk(s.kubeconfig, ['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/service-account-token',
      metadata: { name: 'legacy-token', namespace: 'apps', annotations: { 'kubernetes.io/service-account.name': 'legacy' } },
    }));
    const filled = () => JSON.parse(admin('get', 'secret', 'legacy-token', '-n', 'apps', '-o', 'json'));
    expect(await eventually(() => filled().data?.token !== undefined, 10_000, 50)).toBe(true);
    const secret = filled();
    expect(Buffer.from(secret.data['ca.crt'], 'base64').toString()).toBe(readFileSync(join(s.dataDir, 'pki', 'ca.crt'), 'utf8'));
    expect(Buffer.from(secret.data.namespace, 'base64').toString()).toBe('apps');
    expect(secret.metadata.annotations['kubernetes.io/service-account.uid']).toBe(sa.metadata.uid);
    const token = Buffer.from(secret.data.token, 'base64').toString();
    expect(claimsOf(token)).toEqual({
      iss: 'kubernetes/serviceaccount', sub: 'system:serviceaccount:apps:legacy', 'kubernetes.io/serviceaccount/namespace': 'apps',
      'kubernetes.io/serviceaccount/secret.name': 'legacy-token', 'kubernetes.io/serviceaccount/service-account.name': 'legacy',
      'kubernetes.io/serviceaccount/service-account.uid': sa.metadata.uid,
    });
    expect(whoami(token)).toEqual({ username: 'system:serviceaccount:apps:legacy', uid: sa.metadata.uid, groups: ['system:serviceaccounts', 'system:serviceaccounts:apps', 'system:authenticated'] });
    // Its use is recorded on the Secret, once a day, as kube's legacy token tracking does.
    const today = new Date().toISOString().slice(0, 10);
    expect(await eventually(() => filled().metadata.labels?.['kubernetes.io/legacy-token-last-used'] === today, 10_000, 50)).toBe(true);
    admin('delete', 'secret', 'legacy-token', '-n', 'apps');
    expect(await eventually(() => refused(token), 10_000, 50)).toBe(true);

    // A token Secret for an account that does not exist is deleted; one whose account goes goes with it.
    kubectlOk(s.kubeconfig, ['create', '-f', '-'], JSON.stringify({
      apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/service-account-token',
      metadata: { name: 'orphan-token', namespace: 'apps', annotations: { 'kubernetes.io/service-account.name': 'nobody' } },
    }));
    expect(await eventually(() => kubectl(s.kubeconfig, ['get', 'secret', 'orphan-token', '-n', 'apps']).code === 1, 10_000, 50)).toBe(true);
    kubectlOk(s.kubeconfig, ['create', '-f', '-'], JSON.stringify({
      apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/service-account-token',
      metadata: { name: 'legacy-token2', namespace: 'apps', annotations: { 'kubernetes.io/service-account.name': 'legacy' } },
    }));
    expect(await eventually(() => JSON.parse(admin('get', 'secret', 'legacy-token2', '-n', 'apps', '-o', 'json')).data?.token !== undefined, 10_000, 50)).toBe(true);
    admin('delete', 'serviceaccount', 'legacy', '-n', 'apps');
    expect(await eventually(() => kubectl(s.kubeconfig, ['get', 'secret', 'legacy-token2', '-n', 'apps']).code === 1, 10_000, 50)).toBe(true);
  });

  test('issuer discovery: service accounts read the provider configuration and the key set, whose key verifies their tokens', async () => {
    const token = admin('create', 'token', 'idle', '-n', 'apps').trim();
    const config = await httpsCall(s, 'GET', '/.well-known/openid-configuration', { token });
    expect(config.body).toEqual({
      issuer: 'https://kubernetes.default.svc.cluster.local', jwks_uri: `https://127.0.0.1:${s.port}/openid/v1/jwks`,
      response_types_supported: ['id_token'], subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['ES256'],
    });
    const jwks = await httpsCall(s, 'GET', '/openid/v1/jwks', { token });
    const [header, payload, signature] = token.split('.');
    const kid = JSON.parse(Buffer.from(header!, 'base64url').toString()).kid;
    const jwk = jwks.body.keys.find((k: { kid: string }) => k.kid === kid);
    expect(jwk).toMatchObject({ use: 'sig', kty: 'EC', crv: 'P-256', alg: 'ES256' });
    const key = createPublicKey({ key: jwk, format: 'jwk' });
    expect(verify('sha256', Buffer.from(`${header}.${payload}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature!, 'base64url'))).toBe(true);
    // Anonymous callers are not in system:serviceaccounts.
    expect((await httpsCall(s, 'GET', '/openid/v1/jwks')).body.message).toBe('forbidden: User "system:anonymous" cannot get path "/openid/v1/jwks"');
  });

  test('client certificates signed by --client-ca-file are their CommonName in their Organizations; another CA\'s are refused', async () => {
    const carol = certKubeconfig(s, pkiDir, 'carol', pki.issue('carol', '/CN=carol/O=devs/O=qa'));
    const info = JSON.parse(kubectlOk(carol, ['auth', 'whoami', '-o', 'json'])).status.userInfo;
    expect(info).toEqual({
      username: 'carol', groups: ['devs', 'qa', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': [expect.stringMatching(/^X509SHA256=[0-9a-f]{64}$/)] },
    });
    expect(kubectl(carol, ['get', 'configmaps', '-n', 'apps']).stderr)
      .toBe('Error from server (Forbidden): configmaps is forbidden: User "carol" cannot list resource "configmaps" in API group "" in the namespace "apps"\n');
    admin('create', 'rolebinding', 'devs-view', '--clusterrole=view', '--group=devs', '-n', 'apps');
    expect(await eventually(() => kubectl(carol, ['get', 'configmaps', '-n', 'apps', '-o', 'name']).stdout === 'configmap/settings\n', 10_000, 50)).toBe(true);

    // client-go sends its certificate whatever CAs the server names; one that does not verify is 401, never anonymous.
    const otherDir = tempDir('windlass-e2e-pki-');
    try {
      const mallory = certKubeconfig(s, otherDir, 'mallory', clientPKI(otherDir).issue('mallory', '/CN=mallory/O=system:masters'));
      expect(kubectl(mallory, ['get', 'configmaps', '-n', 'apps']).stderr)
        .toMatch(/\nerror: You must be logged in to the server \(the server has asked for the client to provide credentials\)\n$/);
    } finally {
      removeDir(otherDir);
    }
  });
});

describe('start without --client-ca-file', () => {
  let s: RunningServer;
  beforeAll(async () => {
    s = await startWindlass();
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
    if (s) removeDir(s.dataDir);
  });

  test('writes admin.conf, a system:masters client certificate kubeconfig signed by its CA, beside the token kubeconfig', () => {
    const adminConf = join(s.dataDir, 'admin.conf');
    const cfg = rawKubeconfig(adminConf);
    expect(Object.keys(cfg.users[0]!.user).sort()).toEqual(['client-certificate-data', 'client-key-data']);
    const info = JSON.parse(kubectlOk(adminConf, ['auth', 'whoami', '-o', 'json'])).status.userInfo;
    expect([info.username, info.groups]).toEqual(['windlass-admin', ['system:masters', 'system:authenticated']]);
    expect(kubectlOk(adminConf, ['create', 'namespace', 'by-cert'])).toBe('namespace/by-cert created\n');
    expect(JSON.parse(kubectlOk(s.kubeconfig, ['auth', 'whoami', '-o', 'json'])).status.userInfo.username).toBe('windlass-admin');
  });
});

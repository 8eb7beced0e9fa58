/**
 * Authorization on the request path, with the real kubectl and @kubernetes/client-node on both
 * backends: users of a token file are refused with kube's Forbidden messages until RBAC bindings
 * grant them (`kubectl auth can-i` follows), anonymous requests are system:anonymous, `--as`
 * impersonation needs the `impersonate` verb, writes of roles and bindings cannot grant more
 * than the writer holds (unless it may `bind` or `escalate`), /metrics is system:monitoring's,
 * and --authorization-mode's AlwaysAllow and AlwaysDeny behave as kube's.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { startEtcd, type EtcdServer } from '@windlass/storage/testing';
import { eventually, httpsCall, kubectl, kubectlOk, removeDir, startWindlass, tempDir, type RunningServer } from './harness.js';

/** A request with headers of our choosing (kubectl checks impersonation headers before sending). */
function withHeaders(s: RunningServer, path: string, headers: Record<string, string | string[]>, body?: unknown): Promise<{ status: number; body: any }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(`${s.url}${path}`, {
      method: payload ? 'POST' : 'GET', ca: readFileSync(join(s.dataDir, 'pki', 'ca.crt')), servername: 'localhost',
      headers: { ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) },
    }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const tokens = { admin: 'authz-admin-token', alice: 'authz-alice-token', bob: 'authz-bob-token', prometheus: 'authz-prometheus-token' };

function tokenFile(dir: string): string {
  const path = join(dir, 'tokens.csv');
  writeFileSync(path, [
    `${tokens.admin},admin,admin-uid,"system:masters"`,
    `${tokens.alice},alice,alice-uid,"developers"`,
    `${tokens.bob},bob,bob-uid`,
    `${tokens.prometheus},prometheus,prometheus-uid,"system:monitoring"`,
  ].join('\n') + '\n');
  return path;
}

async function start(args: string[], etcd?: EtcdServer): Promise<RunningServer> {
  const dir = tempDir();
  return startWindlass(['--token-auth-file', tokenFile(dir), ...(etcd ? ['--storage', 'etcd', '--etcd-servers', etcd.endpoints.join(',')] : []), ...args], dir);
}

describe.each(['embedded', 'etcd'])('authorization on %s', (backend) => {
  let etcd: EtcdServer | undefined;
  let s: RunningServer;
  /** kubectl as a user of the token file (its token replaces the admin's). */
  const as = (user: keyof typeof tokens, ...args: string[]) => kubectl(s.kubeconfig, ['--token', tokens[user], ...args]);
  const admin = (...args: string[]) => kubectlOk(s.kubeconfig, args);
  /** Waits until the authorizer's view of RBAC (the watch cache) has the change just made. */
  const until = async (user: keyof typeof tokens, ...canI: string[]) => {
    const want = canI[0] === '!' ? 'no' : 'yes';
    const args = canI[0] === '!' ? canI.slice(1) : canI;
    expect(await eventually(() => as(user, 'auth', 'can-i', ...args).stdout.trim() === want, 10_000, 50)).toBe(true);
  };

  beforeAll(async () => {
    if (backend === 'etcd') etcd = await startEtcd();
    s = await start([], etcd);
    admin('create', 'namespace', 'team');
    admin('create', 'configmap', 'cfg', '-n', 'team', '--from-literal=a=1');
    admin('create', 'deployment', 'web', '-n', 'team', '--image=nginx');
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
    await etcd?.stop();
    if (s) removeDir(s.dataDir);
  });

  test('a user without bindings is refused with kube\'s Forbidden messages; the admin kubeconfig (system:masters) is not', async () => {
    expect(as('alice', 'get', 'configmaps', '-n', 'team')).toMatchObject({
      code: 1, stderr: 'Error from server (Forbidden): configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "team"\n',
    });
    expect(as('alice', 'get', 'configmap', 'cfg', '-n', 'team').stderr)
      .toBe('Error from server (Forbidden): configmaps "cfg" is forbidden: User "alice" cannot get resource "configmaps" in API group "" in the namespace "team"\n');
    expect(as('alice', 'get', 'nodes').stderr).toBe('Error from server (Forbidden): nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope\n');
    expect(as('alice', 'auth', 'can-i', 'list', 'configmaps', '-n', 'team').stdout).toBe('no\n');
    const scale = await httpsCall(s, 'GET', '/apis/apps/v1/namespaces/team/deployments/web/scale', { token: tokens.alice });
    expect(scale.body).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
      message: 'deployments.apps "web" is forbidden: User "alice" cannot get resource "deployments/scale" in API group "apps" in the namespace "team"',
      details: { name: 'web', group: 'apps', kind: 'deployments' },
    });
    // Discovery is everyone's who is authenticated (system:discovery), and the admin may do anything.
    expect(as('alice', 'api-versions').code).toBe(0);
    expect(admin('get', 'configmaps', '-n', 'team', '-o', 'name')).toContain('configmap/cfg');
    expect(JSON.parse(as('alice', 'auth', 'whoami', '-o', 'json').stdout).status.userInfo).toEqual({ username: 'alice', uid: 'alice-uid', groups: ['developers', 'system:authenticated'] });
  });

  test('a RoleBinding grants its namespace only; can-i and the requests agree; resourceNames allow a list selecting the name', async () => {
    admin('create', 'rolebinding', 'alice-edit', '--clusterrole=edit', '--user=alice', '-n', 'team');
    await until('alice', 'create', 'deployments', '-n', 'team');
    expect(as('alice', 'create', 'configmap', 'mine', '-n', 'team', '--from-literal=b=2')).toMatchObject({ code: 0, stdout: 'configmap/mine created\n' });
    expect(as('alice', 'get', 'configmaps', '-n', 'team', '-o', 'name').stdout).toBe('configmap/cfg\nconfigmap/mine\n');
    expect(as('alice', 'get', 'configmaps', '-n', 'default').stderr).toMatch(/^Error from server \(Forbidden\): configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"/);
    expect(as('alice', 'auth', 'can-i', 'list', 'secrets', '-n', 'default').stdout).toBe('no\n');
    // edit grants no RBAC writes.
    expect(as('alice', 'auth', 'can-i', 'create', 'roles', '-n', 'team').stdout).toBe('no\n');

    admin('create', 'role', 'one-cm', '--verb=get,list,watch', '--resource=configmaps', '--resource-name=cfg', '-n', 'default');
    admin('create', 'configmap', 'cfg', '-n', 'default', '--from-literal=a=1');
    admin('create', 'rolebinding', 'bob-one-cm', '--role=one-cm', '--user=bob', '-n', 'default');
    await until('bob', 'get', 'configmaps/cfg', '-n', 'default');
    expect(as('bob', 'get', 'configmap', 'cfg', '-n', 'default', '-o', 'name').stdout).toBe('configmap/cfg\n');
    expect(as('bob', 'get', 'configmaps', '-n', 'default', '--field-selector', 'metadata.name=cfg', '-o', 'name').stdout).toBe('configmap/cfg\n');
    expect(as('bob', 'get', 'configmaps', '-n', 'default').code).toBe(1);
  });

  test('anonymous requests are system:anonymous: health and version are public, the rest 403; a wrong token is 401', async () => {
    const list = await httpsCall(s, 'GET', '/api/v1/namespaces/team/configmaps');
    expect(list.status).toBe(403);
    expect(list.body.message).toBe('configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "team"');
    for (const path of ['/readyz', '/livez', '/healthz', '/version']) expect([path, (await httpsCall(s, 'GET', path)).status]).toEqual([path, 200]);
    expect((await httpsCall(s, 'GET', '/apis')).body).toMatchObject({ code: 403, message: 'forbidden: User "system:anonymous" cannot get path "/apis"', details: {} });
    expect((await httpsCall(s, 'GET', '/readyz', { token: 'not-a-token' })).status).toBe(401);
  });

  test('/metrics is system:monitoring\'s (kube\'s bootstrap role), not any user\'s', async () => {
    const scraped = await httpsCall(s, 'GET', '/metrics', { token: tokens.prometheus });
    expect(scraped.status).toBe(200);
    expect(scraped.text).toContain('apiserver_request_total');
    expect((await httpsCall(s, 'GET', '/metrics/slis', { token: tokens.prometheus })).status).toBe(200);
    expect((await httpsCall(s, 'GET', '/metrics', { token: tokens.alice })).body.message).toBe('forbidden: User "alice" cannot get path "/metrics"');
    expect((await httpsCall(s, 'GET', '/api/v1/namespaces', { token: tokens.prometheus })).status).toBe(403);
  });

  test('--as needs the impersonate verb; the impersonated user is then authorized as itself', async () => {
    expect(admin('auth', 'whoami', '--as', 'bob', '--as-group', 'g1', '-o', 'jsonpath={.status.userInfo.username} {.status.userInfo.groups}')).toBe('bob ["g1","system:authenticated"]');
    expect(kubectl(s.kubeconfig, ['get', 'deployments', '-n', 'team', '--as', 'bob']).stderr)
      .toBe('Error from server (Forbidden): deployments.apps is forbidden: User "bob" cannot list resource "deployments" in API group "apps" in the namespace "team"\n');
    expect(admin('get', 'deployments', '-n', 'team', '--as', 'alice', '-o', 'name')).toBe('deployment.apps/web\n');
    expect(as('alice', 'get', 'configmaps', '-n', 'default', '--as', 'bob').stderr)
      .toBe('Error from server (Forbidden): users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope\n');
    expect(as('alice', 'get', 'pods', '-n', 'default', '--as', 'system:serviceaccount:default:default').stderr)
      .toBe('Error from server (Forbidden): serviceaccounts "default" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "default"\n');
    // edit (hers in team) lets her act as the namespace's service accounts, as in kube; they have no rights of their own there.
    expect(as('alice', 'get', 'pods', '-n', 'team', '--as', 'system:serviceaccount:team:default').stderr)
      .toBe('Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:team:default" cannot list resource "pods" in API group "" in the namespace "team"\n');
    // kubectl refuses a group without a user itself; the server answers kube's 400.
    const groupOnly = await withHeaders(s, '/api/v1/namespaces', { authorization: `Bearer ${tokens.admin}`, 'impersonate-group': 'g1' });
    expect(groupOnly).toEqual({ status: 400, body: expect.objectContaining({ reason: 'BadRequest', message: 'requested [{Group  g1    }] without impersonating a user' }) });
    // Several Impersonate-Group headers are several groups, and extras arrive under their key.
    const who = await withHeaders(s, '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      authorization: `Bearer ${tokens.admin}`, 'impersonate-user': 'carol', 'impersonate-group': ['g1', 'g2'], 'impersonate-extra-scopes': ['a', 'b'], 'impersonate-uid': 'carol-uid',
    }, { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    expect(who.body.status.userInfo).toEqual({ username: 'carol', uid: 'carol-uid', groups: ['g1', 'g2', 'system:authenticated'], extra: { scopes: ['a', 'b'] } });

    admin('create', 'clusterrole', 'impersonate-bob', '--verb=impersonate', '--resource=users', '--resource-name=bob');
    admin('create', 'clusterrolebinding', 'alice-impersonates-bob', '--clusterrole=impersonate-bob', '--user=alice');
    await until('alice', 'impersonate', 'users/bob');
    // As bob, alice reads what bob may (the one ConfigMap), not what she may.
    expect(as('alice', 'get', 'configmap', 'cfg', '-n', 'default', '--as', 'bob', '-o', 'name')).toMatchObject({ code: 0, stdout: 'configmap/cfg\n' });
    expect(as('alice', 'get', 'configmaps', '-n', 'team', '--as', 'bob').stderr).toMatch(/User "bob" cannot list resource "configmaps"/);
    expect(as('alice', 'get', 'configmaps', '-n', 'team', '--as', 'bob', '--as-group', 'admins').stderr)
      .toBe('Error from server (Forbidden): groups "admins" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope\n');
  });

  test('roles and bindings cannot grant what the writer does not hold, unless it may escalate or bind', async () => {
    admin('create', 'rolebinding', 'alice-admin', '--clusterrole=admin', '--user=alice', '-n', 'team');
    await until('alice', 'create', 'roles', '-n', 'team');
    expect(as('alice', 'create', 'role', 'reader', '--verb=get', '--resource=secrets', '-n', 'team').code).toBe(0);
    expect(as('alice', 'create', 'role', 'nodes', '--verb=get,list', '--resource=nodes,configmaps', '-n', 'team').stderr).toBe(
      'Error from server (Forbidden): roles.rbac.authorization.k8s.io "nodes" is forbidden: user "alice" (groups=["developers" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
      '{APIGroups:[""], Resources:["nodes"], Verbs:["get" "list"]}\n');
    expect(as('alice', 'create', 'rolebinding', 'bob-view', '--clusterrole=view', '--user=bob', '-n', 'team').code).toBe(0);
    expect(as('alice', 'create', 'rolebinding', 'bob-root', '--clusterrole=cluster-admin', '--user=bob', '-n', 'team').stderr).toBe(
      'error: failed to create rolebinding: rolebindings.rbac.authorization.k8s.io "bob-root" is forbidden: user "alice" (groups=["developers" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
      '{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}\n');
    expect(as('alice', 'create', 'rolebinding', 'ghost', '--clusterrole=no-such-role', '--user=bob', '-n', 'team').stderr)
      .toBe('error: failed to create rolebinding: clusterroles.rbac.authorization.k8s.io "no-such-role" not found\n');

    // `bind` on the role, and `escalate` on roles, lift the checks.
    admin('create', 'clusterrole', 'bind-cluster-admin', '--verb=bind', '--resource=clusterroles', '--resource-name=cluster-admin');
    admin('create', 'clusterrole', 'escalate-roles', '--verb=escalate', '--resource=roles');
    admin('create', 'rolebinding', 'alice-bind', '--clusterrole=bind-cluster-admin', '--user=alice', '-n', 'team');
    admin('create', 'rolebinding', 'alice-escalate', '--clusterrole=escalate-roles', '--user=alice', '-n', 'team');
    await until('alice', 'bind', 'clusterroles/cluster-admin', '-n', 'team');
    await until('alice', 'escalate', 'roles', '-n', 'team');
    expect(as('alice', 'create', 'rolebinding', 'bob-root', '--clusterrole=cluster-admin', '--user=bob', '-n', 'team').code).toBe(0);
    expect(as('alice', 'create', 'role', 'nodes', '--verb=get,list', '--resource=nodes,configmaps', '-n', 'team').code).toBe(0);
    // Still namespaced: the ClusterRole write needs cluster-wide rights she lacks.
    expect(as('alice', 'create', 'clusterrole', 'x', '--verb=get', '--resource=pods').stderr).toMatch(/cannot create resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope/);
  });

  test('@kubernetes/client-node sees the 403 as kube sends it', async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(s.kubeconfig);
    kc.users = kc.users.map((u) => ({ ...u, token: tokens.alice }));
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const err = await core.listNamespacedSecret({ namespace: 'kube-system' }).then(() => undefined, (e: unknown) => e as { code: number; body: string });
    expect(err?.code).toBe(403);
    expect(JSON.parse(err!.body)).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403, details: { kind: 'secrets' },
      message: 'secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "kube-system"',
    });
    expect((await core.listNamespacedConfigMap({ namespace: 'team' })).items.map((c) => c.metadata?.name)).toContain('cfg');
  });
});

describe('--authorization-mode', () => {
  let s: RunningServer | undefined;
  afterEach(async () => {
    await s?.stop();
    if (s) removeDir(s.dataDir);
    s = undefined;
  });

  test('AlwaysAllow lets any authenticated user do anything, and turns anonymous requests off as kube does', async () => {
    s = await start(['--authorization-mode=AlwaysAllow']);
    expect(kubectl(s.kubeconfig, ['--token', tokens.bob, 'get', 'secrets', '-A', '-o', 'name']).code).toBe(0);
    expect(kubectl(s.kubeconfig, ['--token', tokens.bob, 'auth', 'can-i', 'delete', 'nodes']).stdout).toBe('yes\n');
    expect((await httpsCall(s, 'GET', '/api/v1/namespaces')).status).toBe(401);
    expect((await httpsCall(s, 'GET', '/readyz')).status).toBe(401);
  });

  test('AlwaysDeny refuses everyone but system:masters with its reason; a later RBAC mode still allows', async () => {
    s = await start(['--authorization-mode=AlwaysDeny']);
    // Discovery is refused too, so kubectl cannot even start: the API answers.
    expect((await httpsCall(s, 'GET', '/api/v1/namespaces/default/configmaps', { token: tokens.alice })).body.message)
      .toBe('configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default": Everything is forbidden.');
    expect((await httpsCall(s, 'GET', '/version')).body.message).toBe('forbidden: User "system:anonymous" cannot get path "/version": Everything is forbidden.');
    expect(kubectlOk(s.kubeconfig, ['get', 'namespace', 'default', '-o', 'name'])).toBe('namespace/default\n');
    await s.stop();
    removeDir(s.dataDir);
    s = await start(['--authorization-mode=AlwaysDeny,RBAC']);
    // kubectl auth whoami is allowed to everyone authenticated by RBAC's basic-user role.
    expect(kubectl(s.kubeconfig, ['--token', tokens.alice, 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']).stdout).toBe('alice');
    expect((await httpsCall(s, 'GET', '/version')).status).toBe(200);
  });
});

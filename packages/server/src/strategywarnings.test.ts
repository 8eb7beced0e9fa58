/**
 * Strategy warnings and table rows through the real server on the embedded backend: kube 1.35's
 * WarningsOnCreate/WarningsOnUpdate reach the client as `Warning: 299` headers (NetworkPolicy
 * CIDRs, TLS Secrets, ServiceAccount annotations), FlowSchema tables come in matching order,
 * and finished pods' rows carry the Completed condition.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureServingCredentials } from '@windlass/auth';
import { EmbeddedStorage } from '@windlass/storage';
import { startTestServer, type TestServer } from './testing/client.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ storage: new EmbeddedStorage({ path: ':memory:' }) });
  await t.server.bootstrap();
});
afterAll(() => t.close());

/** The Warning header kube's handler writes: each message as `299 - "<escaped>"`, joined by ", ". */
const warningHeader = (...messages: string[]) => (messages.length === 0 ? null : messages.map((m) => `299 - ${JSON.stringify(m)}`).join(', '));
const table = 'application/json;as=Table;v=v1;g=meta.k8s.io';

test('NetworkPolicy: non-canonical ipBlock CIDRs warn on create and on every update', async () => {
  const path = '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies';
  const body = { metadata: { name: 'egress' }, spec: { podSelector: {}, egress: [{ to: [{ ipBlock: { cidr: '2001:DB8::/32', except: ['2001:db8:0:0:1:0:0:0/80'] } }] }] } };
  const expected = warningHeader(
    'spec.egress[0].to[0].ipBlock.cidr: IPv6 CIDR value "2001:DB8::/32" should be in RFC 5952 canonical format ("2001:db8::/32")',
    'spec.egress[0].to[0].ipBlock.except[0]: IPv6 CIDR value "2001:db8:0:0:1:0:0:0/80" should be in RFC 5952 canonical format ("2001:db8:0:0:1::/80")',
  );
  const created = await t.call('POST', path, { body });
  expect(created.status).toBe(201);
  expect(created.headers.get('warning')).toBe(expected);
  const relabeled = await t.call('PATCH', `${path}/egress`, { body: { metadata: { labels: { a: 'b' } } }, contentType: 'application/merge-patch+json' });
  expect(relabeled.status).toBe(200);
  expect(relabeled.headers.get('warning')).toBe(expected);
  const fixed = await t.call('PATCH', `${path}/egress`, { body: { spec: { egress: [{ to: [{ ipBlock: { cidr: '2001:db8::/32' } }] }] } }, contentType: 'application/merge-patch+json' });
  expect(fixed.status).toBe(200);
  expect(fixed.headers.get('warning')).toBeNull();
});

test('NetworkPolicy: a CIDR with host bits set is accepted (StrictIPCIDRValidation is off in 1.35) and warned about', async () => {
  const path = '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies';
  const created = await t.call('POST', path, { body: { metadata: { name: 'ambiguous' }, spec: { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.1/8' } }] }] } } });
  expect(created.status).toBe(201);
  expect(created.headers.get('warning')).toBe(warningHeader('spec.ingress[0].from[0].ipBlock.cidr: CIDR value "10.0.0.1/8" is ambiguous in this context (should be "10.0.0.0/8" or "10.0.0.1/32"?)'));
});

test('Secrets: a TLS certificate and key that are not a pair warn with Go\'s tls error', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'windlass-tls-'));
  try {
    const creds = await ensureServingCredentials(dir, { hosts: ['127.0.0.1'] });
    const secret = (name: string, cert: string, key: string) => ({
      metadata: { name }, type: 'kubernetes.io/tls', stringData: { 'tls.crt': cert, 'tls.key': key },
    });
    const path = '/api/v1/namespaces/default/secrets';
    const good = await t.call('POST', path, { body: secret('good', creds.certPem, creds.keyPem) });
    expect(good.status).toBe(201);
    expect(good.headers.get('warning')).toBeNull();
    const bad = await t.call('POST', path, { body: secret('bad', creds.caCertPem, creds.keyPem) });
    expect(bad.status).toBe(201);
    expect(bad.headers.get('warning')).toBe(warningHeader('tls: private key does not match public key'));
    const swapped = await t.call('PUT', `${path}/good`, { body: secret('good', creds.keyPem, creds.certPem) });
    expect(swapped.status).toBe(200);
    expect(swapped.headers.get('warning')).toBe(warningHeader('tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('ServiceAccounts: the enforce-mountable-secrets annotation warns only when a write sets it', async () => {
  const path = '/api/v1/namespaces/default/serviceaccounts';
  const annotated = await t.call('POST', path, { body: { metadata: { name: 'legacy', annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true' } } } });
  expect(annotated.status).toBe(201);
  expect(annotated.headers.get('warning')).toBe(warningHeader('metadata.annotations[kubernetes.io/enforce-mountable-secrets]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets'));
  const kept = await t.call('PATCH', `${path}/legacy`, { body: { metadata: { labels: { a: 'b' } } }, contentType: 'application/merge-patch+json' });
  expect(kept.status).toBe(200);
  expect(kept.headers.get('warning')).toBeNull();
});

test('FlowSchema tables list rows by matching precedence, then name', async () => {
  const path = '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas';
  const fs = (name: string, matchingPrecedence: number) => ({
    metadata: { name, labels: { 'table-order': 'test' } },
    spec: { matchingPrecedence, priorityLevelConfiguration: { name: 'global-default' }, distinguisherMethod: { type: 'ByUser' } },
  });
  for (const [name, precedence] of [['c', 500], ['b', 900], ['a', 900], ['d', 100]] as const) {
    expect((await t.call('POST', path, { body: fs(name, precedence) })).status).toBe(201);
  }
  const listed = await t.call('GET', `${path}?labelSelector=table-order%3Dtest`, { accept: table });
  expect(listed.status).toBe(200);
  expect(listed.body.rows.map((r: { cells: unknown[] }) => r.cells.slice(0, 4))).toEqual([
    ['d', 'global-default', 100, 'ByUser'],
    ['c', 'global-default', 500, 'ByUser'],
    ['a', 'global-default', 900, 'ByUser'],
    ['b', 'global-default', 900, 'ByUser'],
  ]);
});

test('pod rows of finished pods carry the Completed condition; running pods none', async () => {
  const path = '/api/v1/namespaces/default/pods';
  for (const name of ['done', 'crashed', 'running']) {
    expect((await t.call('POST', path, { body: { metadata: { name, labels: { 'row-conditions': 'test' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } } })).status).toBe(201);
  }
  for (const [name, phase] of [['done', 'Succeeded'], ['crashed', 'Failed'], ['running', 'Running']]) {
    const r = await t.call('PATCH', `${path}/${name}/status`, { body: { status: { phase } }, contentType: 'application/merge-patch+json' });
    expect(r.status).toBe(200);
  }
  const listed = await t.call('GET', `${path}?labelSelector=row-conditions%3Dtest&includeObject=None`, { accept: table });
  expect(listed.status).toBe(200);
  expect(listed.body.rows.map((r: { cells: unknown[]; conditions?: unknown }) => [r.cells[0], r.conditions])).toEqual([
    ['crashed', [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }]],
    ['done', [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }]],
    ['running', undefined],
  ]);
  // Conditions come between cells and object, as metav1.TableRow serializes them.
  const one = await t.call('GET', `${path}/done`, { accept: table });
  expect(Object.keys(one.body.rows[0])).toEqual(['cells', 'conditions', 'object']);
});

test('Pods: the AppArmor annotation PrepareForCreate turns into a field warns even when validation refuses the pod', async () => {
  const path = '/api/v1/namespaces/default/pods';
  const annotation = 'container.apparmor.security.beta.kubernetes.io/app';
  const expected = `metadata.annotations[${annotation}]: deprecated since v1.30; use the "appArmorProfile" field instead`;
  // No image: 422, and kube has already added the warning from PrepareForCreate.
  const refused = await t.call('POST', path, { body: { metadata: { name: 'armored', annotations: { [annotation]: 'runtime/default' } }, spec: { containers: [{ name: 'app' }] } } });
  expect(refused.status).toBe(422);
  expect(refused.body.details.causes).toEqual([{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers[0].image' }]);
  expect(refused.headers.get('warning')).toBe(warningHeader(expected));
  const created = await t.call('POST', path, { body: { metadata: { name: 'armored', annotations: { [annotation]: 'runtime/default' } }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } } });
  expect(created.status).toBe(201);
  expect(created.headers.get('warning')?.startsWith(warningHeader(expected)!)).toBe(true);
  expect(created.body.spec.containers[0].securityContext).toEqual({ appArmorProfile: { type: 'RuntimeDefault' } });
});

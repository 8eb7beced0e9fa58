import { apiServiceInfo, sortedByGroupAndVersion, type APIServiceInfo } from './apiservice.js';
import { convertToDiscovery, mergedGroupOrder, remoteGroupDiscovery } from './discovery.js';
import { reencodeQuery } from './proxy.js';
import { headerKeyEscape, setAuthProxyHeaders } from './transport.js';
import { authenticationData, defaultRequestHeaders } from '../controllers/authenticationtrust.js';

const svc = (name: string, groupPriorityMinimum: number, versionPriority: number, service = true): APIServiceInfo => {
  const [version, ...group] = name.split('.');
  return apiServiceInfo({
    apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name },
    spec: { group: group.join('.'), version, groupPriorityMinimum, versionPriority, ...(service ? { service: { namespace: 'ns', name: 's' } } : {}) },
  });
};

test('kube\'s SortedByGroupAndVersion: groups by their highest priority then name, versions by priority then kube\'s version order', () => {
  const sorted = sortedByGroupAndVersion([
    svc('v1beta1.b.example.com', 100, 10), svc('v1.b.example.com', 100, 10), svc('v2alpha1.b.example.com', 100, 20),
    svc('v1.a.example.com', 100, 15), svc('v1.high.example.com', 100, 15), svc('v2.high.example.com', 5000, 1),
  ]);
  expect(sorted.map((g) => g.map((s) => s.name))).toEqual([
    ['v1.high.example.com', 'v2.high.example.com'],
    ['v1.a.example.com'],
    ['v2alpha1.b.example.com', 'v1.b.example.com', 'v1beta1.b.example.com'],
  ]);
});

test('an APIService decodes its service (port 443 by default), CA bundle and availability', () => {
  const s = apiServiceInfo({
    apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.x.io' },
    spec: { group: 'x.io', version: 'v1', service: { namespace: 'n', name: 'm' }, caBundle: Buffer.from('PEM').toString('base64') },
    status: { conditions: [{ type: 'Available', status: 'True' }] },
  });
  expect(s).toMatchObject({ service: { namespace: 'n', name: 'm', port: 443 }, caPem: 'PEM', available: true, insecureSkipTLSVerify: false });
  expect(apiServiceInfo({ metadata: { name: 'v1.y' }, spec: {}, status: { conditions: [{ type: 'Available', status: 'False' }] } }).available).toBe(false);
});

test('remote groups are placed among the local ones by priority; local groups keep their order and are never duplicated', () => {
  const all = [
    svc('v1.apps', 17800, 15, false), svc('v1.batch', 17400, 15, false), svc('v1.crd.example.com', 1000, 100, false),
    svc('v1beta1.metrics.k8s.io', 100, 100), svc('v1.custom.metrics.k8s.io', 2000, 10), svc('v1.apps', 17800, 15, false),
    // A remote APIService for a group served here too: the local group stays as it is.
    svc('v9.batch', 100, 1),
  ];
  const order = mergedGroupOrder(all, ['apps', 'batch', 'crd.example.com']).map((g) => (typeof g === 'string' ? g : `remote:${g.name}`));
  expect(order).toEqual(['apps', 'batch', 'remote:custom.metrics.k8s.io', 'crd.example.com', 'remote:metrics.k8s.io']);
});

test('legacy resources convert to aggregated discovery as kube converts them: subresources under their resource, a parent made for an orphan', () => {
  expect(convertToDiscovery([
    { name: 'pods', singularName: 'pod', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'], shortNames: ['pm'] },
    { name: 'pods/status', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get'] },
    { name: 'orphans/scale', namespaced: false, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'update'] },
    { name: 'nodes/proxy', namespaced: true, verbs: ['get'] },
  ])).toEqual([
    { resource: 'pods', responseKind: { group: '', version: '', kind: 'PodMetrics' }, scope: 'Namespaced', singularResource: 'pod', verbs: ['get', 'list'], shortNames: ['pm'], subresources: [{ subresource: 'status', responseKind: { group: '', version: '', kind: 'PodMetrics' }, verbs: ['get'] }] },
    { resource: 'orphans', scope: 'Cluster', verbs: [], subresources: [{ subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'update'] }] },
    { resource: 'nodes', scope: 'Namespaced', verbs: [], subresources: [{ subresource: 'proxy', responseKind: { group: '', version: '', kind: '' }, verbs: ['get'] }] },
  ]);
});

test('a remote group version is Current when its server answered last, Stale with the last resources when it did not, and empty when never reached', () => {
  const group = { name: 'm.io', versions: [svc('v2.m.io', 100, 20), svc('v1.m.io', 100, 10)] };
  const resources = [{ name: 'things', namespaced: true, kind: 'Thing', verbs: ['get'] }];
  const known = new Map([['v2.m.io', { resources, fresh: false }]]);
  expect(remoteGroupDiscovery(group, (n) => known.get(n))).toEqual({
    metadata: { name: 'm.io', creationTimestamp: null },
    versions: [
      { version: 'v2', resources: [{ resource: 'things', responseKind: { group: '', version: '', kind: 'Thing' }, scope: 'Namespaced', verbs: ['get'] }], freshness: 'Stale' },
      { version: 'v1', freshness: 'Stale' },
    ],
  });
  known.set('v1.m.io', { resources, fresh: true });
  expect((remoteGroupDiscovery(group, (n) => known.get(n)).versions as { freshness: string }[])[1].freshness).toBe('Current');
});

test('the caller\'s identity replaces any identity headers it sent; extra keys are escaped as kube escapes them', () => {
  const headers: Record<string, string | string[]> = { 'x-remote-user': 'mallory', 'X-Remote-Group': 'system:masters', 'x-remote-extra-scopes': 'all', accept: 'application/json' };
  setAuthProxyHeaders(headers, { name: 'jane', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { 'example.com/team': ['blue', 'green'], 'a%b': ['x'] } });
  expect(headers).toEqual({
    accept: 'application/json', 'X-Remote-User': 'jane', 'X-Remote-Uid': 'u-1', 'X-Remote-Group': ['dev', 'system:authenticated'],
    'X-Remote-Extra-example.com%2Fteam': ['blue', 'green'], 'X-Remote-Extra-a%25b': ['x'],
  });
  expect(headerKeyEscape('plain-key_1')).toBe('plain-key_1');
  expect(headerKeyEscape('ünï')).toBe('%C3%BCn%C3%AF');
});

test('the proxied query is re-encoded as Go\'s url.Values.Encode: keys sorted, values escaped', () => {
  expect(reencodeQuery('watch=1&labelSelector=app%3Dweb,tier!%3Dx&allowWatchBookmarks=true&a=1&a=2')).toBe('a=1&a=2&allowWatchBookmarks=true&labelSelector=app%3Dweb%2Ctier%21%3Dx&watch=1');
  expect(reencodeQuery('q=a b~c*')).toBe('q=a+b~c%2A');
  expect(reencodeQuery('')).toBe('');
});

test('extension-apiserver-authentication combines what is stored with this server\'s trust', () => {
  const ca = (n: number) => `-----BEGIN CERTIFICATE-----\nCA${n}\n-----END CERTIFICATE-----`;
  const mine = { clientCA: `${ca(1)}\n`, requestHeader: { ...defaultRequestHeaders, clientCA: `${ca(2)}\n`, allowedNames: ['front-proxy-client'] } };
  expect(authenticationData({}, mine)).toEqual({
    'client-ca-file': `${ca(1)}\n`,
    'requestheader-username-headers': '["X-Remote-User"]', 'requestheader-uid-headers': '["X-Remote-Uid"]',
    'requestheader-group-headers': '["X-Remote-Group"]', 'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
    'requestheader-client-ca-file': `${ca(2)}\n`, 'requestheader-allowed-names': '["front-proxy-client"]',
  });
  // Another replica's CA and names are kept beside ours, each once.
  const stored = { 'client-ca-file': `${ca(9)}\n${ca(1)}\n`, 'requestheader-allowed-names': '["other-proxy","front-proxy-client"]', 'requestheader-client-ca-file': ca(8) };
  const data = authenticationData(stored, mine);
  expect(data['client-ca-file']).toBe(`${ca(9)}\n${ca(1)}\n`);
  expect(data['requestheader-client-ca-file']).toBe(`${ca(8)}\n${ca(2)}\n`);
  expect(data['requestheader-allowed-names']).toBe('["other-proxy","front-proxy-client"]');
  // Without a front-proxy CA anywhere, only the client CA is published.
  expect(authenticationData({}, { clientCA: `${ca(1)}\n` })).toEqual({ 'client-ca-file': `${ca(1)}\n` });
});

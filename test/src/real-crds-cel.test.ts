/**
 * Real CRDs whose schemas carry many CEL rules, checked with kubectl against what their projects'
 * own tests expect of kube-apiserver (test/crd-validation/, provenance in its README): Gateway
 * API's safe-upgrades policy refusing the experimental channel over the standard one, its
 * examples accepted, its invalid examples and CEL tests' objects refused (422 Invalid) with the
 * messages kube gives, a transition rule (`self == oldSelf`) on update, and PGO's PostgresCluster
 * rules written with CEL's optional syntax (`self.?config.parameters.log_directory.optMap(…)`),
 * a rule's fieldPath into a map, and int-or-string parameters. One server; kubectl batched.
 */
import { createRequire } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kubectlAsync as kubectlAsyncOn, type KubectlResult, type RunningServer, useWindlass } from './harness.js';
import { kubectl, kubectlOk, parallel, stream, waitEstablished } from './realkubectl.js';

const yaml = createRequire(import.meta.url)('js-yaml') as { loadAll(s: string): unknown[]; load(s: string): unknown };
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const gatewayStandard = join(root, 'manifests', 'gateway-api');
const gatewayDir = join(root, 'crd-validation', 'gateway-api');
const pgoDir = join(root, 'crd-validation', 'postgres-operator');
const namespace = 'cel-cases';

const server = useWindlass();
let s: RunningServer;

function docs(dir: string, pick: (file: string) => boolean): any[] {
  return readdirSync(dir).filter((f) => /\.ya?ml$/.test(f) && pick(f)).sort()
    .flatMap((f) => yaml.loadAll(readFileSync(join(dir, f), 'utf8')).filter((d): d is any => d !== null && typeof d === 'object'));
}

/** kubectl as an asynchronous child, so several run at once. */
const kubectlAsync = (args: string[]) => kubectlAsyncOn(s.kubeconfig, args);

/** Each object's kubectl error (after `is invalid: `) by name, from one batched create's stderr. */
function errorsByName(stderr: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of stderr.split(/^Error from server /m).slice(1)) {
    const m = /^\(Invalid\): error when creating "STDIN": \S+ "([^"]+)" is invalid: ([\s\S]*)$/.exec(part.trim());
    if (m) out.set(m[1], m[2]);
    else out.set(`unparsed ${out.size}`, part);
  }
  return out;
}

beforeAll(() => {
  s = server();
  kubectlOk(s.kubeconfig, ['create', 'namespace', namespace]);
});

const isCrdFile = (f: string) => /^(config_crd_standard_)?gateway\.networking\.(x-)?k8s\.io_/.test(f);

test('safe-upgrades: the standard channel installs; its policy refuses experimental CRDs over it until removed', () => {
  const standard = docs(gatewayStandard, isCrdFile);
  expect(standard.filter((d) => d.kind === 'CustomResourceDefinition')).toHaveLength(10);
  const first = kubectl(s.kubeconfig, ['apply', '--server-side', '-f', '-'], stream(standard));
  expect(first.stderr).toBe('');
  expect(waitEstablished(s.kubeconfig, standard)).toEqual([]);

  const experimental = docs(join(gatewayDir, 'experimental'), isCrdFile);
  const refused = kubectl(s.kubeconfig, ['apply', '--server-side', '-f', '-'], stream(experimental));
  const message = "ValidatingAdmissionPolicy 'safe-upgrades.gateway.networking.k8s.io' with binding 'safe-upgrades.gateway.networking.k8s.io' denied request: Installing experimental CRDs on top of standard channel CRDs is prohibited by default. Uninstall ValidatingAdmissionPolicy safe-upgrades.gateway.networking.k8s.io to install experimental CRDs on top of standard channel CRDs.";
  for (const crd of standard.filter((d) => d.kind === 'CustomResourceDefinition')) {
    // A Forbidden error whose reason the policy's validation made Invalid (422), as kube's dispatcher does.
    expect(refused.stderr).toContain(`Error from server (Invalid): customresourcedefinitions.apiextensions.k8s.io "${crd.metadata.name}" is forbidden: ${message}`);
  }
  // The experimental group's own CRDs are not the policy's concern.
  expect(refused.stdout).toContain('customresourcedefinition.apiextensions.k8s.io/xmeshes.gateway.networking.x-k8s.io serverside-applied');

  kubectlOk(s.kubeconfig, ['delete', 'validatingadmissionpolicy', 'safe-upgrades.gateway.networking.k8s.io']);
  const upgraded = kubectl(s.kubeconfig, ['apply', '--server-side', '--force-conflicts', '-f', '-'], stream(experimental));
  expect(upgraded.stderr).toBe('');
  expect(waitEstablished(s.kubeconfig, experimental)).toEqual([]);
  const channels = JSON.parse(kubectlOk(s.kubeconfig, ['get', 'crd', 'gateways.gateway.networking.k8s.io', '-o', 'json']));
  expect(channels.metadata.annotations['gateway.networking.k8s.io/channel']).toBe('experimental');
}, 60000);

test('the standard and experimental examples are accepted', () => {
  const examples = [...docs(gatewayStandard, (f) => f.startsWith('examples_')), ...docs(join(gatewayDir, 'experimental'), (f) => f.startsWith('examples_'))];
  expect(examples.length).toBeGreaterThan(90);
  // Checked against the experimental channel's CRDs (real-manifests.test.ts applies the standard
  // ones against the standard channel) with a server-side dry run: several documents describe the
  // same object, and kubectl create costs less than apply's three-way merge. Namespaces first.
  kubectlOk(s.kubeconfig, ['apply', '-f', '-'], stream(examples.filter((o) => o.kind === 'Namespace')));
  const r = kubectl(s.kubeconfig, ['create', '--dry-run=server', '-f', '-'], stream(examples.filter((o) => o.kind !== 'Namespace')));
  const stderr = r.stderr.split('\n').filter((l) => l && !/^Warning: The v1alpha[23] version of TLSRoute has been deprecated/.test(l));
  expect(stderr).toEqual([]);
  expect(r.stdout.trim().split('\n').filter((l) => !/ created \(server dry run\)$/.test(l))).toEqual([]);
}, 60000);

/**
 * Gateway API's invalid examples (its tests/crd applies each and expects kube to refuse it): the
 * cause kube gives for each, its rule's message at the path kube prints.
 */
const invalidExamples: Record<string, string> = {
  'experimental_httproute_invalid-filter-externalauth-bad-http-path.yaml': "spec.rules[0].filters[0].externalAuth.http.path: Invalid value: \"/[]\": spec.rules[0].filters[0].externalAuth.http.path in body should match '^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$'",
  'experimental_httproute_invalid-filter-externalauth-empty.yaml': 'spec.rules[0].filters[0]: Invalid value: filter.externalAuth must be specified for ExternalAuth filter.type',
  'experimental_httproute_invalid-filter-externalauth-no-protocol.yaml': 'spec.rules[0].filters[0].externalAuth.protocol: Required value',
  'experimental_httproute_invalid-header-value.yaml': 'spec.rules[0].filters[0].responseHeaderModifier.add[0].value: Invalid value: "this\\nis\\rinvalid\\r\\nvalue"',
  'standard_gateway_duplicate-listeners.yaml': 'spec.listeners: Invalid value: Listener name must be unique within the Gateway',
  'standard_gateway_hostname-tcp.yaml': "spec.listeners: Invalid value: hostname must not be specified for protocols ['TCP', 'UDP']",
  'standard_gateway_hostname-udp.yaml': "spec.listeners: Invalid value: hostname must not be specified for protocols ['TCP', 'UDP']",
  'standard_gateway_invalid-addresses.yaml': '<nil>: Invalid value: "": "spec.addresses[0]" must validate one and only one schema (oneOf). Found none valid',
  'standard_gateway_invalid-listener-name.yaml': 'spec.listeners[0].name: Invalid value: "bad>": spec.listeners[0].name in body should match',
  'standard_gateway_invalid-listener-port.yaml': 'spec.listeners[0].port: Invalid value: 123456789: spec.listeners[0].port in body should be less than or equal to 65535',
  'standard_gateway_invalid-tls-mode.yaml': 'spec.listeners: Invalid value: tls mode must be Terminate for protocol HTTPS',
  'standard_gateway_tlsconfig-tcp.yaml': "spec.listeners: Invalid value: tls must not be specified for protocols ['HTTP', 'TCP', 'UDP']",
  'standard_gatewayclass_invalid-controller.yaml': 'spec.controllerName: Invalid value: "example": spec.controllerName in body should match',
  'standard_httproute_duplicate-header-match.yaml': 'spec.rules[0].matches[0].headers[1]: Duplicate value: map[string]interface {}{"name":"foo"}',
  'standard_httproute_duplicate-query-match.yaml': 'spec.rules[0].matches[0].queryParams[1]: Duplicate value: map[string]interface {}{"name":"foo"}',
  'standard_httproute_httproute-portless-backend.yaml': 'spec.rules[0].backendRefs[0]: Invalid value: Must have port for Service reference',
  'standard_httproute_httproute-portless-service.yaml': 'spec.rules[0].backendRefs[0]: Invalid value: Must have port for Service reference',
  'standard_httproute_invalid-backend-group.yaml': 'spec.rules[0].backendRefs[0].group: Invalid value: "*": spec.rules[0].backendRefs[0].group in body should match',
  'standard_httproute_invalid-backend-kind.yaml': 'spec.rules[0].backendRefs[0].kind: Invalid value: "*": spec.rules[0].backendRefs[0].kind in body should match',
  'standard_httproute_invalid-backend-port.yaml': 'spec.rules[0].backendRefs[0].port: Invalid value: 800080: spec.rules[0].backendRefs[0].port in body should be less than or equal to 65535',
  'standard_httproute_invalid-filter-duplicate-header.yaml': 'spec.rules[0].filters[0].requestHeaderModifier.remove[1]: Duplicate value: "foo"',
  'standard_httproute_invalid-filter-duplicate.yaml': 'spec.rules[0].filters: Invalid value: RequestHeaderModifier filter cannot be repeated',
  'standard_httproute_invalid-filter-empty.yaml': 'spec.rules[0].filters[0]: Invalid value: filter.requestHeaderModifier must be specified for RequestHeaderModifier filter.type',
  'standard_httproute_invalid-filter-wrong-field.yaml': 'spec.rules[0].filters[0]: Invalid value: filter.requestRedirect must be nil if the filter.type is not RequestRedirect',
  'standard_httproute_invalid-header-name.yaml': 'spec.rules[0].matches[0].headers[0].name: Invalid value: "magic/": spec.rules[0].matches[0].headers[0].name in body should match',
  'standard_httproute_invalid-hostname.yaml': 'spec.hostnames[0]: Invalid value: "http://a<": spec.hostnames[0] in body should match',
  'standard_httproute_invalid-httpredirect-hostname.yaml': 'spec.rules[0]: Invalid value: RequestRedirect filter must not be used together with backendRefs',
  'standard_httproute_invalid-method.yaml': 'spec.rules[0].matches[0].method: Unsupported value: "NOTREAL": supported values: "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"',
  'standard_httproute_invalid-path-alphanum-specialchars-mix.yaml': "spec.rules[0].matches[0].path: Invalid value: must only contain valid characters (matching ^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$) for types ['Exact', 'PathPrefix']",
  'standard_httproute_invalid-path-specialchars.yaml': "spec.rules[0].matches[0].path: Invalid value: must only contain valid characters (matching ^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$) for types ['Exact', 'PathPrefix']",
  'standard_httproute_invalid-request-redirect-with-backendref.yaml': 'spec.rules[0]: Invalid value: RequestRedirect filter must not be used together with backendRefs',
  'standard_referencegrant_missing-from.yaml': 'spec.from: Required value',
  'standard_referencegrant_missing-ns.yaml': 'spec.from[0].namespace: Required value',
  'standard_referencegrant_missing-to.yaml': 'spec.to: Required value',
  'standard_tlsroute_invalid-hostname.yaml': 'spec.hostnames: Invalid value: Hostnames must be valid based on RFC-1123',
  'standard_tlsroute_no-hostname.yaml': 'spec.hostnames: Required value',
};

test('every invalid example is refused: 422 Invalid with the cause kube gives', async () => {
  const files = readdirSync(join(gatewayDir, 'invalid-examples')).filter((f) => f.endsWith('.yaml')).sort();
  expect(files).toEqual(Object.keys(invalidExamples).sort());
  const results = await parallel(files, (f) => kubectlAsync(['create', '-n', namespace, '--dry-run=server', '-f', join(gatewayDir, 'invalid-examples', f)]));
  const problems: string[] = [];
  files.forEach((f, i) => {
    const r = results[i];
    if (r.code === 0 || !/^The \S+ "[^"]+" is invalid: /.test(r.stderr)) problems.push(`${f}: not refused as Invalid: ${r.stdout}${r.stderr}`);
    else if (!r.stderr.includes(invalidExamples[f])) problems.push(`${f}: ${r.stderr}`);
  });
  expect(problems).toEqual([]);
}, 60000);

interface Case { test: string; object?: any; spec?: any; errors?: string[]; field?: string }

/** The cases created at once with server-side dry run, each named case-<n>; what is wrong with the answers. */
function checkCases(cases: Case[], objectOf: (c: Case) => any, fieldCheck: boolean): string[] {
  const objs = cases.map((c, i) => {
    const o = structuredClone(objectOf(c));
    o.metadata = { name: `case-${i}`, namespace };
    return o;
  });
  const r = kubectl(s.kubeconfig, ['create', '--dry-run=server', '-f', '-'], stream(objs));
  const created = new Set(r.stdout.trim().split('\n').map((l) => /\/(case-\d+) created \(server dry run\)$/.exec(l)?.[1]).filter(Boolean));
  const errors = errorsByName(r.stderr);
  const problems: string[] = [];
  cases.forEach((c, i) => {
    const name = `case-${i}`;
    const err = errors.get(name);
    if (!c.errors) {
      if (!created.has(name)) problems.push(`${c.test}: refused: ${err}`);
      return;
    }
    if (err === undefined) return void problems.push(`${c.test}: accepted`);
    // Kube 1.32 changed "longer" to "more" in some messages; Gateway API's tests accept either.
    const missing = c.errors.filter((e) => !err.includes(e) && !err.includes(e.replaceAll('more', 'longer')));
    if (missing.length > 0) problems.push(`${c.test}: ${JSON.stringify(missing)} not in: ${err}`);
    // One cause (kubectl lists several in brackets), at the field the test names.
    if (fieldCheck && c.field && !(err.startsWith(`${c.field}: `) && !err.startsWith('['))) problems.push(`${c.test}: not one cause at ${c.field}: ${err}`);
  });
  for (const k of errors.keys()) if (!/^case-\d+$/.test(k)) problems.push(`unparsed kubectl error: ${errors.get(k)}`);
  return problems;
}

test('Gateway API\'s CEL tests: each object accepted or refused with the messages its test expects', () => {
  const cases = yaml.load(readFileSync(join(gatewayDir, 'cel-cases.yaml'), 'utf8')) as Case[];
  expect(cases.length).toBeGreaterThanOrEqual(35);
  expect(checkCases(cases, (c) => ({ apiVersion: 'gateway.networking.k8s.io/v1', ...c.object }), false)).toEqual([]);
}, 60000);

test('a transition rule: GatewayClass controllerName is immutable, other fields stay writable', () => {
  const gc = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass', metadata: { name: 'immutable' }, spec: { controllerName: 'example.com/one' } };
  kubectlOk(s.kubeconfig, ['create', '-f', '-'], stream([gc]));
  const changed = kubectl(s.kubeconfig, ['patch', 'gatewayclass', 'immutable', '--type=merge', '-p', '{"spec":{"controllerName":"example.com/two"}}']);
  expect(changed.code).not.toBe(0);
  expect(changed.stderr).toContain('The GatewayClass "immutable" is invalid: spec.controllerName: Invalid value: "example.com/two": Value is immutable');
  const other = kubectl(s.kubeconfig, ['patch', 'gatewayclass', 'immutable', '--type=merge', '-p', '{"spec":{"description":"d"}}']);
  expect(other.stderr).toBe('');
  expect(JSON.parse(kubectlOk(s.kubeconfig, ['get', 'gatewayclass', 'immutable', '-o', 'json'])).spec).toEqual({ controllerName: 'example.com/one', description: 'd' });
});

test('a status write is checked against the status schema: causes under status, messages within it', () => {
  const gw = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { name: 'status-addresses', namespace }, spec: { gatewayClassName: 'foo', listeners: [{ name: 'http', protocol: 'HTTP', port: 80 }] } };
  kubectlOk(s.kubeconfig, ['create', '-f', '-'], stream([gw]));
  const status = (addresses: unknown[]) => ['patch', 'gateway', 'status-addresses', '-n', namespace, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { addresses } })];
  // TestValidateGateway's status cases: valid addresses, then invalid ones (kube-openapi reports
  // the oneOf alternative that matched most: the IPAddress one's format error).
  expect(kubectl(s.kubeconfig, status([{ type: 'IPAddress', value: '1.2.3.4' }, { type: 'IPAddress', value: '1111:2222:3333:4444::' }, { type: 'Hostname', value: 'foo.bar' }])).stderr).toBe('');
  const refused = kubectl(s.kubeconfig, status([{ type: 'IPAddress', value: '1.2.3.4:8080' }, { type: 'Hostname', value: '*foo/bar' }, { type: 'Hostname', value: '12:34:56::' }]));
  expect(refused.stderr).toContain('status.addresses[0].value: Invalid value: "1.2.3.4:8080": addresses[0].value in body must be of type ipv4: "1.2.3.4:8080"');
  expect(refused.stderr).toContain('status: Invalid value: "": "addresses[0]" must validate one and only one schema (oneOf). Found none valid');
});

test('PGO\'s PostgresCluster rules: optional syntax, a fieldPath into a map, int-or-string parameters', () => {
  const install = docs(join(root, 'manifests', 'postgres-operator'), (f) => f === 'config-default.yaml').filter((d) => d.kind === 'CustomResourceDefinition');
  const applied = kubectl(s.kubeconfig, ['apply', '--server-side', '-f', '-'], stream(install));
  expect(applied.stderr).toBe('');
  expect(waitEstablished(s.kubeconfig, install)).toEqual([]);
  const file = yaml.load(readFileSync(join(pgoDir, 'cel-cases.yaml'), 'utf8')) as { base: Record<string, any>; cases: Case[] };
  const base = file.base['postgres-operator.crunchydata.com/v1'];
  const merge = (a: any, b: any): any => (b && typeof b === 'object' && !Array.isArray(b) && a && typeof a === 'object'
    ? Object.fromEntries([...new Set([...Object.keys(a), ...Object.keys(b)])].map((k) => [k, k in b ? merge(a[k], b[k]) : a[k]]))
    : b);
  expect(file.cases.length).toBeGreaterThanOrEqual(30);
  expect(checkCases(file.cases, (c) => ({ ...base, spec: merge(base.spec, c.spec) }), true)).toEqual([]);
}, 60000);

/**
 * Services through the API: kube's defaults and messages, ClusterIPs and node ports
 * allocated through the store (unique across replicas sharing it), given back on delete and
 * on failed writes, and the type changes of the service strategy.
 */
import { describeBackends } from '@windlass/storage/testing';
import { startTestServer, type TestServer } from '../../../testing/client.js';
import { defaultServiceRanges, type KubeObject } from '../../types.js';
import { defaultService, kubernetesServiceObject, services, validateService } from './services.js';

const base = '/api/v1/namespaces/default/services';

function svc(name: string, spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, ...metadata }, spec };
}

describe('Service defaults and validation (no server)', () => {
  const defaulted = (spec: Record<string, unknown>) => {
    const s = svc('web', spec) as KubeObject;
    defaultService(s);
    return s;
  };

  test('SetDefaults_Service', () => {
    expect(defaulted({ ports: [{ port: 80 }] }).spec).toEqual({
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }], sessionAffinity: 'None', type: 'ClusterIP', internalTrafficPolicy: 'Cluster',
    });
    expect(defaulted({ type: 'LoadBalancer', ports: [{ port: 443, targetPort: 'https' }], sessionAffinity: 'ClientIP' }).spec).toMatchObject({
      externalTrafficPolicy: 'Cluster', allocateLoadBalancerNodePorts: true, sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
      ports: [{ port: 443, targetPort: 'https', protocol: 'TCP' }],
    });
    const ext = defaulted({ type: 'ExternalName', externalName: 'db.example.com' }).spec as Record<string, unknown>;
    expect(ext.internalTrafficPolicy).toBeUndefined();
    expect(ext.externalTrafficPolicy).toBeUndefined();
  });

  test('kube\'s messages and paths', () => {
    const errs = (spec: Record<string, unknown>) => validateService(defaulted(spec)).map((e) => `${e.field}: ${e.detail}`);
    expect(errs({ selector: { app: 'web' } })).toEqual(['spec.ports: Required value']);
    expect(errs({ ports: [{ port: 0 }] })).toEqual([
      'spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
      'spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive',
    ]);
    expect(errs({ ports: [{ port: 80 }], type: 'Internal' })).toEqual(['spec.type: Unsupported value: "Internal": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"']);
    expect(errs({ ports: [{ port: 80, name: 'first' }, { port: 80, name: 'again' }] })).toEqual([
      'spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
    ]);
    expect(errs({ ports: [{ port: 80 }, { port: 81 }] })).toEqual(['spec.ports[0].name: Required value', 'spec.ports[1].name: Required value']);
    expect(errs({ type: 'ExternalName' })).toEqual(['spec.externalName: Required value']);
    expect(errs({ ports: [{ port: 80, targetPort: 'Bad_Port' }] })).toEqual(['spec.ports[0].targetPort: Invalid value: "Bad_Port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)']);
    expect(errs({ ports: [{ port: 80 }], sessionAffinity: 'Cookie' })).toEqual(['spec.sessionAffinity: Unsupported value: "Cookie": supported values: "ClientIP", "None"']);
    expect(errs({ ports: [{ port: 80, nodePort: 30001 }] })).toEqual(["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]);
    expect(errs({ ports: [{ port: 80 }], loadBalancerSourceRanges: ['10.0.0.0/8'] })).toEqual(["spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'"]);
    expect(errs({ type: 'LoadBalancer', ports: [{ port: 80 }], externalTrafficPolicy: 'Local' })).toEqual(['spec.healthCheckNodePort: Required value']);
  });

  test('table cells: type, cluster IP, external IP, ports, age, selector', () => {
    const s = defaulted({ type: 'NodePort', clusterIPs: ['10.96.3.4'], ports: [{ port: 80, nodePort: 30080 }, { port: 53, protocol: 'UDP' }], selector: { b: '2', a: '1' } });
    s.metadata.creationTimestamp = null;
    expect(services.table!.cells(s)).toEqual(['NodePort', '10.96.3.4', '<none>', '80:30080/TCP,53/UDP', '<unknown>', 'a=1,b=2']);
    const lb = defaulted({ type: 'LoadBalancer', ports: [{ port: 443 }] });
    expect(services.table!.cells(lb).slice(1, 3)).toEqual(['<none>', '<pending>']);
    (lb as Record<string, any>).status = { loadBalancer: { ingress: [{ hostname: 'lb.example.com' }] } };
    expect(services.table!.cells(lb)[2]).toBe('lb.example.com');
  });
});

describeBackends('Services', (b) => {
  let t: TestServer;
  const opts = () => ({ storage: b.storage, registryPrefix: `${b.prefix}registry` });
  beforeEach(async () => {
    t = await startTestServer(opts());
  });
  afterEach(() => t.close());

  const create = (body: unknown, query = '') => t.call('POST', `${base}${query}`, { body });
  const ipAddress = (ip: string) => t.call('GET', `/apis/networking.k8s.io/v1/ipaddresses/${ip}`);

  test('a minimal Service gets kube\'s defaults and a ClusterIP recorded as an IPAddress', async () => {
    const r = await create(svc('web', { selector: { app: 'web' }, ports: [{ port: 80 }] }));
    expect(r.status).toBe(201);
    expect(r.body.spec).toMatchObject({
      type: 'ClusterIP', sessionAffinity: 'None', internalTrafficPolicy: 'Cluster', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack',
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
    });
    const ip = r.body.spec.clusterIP;
    expect(r.body.spec.clusterIPs).toEqual([ip]);
    expect(ip).toMatch(/^10\.(9[6-9]|10[0-9]|11[01])\./);
    expect(r.body.status).toEqual({ loadBalancer: {} });
    expect((await ipAddress(ip)).body.spec.parentRef).toEqual({ resource: 'services', namespace: 'default', name: 'web' });
    const dry = await create(svc('dry', { ports: [{ port: 80 }] }), '?dryRun=All');
    expect(dry.body.spec.clusterIP).toBe('10.96.0.0');
  });

  test('a requested address taken or out of range is 422 with kube\'s message; a failed create gives its address back', async () => {
    expect((await create(svc('a', { clusterIP: '10.96.200.10', ports: [{ port: 80 }] }))).status).toBe(201);
    const taken = await create(svc('b', { clusterIP: '10.96.200.10', ports: [{ port: 80 }] }));
    expect(taken.status).toBe(422);
    expect(taken.body.message).toBe('Service "b" is invalid: spec.clusterIPs: Invalid value: ["10.96.200.10"]: failed to allocate IP 10.96.200.10: provided IP is already allocated');
    const outside = await create(svc('c', { clusterIP: '192.0.2.10', ports: [{ port: 80 }] }));
    expect(outside.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.clusterIPs', message: 'Invalid value: ["192.0.2.10"]: failed to allocate IP 192.0.2.10: the provided network does not match the current range' }]);
    const invalid = await create(svc('d', { clusterIP: '10.96.200.11', ports: [{ port: 80 }] }, { labels: { app: 'bad value!' } }));
    expect(invalid.status).toBe(422);
    expect((await ipAddress('10.96.200.11')).status).toBe(404);
    expect((await create(svc('d', { clusterIP: '10.96.200.11', ports: [{ port: 80 }] }))).status).toBe(201);
    // A name already taken: the address allocated for the create goes back when storage refuses it.
    expect((await create(svc('d', { clusterIP: '10.96.200.12', ports: [{ port: 80 }] }))).status).toBe(409);
    expect((await ipAddress('10.96.200.12')).status).toBe(404);
  });

  test('NodePort: requested ports kept, missing ones allocated, kube\'s errors; all released on delete', async () => {
    const r = await create(svc('np', { type: 'NodePort', ports: [{ name: 'http', port: 80, nodePort: 30080 }, { name: 'https', port: 443 }] }));
    expect(r.status).toBe(201);
    const [http, https] = r.body.spec.ports;
    expect(http.nodePort).toBe(30080);
    expect(https.nodePort >= 30000 && https.nodePort <= 32767).toBe(true);
    expect(r.body.spec.externalTrafficPolicy).toBe('Cluster');
    const again = await create(svc('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }));
    expect(again.body.message).toBe('Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated');
    const outside = await create(svc('np3', { type: 'NodePort', ports: [{ port: 80, nodePort: 80 }] }));
    expect(outside.body.message).toBe('Service "np3" is invalid: spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767');
    await t.call('POST', '/api/v1/namespaces/default/endpoints', { body: { metadata: { name: 'np' }, subsets: [{ addresses: [{ ip: '10.1.2.3' }] }] } });
    const del = await t.call('DELETE', `${base}/np`);
    expect(del.status).toBe(200);
    expect(del.body.kind).toBe('Service');
    expect((await t.call('GET', '/api/v1/namespaces/default/endpoints/np')).status).toBe(404);
    expect((await ipAddress(r.body.spec.clusterIP)).status).toBe(404);
    const reuse = await create(svc('np4', { type: 'NodePort', clusterIP: r.body.spec.clusterIP, ports: [{ name: 'a', port: 80, nodePort: 30080 }, { name: 'b', port: 81, nodePort: https.nodePort }] }));
    expect(reuse.status).toBe(201);
  });

  test('LoadBalancer with externalTrafficPolicy Local gets a health-check node port; allocateLoadBalancerNodePorts false allocates none', async () => {
    const lb = await create(svc('lb', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ port: 443 }] }));
    expect(lb.status).toBe(201);
    expect(lb.body.spec.healthCheckNodePort).toBeGreaterThanOrEqual(30000);
    expect(lb.body.spec.ports[0].nodePort).toBeGreaterThanOrEqual(30000);
    expect(lb.body.spec.healthCheckNodePort).not.toBe(lb.body.spec.ports[0].nodePort);
    const none = await create(svc('lb2', { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, ports: [{ port: 443 }] }));
    expect(none.body.spec.ports[0].nodePort).toBeUndefined();
  });

  test('type changes: ClusterIP → NodePort allocates a node port, → ExternalName gives back the address and port, and back allocates anew', async () => {
    const created = await create(svc('web', { selector: { app: 'web' }, ports: [{ port: 80 }] }));
    const ip = created.body.spec.clusterIP;
    const merge = (body: unknown) => t.call('PATCH', `${base}/web`, { body, contentType: 'application/merge-patch+json' });
    const np = await merge({ spec: { type: 'NodePort' } });
    expect(np.status).toBe(200);
    expect(np.body.spec).toMatchObject({ clusterIP: ip, externalTrafficPolicy: 'Cluster' });
    const port = np.body.spec.ports[0].nodePort;
    expect(port).toBeGreaterThanOrEqual(30000);
    const ext = await merge({ spec: { type: 'ExternalName', externalName: 'web.example.com', clusterIP: '', clusterIPs: null, selector: null } });
    expect(ext.status).toBe(200);
    expect(ext.body.spec).toEqual({ externalName: 'web.example.com', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }], sessionAffinity: 'None', type: 'ExternalName' });
    expect((await ipAddress(ip)).status).toBe(404);
    expect((await create(svc('other', { type: 'NodePort', clusterIP: ip, ports: [{ port: 80, nodePort: port }] }))).status).toBe(201);
    // 1.35: a load balancer status on a non-LoadBalancer Service is refused (AllowServiceLBStatusOnNonLB is off).
    const st = await t.call('PATCH', `${base}/web/status`, { body: { status: { loadBalancer: { ingress: [{ ip: '203.0.113.7' }] } } }, contentType: 'application/merge-patch+json' });
    expect(st.body.message).toBe("Service \"web\" is invalid: status.loadBalancer.ingress: Forbidden: may only be used when `spec.type` is 'LoadBalancer'");
    const back = await merge({ spec: { type: 'ClusterIP', externalName: null } });
    expect(back.status).toBe(200);
    expect(back.body.spec).toMatchObject({ ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', internalTrafficPolicy: 'Cluster' });
    expect(back.body.spec.clusterIP).not.toBe(ip);
  });

  test('clusterIP is immutable; an update without it keeps the allocated one', async () => {
    const created = await create(svc('web', { selector: { app: 'web' }, ports: [{ port: 80 }] }));
    const put = await t.call('PUT', `${base}/web`, { body: svc('web', { selector: { app: 'web' }, ports: [{ port: 80 }], clusterIP: '10.96.123.45' }, { resourceVersion: created.body.metadata.resourceVersion }) });
    expect(put.status).toBe(422);
    expect(put.body.message).toBe('Service "web" is invalid: spec.clusterIPs[0]: Invalid value: ["10.96.123.45"]: may not change once set');
    const reapply = await t.call('PUT', `${base}/web`, { body: svc('web', { selector: { app: 'web' }, ports: [{ port: 8080 }] }) });
    expect([reapply.status, reapply.body.message]).toEqual([200, undefined]);
    expect(reapply.body.spec.clusterIPs).toEqual(created.body.spec.clusterIPs);
  });

  test('a load balancer status written through /status; the main resource ignores status', async () => {
    const created = await create(svc('web', { type: 'LoadBalancer', selector: { app: 'web' }, ports: [{ port: 80 }] }));
    const st = await t.call('PUT', `${base}/web/status`, { body: { ...svc('web', { ports: [{ port: 80 }] }, { resourceVersion: created.body.metadata.resourceVersion }), status: { loadBalancer: { ingress: [{ hostname: 'lb.example.com' }] } } } });
    expect(st.status).toBe(200);
    expect(st.body.spec).toEqual(created.body.spec);
    expect(st.body.status).toEqual({ loadBalancer: { ingress: [{ hostname: 'lb.example.com' }] } });
    const ip = await t.call('PATCH', `${base}/web/status`, { body: { status: { loadBalancer: { ingress: [{ ip: '203.0.113.7' }] } } }, contentType: 'application/merge-patch+json' });
    expect(ip.body.status.loadBalancer.ingress).toEqual([{ ip: '203.0.113.7', ipMode: 'VIP' }]);
  });

  test('the kubernetes Service holds the first address of the range', async () => {
    // The server made it when it started listening; its object is kubernetesServiceObject's.
    const r = await t.call('GET', '/api/v1/namespaces/default/services/kubernetes');
    const expected = kubernetesServiceObject(defaultServiceRanges, Number(new URL(t.base).port));
    expect(r.body.spec).toMatchObject({ ...(expected.spec as object), clusterIP: '10.96.0.1' });
    // As kube's BeginCreate: the address is allocated before the name is looked at, so it is taken.
    const again = await t.call('POST', '/api/v1/namespaces/default/services', { body: expected });
    expect([again.status, again.body.message]).toEqual([422, 'Service "kubernetes" is invalid: spec.clusterIPs: Invalid value: ["10.96.0.1"]: failed to allocate IP 10.96.0.1: provided IP is already allocated']);
    expect((await ipAddress('10.96.0.1')).body.spec.parentRef.name).toBe('kubernetes');
  });

  test('replicas sharing the store never hand out the same address or node port', async () => {
    const other = await startTestServer(opts());
    try {
      const replies = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 ? other : t).call('POST', base, { body: svc(`s${i}`, { type: 'NodePort', ports: [{ port: 80 }] }) })));
      expect(replies.map((r) => r.status)).toEqual(replies.map(() => 201));
      const ips = new Set(replies.map((r) => r.body.spec.clusterIP));
      const ports = new Set(replies.map((r) => r.body.spec.ports[0].nodePort));
      expect([ips.size, ports.size]).toEqual([16, 16]);
    } finally {
      await other.close();
    }
  });
});

import { defaultPod, defaultPodTemplateSpec, imageTag } from './index.js';

type Json = Record<string, any>;

describe('pod-spec defaults (SetDefaults_PodSpec and friends)', () => {
  test('a minimal pod gets kube\'s defaults', () => {
    const pod: Json = { metadata: { name: 'web' }, spec: { containers: [{ name: 'app', image: 'registry.example.com/team/app:1.4.2' }] } };
    defaultPod(pod);
    expect(pod.spec).toEqual({
      containers: [{ name: 'app', image: 'registry.example.com/team/app:1.4.2', imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' }],
      dnsPolicy: 'ClusterFirst', restartPolicy: 'Always', securityContext: {}, terminationGracePeriodSeconds: 30, schedulerName: 'default-scheduler', enableServiceLinks: true,
    });
  });

  test('imagePullPolicy is Always only for the latest tag (explicit or implied)', () => {
    expect(imageTag('nginx')).toBe('latest');
    expect(imageTag('nginx:latest')).toBe('latest');
    expect(imageTag('registry:5000/team/app')).toBe('latest');
    expect(imageTag('registry:5000/team/app:1.0')).toBe('1.0');
    expect(imageTag('nginx@sha256:' + 'a'.repeat(64))).toBe('');
    expect(imageTag('Nginx')).toBe('');
    const spec: Json = { containers: [{ name: 'a', image: 'nginx' }, { name: 'b', image: 'nginx:1.25' }, { name: 'c', image: 'x', imagePullPolicy: 'Never' }] };
    defaultPodTemplateSpec({ spec });
    expect(spec.containers.map((c: Json) => c.imagePullPolicy)).toEqual(['Always', 'IfNotPresent', 'Never']);
  });

  test('probes, ports, env field references and volume sources', () => {
    const spec: Json = {
      containers: [{
        name: 'app', image: 'a:1',
        ports: [{ containerPort: 80 }],
        env: [{ name: 'N', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
        livenessProbe: { httpGet: { port: 80 } },
        readinessProbe: { grpc: { port: 9000 }, periodSeconds: 5 },
        lifecycle: { preStop: { httpGet: { port: 80, path: '/stop' } } },
      }],
      volumes: [
        { name: 'a' },
        { name: 'b', secret: { secretName: 's' } },
        { name: 'c', configMap: { name: 'c', defaultMode: 0o400 } },
        { name: 'd', hostPath: { path: '/x' } },
        { name: 'e', downwardAPI: { items: [{ path: 'p', fieldRef: { fieldPath: 'metadata.labels' } }] } },
        { name: 'f', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } },
      ],
    };
    defaultPodTemplateSpec({ spec });
    const c = spec.containers[0];
    expect(c.ports[0].protocol).toBe('TCP');
    expect(c.env[0].valueFrom.fieldRef.apiVersion).toBe('v1');
    expect(c.livenessProbe).toEqual({ httpGet: { port: 80, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
    expect(c.readinessProbe).toEqual({ grpc: { port: 9000, service: '' }, periodSeconds: 5, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 });
    expect(c.lifecycle.preStop.httpGet).toEqual({ port: 80, path: '/stop', scheme: 'HTTP' });
    expect(spec.volumes[0].emptyDir).toEqual({});
    expect(spec.volumes[1].secret.defaultMode).toBe(420);
    expect(spec.volumes[2].configMap.defaultMode).toBe(0o400);
    expect(spec.volumes[3].hostPath.type).toBe('');
    expect(spec.volumes[4].downwardAPI).toEqual({ defaultMode: 420, items: [{ path: 'p', fieldRef: { fieldPath: 'metadata.labels', apiVersion: 'v1' } }] });
    expect(spec.volumes[5].projected).toEqual({ defaultMode: 420, sources: [{ serviceAccountToken: { path: 't', expirationSeconds: 3600 } }] });
  });

  test('requests default to limits on a Pod, not on a template; enableServiceLinks is Pod-only', () => {
    const containers = () => [{ name: 'app', image: 'a:1', resources: { limits: { cpu: '1', 'ephemeral-storage': '1Gi' }, requests: { cpu: '100m' } } }];
    const pod: Json = { metadata: {}, spec: { containers: containers() } };
    defaultPod(pod);
    expect(pod.spec.containers[0].resources.requests).toEqual({ cpu: '100m', 'ephemeral-storage': '1Gi' });
    const template: Json = { spec: { containers: containers() } };
    defaultPodTemplateSpec(template);
    expect(template.spec.containers[0].resources.requests).toEqual({ cpu: '100m' });
    expect(template.spec.enableServiceLinks).toBeUndefined();
  });

  test('hostNetwork pods get hostPort = containerPort; resource lists round up to milli precision', () => {
    const pod: Json = { metadata: {}, spec: { hostNetwork: true, containers: [{ name: 'a', image: 'a:1', ports: [{ containerPort: 8080 }], resources: { requests: { cpu: '100u' } } }] } };
    defaultPod(pod);
    expect(pod.spec.containers[0].ports[0]).toEqual({ containerPort: 8080, hostPort: 8080, protocol: 'TCP' });
    expect(pod.spec.containers[0].resources.requests.cpu).toBe('1m');
  });

  test('the deprecated serviceAccount mirrors serviceAccountName', () => {
    const a: Json = { spec: { serviceAccountName: 'x', containers: [] } };
    defaultPodTemplateSpec(a);
    expect([a.spec.serviceAccountName, a.spec.serviceAccount]).toEqual(['x', 'x']);
    const b: Json = { spec: { serviceAccount: 'y', containers: [] } };
    defaultPodTemplateSpec(b);
    expect([b.spec.serviceAccountName, b.spec.serviceAccount]).toEqual(['y', 'y']);
  });
});

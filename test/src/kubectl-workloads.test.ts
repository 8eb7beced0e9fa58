/**
 * Issue 6's kubectl done-when: the workload commands people type, a realistic
 * multi-document application applied twice (the second a no-op), `get -o wide` with kube's
 * columns, `explain` and `describe` — against the real kubectl.
 */
import { kubectlOk, type RunningServer, useWindlass } from './harness.js';

const server = useWindlass();
let s: RunningServer;
let k: (...args: string[]) => string;
beforeAll(() => {
  s = server();
  k = (...args: string[]) => kubectlOk(s.kubeconfig, ['-n', 'shop', ...args]);
  kubectlOk(s.kubeconfig, ['create', 'namespace', 'shop']);
});

/** The header and the first row of a `get` table, split on kubectl's column gaps. */
function table(out: string): { header: string[]; rows: string[][] } {
  const [head, ...rows] = out.trim().split('\n');
  const split = (l: string) => l.trim().split(/\s{2,}/);
  return { header: split(head), rows: rows.map(split) };
}

test('create deployment, scale, set image, label, expose: the commands and kube\'s columns', () => {
  expect(k('create', 'deployment', 'web', '--image=nginx:1.25', '--replicas=2')).toContain('deployment.apps/web created');
  const wide = table(k('get', 'deployment', 'web', '-o', 'wide'));
  expect(wide.header).toEqual(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
  expect(wide.rows[0]).toEqual(['web', '0/2', '0', '0', expect.any(String), 'nginx', 'nginx:1.25', 'app=web']);

  expect(k('scale', 'deployment', 'web', '--replicas=3')).toContain('deployment.apps/web scaled');
  expect(k('set', 'image', 'deployment/web', 'nginx=nginx:1.26')).toContain('deployment.apps/web image updated');
  expect(k('label', 'deployment', 'web', 'tier=frontend')).toContain('deployment.apps/web labeled');
  const dep = JSON.parse(k('get', 'deployment', 'web', '-o', 'json'));
  expect(dep.spec.replicas).toBe(3);
  expect(dep.spec.template.spec.containers[0].image).toBe('nginx:1.26');
  expect(dep.metadata.labels).toEqual({ app: 'web', tier: 'frontend' });
  // Defaults a real cluster adds, and a generation bumped by each spec change (scale, image), not the label.
  expect(dep.spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } });
  expect(dep.spec.template.spec.containers[0]).toMatchObject({ imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log' });
  expect(dep.metadata.generation).toBe(3);

  expect(k('expose', 'deployment', 'web', '--port=80', '--target-port=8080')).toContain('service/web exposed');
  const svc = JSON.parse(k('get', 'service', 'web', '-o', 'json'));
  expect(svc.spec).toMatchObject({ type: 'ClusterIP', selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }] });
  expect(svc.spec.clusterIP).toMatch(/^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
  const svcTable = table(k('get', 'service', 'web', '-o', 'wide'));
  expect(svcTable.header).toEqual(['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE', 'SELECTOR']);
  expect(svcTable.rows[0]).toEqual(['web', 'ClusterIP', svc.spec.clusterIP, '<none>', '80/TCP', expect.any(String), 'app=web']);
});

test('run, job, cronjob, service, secret, role, rolebinding, serviceaccount, quota, priorityclass', () => {
  expect(k('run', 'tool', '--image=busybox:1.36', '--restart=Never', '--', 'sleep', '3600')).toContain('pod/tool created');
  const pods = table(k('get', 'pods', '-o', 'wide'));
  expect(pods.header).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES']);
  expect(pods.rows.find((r) => r[0] === 'tool')).toEqual(['tool', '0/1', 'Pending', '0', expect.any(String), '<none>', '<none>', '<none>', '<none>']);

  expect(k('create', 'job', 'migrate', '--image=busybox:1.36')).toContain('job.batch/migrate created');
  const job = JSON.parse(k('get', 'job', 'migrate', '-o', 'json'));
  expect(job.spec).toMatchObject({ backoffLimit: 6, completions: 1, parallelism: 1 });
  expect(job.spec.template.metadata.labels['batch.kubernetes.io/job-name']).toBe('migrate');
  expect(k('create', 'cronjob', 'nightly', '--image=busybox:1.36', '--schedule=0 3 * * *')).toContain('cronjob.batch/nightly created');
  expect(table(k('get', 'cronjob', 'nightly')).header).toEqual(['NAME', 'SCHEDULE', 'TIMEZONE', 'SUSPEND', 'ACTIVE', 'LAST SCHEDULE', 'AGE']);
  expect(k('create', 'service', 'clusterip', 'api', '--tcp=80:8080')).toContain('service/api created');
  expect(k('create', 'secret', 'generic', 'creds', '--from-literal=password=s3cret')).toContain('secret/creds created');
  expect(k('create', 'role', 'reader', '--verb=get,list', '--resource=pods')).toContain('role.rbac.authorization.k8s.io/reader created');
  expect(k('create', 'rolebinding', 'reader', '--role=reader', '--user=jane')).toContain('rolebinding.rbac.authorization.k8s.io/reader created');
  expect(table(k('get', 'rolebinding', 'reader', '-o', 'wide')).header).toEqual(['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS']);
  expect(k('create', 'serviceaccount', 'builder')).toContain('serviceaccount/builder created');
  expect(k('create', 'quota', 'small', '--hard=pods=10,requests.cpu=2')).toContain('resourcequota/small created');
  // Enforced, as on kube: pods without a cpu request (the next test's) would be refused while it exists.
  expect(k('delete', 'quota', 'small')).toContain('resourcequota "small" deleted');
  expect(kubectlOk(s.kubeconfig, ['create', 'priorityclass', 'batch-low', '--value=100'])).toContain('priorityclass.scheduling.k8s.io/batch-low created');
});

test('explain reads the served OpenAPI; describe lists the object\'s events', () => {
  const explained = kubectlOk(s.kubeconfig, ['explain', 'deployment.spec.strategy']);
  expect(explained).toContain('FIELD: strategy <DeploymentStrategy>');
  expect(explained).toMatch(/rollingUpdate\s+<RollingUpdateDeployment>/);

  k('run', 'described', '--image=busybox:1.36', '--restart=Never');
  const pod = JSON.parse(k('get', 'pod', 'described', '-o', 'json'));
  const event = {
    apiVersion: 'v1', kind: 'Event', metadata: { name: 'described.1' },
    involvedObject: { kind: 'Pod', namespace: 'shop', name: 'described', uid: pod.metadata.uid, apiVersion: 'v1' },
    reason: 'Scheduled', message: 'Successfully assigned shop/described to node-a', type: 'Normal', source: { component: 'default-scheduler' },
    firstTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), lastTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), count: 1,
  };
  kubectlOk(s.kubeconfig, ['-n', 'shop', 'create', '-f', '-'], JSON.stringify(event));
  const described = k('describe', 'pod', 'described');
  expect(described).toMatch(/Status:\s+Pending/);
  expect(described).toMatch(/Events:\s*\n\s+Type\s+Reason\s+Age\s+From\s+Message/);
  expect(described).toMatch(/Normal\s+Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned shop\/described to node-a/);
});

const application = `
apiVersion: v1
kind: ServiceAccount
metadata: {name: shop-api, labels: {app: shop-api}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: shop-api, labels: {app: shop-api}}
data: {LOG_LEVEL: info, FEATURES: "cart,checkout"}
---
apiVersion: v1
kind: Secret
metadata: {name: shop-api, labels: {app: shop-api}}
type: Opaque
stringData: {DATABASE_URL: "postgres://shop@db:5432/shop"}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: shop-api}
rules:
- apiGroups: [""]
  resources: [configmaps, secrets]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: shop-api}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: shop-api}
subjects:
- {kind: ServiceAccount, name: shop-api, namespace: shop}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: shop-api, labels: {app: shop-api}}
spec:
  replicas: 2
  selector: {matchLabels: {app: shop-api}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}
  template:
    metadata: {labels: {app: shop-api}}
    spec:
      serviceAccountName: shop-api
      containers:
      - name: api
        image: registry.example.com/shop/api:2.3.1
        ports: [{name: http, containerPort: 8080}]
        envFrom: [{configMapRef: {name: shop-api}}, {secretRef: {name: shop-api}}]
        resources:
          requests: {cpu: 100m, memory: 128Mi}
          limits: {cpu: "1", memory: 512Mi}
        readinessProbe: {httpGet: {path: /healthz, port: http}, periodSeconds: 5}
        livenessProbe: {httpGet: {path: /healthz, port: http}, initialDelaySeconds: 10}
        securityContext: {runAsNonRoot: true, allowPrivilegeEscalation: false}
---
apiVersion: v1
kind: Service
metadata: {name: shop-api, labels: {app: shop-api}}
spec:
  selector: {app: shop-api}
  ports: [{name: http, port: 80, targetPort: http}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: shop-api, annotations: {nginx.ingress.kubernetes.io/rewrite-target: /}}
spec:
  ingressClassName: nginx
  tls: [{hosts: [shop.example.com], secretName: shop-tls}]
  rules:
  - host: shop.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: shop-api, port: {name: http}}}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: shop-api}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: shop-api}
  minReplicas: 2
  maxReplicas: 10
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: shop-api}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: shop-api}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: shop-api}
spec:
  podSelector: {matchLabels: {app: shop-api}}
  ingress:
  - from: [{podSelector: {matchLabels: {role: frontend}}}]
    ports: [{port: 8080}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: shop-db}
spec:
  serviceName: shop-db
  replicas: 1
  selector: {matchLabels: {app: shop-db}}
  template:
    metadata: {labels: {app: shop-db}}
    spec:
      containers:
      - name: postgres
        image: postgres:16
        ports: [{containerPort: 5432}]
        volumeMounts: [{name: data, mountPath: /var/lib/postgresql/data}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 10Gi}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: shop-report}
spec:
  schedule: "0 6 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: report, image: registry.example.com/shop/report:1.0.0}]
`;

test('apply -f of a realistic application creates every object; applying it again changes nothing', () => {
  const first = kubectlOk(s.kubeconfig, ['-n', 'shop', 'apply', '-f', '-'], application).trim().split('\n');
  expect(first).toHaveLength(13);
  for (const line of first) expect(line).toMatch(/ created$/);
  const kinds = 'serviceaccount,configmap,secret,role,rolebinding,deployment,service,ingress,hpa,pdb,networkpolicy,statefulset,cronjob';
  const before = JSON.parse(k('get', kinds, '-l', 'app!=none', '-o', 'json'));
  const second = kubectlOk(s.kubeconfig, ['-n', 'shop', 'apply', '-f', '-'], application).trim().split('\n');
  expect(second).toHaveLength(13);
  // Four objects are "configured" by client-side apply on kube too, with patches that change nothing:
  // a Secret written with stringData (the live object holds data); a PodDisruptionBudget (its selector's
  // patch strategy is `replace`, so kubectl's three-way patch is never empty); a NetworkPolicy (its
  // ingress rules are an atomic list the server defaults `protocol: TCP` into, so live differs from the
  // manifest); a StatefulSet (volumeClaimTemplates is such a list too, with the claim defaults in it).
  // What matters is below: no object changed. Every other line is unchanged.
  const alwaysPatched = /^(secret|poddisruptionbudget\.policy|networkpolicy\.networking\.k8s\.io|statefulset\.apps)\//;
  for (const line of second) expect(line).toMatch(alwaysPatched.test(line) ? / configured$/ : / unchanged$/);
  const after = JSON.parse(k('get', kinds, '-l', 'app!=none', '-o', 'json'));
  const versions = (list: any) => Object.fromEntries(list.items.filter((i: any) => i.metadata.name.startsWith('shop-')).map((i: any) => [`${i.kind}/${i.metadata.name}`, i.metadata.resourceVersion]));
  expect(Object.keys(versions(after))).toHaveLength(13);
  expect(versions(after)).toEqual(versions(before));
  // Served as a real cluster would: quantities canonical, the HPA readable at autoscaling/v1 too.
  const hpaV1 = JSON.parse(kubectlOk(s.kubeconfig, ['-n', 'shop', 'get', 'horizontalpodautoscalers.v1.autoscaling', 'shop-api', '-o', 'json']));
  expect(hpaV1).toMatchObject({ apiVersion: 'autoscaling/v1', spec: { minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 70 } });
  const limits = after.items.find((i: any) => i.kind === 'Deployment').spec.template.spec.containers[0].resources.limits;
  expect(limits).toEqual({ cpu: '1', memory: '512Mi' });
});

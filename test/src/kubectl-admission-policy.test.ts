/**
 * ValidatingAdmissionPolicy through kubectl, with the example of Kubernetes' own documentation
 * ("Validating Admission Policy"): the policy and its binding applied from YAML, a Deployment
 * over the limit refused in a namespace the binding selects with the documented output, the
 * same Deployment admitted elsewhere, and a Warn binding reaching kubectl as a warning.
 */
import { kubectl, kubectlOk, type RunningServer, useWindlass, eventually } from './harness.js';

const server = useWindlass();
let s: RunningServer;

/** The documentation's policies' match constraints: Deployments, created or updated. */
const deploymentRules = `  matchConstraints:
    resourceRules:
    - apiGroups:   ["apps"]
      apiVersions: ["v1"]
      operations:  ["CREATE", "UPDATE"]
      resources:   ["deployments"]
`;

const policy = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: "demo-policy.example.com"
spec:
  failurePolicy: Fail
${deploymentRules}  validations:
    - expression: "object.spec.replicas <= 5"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: "demo-binding-test.example.com"
spec:
  policyName: "demo-policy.example.com"
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels:
        environment: test
`;

const deployment = (ns: string, replicas: number) => `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
  namespace: ${ns}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: nginx}}
  template:
    metadata: {labels: {app: nginx}}
    spec: {containers: [{name: nginx, image: nginx}]}
`;

beforeAll(() => {
  s = server();
  kubectlOk(s.kubeconfig, ['apply', '-f', '-'], policy);
  kubectlOk(s.kubeconfig, ['create', 'namespace', 'vap-test']);
  kubectlOk(s.kubeconfig, ['label', 'namespace', 'vap-test', 'environment=test']);
  kubectlOk(s.kubeconfig, ['create', 'namespace', 'vap-prod']);
});

test('a Deployment over the limit is refused with the documented message, in the selected namespace only', async () => {
  let refused = kubectl(s.kubeconfig, ['apply', '-f', '-'], deployment('vap-test', 7));
  await eventually(() => {
    if (refused.code !== 0) return true;
    kubectl(s.kubeconfig, ['-n', 'vap-test', 'delete', 'deployment', 'nginx']);
    refused = kubectl(s.kubeconfig, ['apply', '-f', '-'], deployment('vap-test', 7));
    return refused.code !== 0;
  });
  expect(refused.stderr.trim()).toBe(`The deployments "nginx" is invalid: : ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5`);
  expect(kubectl(s.kubeconfig, ['-n', 'vap-test', 'get', 'deployment', 'nginx']).code).not.toBe(0);
  kubectlOk(s.kubeconfig, ['apply', '-f', '-'], deployment('vap-test', 3));
  kubectlOk(s.kubeconfig, ['apply', '-f', '-'], deployment('vap-prod', 7));
  // Scaling past the limit is an UPDATE the policy refuses too.
  const scaled = kubectl(s.kubeconfig, ['-n', 'vap-test', 'scale', 'deployment', 'nginx', '--replicas=9']);
  expect(scaled.code).not.toBe(0);
  expect(scaled.stderr).toContain('denied request: failed expression: object.spec.replicas <= 5');
});

test('a Warn binding admits and kubectl prints the warning', async () => {
  kubectlOk(s.kubeconfig, ['apply', '-f', '-'], `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: demo-binding-prod-warn
spec:
  policyName: "demo-policy.example.com"
  validationActions: [Warn]
  matchResources:
    namespaceSelector:
      matchLabels:
        kubernetes.io/metadata.name: vap-prod
`);
  let r = kubectl(s.kubeconfig, ['-n', 'vap-prod', 'create', 'deployment', 'web', '--image=nginx', '--replicas=8']);
  let n = 0;
  await eventually(() => {
    if (r.stderr.includes('Warning:')) return true;
    r = kubectl(s.kubeconfig, ['-n', 'vap-prod', 'create', 'deployment', `web-${n++}`, '--image=nginx', '--replicas=8']);
    return r.stderr.includes('Warning:');
  });
  expect(r.code).toBe(0);
  expect(r.stderr).toContain(`Warning: Validation failed for ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-prod-warn': failed expression: object.spec.replicas <= 5`);
});

test("the documentation's type checking example: the policy's status shows the mistyped field, and a policy that does not compile is refused", async () => {
  const typo = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: "deploy-replica-policy.example.com"
spec:
${deploymentRules}  validations:
  - expression: "object.replicas > 1" # should be "object.spec.replicas > 1"
    message: "must be replicated"
    reason: Invalid
`;
  kubectlOk(s.kubeconfig, ['apply', '-f', '-'], typo);
  let warning = '';
  await eventually(() => {
    warning = kubectlOk(s.kubeconfig, ['get', 'validatingadmissionpolicy', 'deploy-replica-policy.example.com', '-o', 'jsonpath={.status.typeChecking.expressionWarnings[0].warning}']);
    return warning !== '';
  });
  expect(warning).toBe("apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'replicas'\n | object.replicas > 1\n | ......^\n");
  expect(kubectlOk(s.kubeconfig, ['get', 'validatingadmissionpolicy', 'deploy-replica-policy.example.com', '-o', 'jsonpath={.status.observedGeneration} {.status.typeChecking.expressionWarnings[0].fieldRef}'])).toBe('1 spec.validations[0].expression');

  const refused = kubectl(s.kubeconfig, ['apply', '-f', '-'], typo.replace('deploy-replica-policy', 'undeclared').replace('object.replicas > 1', 'objct.spec.replicas > 1'));
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain(`The ValidatingAdmissionPolicy "undeclared.example.com" is invalid: spec.validations[0].expression: Invalid value: "objct.spec.replicas > 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'objct' (in container '')`);
  kubectlOk(s.kubeconfig, ['delete', 'validatingadmissionpolicy', 'deploy-replica-policy.example.com']);
});

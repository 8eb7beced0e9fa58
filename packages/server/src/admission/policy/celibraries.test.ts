/**
 * A ValidatingAdmissionPolicy using kube's CEL libraries (quantity, cidr, semver) decides
 * requests by their values, and a library's evaluation error is decided by the failurePolicy
 * with kube's message.
 */
import { describeBackends } from '@windlass/storage/testing';
import { startTestServer, type TestServer } from '../../testing/client.js';

const arPath = '/apis/admissionregistration.k8s.io/v1';
const cms = '/api/v1/namespaces/default/configmaps';
const configMap = (name: string, data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

describeBackends('ValidatingAdmissionPolicy with kube\'s CEL libraries', (ctx) => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix + 'registry' });
    await t.server.bootstrap();
  });
  afterEach(() => t.close());

  test('quantity(), cidr() and semver() decide; a bad quantity is an evaluation error under failurePolicy Fail', async () => {
    const policy = {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'limits' },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }] },
        validations: [
          {
            expression: "!has(object.data.memory) || quantity(object.data.memory).compareTo(quantity('1Gi')) <= 0",
            messageExpression: "'memory ' + object.data.memory + ' is above 1Gi'",
          },
          { expression: "!has(object.data.peer) || cidr('10.0.0.0/8').containsIP(object.data.peer)", message: 'peers must be in 10.0.0.0/8' },
          { expression: "!has(object.data.version) || semver(object.data.version, true).isGreaterThan(semver('1.27.0'))", message: 'versions after 1.27 only' },
        ],
      },
    };
    expect((await t.call('POST', `${arPath}/validatingadmissionpolicies`, { body: policy })).status).toBe(201);
    const binding = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'limits' }, spec: { policyName: 'limits', validationActions: ['Deny'] } };
    expect((await t.call('POST', `${arPath}/validatingadmissionpolicybindings`, { body: binding })).status).toBe(201);

    // The policy applies once this replica's cache has it.
    let n = 0;
    let big = await t.call('POST', cms, { body: configMap(`big-${n++}`, { memory: '2Gi' }) });
    for (let i = 0; i < 100 && big.status === 201; i++) {
      await new Promise((r) => setTimeout(r, 20));
      big = await t.call('POST', cms, { body: configMap(`big-${n++}`, { memory: '2Gi' }) });
    }
    expect(big.status).toBe(422);
    expect(big.body.message).toBe(`configmaps "big-${n - 1}" is forbidden: ValidatingAdmissionPolicy 'limits' with binding 'limits' denied request: memory 2Gi is above 1Gi`);
    // Equal quantities in other units are admitted: 1024Mi is 1Gi.
    expect((await t.call('POST', cms, { body: configMap('exact', { memory: '1024Mi' }) })).status).toBe(201);
    expect((await t.call('POST', cms, { body: configMap('small', { memory: '512M', peer: '10.1.2.3', version: 'v1.30' }) })).status).toBe(201);

    const outside = await t.call('POST', cms, { body: configMap('outside', { peer: '192.168.0.1' }) });
    expect(outside.body.message).toBe("configmaps \"outside\" is forbidden: ValidatingAdmissionPolicy 'limits' with binding 'limits' denied request: peers must be in 10.0.0.0/8");
    const old = await t.call('POST', cms, { body: configMap('old', { version: '1.26' }) });
    expect(old.body.message).toBe("configmaps \"old\" is forbidden: ValidatingAdmissionPolicy 'limits' with binding 'limits' denied request: versions after 1.27 only");

    // Not a quantity: the expression errs, and failurePolicy Fail denies with kube's error text.
    const bad = await t.call('POST', cms, { body: configMap('bad', { memory: '12Mo' }) });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe(
      "configmaps \"bad\" is forbidden: ValidatingAdmissionPolicy 'limits' with binding 'limits' denied request: expression " +
        "'!has(object.data.memory) || quantity(object.data.memory).compareTo(quantity('1Gi')) <= 0' resulted in error: " +
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
  });
});

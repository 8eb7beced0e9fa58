/**
 * ValidatingAdmissionPolicy type checking (kube's TypeChecker and the status controller of
 * kube-controller-manager): the documentation's example of a mistyped field, checked against
 * the Deployment's OpenAPI schema and a custom resource's schema, and written to the policy's
 * status on both backends.
 */
import { loadSchemas } from '@windlass/schemas';
import { describeBackends } from '@windlass/storage/testing';
import { startTestServer, type TestServer } from '../../testing/client.js';
import { checkPolicy, crdType, openAPIType, type TypeResolver } from './typechecking.js';

const deployments = { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] };
const policy = (validations: unknown[], extra: Record<string, unknown> = {}) => ({ spec: { matchConstraints: { resourceRules: [deployments] }, validations, ...extra } });

async function builtins(): Promise<TypeResolver> {
  const schemas = await loadSchemas();
  return {
    kindsFor: (group, version, resource) => (group === 'apps' && version === 'v1' && resource === 'deployments' ? [{ group, version, kind: 'Deployment' }] : []),
    typeOf: (gvk) => openAPIType(schemas, schemas.definitionFor(gvk), gvk.kind),
  };
}

test("the documentation's example: a field the kind does not have is a warning naming the kind", async () => {
  const types = await builtins();
  expect(checkPolicy(policy([{ expression: 'object.replicas > 1', messageExpression: "'replicas: ' + string(object.spec.replicas)" }]), types)).toEqual([{
    fieldRef: 'spec.validations[0].expression',
    warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'replicas'\n | object.replicas > 1\n | ......^\n",
  }]);
  // Typed all the way down: metadata is ObjectMeta, containers a list of Containers.
  expect(checkPolicy(policy([
    { expression: "object.spec.replicas > 1 && object.metadata.labels['app'] != '' && object.spec.template.spec.containers.all(c, c.image != '')" },
    { expression: 'object.spec.template.spec.containers.all(c, c.imag != "")', messageExpression: 'object.spec.strategy.type' },
  ]), types)).toEqual([{
    fieldRef: 'spec.validations[1].expression',
    warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:46: undefined field 'imag'\n | object.spec.template.spec.containers.all(c, c.imag != \"\")\n | .............................................^\n",
  }]);
  // Kinds named by wildcards are not checked.
  expect(checkPolicy({ spec: { matchConstraints: { resourceRules: [{ ...deployments, apiGroups: ['*'] }] }, validations: [{ expression: 'object.replicas > 1' }] } }, types)).toEqual([]);
});

test("a custom resource is typed by its schema, its metadata by name and generateName only", () => {
  const schema = { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } };
  const types: TypeResolver = {
    kindsFor: () => [{ group: 'example.com', version: 'v1', kind: 'Widget' }],
    typeOf: (gvk) => crdType(schema, gvk.kind),
  };
  const widgets = { spec: { matchConstraints: { resourceRules: [{ apiGroups: ['example.com'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['widgets'] }] } } };
  expect(checkPolicy({ spec: { ...widgets.spec, validations: [{ expression: 'object.spec.size < 10 && object.metadata.name != ""' }] } }, types)).toEqual([]);
  expect(checkPolicy({ spec: { ...widgets.spec, validations: [{ expression: 'object.metadata.labels.size() > 0' }] } }, types)[0].warning)
    .toBe("example.com/v1, Kind=Widget: ERROR: <input>:1:16: undefined field 'labels'\n | object.metadata.labels.size() > 0\n | ...............^\n");
});

describeBackends('the ValidatingAdmissionPolicy status controller', (ctx) => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix + 'registry' });
  });
  afterEach(() => t.close());

  const path = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
  async function statusOf(name: string, generation: number): Promise<Record<string, unknown>> {
    for (let i = 0; i < 200; i++) {
      const res = await t.call('GET', `${path}/${name}`);
      const status = (res.body as { status?: Record<string, unknown> }).status;
      if (status?.observedGeneration === generation) return status;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`${name}: generation ${generation} never observed`);
  }

  test('writes observedGeneration and the type checking warnings of each generation', async () => {
    const create = (name: string, expression: string) => t.call('POST', path, { body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, ...policy([{ expression }]) } });
    expect((await create('replicas', 'object.replicas > 1')).status).toBe(201);
    expect((await create('fine', 'object.spec.replicas > 1')).status).toBe(201);
    expect(await statusOf('fine', 1)).toEqual({ observedGeneration: 1, typeChecking: {} });
    expect(await statusOf('replicas', 1)).toEqual({
      observedGeneration: 1,
      typeChecking: { expressionWarnings: [{ fieldRef: 'spec.validations[0].expression', warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'replicas'\n | object.replicas > 1\n | ......^\n" }] },
    });
    const fixed = await t.call('PATCH', `${path}/replicas`, { body: [{ op: 'replace', path: '/spec/validations/0/expression', value: 'object.spec.replicas > 1' }], contentType: 'application/json-patch+json' });
    expect(fixed.status).toBe(200);
    expect(await statusOf('replicas', 2)).toEqual({ observedGeneration: 2, typeChecking: {} });
  });
});

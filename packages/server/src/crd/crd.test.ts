/**
 * CustomResourceDefinitions served as kube's apiextensions-apiserver serves them, on both
 * backends: names accepted and Established, the resources in discovery and OpenAPI, CRUD,
 * watch and patches of custom resources under kube's key, pruning, defaulting and validation,
 * status and scale, versions, name conflicts, and deletion removing every instance. On etcd, a
 * CRD created through one replica is served by another.
 */
import { describeBackends } from '@windlass/storage/testing';
import { openWatch, startTestServer, until, type TestServer } from '../testing/client.js';

const group = 'stable.example.com';

function widgetCRD(extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `widgets.${group}` },
    spec: {
      group, scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget', shortNames: ['wd'], categories: ['all'] },
      versions: [
        {
          name: 'v1', served: true, storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object', required: ['image'],
                  properties: { image: { type: 'string' }, replicas: { type: 'integer', default: 1, maximum: 10 }, size: { type: 'string', enum: ['s', 'm'] } },
                },
                status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
              },
            },
          },
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
          additionalPrinterColumns: [{ name: 'Image', type: 'string', jsonPath: '.spec.image' }, { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }],
        },
        {
          name: 'v1beta1', served: true, storage: false,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
        },
      ],
      ...extra,
    },
  };
}

const widget = (name: string, spec: Record<string, unknown> = { image: 'nginx' }) => ({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name }, spec });
const widgets = `/apis/${group}/v1/namespaces/default/widgets`;


async function established(t: TestServer, name: string) {
  return until(async () => {
    const r = await t.call('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
    return r.body?.status?.conditions?.some((c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True') ? r.body : undefined;
  });
}

describeBackends('custom resources', (ctx) => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix + 'registry' });
  });
  afterEach(async () => {
    await t.close();
  });

  test('a CRD is accepted and established, then served, discovered and described; deleting it removes its resources', async () => {
    expect((await t.call('GET', widgets)).status).toBe(404);
    const created = await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: widgetCRD() });
    expect(created.status).toBe(201);
    expect(created.body.spec.names).toEqual({ plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'], categories: ['all'] });
    expect(created.body.spec.conversion).toEqual({ strategy: 'None' });
    expect(created.body.status).toMatchObject({ storedVersions: ['v1'] });
    const crd = await established(t, `widgets.${group}`);
    expect(crd.status.acceptedNames).toEqual(created.body.spec.names);
    expect(crd.status.conditions.map((c: Record<string, string>) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['NamesAccepted', 'True', 'NoConflicts', 'no conflicts found'],
      ['Established', 'True', 'InitialNamesAccepted', 'the initial names have been accepted'],
    ]);

    // Discovery, legacy and aggregated: v1 preferred over v1beta1.
    const group_ = (await t.call('GET', `/apis/${group}`)).body;
    expect(group_.preferredVersion).toEqual({ groupVersion: `${group}/v1`, version: 'v1' });
    expect(group_.versions.map((v: { version: string }) => v.version)).toEqual(['v1', 'v1beta1']);
    const resources = (await t.call('GET', `/apis/${group}/v1`)).body.resources;
    expect(resources).toEqual([
      { name: 'widgets', singularName: 'widget', namespaced: true, kind: 'Widget', verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'], shortNames: ['wd'], categories: ['all'], storageVersionHash: expect.any(String) },
      { name: 'widgets/status', singularName: '', namespaced: true, kind: 'Widget', verbs: ['get', 'patch', 'update'] },
      { name: 'widgets/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] },
    ]);
    const aggregated = (await t.call('GET', '/apis', { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' })).body;
    expect(aggregated.items.find((g: { metadata: { name: string } }) => g.metadata.name === group).versions[0].resources[0]).toMatchObject({ resource: 'widgets', scope: 'Namespaced', responseKind: { kind: 'Widget' } });

    // OpenAPI v2 and v3 describe the kind.
    const v2 = (await t.call('GET', '/openapi/v2')).body;
    expect(v2.definitions['com.example.stable.v1.Widget'].properties.spec.properties.image).toEqual({ type: 'string' });
    expect(v2.paths[`/apis/${group}/v1/namespaces/{namespace}/widgets/{name}`].patch.consumes).not.toContain('application/strategic-merge-patch+json');
    const index = (await t.call('GET', '/openapi/v3')).body;
    const url = index.paths[`apis/${group}/v1`].serverRelativeURL;
    const v3 = (await t.call('GET', url)).body;
    expect(v3.components.schemas['com.example.stable.v1.Widget']['x-kubernetes-group-version-kind']).toEqual([{ group, kind: 'Widget', version: 'v1' }]);
    expect(v3.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']).toBeDefined();

    // Custom resources, stored under kube's key.
    const w = await t.call('POST', widgets, { body: widget('a') });
    expect(w.status).toBe(201);
    expect(w.body).toMatchObject({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'a', namespace: 'default', generation: 1 }, spec: { image: 'nginx', replicas: 1 } });
    expect(await ctx.storage.get(`${ctx.prefix}registry/${group}/widgets/default/a`)).toBeTruthy();
    const list = await t.call('GET', widgets);
    expect(list.body).toMatchObject({ kind: 'WidgetList', apiVersion: `${group}/v1`, metadata: { continue: '' }, items: [{ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'a' } }] });

    // Deleting the CRD deletes every instance, then the CRD, and the resources stop being served.
    const del = await t.call('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`);
    expect(del.status).toBe(200);
    expect(del.body.metadata.finalizers).toEqual(['customresourcecleanup.apiextensions.k8s.io']);
    expect(del.body.status.conditions.find((c: { type: string }) => c.type === 'Terminating')).toMatchObject({ status: 'True', reason: 'InstanceDeletionPending' });
    await until(async () => ((await t.call('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`)).status === 404 ? true : undefined));
    expect(await ctx.storage.get(`${ctx.prefix}registry/${group}/widgets/default/a`)).toBeFalsy();
    await until(async () => ((await t.call('GET', widgets)).status === 404 ? true : undefined));
    expect((await t.call('GET', `/apis/${group}`)).status).toBe(404);
  });

  test('writes: pruning with fieldValidation, defaults, validation, generation, status and scale, patches, versions, watch', async () => {
    await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: widgetCRD() });
    await established(t, `widgets.${group}`);
    const watch = openWatch(t.base, `${widgets}?watch=1`);

    const pruned = await t.call('POST', widgets, { body: { ...widget('p', { image: 'nginx', bogus: 1 }), extra: true } });
    expect(pruned.status).toBe(201);
    expect(pruned.headers.get('warning')).toBe('299 - "unknown field \\"extra\\"", 299 - "unknown field \\"spec.bogus\\""');
    expect(pruned.body.spec).toEqual({ image: 'nginx', replicas: 1 });
    const strict = await t.call('POST', `${widgets}?fieldValidation=Strict`, { body: widget('q', { image: 'nginx', bogus: 1 }) });
    expect(strict.status).toBe(400);
    expect(strict.body.message).toBe('Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.bogus"');

    const invalid = await t.call('POST', widgets, { body: widget('bad', { replicas: 11, size: 'xl' }) });
    expect(invalid.status).toBe(422);
    expect(invalid.body.message).toBe(`Widget.${group} "bad" is invalid: [spec.image: Required value, spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10, spec.size: Unsupported value: "xl": supported values: "s", "m"]`);

    // The main resource does not write status; status writes keep everything else; generation counts spec changes.
    const patched = await t.call('PATCH', `${widgets}/p`, { body: { spec: { size: 's' }, status: { replicas: 5 } }, contentType: 'application/merge-patch+json' });
    expect(patched.body).toMatchObject({ metadata: { generation: 2 }, spec: { size: 's' } });
    expect(patched.body.status).toBeUndefined();
    const status = await t.call('PATCH', `${widgets}/p/status`, { body: { spec: { size: 'm' }, status: { replicas: 2, selector: 'app=w' } }, contentType: 'application/merge-patch+json' });
    expect(status.body).toMatchObject({ metadata: { generation: 2 }, spec: { size: 's' }, status: { replicas: 2 } });
    const labels = await t.call('PATCH', `${widgets}/p`, { body: [{ op: 'add', path: '/metadata/labels', value: { a: 'b' } }], contentType: 'application/json-patch+json' });
    expect(labels.body.metadata).toMatchObject({ generation: 2, labels: { a: 'b' } });
    const smp = await t.call('PATCH', `${widgets}/p`, { body: { spec: { size: 'm' } }, contentType: 'application/strategic-merge-patch+json' });
    expect(smp.status).toBe(415);
    expect(smp.body.message).toBe('the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
    const unconditional = await t.call('PUT', `${widgets}/p`, { body: widget('p') });
    expect(unconditional.status).toBe(422);
    expect(unconditional.body.message).toBe(`widgets.${group} "p" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`);

    const scale = await t.call('GET', `${widgets}/p/scale`);
    expect(scale.body).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 1 }, status: { replicas: 2, selector: 'app=w' } });
    const scaled = await t.call('PATCH', `${widgets}/p/scale`, { body: { spec: { replicas: 3 } }, contentType: 'application/merge-patch+json' });
    expect(scaled.body.spec.replicas).toBe(3);
    const tooMany = await t.call('PATCH', `${widgets}/p/scale`, { body: { spec: { replicas: 11 } }, contentType: 'application/merge-patch+json' });
    expect(tooMany.status).toBe(422);

    // Versions: conversion None rewrites apiVersion; each version prunes with its own schema.
    const old = await t.call('POST', `/apis/${group}/v1beta1/namespaces/default/widgets`, { body: { apiVersion: `${group}/v1beta1`, kind: 'Widget', metadata: { name: 'old' }, spec: { image: 'x', legacy: 1 } } });
    expect(old.status).toBe(201);
    expect(old.body.apiVersion).toBe(`${group}/v1beta1`);
    const asV1 = await t.call('GET', `${widgets}/old`);
    expect(asV1.body.apiVersion).toBe(`${group}/v1`);
    expect(asV1.body.spec).toEqual({ image: 'x', replicas: 1 });

    // Table output with the printer columns.
    const table = await t.call('GET', widgets, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    expect(table.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Image', 'Replicas']);
    expect(table.body.rows.map((r: { cells: unknown[] }) => r.cells)).toEqual([['old', 'x', 1], ['p', 'nginx', 3]]);

    const events = await until(async () => (watch.events.length >= 6 ? watch.events : undefined));
    expect(events[0]).toMatchObject({ type: 'ADDED', object: { kind: 'Widget', metadata: { name: 'p' } } });
    watch.close();
    expect((await t.call('DELETE', widgets)).status).toBe(200);
    expect((await t.call('GET', widgets)).body.items).toEqual([]);
  });

  test('a cluster-scoped CRD and a name conflict within a group', async () => {
    const gadgets = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `gadgets.${group}` },
      spec: { group, scope: 'Cluster', names: { plural: 'gadgets', kind: 'Gadget', shortNames: ['gd'] }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] } };
    expect((await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: gadgets })).status).toBe(201);
    await established(t, `gadgets.${group}`);
    expect((await t.call('POST', `/apis/${group}/v1/gadgets`, { body: { apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'g' }, anything: { goes: 1 } } })).body.anything).toEqual({ goes: 1 });
    const namespaced = await t.call('GET', `/apis/${group}/v1/namespaces/default/gadgets`);
    expect([namespaced.status, namespaced.text]).toEqual([404, '404 page not found\n']);
    const noStatus = await t.call('GET', `/apis/${group}/v1/gadgets/g/status`);
    expect(noStatus.body).toMatchObject({ code: 404, message: `gadgets.${group} "g" not found` });

    // Another CRD of the group asking for a taken short name is not accepted.
    const clash = { ...gadgets, metadata: { name: `gizmos.${group}` }, spec: { ...gadgets.spec, names: { plural: 'gizmos', kind: 'Gizmo', shortNames: ['gd'] } } };
    expect((await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: clash })).status).toBe(201);
    const refused = await until(async () => {
      const r = await t.call('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.${group}`);
      return r.body.status?.conditions?.length ? r.body : undefined;
    });
    expect(refused.status.conditions).toEqual([
      expect.objectContaining({ type: 'NamesAccepted', status: 'False', reason: 'ShortNamesConflict', message: '"gd" is already in use' }),
      expect.objectContaining({ type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }),
    ]);
    expect((await t.call('GET', `/apis/${group}/v1/gizmos`)).status).toBe(404);
  });

  test('an updated CRD is served as updated: a new schema prunes and validates, a removed version is gone, the storage version recorded', async () => {
    const created = await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: widgetCRD() });
    await established(t, `widgets.${group}`);
    expect((await t.call('POST', widgets, { body: widget('a', { image: 'x', color: 'red' }) })).body.spec).toEqual({ image: 'x', replicas: 1 });
    const crd = (await t.call('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`)).body;
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.color = { type: 'string', enum: ['red', 'blue'] };
    crd.spec.versions[0].storage = false;
    crd.spec.versions[1] = { ...crd.spec.versions[1], name: 'v2', storage: true };
    const updated = await t.call('PUT', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`, { body: crd });
    expect(updated.status).toBe(200);
    expect(updated.body.metadata.generation).toBe(created.body.metadata.generation + 1);
    expect(updated.body.status.storedVersions).toEqual(['v1', 'v2']);
    // Served once this replica's watch cache delivered the update (as kube's handler picks it up).
    await until(async () => ((await t.call('GET', `/apis/${group}/v2`)).status === 200 ? true : undefined));
    const kept = await t.call('POST', widgets, { body: widget('b', { image: 'x', color: 'red' }) });
    expect(kept.body.spec).toEqual({ image: 'x', replicas: 1, color: 'red' });
    expect((await t.call('POST', widgets, { body: widget('c', { image: 'x', color: 'green' }) })).status).toBe(422);
    // Stored as v2 now, still read through v1; v1beta1 is no longer served.
    expect(await ctx.storage.get(`${ctx.prefix}registry/${group}/widgets/default/b`).then((kv) => JSON.parse(kv!.value.toString()).apiVersion)).toBe(`${group}/v2`);
    expect((await t.call('GET', `${widgets}/b`)).body.apiVersion).toBe(`${group}/v1`);
    await until(async () => ((await t.call('GET', `/apis/${group}/v1beta1/namespaces/default/widgets`)).status === 404 ? true : undefined));
  });

  test('a default added to the schema shows on every read of objects written before it, without a write; an update persists it', async () => {
    await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: widgetCRD() });
    await established(t, `widgets.${group}`);
    const created = (await t.call('POST', widgets, { body: widget('a', { image: 'x' }) })).body;
    // Server-side apply defaults what it merged (kube's structured merge manager), creating or not.
    const applied = await t.call('PATCH', `${widgets}/b?fieldManager=m`, { body: widget('b', { image: 'x' }), contentType: 'application/apply-patch+yaml' });
    expect(applied.status).toBe(201);
    expect(JSON.parse((await ctx.storage.get(`${ctx.prefix}registry/${group}/widgets/default/b`))!.value.toString()).spec).toEqual({ image: 'x', replicas: 1 });
    const key = `${ctx.prefix}registry/${group}/widgets/default/a`;
    const storedSpec = async () => JSON.parse((await ctx.storage.get(key))!.value.toString()).spec;
    const crd = (await t.call('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`)).body;
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size.default = 's';
    crd.spec.versions[0].schema.openAPIV3Schema.properties.status.default = { replicas: 0 };
    expect((await t.call('PUT', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`, { body: crd })).status).toBe(200);
    // kube's storage codec defaults what it decodes: GET, list and watch show the default at the same resourceVersion.
    const read = await until(async () => {
      const r = (await t.call('GET', `${widgets}/a`)).body;
      return r.spec?.size === 's' ? r : undefined;
    });
    expect(read.spec).toEqual({ image: 'x', replicas: 1, size: 's' });
    expect(read.status).toEqual({ replicas: 0 });
    expect(read.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect((await t.call('GET', widgets)).body.items.map((i: { spec: unknown }) => i.spec)).toEqual([{ image: 'x', replicas: 1, size: 's' }, { image: 'x', replicas: 1, size: 's' }]);
    const watch = openWatch(t.base, `${widgets}?watch=1&resourceVersion=0`);
    const [first] = await watch.waitFor(2);
    await watch.close();
    expect(first).toMatchObject({ type: 'ADDED', object: { spec: { size: 's' }, metadata: { resourceVersion: created.metadata.resourceVersion } } });
    // Not written back: the store still holds the object as it was written…
    expect(await storedSpec()).toEqual({ image: 'x', replicas: 1 });
    // …until an update, even one that changes nothing the client sees (kube compares with the stored bytes).
    const put = await t.call('PUT', `${widgets}/a`, { body: read });
    expect(put.status).toBe(200);
    expect(put.body.metadata.resourceVersion).not.toBe(created.metadata.resourceVersion);
    // The update started from the defaulted object: nothing in spec changed, so neither did generation.
    expect(put.body.metadata.generation).toBe(created.metadata.generation);
    expect(await storedSpec()).toEqual({ image: 'x', replicas: 1, size: 's' });
    // A create drops status (the status subresource's strategy) after defaulting: the store holds
    // none, and the object is read, answered included, with its default.
    const c = await t.call('POST', widgets, { body: widget('c', { image: 'x' }) });
    expect(c.body.status).toEqual({ replicas: 0 });
    expect((await t.call('GET', `${widgets}/c`)).body.status).toEqual({ replicas: 0 });
    expect(JSON.parse((await ctx.storage.get(`${ctx.prefix}registry/${group}/widgets/default/c`))!.value.toString()).status).toBeUndefined();
    // An apply defaults too: a second apply of b persists the new default (kube writes it once, then no more).
    const again = await t.call('PATCH', `${widgets}/b?fieldManager=m`, { body: widget('b', { image: 'x' }), contentType: 'application/apply-patch+yaml' });
    expect(again.body.spec).toEqual({ image: 'x', replicas: 1, size: 's' });
    expect(again.body.metadata.resourceVersion).not.toBe(applied.body.metadata.resourceVersion);
    expect(JSON.parse((await ctx.storage.get(`${ctx.prefix}registry/${group}/widgets/default/b`))!.value.toString()).spec).toEqual({ image: 'x', replicas: 1, size: 's' });
    const third = await t.call('PATCH', `${widgets}/b?fieldManager=m`, { body: widget('b', { image: 'x' }), contentType: 'application/apply-patch+yaml' });
    expect(third.body.metadata.resourceVersion).toBe(again.body.metadata.resourceVersion);
  });

  test('x-kubernetes-validations: CEL rules with messages, messageExpression, reason, fieldPath and transition rules', async () => {
    const crd = widgetCRD();
    const spec = crd.spec.versions[0].schema!.openAPIV3Schema.properties.spec as Record<string, unknown>;
    spec['x-kubernetes-validations'] = [
      { rule: "self.replicas <= 5 || self.size == 'm'", message: 'more than 5 replicas need size m' },
      { rule: 'self.image.startsWith("registry.")', messageExpression: "'image ' + self.image + ' is not from the registry'", fieldPath: '.image', reason: 'FieldValueForbidden' },
      { rule: '!has(oldSelf.size) || self.size == oldSelf.size', message: 'size is immutable' },
    ];
    await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
    await established(t, `widgets.${group}`);
    const bad = await t.call('POST', widgets, { body: widget('a', { image: 'nginx', replicas: 7, size: 's' }) });
    expect(bad.status).toBe(422);
    expect(bad.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: more than 5 replicas need size m' },
      { reason: 'FieldValueForbidden', field: 'spec.image', message: 'Forbidden: image nginx is not from the registry' },
    ]);
    // Blocking schema errors leave the rules unchecked, and say so.
    expect((await t.call('POST', widgets, { body: widget('b', { replicas: 7 }) })).body.message)
      .toBe(`Widget.${group} "b" is invalid: [spec.image: Required value, <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]`);
    const ok = await t.call('POST', widgets, { body: widget('c', { image: 'registry.x/y', replicas: 7, size: 'm' }) });
    expect(ok.status).toBe(201);
    const changed = await t.call('PATCH', `${widgets}/c`, { body: { spec: { size: 's', replicas: 1 } }, contentType: 'application/merge-patch+json' });
    expect(changed.body.message).toBe(`Widget.${group} "c" is invalid: spec: Invalid value: size is immutable`);
  });

  test('CRD validation answers kube\'s messages', async () => {
    const bad = widgetCRD({ scope: 'Galaxy' });
    bad.metadata.name = `things.${group}`;
    const r = await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All', { body: bad });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(`CustomResourceDefinition.apiextensions.k8s.io "things.${group}" is invalid: [metadata.name: Invalid value: "things.${group}": must be spec.names.plural+"."+spec.group, spec.scope: Unsupported value: "Galaxy": supported values: "Cluster", "Namespaced"]`);
    const noSchema = widgetCRD();
    delete (noSchema.spec.versions[1] as { schema?: unknown }).schema;
    expect((await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All', { body: noSchema })).body.message)
      .toBe(`CustomResourceDefinition.apiextensions.k8s.io "widgets.${group}" is invalid: spec.versions[1].schema.openAPIV3Schema: Required value: schemas are required`);
    const untyped = widgetCRD();
    (untyped.spec.versions[0].schema!.openAPIV3Schema.properties as Record<string, unknown>).spec = { properties: { a: { type: 'string', default: 3 } } };
    expect((await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All', { body: untyped })).body.message)
      .toBe(`CustomResourceDefinition.apiextensions.k8s.io "widgets.${group}" is invalid: spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields`);
    // Structural, the default its schema refuses is said (kube validates defaults only then).
    (untyped.spec.versions[0].schema!.openAPIV3Schema.properties as Record<string, unknown>).spec = { type: 'object', properties: { a: { type: 'string', default: 3 } } };
    expect((await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All', { body: untyped })).body.message)
      .toBe(`CustomResourceDefinition.apiextensions.k8s.io "widgets.${group}" is invalid: spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[a].default: Invalid value: "integer":  in body must be of type string: "integer"`);
  });
});

describeBackends('custom resources across replicas', (ctx) => {
  test('a CRD created through one replica is served by another, and its deletion stops both', async () => {
    const a = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix + 'registry' });
    const b = await startTestServer({ storage: await ctx.open(), registryPrefix: ctx.prefix + 'registry' });
    try {
      expect((await a.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: widgetCRD() })).status).toBe(201);
      await established(a, `widgets.${group}`);
      const created = await until(async () => {
        const r = await b.call('POST', widgets, { body: widget('from-b') });
        return r.status === 201 ? r : undefined;
      });
      expect(created.body.spec.replicas).toBe(1);
      expect((await a.call('GET', `${widgets}/from-b`)).body.metadata.uid).toBe(created.body.metadata.uid);
      expect((await b.call('GET', `/apis/${group}/v1`)).body.resources[0].name).toBe('widgets');
      await b.call('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`);
      await until(async () => ((await a.call('GET', widgets)).status === 404 && (await b.call('GET', widgets)).status === 404 ? true : undefined));
    } finally {
      await a.close();
      await b.close();
    }
  });
}, { backends: ['etcd'] });

/**
 * CRD validation beside the schema, as kube 1.35's pkg/apis/apiextensions/validation does it:
 * the API approval of the Kubernetes community's groups (validateAPIApproval), printer columns
 * (ValidateCustomResourceColumnDefinition) and the scale subresource's paths
 * (ValidateCustomResourceDefinitionSubresources), at the internal version's field paths.
 */
import { validateCRD, validateCRDUpdate } from './validation.js';
import type { CRD, CRDVersion } from './types.js';

const schema = { openAPIV3Schema: { type: 'object' } } as CRDVersion['schema'];

function crd(group: string, versions: Partial<CRDVersion>[], annotations?: Record<string, string>): CRD {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}`, ...(annotations ? { annotations } : {}) },
    spec: {
      group, scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' },
      versions: versions.map((v, i) => ({ name: `v${i + 1}`, served: true, storage: i === 0, schema, ...v })),
    },
    status: { storedVersions: ['v1'] },
  } as CRD;
}

const lines = (errs: { field: string; detail: string }[]) => errs.map((e) => `${e.field}: ${e.detail}`);

test('a CRD in a k8s.io or kubernetes.io group needs the api-approved.kubernetes.io annotation', () => {
  expect(lines(validateCRD(crd('x.k8s.io', [{}])))).toEqual([
    'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
  ]);
  expect(lines(validateCRD(crd('kubernetes.io', [{}], { 'api-approved.kubernetes.io': 'yes' })))).toEqual([
    'metadata.annotations[api-approved.kubernetes.io]: Invalid value: "yes": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111',
  ]);
  // Gateway API's annotation, a bypass, and a group that only looks alike.
  expect(validateCRD(crd('gateway.networking.k8s.io', [{}], { 'api-approved.kubernetes.io': 'https://github.com/kubernetes-sigs/gateway-api/pull/3328' }))).toEqual([]);
  expect(validateCRD(crd('x.k8s.io', [{}], { 'api-approved.kubernetes.io': 'unapproved, experimental-only' }))).toEqual([]);
  expect(validateCRD(crd('notk8s.io', [{}]))).toEqual([]);
  // An update that leaves the approval as it was is not checked again.
  expect(validateCRDUpdate(crd('x.k8s.io', [{}]), crd('x.k8s.io', [{}]))).toEqual([]);
});

test('printer columns: a known type and format, a JSON path starting with a dot', () => {
  const columns = [
    { name: 'A', type: 'string', jsonPath: 'spec.a' },
    { name: 'B', type: 'strang', jsonPath: '.spec.b', format: 'percent' },
    { name: '', type: '', jsonPath: '' },
  ] as CRDVersion['additionalPrinterColumns'];
  expect(lines(validateCRD(crd('example.com', [{ additionalPrinterColumns: columns }])))).toEqual([
    'spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.a": must be a simple json path starting with .',
    'spec.additionalPrinterColumns[1].type: Invalid value: "strang": must be one of boolean,date,integer,number,string',
    'spec.additionalPrinterColumns[1].format: Invalid value: "percent": must be one of byte,date,date-time,double,float,int32,int64,password',
    'spec.additionalPrinterColumns[2].name: Required value',
    'spec.additionalPrinterColumns[2].type: Required value: must be one of boolean,date,integer,number,string',
    'spec.additionalPrinterColumns[2].JSONPath: Required value',
  ]);
  // Columns that differ between versions are each version's own.
  expect(lines(validateCRD(crd('example.com', [{ additionalPrinterColumns: [{ name: 'A', type: 'string', jsonPath: 'a' }] }, {}])))).toEqual([
    'spec.versions[0].additionalPrinterColumns[0].JSONPath: Invalid value: "a": must be a simple json path starting with .',
  ]);
});

test('the scale subresource reads replicas under .spec and .status, its selector under either', () => {
  const scale = (s: Record<string, string>) => ({ subresources: { scale: s } }) as Partial<CRDVersion>;
  expect(lines(validateCRD(crd('example.com', [scale({ specReplicasPath: '.foo.replicas', statusReplicasPath: 'status.replicas', labelSelectorPath: '.metadata.labels' })])))).toEqual([
    'spec.subresources.scale.specReplicasPath: Invalid value: ".foo.replicas": should be a json path under .spec',
    'spec.subresources.scale.statusReplicasPath: Invalid value: "status.replicas": must be a simple json path starting with .',
    'spec.subresources.scale.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status',
  ]);
  expect(validateCRD(crd('example.com', [scale({ specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' })]))).toEqual([]);
  expect(lines(validateCRD(crd('example.com', [scale({ specReplicasPath: '.replicas', statusReplicasPath: '.status.replicas' }), {}])))).toEqual([
    'spec.versions[0].subresources.scale.specReplicasPath: Invalid value: ".replicas": should be a json path under .spec',
  ]);
});

test('structural schemas: kube\'s ValidateStructural errors, sorted; defaults are checked only in a structural schema', () => {
  const openAPIV3Schema = {
    type: 'object',
    properties: {
      metadata: { type: 'object', properties: { labels: { type: 'object' } } },
      spec: {
        type: 'object',
        properties: {
          a: { type: 'string', default: 3 },
          b: { type: 'string', 'x-kubernetes-embedded-resource': true },
          c: { type: 'array' },
          d: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true },
          e: { type: 'string', allOf: [{ type: 'string', description: 'd' }], anyOf: [{ properties: { metadata: { maxLength: 1 } } }] },
          port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        },
      },
    },
  };
  const p = 'spec.validation.openAPIV3Schema';
  expect(lines(validateCRD(crd('example.com', [{ schema: { openAPIV3Schema } as CRDVersion['schema'] }])))).toEqual([
    `${p}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
    `${p}.properties[spec].properties[b].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
    `${p}.properties[spec].properties[b].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true`,
    `${p}.properties[spec].properties[c].items: Required value: must be specified`,
    `${p}.properties[spec].properties[d].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
    `${p}.properties[spec].properties[e].allOf[0].description: Forbidden: must be empty to be structural`,
    `${p}.properties[spec].properties[e].allOf[0].type: Forbidden: must be empty to be structural`,
    `${p}.properties[spec].properties[e].anyOf[0].properties[metadata]: Forbidden: must not be specified in a nested context`,
  ]);
  // Structural, the default its own schema refuses is said.
  const defaulted = { type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } }, spec: { type: 'object', properties: { a: { type: 'string', default: 3 } } } } };
  expect(lines(validateCRD(crd('example.com', [{ schema: { openAPIV3Schema: defaulted } as CRDVersion['schema'] }])))).toEqual([
    `${p}.properties[spec].properties[a].default: Invalid value: "integer":  in body must be of type string: "integer"`,
  ]);
});

test('x-kubernetes-preserve-unknown-fields is true or absent, and a default has no field its schema would prune', () => {
  const openAPIV3Schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': false,
        properties: {
          a: { type: 'object', default: { x: 1, y: 2 }, properties: { y: { type: 'integer' } } },
          b: { type: 'object', default: { y: 2 }, properties: { y: { type: 'integer' } } },
          c: { type: 'array', default: [{ z: 'q' }], items: { type: 'object', properties: { y: { type: 'string' } } } },
          d: { type: 'object', default: { x: 1 }, 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
    },
  };
  expect(lines(validateCRD(crd('example.com', [{ schema: { openAPIV3Schema } as CRDVersion['schema'] }])))).toEqual([
    // One version: kube's internal CRD keeps its schema as the top-level spec.validation.
    'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined',
    'spec.validation.openAPIV3Schema.properties[spec].properties[a].default: Invalid value: {"x":1,"y":2}: must not have unknown fields',
    'spec.validation.openAPIV3Schema.properties[spec].properties[c].default: Invalid value: [{"z":"q"}]: must not have unknown fields',
  ]);
});

test('JSON Schema features a CRD schema may not use are refused, as kube\'s specStandardValidatorV3 does', () => {
  const openAPIV3Schema = {
    type: 'object',
    properties: {
      a: { type: 'null' },
      b: { type: 'string', $ref: '#/definitions/x' },
      c: { type: 'object', patternProperties: { '^x': { type: 'string' } } },
      d: { type: 'array', items: [{ type: 'string' }] },
      e: { type: 'strung' },
    },
  };
  expect(lines(validateCRD(crd('example.com', [{ schema: { openAPIV3Schema } as unknown as CRDVersion['schema'] }])))).toEqual([
    'spec.validation.openAPIV3Schema.properties[a].type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"',
    'spec.validation.openAPIV3Schema.properties[a].type: Forbidden: type cannot be set to null, use nullable as an alternative',
    'spec.validation.openAPIV3Schema.properties[b].$ref: Forbidden: $ref is not supported',
    'spec.validation.openAPIV3Schema.properties[c].patternProperties: Forbidden: patternProperties is not supported',
    'spec.validation.openAPIV3Schema.properties[d].items: Forbidden: items must be a schema object and not an array',
    'spec.validation.openAPIV3Schema.properties[e].type: Unsupported value: "strung": supported values: "array", "boolean", "integer", "number", "object", "string"',
  ]);
});

test('conversion: a known strategy; a webhook with one client config and a review version kube speaks; none of it for None', () => {
  const withConversion = (conversion: unknown) => ({ ...crd('example.com', [{}]), spec: { ...crd('example.com', [{}]).spec, conversion } }) as CRD;
  expect(lines(validateCRD(withConversion({ strategy: 'Webhook' })))).toEqual([
    'spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook',
    'spec.conversion.conversionReviewVersions: Required value',
  ]);
  expect(lines(validateCRD(withConversion({ strategy: 'Webhook', webhook: { clientConfig: { url: 'http://x/convert', service: { name: 's', namespace: 'n' } }, conversionReviewVersions: ['v2', 'v2', 'V3'] } })))).toEqual([
    'spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required',
    'spec.conversion.conversionReviewVersions[1]: Invalid value: "v2": duplicate version',
    'spec.conversion.conversionReviewVersions[2]: Invalid value: "V3": a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')',
    'spec.conversion.conversionReviewVersions: Invalid value: ["v2","v2","V3"]: must include at least one of v1, v1beta1',
  ]);
  expect(lines(validateCRD(withConversion({ strategy: 'Webhook', webhook: { clientConfig: { url: 'http://x/convert' }, conversionReviewVersions: ['v1'] } })))).toEqual([
    'spec.conversion.webhookClientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]',
  ]);
  expect(lines(validateCRD(withConversion({ strategy: 'Other', webhook: { clientConfig: { url: 'https://x' }, conversionReviewVersions: ['v1'] } })))).toEqual([
    'spec.conversion.strategy: Unsupported value: "Other": supported values: "None", "Webhook"',
    'spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook',
    'spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook',
  ]);
  expect(validateCRD(withConversion({ strategy: 'None' }))).toEqual([]);
  expect(validateCRD(withConversion({ strategy: 'Webhook', webhook: { clientConfig: { service: { name: 'conv', namespace: 'ns', path: '/convert' } }, conversionReviewVersions: ['v1', 'v1beta1'] } }))).toEqual([]);
});

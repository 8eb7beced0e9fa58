import { fieldErr, fieldErrorString, newInvalid } from './status.js';
import {
  goQuote,
  isConfigMapKey,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from './validation.js';

const subdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character " +
  "(e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character " +
  "(e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const nameRegexMsg =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
  "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const valueRegexMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
  "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('name validators', () => {
  test('isDNS1123Subdomain', () => {
    expect(isDNS1123Subdomain('a.b-c.d')).toEqual([]);
    expect(isDNS1123Subdomain('Foo')).toEqual([subdomainMsg]);
    expect(isDNS1123Subdomain('a'.repeat(254))).toEqual(['must be no more than 253 characters']);
    expect(isDNS1123Subdomain('-' + 'a'.repeat(253))).toEqual(['must be no more than 253 characters', subdomainMsg]);
  });

  test('isDNS1123Label', () => {
    expect(isDNS1123Label('my-name')).toEqual([]);
    expect(isDNS1123Label('A')).toEqual([labelMsg]);
    expect(isDNS1123Label('a.b')).toEqual(['must not contain dots']);
    expect(isDNS1123Label('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
  });

  test('isQualifiedName', () => {
    expect(isQualifiedName('example.com/My_Name-1')).toEqual([]);
    expect(isQualifiedName('a_b')).toEqual([]);
    expect(isQualifiedName('/a')).toEqual(['prefix part must be non-empty']);
    expect(isQualifiedName('a/')).toEqual(['name part must be non-empty', nameRegexMsg]);
    expect(isQualifiedName('Example.com/a')).toEqual([`prefix part ${subdomainMsg}`]);
    expect(isQualifiedName('a'.repeat(64))).toEqual(['name part must be no more than 63 bytes']);
    expect(isQualifiedName('a/b/c')).toEqual([
      "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
        "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') " +
        "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]);
    // Lengths are UTF-8 bytes: 32 two-byte characters exceed 63 bytes.
    expect(isQualifiedName('é'.repeat(32))).toEqual(['name part must be no more than 63 bytes', nameRegexMsg]);
  });

  test('isValidLabelValue', () => {
    expect(isValidLabelValue('')).toEqual([]);
    expect(isValidLabelValue('v1.2_3')).toEqual([]);
    expect(isValidLabelValue('-a')).toEqual([valueRegexMsg]);
    expect(isValidLabelValue('a'.repeat(64))).toEqual(['must be no more than 63 bytes']);
  });

  test('isConfigMapKey', () => {
    expect(isConfigMapKey('.env')).toEqual([]);
    expect(isConfigMapKey('a b')).toEqual([
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    ]);
    expect(isConfigMapKey('.')).toEqual(["must not be '.'"]);
    expect(isConfigMapKey('..')).toEqual(["must not be '..'"]);
    expect(isConfigMapKey('..a')).toEqual(["must not start with '..'"]);
  });

  test('generateName prefixes may end in a dash', () => {
    expect(nameIsDNSSubdomain('web-', true)).toEqual([]);
    expect(nameIsDNSSubdomain('web-', false)).toEqual([subdomainMsg]);
    expect(nameIsDNSLabel('a.b-', true)).toEqual(['must not contain dots']);
  });

  test('goQuote follows Go %q', () => {
    expect(goQuote('a"b\\c\n\x01\x7fé')).toBe('"a\\"b\\\\c\\n\\x01\\x7fé"');
  });
});

const render = (errs: ReturnType<typeof validateObjectMeta>) => errs.map(fieldErrorString);
const namespaced = { namespaced: true, nameValidator: nameIsDNSSubdomain };
const clusterScoped = { namespaced: false, nameValidator: nameIsDNSLabel };

describe('validateObjectMeta', () => {
  test('a valid ConfigMap and Namespace metadata pass', () => {
    expect(validateObjectMeta({ name: 'a.b', namespace: 'default', labels: { app: 'x' } }, namespaced)).toEqual([]);
    expect(validateObjectMeta({ name: 'team-a' }, clusterScoped)).toEqual([]);
  });

  test('name is required unless generated; generateName and name are both validated', () => {
    expect(render(validateObjectMeta({ namespace: 'ns' }, namespaced))).toEqual([
      'metadata.name: Required value: name or generateName is required',
    ]);
    expect(render(validateObjectMeta({ generateName: 'Bad-', name: 'Bad-x1', namespace: 'ns' }, namespaced))).toEqual([
      `metadata.generateName: Invalid value: "Bad-": ${subdomainMsg}`,
      `metadata.name: Invalid value: "Bad-x1": ${subdomainMsg}`,
    ]);
    expect(render(validateObjectMeta({ name: 'a.b' }, clusterScoped))).toEqual([
      'metadata.name: Invalid value: "a.b": must not contain dots',
    ]);
  });

  test('namespace required for namespaced kinds, forbidden for cluster-scoped ones', () => {
    expect(render(validateObjectMeta({ name: 'a' }, namespaced))).toEqual(['metadata.namespace: Required value']);
    expect(render(validateObjectMeta({ name: 'a', namespace: 'Bad' }, namespaced))).toEqual([
      `metadata.namespace: Invalid value: "Bad": ${labelMsg}`,
    ]);
    expect(render(validateObjectMeta({ name: 'a', namespace: 'x' }, clusterScoped))).toEqual([
      'metadata.namespace: Forbidden: not allowed on this type',
    ]);
  });

  test('labels and annotations', () => {
    expect(render(validateObjectMeta({ name: 'a', namespace: 'n', labels: { 'bad key': '-v' } }, namespaced))).toEqual([
      `metadata.labels: Invalid value: "bad key": ${nameRegexMsg}`,
      `metadata.labels: Invalid value: "-v": ${valueRegexMsg}`,
    ]);
    // Annotation keys are checked lower-cased and their values are free-form.
    expect(validateObjectMeta({ name: 'a', namespace: 'n', annotations: { 'Example.com/Key': '-- any --' } }, namespaced)).toEqual([]);
    const big = { name: 'a', namespace: 'n', annotations: { a: 'x'.repeat(256 * 1024) } };
    expect(render(validateObjectMeta(big, namespaced))).toEqual(['metadata.annotations: Too long: may not be more than 262144 bytes']);
    const exact = { name: 'a', namespace: 'n', annotations: { a: 'x'.repeat(256 * 1024 - 1) } };
    expect(validateObjectMeta(exact, namespaced)).toEqual([]);
  });

  test('owner references, finalizers, generation and managed fields', () => {
    const meta = {
      name: 'a',
      namespace: 'n',
      generation: -1,
      ownerReferences: [
        { apiVersion: '', kind: 'Event', name: 'e', uid: '1', controller: true },
        { apiVersion: 'v1', kind: 'Pod', name: '', uid: '', controller: true },
      ],
      finalizers: ['orphan', 'foregroundDeletion', 'bad name'],
      managedFields: [{ manager: 'm\t', operation: 'Patch', fieldsType: 'FieldsV2' }],
    };
    expect(render(validateObjectMeta(meta, namespaced))).toEqual([
      'metadata.generation: Invalid value: -1: must be greater than or equal to 0',
      'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
      'metadata.ownerReferences.name: Invalid value: "": must not be empty',
      'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
      'metadata.ownerReferences: Invalid value: [{"apiVersion":"","kind":"Event","name":"e","uid":"1","controller":true},{"apiVersion":"v1","kind":"Pod","name":"","uid":"","controller":true}]: ' +
        'Only one reference can have Controller set to true. Found "true" in references for Event/e and Pod/',
      `metadata.finalizers: Invalid value: "bad name": ${nameRegexMsg}`,
      'metadata.finalizers: Invalid value: ["orphan","foregroundDeletion","bad name"]: finalizer orphan and foregroundDeletion cannot be both set',
      'metadata.managedFields[0].operation: Invalid value: "Patch": must be `Apply` or `Update`',
      'metadata.managedFields[0].fieldsType: Invalid value: "FieldsV2": must be `FieldsV1`',
      'metadata.managedFields[0].manager: Invalid value: "m\\t": invalid character U+0009 (at position 1)',
    ]);
    expect(render(validateObjectMeta({ name: 'a', namespace: 'n', ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }] }, namespaced))).toEqual([
      'metadata.ownerReferences: Invalid value: {"apiVersion":"v1","kind":"Event","name":"e","uid":"u"}: /v1, Kind=Event is disallowed from being an owner',
    ]);
  });
});

describe('validateObjectMetaUpdate', () => {
  const old = {
    name: 'a',
    namespace: 'n',
    uid: 'u1',
    resourceVersion: '5',
    generation: 2,
    creationTimestamp: '2024-01-01T00:00:00Z',
  };

  test('an unchanged identity passes; the timestamp compares as an instant', () => {
    expect(validateObjectMetaUpdate({ ...old, creationTimestamp: '2024-01-01T01:00:00+01:00', labels: { a: 'b' } }, old)).toEqual([]);
  });

  test('identity fields are immutable', () => {
    const next = { ...old, name: 'b', namespace: 'm', uid: 'u2', creationTimestamp: '2024-02-01T00:00:00Z', deletionGracePeriodSeconds: 30 };
    expect(render(validateObjectMetaUpdate(next, old))).toEqual([
      'metadata.name: Invalid value: "b": field is immutable',
      'metadata.namespace: Invalid value: "m": field is immutable',
      'metadata.uid: Invalid value: "u2": field is immutable',
      'metadata.creationTimestamp: Invalid value: "2024-02-01T00:00:00Z": field is immutable',
      'metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable',
    ]);
  });

  test('resourceVersion is required and generation may not go back', () => {
    const next = { ...old, resourceVersion: '', generation: 1 };
    expect(render(validateObjectMetaUpdate(next, old))).toEqual([
      'metadata.resourceVersion: Invalid value: "": must be specified for an update',
      'metadata.generation: Invalid value: 1: must not be decremented',
    ]);
  });

  test('no new finalizers while deleting', () => {
    const deleting = { ...old, deletionTimestamp: '2024-03-01T00:00:00Z', finalizers: ['a'] };
    expect(render(validateObjectMetaUpdate({ ...deleting, finalizers: ['c', 'a', 'b'] }, deleting))).toEqual([
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b", "c"}',
    ]);
    expect(validateObjectMetaUpdate({ ...deleting, finalizers: [] }, deleting)).toEqual([]);
  });
});

describe('newInvalid', () => {
  test('names each distinct error once in the message, as kube\'s ToAggregate, and keeps every cause', () => {
    const err = newInvalid({ group: 'storage.k8s.io', kind: 'VolumeAttachment' }, 'csi', [
      fieldErr.required('spec.attacher'), fieldErr.required('spec.attacher'), fieldErr.invalid('spec.nodeName', '', 'must not be empty'),
    ]);
    expect(err.status.message).toBe('VolumeAttachment.storage.k8s.io "csi" is invalid: [spec.attacher: Required value, spec.nodeName: Invalid value: "": must not be empty]');
    expect(err.status.details?.causes).toHaveLength(3);
    const one = newInvalid({ group: '', kind: 'Pod' }, 'p', [fieldErr.required('spec'), fieldErr.required('spec')]);
    expect(one.status.message).toBe('Pod "p" is invalid: spec: Required value');
  });
});

/**
 * Request decoding and the generic request errors as kube-apiserver answers them
 * (../shared/reference/golden: misc.*, *.malformed-json, *.bad-quantity, *.bad-time,
 * *.request-not-base64, *.unknown-field-strict).
 */
import { EmbeddedStorage } from '@windlass/storage';
import { startTestServer, type TestServer } from '../testing/client.js';

let t: TestServer;
const cms = '/api/v1/namespaces/d/configmaps';
beforeAll(async () => {
  t = await startTestServer({ storage: new EmbeddedStorage({ path: ':memory:' }) });
  await t.call('POST', '/api/v1/namespaces', { body: { metadata: { name: 'd' } } });
});
afterAll(async () => {
  await t.close();
});

const badRequest = (message: string) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'BadRequest', code: 400, message });

describe('bodies that are not an object of the kind', () => {
  test.each([
    ['', 'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: unexpected end of JSON input (<empty>)'],
    ['{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}', 'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"apiVersion":"v1","kind":"Con ...)'],
    ['[1,2,3]', 'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (5b312c322c335d)'],
    ['{"kind":5}', 'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string ({"kind":5})'],
    ['nope', 'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: invalid character \'o\' in literal null (expecting \'u\') (6e6f7065)'],
    ['{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"}}', 'Deployment in version "v1" cannot be handled as a ConfigMap: converting (v1.Deployment) to (core.ConfigMap): unknown conversion'],
    ['{"apiVersion":"v1","kind":"Secret","metadata":{"name":"d"}}', 'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion'],
    ['{"apiVersion":"v1","kind":"Gizmo","metadata":{"name":"d"}}', 'Gizmo in version "v1" cannot be handled as a ConfigMap: no kind "Gizmo" is registered for version "v1" in scheme "pkg/api/legacyscheme/scheme.go:30"'],
    ['{"apiVersion":"a/b/c","kind":"ConfigMap"}', 'the object provided is unrecognized (must be of type ConfigMap): unexpected GroupVersion string: a/b/c ({"apiVersion":"a/b/c","kind":" ...)'],
  ])('%j', async (body, message) => {
    const r = await t.call('POST', cms, { body, contentType: 'application/json' });
    expect(r.body).toEqual(badRequest(message));
  });

  test('another version of the same kind is refused by its version', async () => {
    const r = await t.call('POST', '/apis/autoscaling/v2/namespaces/d/horizontalpodautoscalers', { body: { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' } } });
    expect(r.body.message).toBe('the API version in the data (autoscaling/v1) does not match the expected API version (autoscaling/v2)');
  });

  test('a body without apiVersion and kind takes the URL\'s; null is the empty object', async () => {
    const r = await t.call('POST', `${cms}?dryRun=All`, { body: { metadata: { name: 'nokind' } } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    const empty = await t.call('POST', `${cms}?dryRun=All`, { body: 'null', contentType: 'application/json' });
    expect(empty.status).toBe(422);
  });

  test('a body of an unsupported media type: the handler lists what it takes, without details', async () => {
    const r = await t.call('POST', cms, { body: '{}', contentType: 'text/plain' });
    expect(r.body).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'UnsupportedMediaType', code: 415,
      message: 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    });
  });
});

describe('repeated fields', () => {
  const dup = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup"},"data":{"a":"1"},"data":{"b":"2"}}';
  test('JSON: Strict refuses, Warn merges the objects and warns, Ignore merges', async () => {
    const strict = await t.call('POST', `${cms}?dryRun=All&fieldValidation=Strict`, { body: dup });
    expect(strict.body).toEqual(badRequest('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data"'));
    const warn = await t.call('POST', `${cms}?dryRun=All`, { body: dup });
    expect(warn.status).toBe(201);
    expect(warn.body.data).toEqual({ a: '1', b: '2' });
    expect(warn.headers.get('warning')).toBe('299 - "duplicate field \\"data\\""');
    const ignore = await t.call('POST', `${cms}?dryRun=All&fieldValidation=Ignore`, { body: dup });
    expect(ignore.body.data).toEqual({ a: '1', b: '2' });
    expect(ignore.headers.get('warning')).toBeNull();
  });

  test('JSON: repeated and unknown fields are named together; a repeated unknown field only as unknown', async () => {
    const body = '{"metadata":{"name":"x","name":"y","bogus":1,"bogus":2},"data":{"k":"1","k":"2"}}';
    const r = await t.call('POST', `${cms}?dryRun=All&fieldValidation=Strict`, { body });
    expect(r.body.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data.k", duplicate field "metadata.name", unknown field "metadata.bogus"');
  });

  const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dup\ndata:\n  a: "1"\n  a: "2"\n';
  test('YAML: yaml.v2\'s errors by line; the last value wins', async () => {
    const strict = await t.call('POST', `${cms}?dryRun=All&fieldValidation=Strict`, { body: yaml, contentType: 'application/yaml' });
    expect(strict.body.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: yaml: unmarshal errors:\n  line 7: key "a" already set in map');
    const warn = await t.call('POST', `${cms}?dryRun=All`, { body: yaml, contentType: 'application/yaml' });
    expect(warn.status).toBe(201);
    expect(warn.body.data).toEqual({ a: '2' });
    expect(warn.headers.get('warning')).toBe('299 - "line 7: key \\"a\\" already set in map"');
  });
});

describe('YAML bodies are YAML 1.1', () => {
  test('y is a boolean, 0755 octal, a timestamp a string', async () => {
    const bad = await t.call('POST', `${cms}?dryRun=All`, { body: 'metadata:\n  name: y\n', contentType: 'application/yaml' });
    expect(bad.body.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.name of type string');
    const ok = await t.call('POST', `/apis/apps/v1/namespaces/d/deployments?dryRun=All`, {
      contentType: 'application/yaml',
      body: 'metadata:\n  name: w\n  annotations:\n    at: 2020-01-01\nspec:\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec:\n      containers: [{name: c, image: i}]\n      volumes:\n      - name: v\n        configMap: {name: m, defaultMode: 0755}\n',
    });
    expect(ok.status).toBe(201);
    expect(ok.body.metadata.annotations.at).toBe('2020-01-01');
    expect(ok.body.spec.template.spec.volumes[0].configMap.defaultMode).toBe(493);
  });
});

describe('types that decode themselves', () => {
  const pod = (resources: unknown) => ({ metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i', resources }] } });
  test('quantities are written canonical', async () => {
    const r = await t.call('POST', '/api/v1/namespaces/d/resourcequotas?dryRun=All', { body: { metadata: { name: 'q' }, spec: { hard: { cpu: '1000m', memory: '1024Mi', 'requests.cpu': 0.5, 'requests.storage': '1e3' } } } });
    expect(r.status).toBe(201);
    expect(r.body.spec.hard).toEqual({ cpu: '1', memory: '1Gi', 'requests.cpu': '500m', 'requests.storage': '1e3' });
  });
  test('a bad quantity is 400 with kube\'s message', async () => {
    const r = await t.call('POST', '/api/v1/namespaces/d/pods?dryRun=All', { body: pod({ requests: { cpu: 'lots' } }) });
    expect(r.body).toEqual(badRequest('Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\''));
  });
  test('times: stored in UTC at second precision; a bad MicroTime names its layout', async () => {
    const lease = (renewTime: string) => ({ metadata: { name: 'l', annotations: {} }, spec: { holderIdentity: 'h', renewTime, acquireTime: renewTime } });
    const bad = await t.call('POST', '/apis/coordination.k8s.io/v1/namespaces/d/leases?dryRun=All', { body: lease('now') });
    expect(bad.body).toEqual(badRequest('Lease in version "v1" cannot be handled as a Lease: parsing time "now" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "now" as "2006"'));
    const ok = await t.call('POST', '/apis/coordination.k8s.io/v1/namespaces/d/leases?dryRun=All', { body: lease('2024-05-01T10:00:00.123456+02:00') });
    expect(ok.body.spec.renewTime).toBe('2024-05-01T08:00:00.123456Z');
    const cronjob = await t.call('POST', '/api/v1/namespaces/d/events?dryRun=All', {
      body: { metadata: { name: 'e' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'd' }, reason: 'R', type: 'Normal', firstTimestamp: '2024-05-01T10:00:00.9+02:00', lastTimestamp: '2024-05-01T10:00:00Z' },
    });
    expect(cronjob.body.firstTimestamp).toBe('2024-05-01T08:00:00Z');
  });
  test('[]byte: base64 checked as Go reads it', async () => {
    const r = await t.call('POST', '/api/v1/namespaces/d/secrets?dryRun=All', { body: { metadata: { name: 's' }, data: { k: 'not base64!' } } });
    expect(r.body).toEqual(badRequest('Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3'));
    const ok = await t.call('POST', '/api/v1/namespaces/d/secrets?dryRun=All', { body: { metadata: { name: 's' }, data: { k: 'aGVs\nbG8=' } } });
    expect(ok.body.data).toEqual({ k: 'aGVsbG8=' });
  });
  test('int-or-string refuses other types with json.Unmarshal\'s message', async () => {
    const r = await t.call('POST', '/api/v1/namespaces/d/services?dryRun=All', { body: { metadata: { name: 's' }, spec: { ports: [{ port: 80, targetPort: true }] } } });
    expect(r.body.message).toBe('Service in version "v1" cannot be handled as a Service: json: cannot unmarshal bool into Go value of type int32');
  });
  test('an int32 out of range names the number', async () => {
    const r = await t.call('POST', '/api/v1/namespaces/d/services?dryRun=All', { body: { metadata: { name: 's' }, spec: { ports: [{ port: 3000000000 }] } } });
    expect(r.body.message).toBe('Service in version "v1" cannot be handled as a Service: json: cannot unmarshal number 3000000000 into Go struct field ServicePort.spec.ports.port of type int32');
  });
});

describe('request options', () => {
  test('dryRun other than All: one error naming the list', async () => {
    const r = await t.call('POST', `${cms}?dryRun=Some`, { body: { metadata: { name: 'm' } } });
    expect(r.body).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Invalid', code: 422,
      message: 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"',
      details: { group: 'meta.k8s.io', kind: 'CreateOptions', causes: [{ reason: 'FieldValueNotSupported', message: 'Unsupported value: []string{"Some"}: supported values: "All"', field: 'dryRun' }] },
    });
  });
  test('an unknown fieldValidation lists the empty value too', async () => {
    const r = await t.call('POST', `${cms}?fieldValidation=Loud`, { body: { metadata: { name: 'm' } } });
    expect(r.body.message).toBe('CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"');
  });
  test('integers are parsed by strconv.ParseInt, booleans never fail', async () => {
    expect((await t.call('GET', `${cms}?limit=abc`)).body).toEqual(badRequest('strconv.ParseInt: parsing "abc": invalid syntax'));
    expect((await t.call('GET', `${cms}?limit=`)).body).toEqual(badRequest('strconv.ParseInt: parsing "": invalid syntax'));
    expect((await t.call('GET', `${cms}?limit=99999999999999999999`)).body).toEqual(badRequest('strconv.ParseInt: parsing "99999999999999999999": value out of range'));
    expect((await t.call('GET', `${cms}?allowWatchBookmarks=maybe`)).status).toBe(200);
  });
  test('a continue token that is not one gets the storage layer\'s message', async () => {
    expect((await t.call('GET', `${cms}?continue=not-a-token`)).body).toEqual(badRequest("invalid continue token: continue key is not valid: invalid character '\\u009e' looking for beginning of value"));
    expect((await t.call('GET', `${cms}?continue=a$b`)).body).toEqual(badRequest('invalid continue token: continue key is not valid: illegal base64 data at input byte 1'));
    const token = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    expect((await t.call('GET', `${cms}?continue=${token({ v: 'x', rv: 1, start: 'a' })}`)).body.message).toBe('invalid continue token: continue key is not valid: server does not recognize this encoded version x');
    expect((await t.call('GET', `${cms}?continue=${token({ v: 'meta.k8s.io/v1', rv: '1', start: 'a' })}`)).body.message).toBe('invalid continue token: continue key is not valid: json: cannot unmarshal string into Go struct field continueToken.rv of type int64');
    expect((await t.call('GET', `${cms}?continue=${token({ v: 'meta.k8s.io/v1', rv: 1, start: '../x' })}`)).body.message).toBe('invalid continue token: continue key is not valid: ../x');
  });
  test('a DeleteOptions body kube 1.35 cannot decode is 400, and deletes nothing', async () => {
    await t.call('POST', cms, { body: { metadata: { name: 'del' } } });
    const del = (body: string) => t.call('DELETE', `${cms}/del`, { body, contentType: 'application/json' });
    expect((await del('{')).body).toEqual(badRequest("couldn't get version/kind; json parse error: unexpected end of JSON input"));
    expect((await del('[]')).body.message).toBe('couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }');
    expect((await del('{"apiVersion":"v1","kind":"ConfigMap"}')).body).toEqual(badRequest('no kind "ConfigMap" is registered for version "v1" in scheme "pkg/apis/meta/internalversion/scheme/register.go:27"'));
    expect((await del('{"kind":"UpdateOptions"}')).body).toEqual(badRequest('converting (v1.UpdateOptions) to (v1.DeleteOptions): unknown conversion'));
    expect((await del('{"gracePeriodSeconds":1.5}')).body).toEqual(badRequest('json: cannot unmarshal number 1.5 into Go struct field DeleteOptions.gracePeriodSeconds of type int64'));
    expect((await del('{"orphanDependents":"yes"}')).body).toEqual(badRequest('json: cannot unmarshal string into Go struct field DeleteOptions.orphanDependents of type bool'));
    expect((await t.call('GET', `${cms}/del`)).status).toBe(200);
    // Any group version's DeleteOptions is one (kubectl sends apiVersion v1).
    expect((await del('{"kind":"DeleteOptions","apiVersion":"apps/v1"}')).status).toBe(200);
  });
});

describe('field selectors go through the kind\'s label conversion', () => {
  test.each([
    [cms, 'data.a', '"data.a" is not a known field selector: only "metadata.name", "metadata.namespace"'],
    ['/apis/apps/v1/namespaces/d/replicasets', 'status.replicas', '"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"'],
    ['/api/v1/namespaces/d/pods', 'spec.foo', 'field label not supported: spec.foo'],
    ['/api/v1/nodes', 'metadata.namespace', 'field label not supported: metadata.namespace'],
    ['/apis/batch/v1/namespaces/d/jobs', 'spec.foo', 'field label "spec.foo" not supported for Job'],
  ])('%s %s', async (path, label, message) => {
    expect((await t.call('GET', `${path}?fieldSelector=${encodeURIComponent(`${label}=x`)}`)).body).toEqual(badRequest(message));
  });

  test('accepted labels are renamed as kube renames them (pods spec.host)', async () => {
    await t.call('POST', '/api/v1/namespaces/d/serviceaccounts', { body: { metadata: { name: 'default' } } });
    await t.call('POST', '/api/v1/namespaces/d/pods', { body: { metadata: { name: 'on-n1' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] } } });
    const r = await t.call('GET', '/api/v1/namespaces/d/pods?fieldSelector=spec.host%3Dn1');
    expect(r.body.items.map((p: { metadata: { name: string } }) => p.metadata.name)).toEqual(['on-n1']);
  });
});

describe('patches', () => {
  beforeAll(async () => {
    await t.call('POST', cms, { body: { metadata: { name: 'pm' }, data: { a: 'b' } } });
  });
  test('a Content-Type the PATCH route does not consume is go-restful\'s 415', async () => {
    const r = await t.call('PATCH', `${cms}/pm`, { body: { data: {} }, contentType: 'application/xml' });
    expect(r.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'UnsupportedMediaType', code: 415, message: '415: Unsupported Media Type', details: {} });
  });
  test('Strict refuses unknown fields with 422 showing the patched object', async () => {
    const r = await t.call('PATCH', `${cms}/pm?fieldValidation=Strict`, { body: { bogus: 1 }, contentType: 'application/merge-patch+json' });
    expect(r.status).toBe(422);
    expect(r.body.details).toEqual({ causes: [{ reason: 'FieldValueInvalid', field: 'patch', message: expect.stringMatching(/^Invalid value: "\{\\"apiVersion\\":\\"v1\\",\\"bogus\\":1,\\"data\\":\{\\"a\\":\\"b\\"\},\\"kind\\":\\"ConfigMap\\",.*": strict decoding error: unknown field "bogus"$/) }] });
    expect(r.body.message).toMatch(/^ "" is invalid: patch: Invalid value: /);
    const smp = await t.call('PATCH', `${cms}/pm?fieldValidation=Strict`, { body: { bogus: { x: [1, 'a'] }, data: { c: 'd' } }, contentType: 'application/strategic-merge-patch+json' });
    expect(smp.body.details.causes[0].message).toBe('Invalid value: "map[bogus:map[x:[1 a]] data:map[c:d]]": strict decoding error: unknown field "bogus"');
  });
});

describe('the patch itself under Warn and Strict', () => {
  beforeAll(async () => {
    await t.call('POST', cms, { body: { metadata: { name: 'pp' }, data: { a: 'b' } } });
  });
  test('repeated keys in a merge patch are warned about; a JSON patch operation\'s unknown field too', async () => {
    const merge = await t.call('PATCH', `${cms}/pp`, { body: '{"data":{"x":"1","x":"2"}}', contentType: 'application/merge-patch+json' });
    expect(merge.status).toBe(200);
    expect(merge.headers.get('warning')).toBe('299 - "duplicate field \\"data.x\\""');
    const json = await t.call('PATCH', `${cms}/pp?fieldValidation=Strict`, { body: [{ op: 'add', path: '/data/y', value: 'z', extra: 1 }], contentType: 'application/json-patch+json' });
    expect(json.status).toBe(422);
    expect(json.body.details.causes[0].message).toMatch(/: strict decoding error: json patch unknown field "\[0\]\.extra"$/);
  });
});

describe('YAML output as go-yaml writes it', () => {
  test('keys sorted, resource versions and times quoted, sequences at their key', async () => {
    await t.call('POST', cms, { body: { metadata: { name: 'yo', labels: { 'app.kubernetes.io/name': 'x', n: 'true' } }, data: { b: 'two words', a: '1', multi: 'l1\nl2\n' } } });
    const r = await t.call('GET', `${cms}/yo`, { accept: 'application/yaml' });
    expect(r.headers.get('content-type')).toBe('application/yaml');
    const text = r.text.replace(/"\d+"/g, '"<rv>"').replace(/"\d{4}-\d\d-\d\dT[\d:]+Z"/g, '"<time>"').replace(/uid: \S+/, 'uid: <uid>');
    expect(text).toBe(
      'apiVersion: v1\ndata:\n  a: "<rv>"\n  b: two words\n  multi: |\n    l1\n    l2\nkind: ConfigMap\nmetadata:\n  creationTimestamp: "<time>"\n' +
      '  labels:\n    app.kubernetes.io/name: x\n    "n": "true"\n' +
      // FieldsV1 keys as go-yaml writes them: `.` and `f:…` plain, nothing quoted that need not be.
      '  managedFields:\n  - apiVersion: v1\n    fieldsType: FieldsV1\n    fieldsV1:\n      f:data:\n        .: {}\n        f:a: {}\n        f:b: {}\n        f:multi: {}\n' +
      '      f:metadata:\n        f:labels:\n          .: {}\n          f:app.kubernetes.io/name: {}\n          f:n: {}\n    manager: node\n    operation: Update\n    time: "<time>"\n' +
      '  name: yo\n  namespace: d\n  resourceVersion: "<rv>"\n  uid: <uid>\n',
    );
  });
});

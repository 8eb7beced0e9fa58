/**
 * The malformed and hostile requests malformed-requests.test.ts sends, each with the answer
 * kube-apiserver 1.35 gives it (apimachinery's json serializer and errors, apiserver's
 * endpoints/handlers, go-restful's routing, the golden recordings). Bodies are generated: every
 * endpoint that decodes an object gets every broken body, every patch type gets its broken
 * patches, every list endpoint its broken query parameters.
 */
import type { RawRequest } from './rawhttps.js';

export interface Expected {
  code: number;
  /** The Status's reason; '' is kube's StatusReasonUnknown (an error kube does not type). */
  reason?: string;
  message?: string | RegExp;
  /** A body that is not a Status: kube's plain-text answers (the 404 page, kube-openapi). */
  plain?: string;
}

export interface Case extends Expected {
  name: string;
  req: RawRequest;
}

export const ns = 'mal';
export const group = 'mal.example.com';
const cms = `/api/v1/namespaces/${ns}/configmaps`;
const deployments = `/apis/apps/v1/namespaces/${ns}/deployments`;
const widgets = `/apis/${group}/v1/namespaces/${ns}/widgets`;
const ssar = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';

export const paths = { cms, deployments, widgets, ssar };

/** Over kube-apiserver's 3 MiB request body limit. */
const bodyLimit = 3 * 1024 * 1024;
/** Deeper than encoding/json's limit of 10000. */
const tooDeep = 100_000;

/** apiserver's summarizeData: `<empty>`, an object's first 30 bytes, else their hex; ` ...` when cut. */
function summary(body: Buffer): string {
  if (body.length === 0) return '<empty>';
  const head = body.subarray(0, 30);
  const text = body[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return body.length > 30 ? `${text} ...` : text;
}

const findKind = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

interface BrokenBody {
  name: string;
  body: Buffer;
  /** The decoder's error (transformDecodeError wraps it); undefined for the body limit's 413. */
  error?: string;
}

const b = (s: string | Buffer) => (typeof s === 'string' ? Buffer.from(s) : s);

/** Bodies no endpoint can decode, whatever kind it expects. */
export const brokenBodies: BrokenBody[] = [
  { name: 'not JSON', body: b('hello'), error: "invalid character 'h' looking for beginning of value" },
  { name: 'truncated JSON', body: b('{"metadata":{"name":"cut"'), error: 'unexpected end of JSON input' },
  { name: 'empty', body: b(''), error: 'unexpected end of JSON input' },
  { name: 'an array', body: b('[1,2]'), error: `json: cannot unmarshal array into Go value of type ${findKind}` },
  { name: 'a string', body: b('"text"'), error: `json: cannot unmarshal string into Go value of type ${findKind}` },
  { name: 'a number', body: b('42'), error: `json: cannot unmarshal number into Go value of type ${findKind}` },
  { name: 'a boolean', body: b('true'), error: `json: cannot unmarshal bool into Go value of type ${findKind}` },
  { name: `nested ${tooDeep} levels`, body: b(`{"a":${'['.repeat(tooDeep)}${']'.repeat(tooDeep)}}`), error: "invalid character '[' exceeded max depth" },
  { name: `objects nested ${tooDeep} levels`, body: b(`{"metadata":${'{"a":'.repeat(tooDeep)}1${'}'.repeat(tooDeep)}}`), error: "invalid character '{' exceeded max depth" },
  { name: 'a byte-order mark', body: b('\uFEFF{"metadata":{"name":"bom"}}'), error: "invalid character 'ï' looking for beginning of value" },
  { name: 'invalid UTF-8 outside a string', body: Buffer.concat([b('{"metadata":'), Buffer.from([0xff]), b('}')]), error: "invalid character 'ÿ' looking for beginning of value" },
  { name: 'a kind that is not a string', body: b('{"kind":7}'), error: 'json: cannot unmarshal number into Go struct field .kind of type string' },
  { name: 'over the body limit', body: b(`{"metadata":{"name":"huge"},"data":{"a":"${'x'.repeat(bodyLimit)}"}}`) },
];

interface Target {
  name: string;
  method: 'POST' | 'PUT';
  path: string;
  kind: string;
}

/** Endpoints that decode an object body: namespaced and cluster-scoped kinds, subresources, a custom resource, a review. */
const bodyTargets: Target[] = [
  { name: 'create configmap', method: 'POST', path: cms, kind: 'ConfigMap' },
  { name: 'update configmap', method: 'PUT', path: `${cms}/base`, kind: 'ConfigMap' },
  { name: 'create namespace', method: 'POST', path: '/api/v1/namespaces', kind: 'Namespace' },
  { name: 'create clusterrole', method: 'POST', path: '/apis/rbac.authorization.k8s.io/v1/clusterroles', kind: 'ClusterRole' },
  { name: 'update deployment status', method: 'PUT', path: `${deployments}/web/status`, kind: 'Deployment' },
  { name: 'update deployment scale', method: 'PUT', path: `${deployments}/web/scale`, kind: 'Scale' },
  { name: 'create widget', method: 'POST', path: widgets, kind: 'Widget' },
  { name: 'update widget status', method: 'PUT', path: `${widgets}/w1/status`, kind: 'Widget' },
  { name: 'update widget scale', method: 'PUT', path: `${widgets}/w1/scale`, kind: 'Scale' },
  { name: 'create selfsubjectaccessreview', method: 'POST', path: ssar, kind: 'SelfSubjectAccessReview' },
];

function bodyCases(): Case[] {
  const out: Case[] = [];
  for (const t of bodyTargets) {
    for (const body of brokenBodies) {
      const req = { method: t.method, path: t.path, body: body.body };
      if (body.error === undefined) {
        out.push({ name: `${t.name}: ${body.name}`, req, code: 413, reason: 'RequestEntityTooLarge', message: `Request entity too large: limit is ${bodyLimit}` });
        continue;
      }
      out.push({
        name: `${t.name}: ${body.name}`, req, code: 400, reason: 'BadRequest',
        message: `the object provided is unrecognized (must be of type ${t.kind}): couldn't get version/kind; json parse error: ${body.error} (${summary(body.body)})`,
      });
    }
  }
  // What only some endpoints refuse: another kind, another version, another name or namespace.
  const badRequest = (name: string, req: RawRequest, message: string | RegExp): Case => ({ name, req, code: 400, reason: 'BadRequest', message });
  const json = (o: unknown) => JSON.stringify(o);
  out.push(
    badRequest('configmap of another kind', { method: 'POST', path: cms, body: json({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'k' } }) }, 'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion'),
    badRequest('configmap of an unknown version', { method: 'POST', path: cms, body: json({ apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: 'k' } }) }, 'ConfigMap in version "v2" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "v2" in scheme "pkg/api/legacyscheme/scheme.go:30"'),
    badRequest('configmap with an unparseable apiVersion', { method: 'POST', path: cms, body: json({ apiVersion: 'a/b/c', kind: 'ConfigMap' }) }, /^the object provided is unrecognized \(must be of type ConfigMap\): unexpected GroupVersion string: a\/b\/c \(/),
    badRequest('configmap in another namespace', { method: 'POST', path: cms, body: json({ metadata: { name: 'k', namespace: 'default' } }) }, 'the namespace of the provided object does not match the namespace sent on the request'),
    badRequest('configmap named otherwise than the URL', { method: 'PUT', path: `${cms}/base`, body: json({ metadata: { name: 'other' } }) }, 'the name of the object (other) does not match the name on the URL (base)'),
    badRequest('configmap data of the wrong type', { method: 'POST', path: cms, body: json({ metadata: { name: 'k' }, data: 5 }) }, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type map[string]string'),
    badRequest('configmap metadata of the wrong type', { method: 'POST', path: cms, body: json({ metadata: 'k' }) }, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta'),
    badRequest('strict configmap with a repeated key', { method: 'POST', path: `${cms}?fieldValidation=Strict`, body: '{"metadata":{"name":"k"},"data":{"a":"1"},"data":{"b":"2"}}' }, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data"'),
    badRequest('widget of another kind', { method: 'POST', path: widgets, body: json({ apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'k' } }) }, 'Gadget in version "v1" cannot be handled as a Widget: the kind in the data (Gadget) does not match the expected kind (Widget)'),
    badRequest('widget of another version', { method: 'POST', path: widgets, body: json({ apiVersion: `${group}/v2`, kind: 'Widget', metadata: { name: 'k' } }) }, `the API version in the data (${group}/v2) does not match the expected API version (${group}/v1)`),
    badRequest('widget in another namespace', { method: 'POST', path: widgets, body: json({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'k', namespace: 'default' } }) }, 'the namespace of the provided object does not match the namespace sent on the request'),
    badRequest('scale named otherwise than the URL', { method: 'PUT', path: `${deployments}/web/scale`, body: json({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'x' }, spec: { replicas: 2 } }) }, 'the name of the object (x) does not match the name on the URL (web)'),
    badRequest('review of another kind', { method: 'POST', path: ssar, body: json({ apiVersion: 'v1', kind: 'ConfigMap' }) }, 'ConfigMap in version "v1" cannot be handled as a SelfSubjectAccessReview: converting (v1.ConfigMap) to (authorization.SelfSubjectAccessReview): unknown conversion'),
    { name: 'configmap named invalidly', req: { method: 'POST', path: cms, body: json({ metadata: { name: 'Bad_Name' } }) }, code: 422, reason: 'Invalid', message: /^ConfigMap "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/ },
    { name: 'widget spec of the wrong type', req: { method: 'POST', path: widgets, body: json({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'k' }, spec: 'x' }) }, code: 422, reason: 'Invalid', message: `Widget.${group} "k" is invalid: spec: Invalid value: "string": spec in body must be of type object: "string"` },
    { name: 'review with neither attribute', req: { method: 'POST', path: ssar, body: json({ spec: {} }) }, code: 422, reason: 'Invalid' },
  );
  return out;
}

const JSONPatch = 'application/json-patch+json';
const MergePatch = 'application/merge-patch+json';
const StrategicPatch = 'application/strategic-merge-patch+json';
const ApplyPatch = 'application/apply-patch+yaml';

const generic422 = 'the server rejected our request due to an error in our request';
const deepPatch = `{"data":${'{"a":'.repeat(tooDeep)}1${'}'.repeat(tooDeep)}}`;

function patchCases(): Case[] {
  const patch = (path: string, type: string, body: string) => ({ method: 'PATCH', path, body, headers: { 'content-type': type } });
  const out: Case[] = [];
  // Every patch type's broken patches, on a built-in kind, a subresource and a custom resource.
  for (const [target, path] of [['configmap', `${cms}/base`], ['deployment status', `${deployments}/web/status`], ['widget', `${widgets}/w1`]] as const) {
    const add = (name: string, type: string, body: string, e: Expected) => out.push({ name: `${target}: ${name}`, req: patch(path, type, body), ...e });
    add('json patch removing a missing path', JSONPatch, '[{"op":"remove","path":"/nope/deeper"}]', { code: 422, reason: 'Invalid', message: generic422 });
    add('json patch whose test fails', JSONPatch, '[{"op":"test","path":"/metadata/name","value":"other"}]', { code: 422, reason: 'Invalid', message: generic422 });
    add('json patch with an unknown op', JSONPatch, '[{"op":"frobnicate","path":"/metadata"}]', { code: 422, reason: 'Invalid', message: generic422 });
    add('json patch moving from nowhere', JSONPatch, '[{"op":"move","from":"/nope/x","path":"/metadata/labels"}]', { code: 422, reason: 'Invalid', message: generic422 });
    add('json patch that is an object', JSONPatch, '{"op":"add"}', { code: 400, reason: 'BadRequest', message: 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp' });
    add('json patch that is not JSON', JSONPatch, 'op: add', { code: 400, reason: 'BadRequest', message: "error decoding patch: invalid character 'o' looking for beginning of value" });
    add('json patch too deep', JSONPatch, `[{"op":"add","path":"/x","value":${'['.repeat(tooDeep)}${']'.repeat(tooDeep)}}]`, { code: 400, reason: 'BadRequest', message: "error decoding patch: invalid character '[' exceeded max depth" });
    add('merge patch that is an array', MergePatch, '[1,2]', { code: 400, reason: 'BadRequest', message: 'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}' });
    add('merge patch that is null', MergePatch, 'null', { code: 400, reason: 'BadRequest', message: 'Invalid JSON Patch' });
    add('merge patch truncated', MergePatch, '{"metadata":', { code: 400, reason: 'BadRequest', message: 'error decoding patch: unexpected end of JSON input' });
    add('merge patch too deep', MergePatch, deepPatch, { code: 400, reason: 'BadRequest', message: "error decoding patch: invalid character '{' exceeded max depth" });
    // The options are validated before the body is read.
    add('apply patch without a manager', ApplyPatch, '- a\n- b\n', { code: 422, reason: 'Invalid', message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch' });
  }
  // go-restful's PATCH routes consume the patch types (its own 415); a custom resource's handler
  // checks the patch type itself and lists what it takes.
  const crPatchTypes = 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml';
  for (const [target, path, message] of [['configmap', `${cms}/base`, '415: Unsupported Media Type'], ['deployment status', `${deployments}/web/status`, '415: Unsupported Media Type'], ['widget', `${widgets}/w1`, crPatchTypes]] as const) {
    out.push({ name: `${target}: unknown patch content type`, req: patch(path, 'text/plain', '{}'), code: 415, reason: 'UnsupportedMediaType', message });
    out.push({ name: `${target}: patch without a content type`, req: patch(path, '', '{}'), code: 415, reason: 'UnsupportedMediaType', message });
  }
  // The apply cases above lack ?fieldManager; these have it, so the body itself is refused.
  // kube 1.35's applyPatcher (sigs.k8s.io/yaml.Unmarshal into a map): "error decoding YAML: …"; the
  // YAML parser's own words (js-yaml's, not go-yaml's) are not compared.
  const notAMap = (t: string) => `error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${t} into Go value of type map[string]interface {}`;
  for (const [body, message] of [['- a\n- b\n', notAMap('array')], ['"just a string"', notAMap('string')], ['a: [\n', /^error decoding YAML: error converting YAML to JSON: yaml: /]] as const) {
    out.push({ name: `apply patch ${JSON.stringify(body)} with a manager`, req: patch(`${cms}/base?fieldManager=mal`, ApplyPatch, body), code: 400, reason: 'BadRequest', message });
  }
  const cmPatch = (name: string, type: string, body: string, e: Expected) => out.push({ name: `configmap: ${name}`, req: patch(`${cms}/base`, type, body), ...e });
  cmPatch('merge patch of the wrong type', MergePatch, '{"data":5}', { code: 422, reason: 'Invalid', message: /^ "" is invalid: patch: Invalid value: ".*": json: cannot unmarshal number into Go struct field ConfigMap\.data of type map\[string\]string$/s });
  // jsonPatcher decodes the patched document into the hub type: another kind does not convert.
  cmPatch('merge patch changing the kind', MergePatch, '{"kind":"Secret"}', { code: 422, reason: 'Invalid', message: /^ "" is invalid: patch: Invalid value: ".*": converting \(v1\.Secret\) to \(core\.ConfigMap\): unknown conversion$/s });
  cmPatch('json patch changing the apiVersion', JSONPatch, '[{"op":"replace","path":"/apiVersion","value":"v2"}]', { code: 422, reason: 'Invalid', message: /: no kind "ConfigMap" is registered for version "v2" in scheme "pkg\/api\/legacyscheme\/scheme\.go:30"$/ });
  cmPatch('json patch renaming the object', JSONPatch, '[{"op":"replace","path":"/metadata/name","value":"other"}]', { code: 400, reason: 'BadRequest', message: 'the name of the object (other) does not match the name on the URL (base)' });
  cmPatch('json patch moving the namespace', JSONPatch, '[{"op":"replace","path":"/metadata/namespace","value":"default"}]', { code: 400, reason: 'BadRequest', message: 'the namespace of the provided object does not match the namespace sent on the request' });
  cmPatch('json patch with over 10000 operations', JSONPatch, JSON.stringify(Array.from({ length: 10001 }, () => ({ op: 'test', path: '/kind', value: 'ConfigMap' }))), { code: 413, reason: 'RequestEntityTooLarge', message: 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001' });
  cmPatch('strategic merge patch that is an array', StrategicPatch, '[1]', { code: 400, reason: 'BadRequest', message: 'json: cannot unmarshal array into Go value of type map[string]interface {}' });
  cmPatch('strategic merge patch of the wrong type', StrategicPatch, '{"data":[1]}', { code: 422, reason: 'Invalid', message: ' "" is invalid: patch: Invalid value: "map[data:[1]]": json: cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string' });
  // mergepatch.ErrBadPatchType is not among the errors interpretStrategicMergePatchError types:
  // kube passes it through untyped, a 500 with reason Unknown.
  cmPatch('strategic merge patch with an unknown $patch', StrategicPatch, '{"$patch":"bogus"}', { code: 500, reason: '', message: 'unknown patch type: bogus in map: map[$patch:bogus]' });
  const dep = (name: string, body: string, e: Expected) => out.push({ name: `deployment: ${name}`, req: patch(`${deployments}/web`, StrategicPatch, body), ...e });
  dep('strategic merge patch with an invalid $retainKeys', '{"spec":{"strategy":{"$retainKeys":5}}}', { code: 400, reason: 'BadRequest', message: 'invalid patch format of retainKeys' });
  dep('strategic merge patch of a list element without its merge key', '{"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}}', { code: 500, reason: '', message: 'map: map[image:x] does not contain declared merge key: name' });
  const widget = (name: string, type: string, body: string, e: Expected) => out.push({ name: `widget: ${name}`, req: patch(`${widgets}/w1`, type, body), ...e });
  widget('strategic merge patch (none for custom resources)', StrategicPatch, '{}', { code: 415, reason: 'UnsupportedMediaType', message: 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml' });
  // Decoded as unstructured, a custom resource's patched kind is the strategy's ValidateTypeMeta to refuse.
  widget('merge patch changing the kind', MergePatch, '{"kind":"Gadget"}', { code: 422, reason: 'Invalid', message: `Gadget.${group} "w1" is invalid: kind: Invalid value: "Gadget": must be Widget` });
  widget('json patch removing the kind', JSONPatch, '[{"op":"remove","path":"/kind"}]', { code: 422, reason: 'Invalid', message: /^ "" is invalid: patch: Invalid value: ".*": Object 'Kind' is missing in '.*'$/s });
  widget('merge patch of the wrong type', MergePatch, '{"spec":{"replicas":"x"}}', { code: 422, reason: 'Invalid', message: /^Widget\.mal\.example\.com "w1" is invalid: .*spec\.replicas in body must be of type integer: "string"/ });
  out.push(
    { name: 'scale: merge patch of the wrong type', req: patch(`${deployments}/web/scale`, MergePatch, '{"spec":{"replicas":"x"}}'), code: 400, reason: 'BadRequest', message: 'Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32' },
    { name: 'scale: json patch removing a missing path', req: patch(`${deployments}/web/scale`, JSONPatch, '[{"op":"remove","path":"/nope"}]'), code: 422, reason: 'Invalid', message: generic422 },
    { name: 'widget scale: negative replicas', req: patch(`${widgets}/w1/scale`, MergePatch, '{"spec":{"replicas":-3}}'), code: 422, reason: 'Invalid', message: 'Scale.autoscaling "w1" is invalid: spec.replicas: Invalid value: -3: must be greater than or equal to 0' },
  );
  return out;
}

function negotiationCases(): Case[] {
  const typed = 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf';
  const notAcceptable = (name: string, req: RawRequest, message = typed): Case => ({ name, req, code: 406, reason: 'NotAcceptable', message });
  const unsupported = 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf';
  return [
    { name: 'create with an unknown content type', req: { method: 'POST', path: cms, body: '{}', headers: { 'content-type': 'text/plain' } }, code: 415, reason: 'UnsupportedMediaType', message: unsupported },
    { name: 'update with a patch content type', req: { method: 'PUT', path: `${cms}/base`, body: '{}', headers: { 'content-type': MergePatch } }, code: 415, reason: 'UnsupportedMediaType', message: unsupported },
    { name: 'review with an unknown content type', req: { method: 'POST', path: ssar, body: '{}', headers: { 'content-type': 'application/xml' } }, code: 415, reason: 'UnsupportedMediaType', message: unsupported },
    { name: 'custom resource in protobuf', req: { method: 'POST', path: widgets, body: 'xx', headers: { 'content-type': 'application/vnd.kubernetes.protobuf' } }, code: 415, reason: 'UnsupportedMediaType', message: 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml' },
    { name: 'protobuf body without the envelope', req: { method: 'POST', path: cms, body: 'garbage', headers: { 'content-type': 'application/vnd.kubernetes.protobuf' } }, code: 400, reason: 'BadRequest', message: 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]' },
    notAcceptable('get accepting only HTML', { method: 'GET', path: `${cms}/base`, headers: { accept: 'text/html' } }),
    notAcceptable('list accepting only XML', { method: 'GET', path: cms, headers: { accept: 'application/xml' } }),
    notAcceptable('get accepting JSON at q=0', { method: 'GET', path: `${cms}/base`, headers: { accept: 'application/json;q=0' } }),
    notAcceptable('get asking for an unknown representation', { method: 'GET', path: `${cms}/base`, headers: { accept: 'application/json;as=Bogus;g=meta.k8s.io;v=v1' } }),
    notAcceptable('get with a garbage Accept', { method: 'GET', path: `${cms}/base`, headers: { accept: ';;;,,,' } }),
    notAcceptable('watch in YAML', { method: 'GET', path: `${cms}?watch=1`, headers: { accept: 'application/yaml' } }, 'only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch'),
    notAcceptable('custom resource in protobuf only', { method: 'GET', path: `${widgets}/w1`, headers: { accept: 'application/vnd.kubernetes.protobuf' } }, 'only the following media types are accepted: application/json, application/yaml'),
    notAcceptable('delete accepting only HTML', { method: 'DELETE', path: `${cms}/base`, headers: { accept: 'text/html' } }),
    notAcceptable('review accepting only HTML', { method: 'POST', path: ssar, body: '{}', headers: { accept: 'text/html' } }),
    notAcceptable('aggregated discovery of an unknown version', { method: 'GET', path: '/apis', headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v9;as=APIGroupDiscoveryList' } }),
    notAcceptable('discovery accepting only HTML', { method: 'GET', path: '/apis/apps/v1', headers: { accept: 'text/html' } }),
    { name: 'openapi v3 accepting only HTML', req: { method: 'GET', path: '/openapi/v3/api/v1', headers: { accept: 'text/html' } }, code: 406, plain: '' },
    { name: 'openapi v3 of an unknown group version', req: { method: 'GET', path: '/openapi/v3/apis/bogus.example.com/v1' }, code: 404, plain: '' },
  ];
}

function queryCases(): Case[] {
  const badRequest = (name: string, path: string, message: string | RegExp): Case => ({ name, req: { method: 'GET', path }, code: 400, reason: 'BadRequest', message });
  const invalidList = (name: string, path: string, detail: string): Case => ({ name, req: { method: 'GET', path }, code: 422, reason: 'Invalid', message: `ListOptions.meta.k8s.io "" is invalid: ${detail}` });
  const q = encodeURIComponent;
  const token = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const write = (name: string, method: string, path: string, kind: string, detail: string, body?: string, type?: string): Case => ({
    name, req: { method, path, body, headers: type ? { 'content-type': type } : undefined }, code: 422, reason: 'Invalid', message: `${kind}.meta.k8s.io "" is invalid: ${detail}`,
  });
  const cases: Case[] = [];
  for (const [what, list] of [['configmaps', cms], ['widgets', widgets]] as const) {
    cases.push(
      badRequest(`${what}: label selector syntax`, `${list}?labelSelector=${q('a===b')}`, "unable to parse requirement: found '=', expected: identifier"),
      badRequest(`${what}: label selector unclosed set`, `${list}?labelSelector=${q('a in (b')}`, "unable to parse requirement: found '', expected: ',' or ')'"),
      badRequest(`${what}: field selector syntax`, `${list}?fieldSelector=metadata.name`, "invalid selector: 'metadata.name'; can't understand 'metadata.name'"),
      badRequest(`${what}: limit not a number`, `${list}?limit=abc`, 'strconv.ParseInt: parsing "abc": invalid syntax'),
      badRequest(`${what}: limit out of range`, `${list}?limit=99999999999999999999999`, 'strconv.ParseInt: parsing "99999999999999999999999": value out of range'),
      badRequest(`${what}: continue not base64`, `${list}?limit=1&continue=${q('garbage!!')}`, 'invalid continue token: continue key is not valid: illegal base64 data at input byte 7'),
      badRequest(`${what}: continue of another version`, `${list}?limit=1&continue=${token({ v: 'x', rv: 1, start: 'a' })}`, 'invalid continue token: continue key is not valid: server does not recognize this encoded version x'),
      badRequest(`${what}: continue escaping its prefix`, `${list}?limit=1&continue=${token({ v: 'meta.k8s.io/v1', rv: 1, start: '../../secrets' })}`, 'invalid continue token: continue key is not valid: ../../secrets'),
      // kube's storage.ValidateListOptions decodes the token first, then refuses a resourceVersion beside it.
      badRequest(`${what}: continue with a resourceVersion`, `${list}?limit=1&resourceVersion=5&continue=${token({ v: 'meta.k8s.io/v1', rv: 1, start: 'a' })}`, 'specifying resource version is not allowed when using continue'),
      badRequest(`${what}: a bad continue with a resourceVersion`, `${list}?limit=1&resourceVersion=5&continue=abc`, "invalid continue token: continue key is not valid: invalid character 'i' looking for beginning of value"),
      badRequest(`${what}: resourceVersion not a number`, `${list}?resourceVersion=abc`, 'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax'),
      badRequest(`${what}: watch from a garbage resourceVersion`, `${list}?watch=1&resourceVersion=abc`, 'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax'),
      badRequest(`${what}: timeoutSeconds not a number`, `${list}?watch=1&timeoutSeconds=abc`, 'strconv.ParseInt: parsing "abc": invalid syntax'),
      invalidList(`${what}: resourceVersionMatch unknown`, `${list}?resourceVersion=1&resourceVersionMatch=Bogus`, 'resourceVersionMatch: Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""'),
      invalidList(`${what}: resourceVersionMatch without resourceVersion`, `${list}?resourceVersionMatch=Exact`, 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'),
      invalidList(`${what}: watch with resourceVersionMatch NotOlderThan`, `${list}?watch=1&resourceVersion=1&resourceVersionMatch=NotOlderThan`, 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'),
      invalidList(`${what}: watch with sendInitialEvents alone`, `${list}?watch=1&sendInitialEvents=true`, 'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'),
      invalidList(`${what}: list with sendInitialEvents`, `${list}?sendInitialEvents=true`, 'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'),
    );
  }
  cases.push(
    badRequest('configmaps: unknown field selector', `${cms}?fieldSelector=${q('spec.bogus=x')}`, '"spec.bogus" is not a known field selector: only "metadata.name", "metadata.namespace"'),
    badRequest('configmaps: unknown field selector on a watch', `${cms}?watch=1&fieldSelector=${q('spec.bogus=x')}`, '"spec.bogus" is not a known field selector: only "metadata.name", "metadata.namespace"'),
    badRequest('pods: unknown field selector', `/api/v1/namespaces/${ns}/pods?fieldSelector=${q('spec.bogus=x')}`, 'field label not supported: spec.bogus'),
    badRequest('widgets: field selector on a field not selectable', `${widgets}?fieldSelector=${q('spec.color=red')}`, 'field label not supported: spec.color'),
    write('create with dryRun=Garbage', 'POST', `${cms}?dryRun=Garbage`, 'CreateOptions', 'dryRun: Unsupported value: []string{"Garbage"}: supported values: "All"', '{"metadata":{"name":"k"}}'),
    write('patch with dryRun=Garbage', 'PATCH', `${cms}/base?dryRun=Garbage`, 'PatchOptions', 'dryRun: Unsupported value: []string{"Garbage"}: supported values: "All"', '{}', MergePatch),
    write('delete with dryRun=Garbage', 'DELETE', `${cms}/base?dryRun=Garbage`, 'DeleteOptions', 'dryRun: Unsupported value: []string{"Garbage"}: supported values: "All"'),
    write('create with a fieldManager over 128 bytes', 'POST', `${cms}?fieldManager=${'m'.repeat(129)}`, 'CreateOptions', 'fieldManager: Too long: may not be more than 128 bytes', '{"metadata":{"name":"k"}}'),
    write('create with fieldValidation=Bogus', 'POST', `${cms}?fieldValidation=Bogus`, 'CreateOptions', 'fieldValidation: Unsupported value: "Bogus": supported values: "", "Ignore", "Strict", "Warn"', '{"metadata":{"name":"k"}}'),
    write('update with fieldValidation=Bogus', 'PUT', `${cms}/base?fieldValidation=Bogus`, 'UpdateOptions', 'fieldValidation: Unsupported value: "Bogus": supported values: "", "Ignore", "Strict", "Warn"', '{"metadata":{"name":"base"}}'),
    write('review with fieldValidation=Bogus', 'POST', `${ssar}?fieldValidation=Bogus`, 'CreateOptions', 'fieldValidation: Unsupported value: "Bogus": supported values: "", "Ignore", "Strict", "Warn"', '{}'),
    write('merge patch with force', 'PATCH', `${cms}/base?force=true`, 'PatchOptions', 'force: Forbidden: may not be specified for non-apply patch', '{}', MergePatch),
    write('delete with propagationPolicy=Bogus', 'DELETE', `${cms}/base?propagationPolicy=Bogus`, 'DeleteOptions', 'propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"'),
    write('deletecollection with propagationPolicy=Bogus', 'DELETE', `${cms}?propagationPolicy=Bogus`, 'DeleteOptions', 'propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"'),
    write('delete with a policy and orphanDependents', 'DELETE', `${cms}/base?propagationPolicy=Orphan&orphanDependents=true`, 'DeleteOptions', 'propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set'),
    write('delete body with propagationPolicy=Bogus', 'DELETE', `${cms}/base`, 'DeleteOptions', 'propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"', '{"propagationPolicy":"Bogus"}'),
    { name: 'deletecollection with a bad label selector', req: { method: 'DELETE', path: `${cms}?labelSelector=${q('a===b')}` }, code: 400, reason: 'BadRequest', message: "unable to parse requirement: found '=', expected: identifier" },
    { name: 'delete with gracePeriodSeconds not a number', req: { method: 'DELETE', path: `${cms}/base?gracePeriodSeconds=abc` }, code: 400, reason: 'BadRequest', message: 'strconv.ParseInt: parsing "abc": invalid syntax' },
  );
  // kube 1.35's delete handler: a DeleteOptions body it cannot decode is 400 (an untyped 500 before).
  const deleteBody = (name: string, body: string, message: string): Case => ({ name: `delete body ${name}`, req: { method: 'DELETE', path: `${cms}/base`, body }, code: 400, reason: 'BadRequest', message });
  cases.push(
    deleteBody('that is not JSON', 'garbage', "couldn't get version/kind; json parse error: invalid character 'g' looking for beginning of value"),
    deleteBody('that is an array', '[1]', `couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type ${findKind}`),
    deleteBody('too deep', `{"preconditions":${'['.repeat(tooDeep)}${']'.repeat(tooDeep)}}`, "couldn't get version/kind; json parse error: invalid character '[' exceeded max depth"),
    deleteBody('of another kind', '{"apiVersion":"v1","kind":"ConfigMap"}', 'no kind "ConfigMap" is registered for version "v1" in scheme "pkg/apis/meta/internalversion/scheme/register.go:27"'),
    deleteBody('of another options kind', '{"apiVersion":"meta.k8s.io/v1","kind":"CreateOptions"}', 'converting (v1.CreateOptions) to (v1.DeleteOptions): unknown conversion'),
    deleteBody('with a grace period that is a string', '{"gracePeriodSeconds":"now"}', 'json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64'),
    deleteBody('with preconditions of the wrong type', '{"preconditions":{"uid":5}}', 'json: cannot unmarshal number into Go struct field Preconditions.preconditions.uid of type types.UID'),
  );
  return cases;
}

function pathCases(): Case[] {
  const notFound = { code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' };
  const page = { code: 404, plain: '404 page not found\n' };
  const notAllowed = { code: 405, reason: 'MethodNotAllowed', message: 'the server does not allow this method on the requested resource' };
  const nameInvalid = (name: string, problem: string) => ({ code: 400, reason: 'BadRequest', message: `Name parameter invalid: ${JSON.stringify(name)}: ${problem}` });
  const get = (path: string) => ({ method: 'GET', path });
  return [
    { name: 'unknown group', req: get('/apis/bogus.example.com/v1/things'), ...page },
    { name: 'unknown group, namespaced', req: get('/apis/bogus.example.com/v1/namespaces/mal/things/x'), ...page },
    { name: 'unknown version of a served group', req: get('/apis/apps/v9/deployments'), ...notFound },
    { name: 'unknown version of a custom group', req: get(`/apis/${group}/v9/namespaces/${ns}/widgets`), ...notFound },
    { name: 'unknown resource', req: get('/api/v1/bogus'), ...notFound },
    { name: 'unknown resource in a namespace', req: get(`/api/v1/namespaces/${ns}/bogus`), ...notFound },
    { name: 'cluster-scoped kind under a namespace', req: get(`/api/v1/namespaces/${ns}/nodes`), ...notFound },
    { name: 'unknown subresource', req: { method: 'POST', path: `${deployments}/web/nosuchsub`, body: '{}' }, ...notFound },
    { name: 'too many segments', req: get(`${cms}/base/status/x/y`), ...notFound },
    { name: 'unknown subresource of a custom resource', req: get(`${widgets}/w1/bogus`), code: 404, reason: 'NotFound', message: `widgets.${group} "w1" not found` },
    { name: 'name ..', req: get(`${cms}/..`), ...nameInvalid('..', "may not be '..'") },
    { name: 'name .', req: get(`${cms}/.`), ...nameInvalid('.', "may not be '.'") },
    { name: 'name .. escaped', req: get(`${cms}/%2E%2E`), ...nameInvalid('..', "may not be '..'") },
    { name: 'name with an escaped %', req: get(`${cms}/a%25b`), ...nameInvalid('a%b', "may not contain '%'") },
    { name: 'delete of name ..', req: { method: 'DELETE', path: `${cms}/..` }, ...nameInvalid('..', "may not be '..'") },
    { name: 'patch of name ..', req: { method: 'PATCH', path: `${cms}/..`, body: '{}', headers: { 'content-type': MergePatch } }, ...nameInvalid('..', "may not be '..'") },
    { name: 'update of name ..', req: { method: 'PUT', path: `${cms}/..`, body: '{"metadata":{"name":".."}}' }, ...nameInvalid('..', "may not be '..'") },
    { name: 'scale of name ..', req: get(`${deployments}/../scale`), ...nameInvalid('..', "may not be '..'") },
    // Go splits the decoded path: `a%2Fb` is object a's subresource b.
    { name: 'escaped slash in a name', req: get(`${cms}/base%2Fstatus`), ...notFound },
    { name: '.. through an escaped slash', req: get(`${cms}/base%2F..%2F..%2Fsecrets`), ...notFound },
    { name: 'malformed escape in a name', req: get(`${cms}/%zz`), code: 400, reason: 'BadRequest', message: 'invalid URL escape "%zz"' },
    { name: 'malformed escape in a namespace', req: get('/api/v1/namespaces/%zz/configmaps'), code: 400, reason: 'BadRequest', message: 'invalid URL escape "%zz"' },
    { name: 'a name of 300 characters', req: get(`${cms}/${'a'.repeat(300)}`), code: 404, reason: 'NotFound', message: `configmaps "${'a'.repeat(300)}" not found` },
    { name: 'create in an invalid namespace', req: { method: 'POST', path: '/api/v1/namespaces/Bad_NS/configmaps', body: '{"metadata":{"name":"x"}}' }, code: 404, reason: 'NotFound', message: 'namespaces "Bad_NS" not found' },
    { name: 'PUT on a collection', req: { method: 'PUT', path: cms, body: '{}' }, ...notAllowed },
    { name: 'PATCH on a collection', req: { method: 'PATCH', path: cms, body: '{}', headers: { 'content-type': MergePatch } }, ...notAllowed },
    { name: 'POST to an object', req: { method: 'POST', path: `${cms}/base`, body: '{}' }, ...notAllowed },
    { name: 'DELETE of a status', req: { method: 'DELETE', path: `${deployments}/web/status` }, ...notAllowed },
    { name: 'POST to a group version', req: { method: 'POST', path: '/apis/apps/v1', body: '{}' }, ...notAllowed },
    { name: 'POST to /version', req: { method: 'POST', path: '/version', body: '{}' }, ...notAllowed },
    { name: 'OPTIONS on a collection', req: { method: 'OPTIONS', path: cms }, ...notAllowed },
    { name: 'HEAD on an object', req: { method: 'HEAD', path: `${cms}/base` }, code: 405, plain: '' },
    { name: 'list of a review kind', req: get(ssar), ...notAllowed },
    // A kind kube lists but does not watch: its list handler refuses the watch by name.
    { name: 'watch of componentstatuses', req: get('/api/v1/componentstatuses?watch=1'), code: 405, reason: 'MethodNotAllowed', message: 'watch is not supported on resources of kind "componentstatuses"' },
    // kube decodes a custom resource's metadata into ObjectMeta (GetObjectMetaWithOptions).
    { name: 'custom resource metadata of the wrong type', req: { method: 'POST', path: widgets, body: JSON.stringify({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'bad-meta', labels: { a: 1 } } }) },
      code: 400, reason: 'BadRequest', message: 'Widget in version "v1" cannot be handled as a Widget: json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string' },
    { name: 'an unknown version under /api', req: get('/api/v9/namespaces/mal/configmaps'), ...notFound },
    { name: 'segments after a status subresource', req: get(`${deployments}/web/status/x/y`), ...notFound },
    // kube's 1 MiB of headers (Go's MaxHeaderBytes), not Node's 16 KiB: a 100 KB selector reaches the handler.
    { name: 'a 100 KB field selector', req: get(`${cms}?fieldSelector=${'x'.repeat(100_000)}%3D1`), code: 400, reason: 'BadRequest', message: `"${'x'.repeat(100_000)}" is not a known field selector: only "metadata.name", "metadata.namespace"` },
  ];
}

export function allCases(): Case[] {
  return [...bodyCases(), ...patchCases(), ...negotiationCases(), ...queryCases(), ...pathCases()];
}

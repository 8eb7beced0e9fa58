import { decodeProtobuf } from './codec.js';
import { protoRoot } from './schema.js';

/** A body as client-go's protobuf serializer writes it: magic, then runtime.Unknown around the message. */
function encode(apiVersion: string, kind: string, typeName: string, object: Record<string, unknown>): Buffer {
  const root = protoRoot();
  const type = root.lookupType(typeName);
  const raw = type.encode(type.fromObject(object)).finish();
  const unknown = root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');
  const envelope = unknown.encode(unknown.fromObject({ typeMeta: { apiVersion, kind }, raw })).finish();
  return Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), Buffer.from(envelope)]);
}

test('embedded Go structs (json:",inline") are flattened into their parent, as kube\'s JSON writes them', () => {
  // kubectl create ingress sends this: IngressRule's IngressRuleValue is proto field 2 but inline in JSON.
  const body = encode('networking.k8s.io/v1', 'Ingress', 'k8s.io.api.networking.v1.Ingress', {
    metadata: { name: 'web' },
    spec: { rules: [{ host: 'foo.com', ingressRuleValue: { http: { paths: [{ path: '/bar', pathType: 'Prefix', backend: { service: { name: 'svc', port: { number: 8080 } } } }] } } }] },
  });
  const { object } = decodeProtobuf(body, { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' });
  expect((object.spec as any).rules).toEqual([{ host: 'foo.com', http: { paths: [{ path: '/bar', pathType: 'Prefix', backend: { service: { name: 'svc', port: { number: 8080 } } } }] } }]);
});

test('volumes, probes and envFrom references decode to their JSON names', () => {
  const body = encode('v1', 'Pod', 'k8s.io.api.core.v1.Pod', {
    metadata: { name: 'p' },
    spec: {
      volumes: [{ name: 'cfg', volumeSource: { configMap: { localObjectReference: { name: 'settings' } } } }],
      containers: [{
        name: 'c', image: 'nginx',
        envFrom: [{ secretRef: { localObjectReference: { name: 'creds' } } }],
        readinessProbe: { handler: { httpGet: { path: '/healthz', port: { type: 0, intVal: 80 } } }, periodSeconds: 5 },
      }],
    },
  });
  const spec = decodeProtobuf(body, { group: '', version: 'v1', kind: 'Pod' }).object.spec as any;
  expect(spec.volumes).toEqual([{ name: 'cfg', configMap: { name: 'settings' } }]);
  expect(spec.containers[0].envFrom).toEqual([{ secretRef: { name: 'creds' } }]);
  expect(spec.containers[0].readinessProbe).toEqual({ httpGet: { path: '/healthz', port: 80 }, periodSeconds: 5 });
});

test('proto field names that differ from the JSON name in case are renamed', () => {
  const body = encode('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', 'k8s.io.api.admissionregistration.v1.ValidatingWebhookConfiguration', {
    metadata: { name: 'v' }, Webhooks: [{ name: 'a.example.com', sideEffects: 'None', admissionReviewVersions: ['v1'] }],
  });
  const { object } = decodeProtobuf(body, { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingWebhookConfiguration' });
  expect(object.webhooks).toEqual([{ name: 'a.example.com', sideEffects: 'None', admissionReviewVersions: ['v1'] }]);
  expect(object).not.toHaveProperty('Webhooks');
});

/**
 * storage.k8s.io/v1 kinds, PriorityClasses and RuntimeClasses: kube 1.35's defaults, messages,
 * field paths, immutable fields and printers.
 */
import { fieldErrorString, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { storageClasses, storageClassNameCell } from './storageclasses.js';
import { csiDrivers } from './csidrivers.js';
import { csiNodes } from './csinodes.js';
import { csiStorageCapacities } from './csistoragecapacities.js';
import { volumeAttachments } from './volumeattachments.js';
import { volumeAttributesClasses } from './volumeattributesclasses.js';
import { priorityClasses } from '../scheduling/priorityclasses.js';
import { runtimeClasses } from '../node/runtimeclasses.js';

const msgs = (errs: FieldError[]) => errs.map(fieldErrorString);
const prepared = (def: KindDefinition, obj: KubeObject) => {
  def.strategy!.normalize?.(obj);
  def.strategy!.defaults?.(obj);
  def.strategy!.prepareForCreate?.(obj);
  return obj;
};
const validate = (def: KindDefinition, obj: KubeObject) => msgs(def.strategy!.validate!(prepared(def, obj)));
const update = (def: KindDefinition, obj: KubeObject, old: KubeObject) => msgs(def.strategy!.validateUpdate!(prepared(def, obj), prepared(def, old)));

describe('StorageClasses', () => {
  test('defaults, messages, immutable parameters, printer', () => {
    const sc = prepared(storageClasses, { metadata: { name: 'std' }, provisioner: 'ebs.csi.aws.com' });
    expect([sc.reclaimPolicy, sc.volumeBindingMode]).toEqual(['Delete', 'Immediate']);
    expect(validate(storageClasses, { metadata: { name: 'std' } })).toEqual(['provisioner: Required value']);
    expect(validate(storageClasses, { metadata: { name: 'std' }, provisioner: 'p', volumeBindingMode: 'Eventually' })).toEqual(['volumeBindingMode: Unsupported value: "Eventually": supported values: "Immediate", "WaitForFirstConsumer"']);
    expect(update(storageClasses, { metadata: { name: 'std' }, provisioner: 'p', parameters: { type: 'io2' } }, { metadata: { name: 'std' }, provisioner: 'p' })).toEqual(['parameters: Forbidden: updates to parameters are forbidden.']);
    expect(storageClasses.table!.cells(sc).slice(0, 5)).toEqual(['std', 'ebs.csi.aws.com', 'Delete', 'Immediate', false]);
    expect(storageClassNameCell({ metadata: { name: 'std', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } })).toBe('std (default)');
  });
});

describe('CSIDrivers', () => {
  test('defaults (seLinuxMount with SELinuxMountReadWriteOncePod on) and messages', () => {
    const d = prepared(csiDrivers, { metadata: { name: 'csi.example.com' }, spec: {} });
    expect(d.spec).toEqual({ attachRequired: true, podInfoOnMount: false, storageCapacity: false, fsGroupPolicy: 'ReadWriteOnceWithFSType', volumeLifecycleModes: ['Persistent'], requiresRepublish: false, seLinuxMount: false });
    expect(validate(csiDrivers, { metadata: { name: 'd.example.com' }, spec: { volumeLifecycleModes: ['Temporary'] } })).toEqual(['spec.volumeLifecycleModes: Unsupported value: "Temporary": supported values: "Persistent", "Ephemeral"']);
    expect(validate(csiDrivers, { metadata: { name: 'd.example.com' }, spec: { tokenRequests: [{ audience: 'a' }, { audience: 'a' }] } })).toEqual(['spec.tokenRequests[1].audience: Duplicate value: "a"']);
    expect(validate(csiDrivers, { metadata: { name: 'd.example.com' }, spec: { tokenRequests: [{ audience: 'a', expirationSeconds: 60 }] } })).toEqual(['spec.tokenRequests[0].expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes']);
    expect(validate(csiDrivers, { metadata: { name: 'Bad_Name' }, spec: {} })[0]).toMatch(/^name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
    expect(update(csiDrivers, { metadata: { name: 'd' }, spec: { attachRequired: false } }, { metadata: { name: 'd' }, spec: {} })).toEqual(['spec.attachedRequired: Invalid value: false: field is immutable']);
  });

  test('a change to a mutable field bumps the generation', () => {
    const old = prepared(csiDrivers, { metadata: { name: 'd' }, spec: {} });
    const next = prepared(csiDrivers, { metadata: { name: 'd' }, spec: { podInfoOnMount: true } });
    csiDrivers.strategy!.prepareForUpdate!(next, old);
    expect(next.metadata.generation).toBe(1);
  });
});

describe('CSINodes, CSIStorageCapacities, VolumeAttachments, VolumeAttributesClasses', () => {
  test('CSINode drivers', () => {
    expect(validate(csiNodes, { metadata: { name: 'n' }, spec: { drivers: [{ name: 'a.example.com', nodeID: 'n' }, { name: 'a.example.com', nodeID: 'm' }] } })).toEqual(['spec.drivers[1].name: Duplicate value: "a.example.com"']);
    expect(validate(csiNodes, { metadata: { name: 'n' }, spec: { drivers: [{ name: 'a.example.com' }] } })).toEqual(['spec.drivers[0].nodeID: Required value']);
  });

  test('CSIStorageCapacity topology', () => {
    expect(validate(csiStorageCapacities, { metadata: { name: 'c', namespace: 'ns' }, storageClassName: 'fast', nodeTopology: { matchExpressions: [{ key: 'zone', operator: 'Near' }] } })).toEqual([
      'nodeTopology.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator',
    ]);
    expect(csiStorageCapacities.table!.cells({ metadata: { name: 'c' }, storageClassName: 'gp3', capacity: '1200Gi' })).toEqual(['gp3', '1200Gi']);
  });

  test('VolumeAttachment sources and its read-only spec', () => {
    const base = { attacher: 'ebs.csi.aws.com', nodeName: 'node-a' };
    expect(validate(volumeAttachments, { metadata: { name: 'va' }, spec: { nodeName: 'node-a', source: { persistentVolumeName: 'pv-1' } } })).toEqual([
      'spec.attacher: Required value', 'spec.attacher: Required value',
      "spec.attacher: Invalid value: \"\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]);
    expect(validate(volumeAttachments, { metadata: { name: 'va' }, spec: { ...base, source: {} } })).toEqual(['spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName']);
    expect(update(volumeAttachments, { metadata: { name: 'va' }, spec: { ...base, nodeName: 'node-z', source: { persistentVolumeName: 'pv-1' } } }, { metadata: { name: 'va' }, spec: { ...base, source: { persistentVolumeName: 'pv-1' } } })).toEqual([
      'spec: Invalid value: storage.VolumeAttachmentSpec{Attacher:"ebs.csi.aws.com", Source:storage.VolumeAttachmentSource{PersistentVolumeName:(*string)(0xc000000000), InlineVolumeSpec:(*core.PersistentVolumeSpec)(nil)}, NodeName:"node-z"}: field is immutable',
    ]);
  });

  test('VolumeAttributesClass needs parameters', () => {
    expect(validate(volumeAttributesClasses, { metadata: { name: 'gold' }, driverName: 'ebs.csi.aws.com' })).toEqual(['parameters: Required value: must contain at least one key/value pair']);
  });
});

describe('PriorityClasses and RuntimeClasses', () => {
  test('PriorityClass rules', () => {
    expect(prepared(priorityClasses, { metadata: { name: 'high' } }).preemptionPolicy).toBe('PreemptLowerPriority');
    expect(validate(priorityClasses, { metadata: { name: 'high' }, value: 2000000000 })).toEqual(['value: Forbidden: maximum allowed value of a user defined priority is 1000000000']);
    expect(validate(priorityClasses, { metadata: { name: 'system-x' }, value: 1 })).toEqual(["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-x is not a known system priority class"]);
    expect(validate(priorityClasses, { metadata: { name: 'system-cluster-critical' }, value: 2000000000 })).toEqual([]);
    expect(update(priorityClasses, { metadata: { name: 'high' }, value: 2 }, { metadata: { name: 'high' }, value: 1 })).toEqual(['value: Forbidden: may not be changed in an update.']);
  });

  test('RuntimeClass handler and tolerations', () => {
    expect(validate(runtimeClasses, { metadata: { name: 'rc' }, handler: 'runsc', scheduling: { tolerations: [{ key: 'k', operator: 'Exists', value: 'v' }] } })).toEqual([
      "scheduling.tolerations.tolerations[0].operator: Invalid value: core.Toleration{Key:\"k\", Operator:\"Exists\", Value:\"v\", Effect:\"\", TolerationSeconds:(*int64)(nil)}: value must be empty when `operator` is 'Exists'",
    ]);
    expect(update(runtimeClasses, { metadata: { name: 'rc' }, handler: 'runc' }, { metadata: { name: 'rc' }, handler: 'runsc' })).toEqual(['handler: Invalid value: "runc": field is immutable']);
  });
});

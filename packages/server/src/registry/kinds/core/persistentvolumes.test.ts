/**
 * PersistentVolumes and PersistentVolumeClaims: kube 1.35's defaults, create-time status,
 * validation messages and field paths, the immutable-spec diff, data-source rules, printers
 * and the admission plugins acting on them.
 */
import { fieldErrorString, type FieldError } from '@windlass/machinery';
import type { AdmissionAttributes, KindDefinition, KubeObject } from '../../types.js';
import { persistentVolumes } from './persistentvolumes.js';
import { persistentVolumeClaims } from './persistentvolumeclaims.js';
import { storageObjectInUseProtection } from '../../../admission/storageobjectinuseprotection.js';
import { defaultStorageClass } from '../../../admission/defaultstorageclass.js';
import { persistentVolumeClaimResize } from '../../../admission/persistentvolumeclaimresize.js';

const msgs = (errs: FieldError[]) => errs.map(fieldErrorString);

function create(def: KindDefinition, body: KubeObject): KubeObject {
  const obj = structuredClone(body);
  def.strategy!.defaults?.(obj);
  delete obj.status;
  def.strategy!.prepareForCreate?.(obj);
  return obj;
}

const pv = (spec: Record<string, unknown>, name = 'pv-1'): KubeObject => ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name }, spec });
const pvc = (spec: Record<string, unknown>, name = 'data'): KubeObject => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: 'ns' }, spec });

describe('PersistentVolumes', () => {
  test('defaults and create-time status', () => {
    const obj = create(persistentVolumes, pv({ accessModes: ['ReadWriteOnce'], capacity: { storage: '10Gi' }, hostPath: { path: '/mnt/data' } }));
    expect(obj.spec).toEqual({ accessModes: ['ReadWriteOnce'], capacity: { storage: '10Gi' }, hostPath: { path: '/mnt/data', type: '' }, persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem' });
    expect((obj.status as { phase: string }).phase).toBe('Pending');
    expect(typeof (obj.status as { lastPhaseTransitionTime: string }).lastPhaseTransitionTime).toBe('string');
  });

  test("validation with kube's messages", () => {
    const v = (spec: Record<string, unknown>) => msgs(persistentVolumes.strategy!.validate!(create(persistentVolumes, pv(spec))));
    expect(v({ accessModes: ['ReadWriteOnce'], hostPath: { path: '/mnt' } })).toEqual([
      'spec.capacity: Required value',
      'spec.capacity: Unsupported value: core.ResourceList(nil): supported values: "storage"',
    ]);
    expect(v({ accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } })).toEqual(['spec: Required value: must specify a volume type']);
    expect(v({ accessModes: ['ReadWriteSometimes'], capacity: { storage: '1Gi' }, hostPath: { path: '/m' } })).toEqual([
      'spec.accessModes: Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
    ]);
    expect(v({ accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, hostPath: { path: '/m' }, persistentVolumeReclaimPolicy: 'Keep' })).toEqual([
      'spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"',
    ]);
    expect(v({ accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, local: { path: '/dev/x' } })).toEqual(['spec.nodeAffinity: Required value: Local volume requires node affinity']);
    expect(v({ accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, hostPath: { path: '/m' }, nfs: { server: 's', path: '/x' } })).toEqual(['spec.nfs: Forbidden: may not specify more than 1 volume type']);
  });

  test('the volume source is immutable, with the diff go-cmp prints', () => {
    const old = create(persistentVolumes, pv({ accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, nfs: { server: 'a', path: '/x' } }));
    const next = structuredClone(old);
    (next.spec as { nfs: { server: string } }).nfs.server = 'b';
    const errs = msgs(persistentVolumes.strategy!.validateUpdate!(next, old));
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(/^spec\.persistentvolumesource: Forbidden: spec\.persistentvolumesource is immutable after creation\n {2}core\.PersistentVolumeSource\{\n/);
    expect(errs[0]).toContain('- \t\tServer: "a",');
  });

  test('status writes keep the spec and stamp phase transitions', () => {
    const old = create(persistentVolumes, pv({ accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, nfs: { server: 'a', path: '/x' } }));
    (old.status as Record<string, unknown>).lastPhaseTransitionTime = '2020-01-01T00:00:00Z';
    const next = { ...structuredClone(old), spec: { changed: true }, status: { phase: 'Available' } } as KubeObject;
    persistentVolumes.subresourceStrategies!.status.prepareForUpdate!(next, old);
    expect(next.spec).toEqual(old.spec);
    expect((next.status as Record<string, string>).lastPhaseTransitionTime).not.toBe('2020-01-01T00:00:00Z');
    const same = { ...structuredClone(old), status: { phase: 'Pending' } } as KubeObject;
    persistentVolumes.subresourceStrategies!.status.prepareForUpdate!(same, old);
    expect((same.status as Record<string, string>).lastPhaseTransitionTime).toBe('2020-01-01T00:00:00Z');
  });

  test('printer', () => {
    const obj = create(persistentVolumes, pv({ accessModes: ['ReadWriteMany', 'ReadWriteOnce'], capacity: { storage: '1024Mi' }, claimRef: { namespace: 'ns', name: 'c' }, nfs: { server: 'a', path: '/x' }, storageClassName: 'gp3' }));
    const cells = persistentVolumes.table!.cells(obj);
    expect([cells[0], cells[1], cells[2], cells[3], cells[4], cells[5], cells[6], cells[7], cells[9]]).toEqual(['1Gi', 'RWO,RWX', 'Retain', 'Pending', 'ns/c', 'gp3', '<unset>', '', 'Filesystem']);
  });
});

describe('PersistentVolumeClaims', () => {
  test('defaults, Pending, and a dataSource kube cannot populate from dropped', () => {
    const obj = create(persistentVolumeClaims, pvc({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, dataSource: { kind: 'Secret', name: 'x' } }));
    expect(obj.spec).toEqual({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' });
    expect(obj.status).toEqual({ phase: 'Pending' });
    const cloned = create(persistentVolumeClaims, pvc({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, dataSource: { kind: 'PersistentVolumeClaim', name: 'src' } }));
    expect((cloned.spec as Record<string, unknown>).dataSourceRef).toEqual({ kind: 'PersistentVolumeClaim', name: 'src' });
  });

  test("validation with kube's messages", () => {
    const v = (spec: Record<string, unknown>) => msgs(persistentVolumeClaims.strategy!.validate!(create(persistentVolumeClaims, pvc(spec))));
    expect(v({ resources: { requests: { storage: '1Gi' } } })).toEqual(['spec.accessModes: Required value: at least 1 access mode is required']);
    expect(v({ accessModes: ['ReadWriteOnce'], resources: {} })).toEqual(['spec.resources[storage]: Required value']);
    expect(v({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '0' } } })).toEqual(['spec.resources[storage]: Invalid value: "0": must be greater than zero']);
    expect(v({ accessModes: ['ReadWriteOncePod', 'ReadWriteOnce'], resources: { requests: { storage: '1' } } })).toEqual(['spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes']);
  });

  test('the spec is immutable but for bound requests, with the diff go-cmp prints', () => {
    const old = create(persistentVolumeClaims, pvc({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } }));
    const next = structuredClone(old);
    (next.spec as { resources: { requests: { storage: string } } }).resources.requests.storage = '2Gi';
    const errs = msgs(persistentVolumeClaims.strategy!.validateUpdate!(next, old));
    expect(errs).toEqual([
      'spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n'
      + '  core.PersistentVolumeClaimSpec{\n'
      + '  \tAccessModes: {"ReadWriteOnce"},\n'
      + '  \tSelector:    nil,\n'
      + '  \tResources: core.VolumeResourceRequirements{\n'
      + '  \t\tLimits: nil,\n'
      + '- \t\tRequests: core.ResourceList{\n'
      + '- \t\t\ts"storage": {i: resource.int64Amount{value: 1073741824}, s: "1Gi", Format: "BinarySI"},\n'
      + '- \t\t},\n'
      + '+ \t\tRequests: core.ResourceList{\n'
      + '+ \t\t\ts"storage": {i: resource.int64Amount{value: 2147483648}, s: "2Gi", Format: "BinarySI"},\n'
      + '+ \t\t},\n'
      + '  \t},\n'
      + '  \tVolumeName:       "",\n'
      + '  \tStorageClassName: nil,\n'
      + '  \t... // 4 identical fields\n'
      + '  }\n',
    ]);
    (old.status as Record<string, string>).phase = 'Bound';
    (next.status as Record<string, string>).phase = 'Bound';
    expect(msgs(persistentVolumeClaims.strategy!.validateUpdate!(next, old))).toEqual([]);
    // A class may be set on a claim that had none.
    const classed = structuredClone(old);
    (classed.spec as Record<string, unknown>).storageClassName = 'fast';
    expect(msgs(persistentVolumeClaims.strategy!.validateUpdate!(classed, old))).toEqual([]);
  });

  test('printer', () => {
    const obj = create(persistentVolumeClaims, pvc({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'fast' }));
    const cells = persistentVolumeClaims.table!.cells(obj);
    expect([cells[0], cells[1], cells[2], cells[3], cells[4], cells[5], cells[7]]).toEqual(['Pending', '', '', '', 'fast', '<unset>', 'Filesystem']);
  });
});

describe('storage admission', () => {
  const attrs = (obj: KubeObject, extra: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
    operation: 'CREATE', subresource: '', obj, dryRun: false, user: { name: 'u', groups: [] }, ctx: undefined as never, lookup: () => undefined, warn: () => {}, ...extra,
  });

  test('StorageObjectInUseProtection adds the protection finalizers once', () => {
    const v = pv({});
    storageObjectInUseProtection.mutate!(attrs(v));
    storageObjectInUseProtection.mutate!(attrs(v));
    expect(v.metadata.finalizers).toEqual(['kubernetes.io/pv-protection']);
    const c = pvc({});
    storageObjectInUseProtection.mutate!(attrs(c));
    expect(c.metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);
  });

  test('DefaultStorageClass picks the newest default class', async () => {
    const classes: KubeObject[] = [
      { metadata: { name: 'old', creationTimestamp: '2020-01-01T00:00:00Z', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } },
      { metadata: { name: 'new', creationTimestamp: '2021-01-01T00:00:00Z', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } },
      { metadata: { name: 'plain', creationTimestamp: '2022-01-01T00:00:00Z' } },
    ];
    const lookup = () => ({ list: async () => classes, get: async () => undefined, create: async (_n: string, o: KubeObject) => o, delete: async () => {} });
    const c = pvc({ accessModes: ['ReadWriteOnce'] });
    await defaultStorageClass.mutate!(attrs(c, { lookup }));
    expect((c.spec as Record<string, unknown>).storageClassName).toBe('new');
    const explicit = pvc({ storageClassName: '' });
    await defaultStorageClass.mutate!(attrs(explicit, { lookup }));
    expect((explicit.spec as Record<string, unknown>).storageClassName).toBe('');
  });

  test('PersistentVolumeClaimResize: only bound claims grow', async () => {
    const old = pvc({ resources: { requests: { storage: '1Gi' } } });
    (old as Record<string, unknown>).status = { phase: 'Pending' };
    const next = pvc({ resources: { requests: { storage: '2Gi' } } });
    await expect(persistentVolumeClaimResize.validate!(attrs(next, { operation: 'UPDATE', old }))).rejects.toThrow('persistentvolumeclaims "data" is forbidden: Only bound persistent volume claims can be expanded');
  });
});

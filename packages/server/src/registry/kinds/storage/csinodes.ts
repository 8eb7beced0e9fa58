/**
 * storage.k8s.io/v1 CSINodes: ValidateCSINode(Update) (driver names, node IDs up to 256
 * characters, topology keys; an existing driver entry may only change its allocatable count),
 * the printer. An empty driver list is stored as null, as kube's protobuf round trip does.
 */
import { fieldErr, isQualifiedName, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { nameIsDNSSubdomain } from '../../names.js';
import { duplicate } from '../../validation/goformat.js';
import { validateCSIDriverName } from '../../validation/persistentvolumesource.js';
import { validateMetadataKubeFinalizers } from '../../validation/finalizers.js';
import { isObject, obj, str } from './common.js';
import { sameJSON } from '../core/persistentvolumes.js';

type CSINode = KubeObject & { spec?: Record<string, unknown> };

const csiNodeIDLongerMaxLength = 256;

function validateCSINode(node: CSINode): FieldError[] {
  const errs = validateMetadataKubeFinalizers(node.metadata);
  const names = new Set<string>();
  const drivers = Array.isArray(obj(node.spec).drivers) ? obj(node.spec).drivers as unknown[] : [];
  drivers.forEach((raw, i) => {
    const d = obj(raw);
    const p = `spec.drivers[${i}]`;
    const name = str(d.name);
    errs.push(...validateCSIDriverName(name, `${p}.name`));
    const nodeID = str(d.nodeID);
    if (nodeID.length === 0) errs.push(fieldErr.required(`${p}.nodeID`));
    if (nodeID.length > csiNodeIDLongerMaxLength) errs.push(fieldErr.invalid(`${p}.nodeID`, nodeID, `must be ${csiNodeIDLongerMaxLength} characters or less`));
    const count = obj(d.allocatable).count;
    if (typeof count === 'number' && count < 0) errs.push(fieldErr.invalid(`${p}.allocatable.count`, count, 'must be greater than or equal to 0'));
    if (names.has(name)) errs.push(duplicate(`${p}.name`, name));
    const keys = new Set<string>();
    for (const key of Array.isArray(d.topologyKeys) ? d.topologyKeys.map(String) : []) {
      if (key.length === 0) errs.push(fieldErr.required(p));
      if (keys.has(key)) errs.push(duplicate(p, key));
      keys.add(key);
      for (const m of isQualifiedName(key)) errs.push(fieldErr.invalid(p, key, m));
    }
    names.add(name);
  });
  return errs;
}

function validateCSINodeUpdate(node: CSINode, old: CSINode): FieldError[] {
  const errs: FieldError[] = [];
  const drivers = (n: CSINode) => (Array.isArray(obj(n.spec).drivers) ? (obj(n.spec).drivers as unknown[]).map(obj) : []);
  for (const o of drivers(old)) {
    for (const n of drivers(node)) {
      if (o.name !== n.name) continue;
      // The allocatable count may change (MutableCSINodeAllocatableCount); the rest of an entry may not.
      const { allocatable: _a, ...oRest } = o;
      const { allocatable: _b, ...nRest } = n;
      if (!sameJSON(oRest, nRest)) errs.push(fieldErr.invalid('CSINodeDriver', n, 'field is immutable'));
    }
  }
  return errs;
}

export const csiNodes: KindDefinition = {
  group: 'storage.k8s.io', version: 'v1', resource: 'csinodes',
  strategy: {
    nameValidator: nameIsDNSSubdomain,
    validate: (o) => validateCSINode(o as CSINode),
    validateUpdate: (o, old) => [...validateCSINode(o as CSINode), ...validateCSINodeUpdate(o as CSINode, old as CSINode)],
  },
  table: {
    columns: [column('Drivers', 'integer', 'Drivers indicates the number of CSI drivers registered on the node'), ageColumn],
    cells: (o) => [Array.isArray(obj((o as CSINode).spec).drivers) ? (obj((o as CSINode).spec).drivers as unknown[]).length : 0, ageOf(o.metadata.creationTimestamp)],
  },
};

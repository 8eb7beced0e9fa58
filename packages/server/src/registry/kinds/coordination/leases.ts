import type { KubeObject, ResourceDefinition } from '../../types.js';
import { nameIsDNSSubdomain } from '../../names.js';
import { ageColumn, column, standardVerbs } from '../common.js';
import { ageOf } from '../../age.js';

type Lease = KubeObject & { spec?: { holderIdentity?: string } };

export const leases: ResourceDefinition = {
  group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', listKind: 'LeaseList', resource: 'leases', singularName: 'lease',
  namespaced: true, verbs: standardVerbs, storageVersionHash: 'gqkMMb/YqFM=',
  strategy: { nameValidator: nameIsDNSSubdomain },
  table: {
    columns: [column('Holder', 'string', 'The holder of the lease'), ageColumn],
    cells: (obj) => [(obj as Lease).spec?.holderIdentity ?? '', ageOf(obj.metadata.creationTimestamp)],
  },
};

import type { KindDefinition } from '../../types.js';
import { configMaps } from './configmaps.js';
import { endpoints } from './endpoints.js';
import { events } from './events.js';
import { limitRanges } from './limitranges.js';
import { namespaces } from './namespaces.js';
import { nodes } from './nodes.js';
import { persistentVolumeClaims } from './persistentvolumeclaims.js';
import { persistentVolumes } from './persistentvolumes.js';
import { resourceQuotas } from './resourcequotas.js';
import { pods } from './pods.js';
import { podTemplates } from './podtemplates.js';
import { replicationControllers } from './replicationcontrollers.js';
import { secrets } from './secrets.js';
import { serviceAccounts } from './serviceaccounts.js';
import { services } from './services.js';

/** k8s.io/api core/v1 lifecycle.go: deprecated in 1.19, no replacement. */
const componentStatuses: KindDefinition = { group: '', version: 'v1', resource: 'componentstatuses', deprecation: 'v1 ComponentStatus is deprecated in v1.19+' };

export const definitions: KindDefinition[] = [componentStatuses, namespaces, configMaps, secrets, services, endpoints, nodes, events, persistentVolumes, persistentVolumeClaims, resourceQuotas, limitRanges, serviceAccounts, pods, podTemplates, replicationControllers];

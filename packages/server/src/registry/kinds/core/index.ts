import type { KindDefinition } from '../../types.js';
import { configMaps } from './configmaps.js';
import { endpoints } from './endpoints.js';
import { events } from './events.js';
import { namespaces } from './namespaces.js';
import { nodes } from './nodes.js';
import { persistentVolumeClaims } from './persistentvolumeclaims.js';
import { persistentVolumes } from './persistentvolumes.js';
import { secrets } from './secrets.js';
import { services } from './services.js';

export const definitions: KindDefinition[] = [namespaces, configMaps, secrets, services, endpoints, nodes, events, persistentVolumes, persistentVolumeClaims];

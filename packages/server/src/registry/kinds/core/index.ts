import type { KindDefinition } from '../../types.js';
import { configMaps } from './configmaps.js';
import { namespaces } from './namespaces.js';
import { secrets } from './secrets.js';

export const definitions: KindDefinition[] = [namespaces, configMaps, secrets];

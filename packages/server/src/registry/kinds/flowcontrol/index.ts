import type { KindDefinition } from '../../types.js';
import { flowSchemas } from './flowschemas.js';
import { priorityLevelConfigurations } from './prioritylevelconfigurations.js';

export const definitions: KindDefinition[] = [flowSchemas, priorityLevelConfigurations];
